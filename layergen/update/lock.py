"""The lock: what layergen generated last, the base of every 3-way merge.

Two parts, both committed with the code:

- `layergen.lock` beside pyproject.toml, a short index: for each generated file
  (relative to the project root) the digest of the text generated for it, and a digest
  that ties that text to the template output black formatted it from (so an unchanged
  rendering skips black; a text and a source that do not belong together never match).
- `.layergen/base/`, the generated texts themselves, one file per generated file, named
  after it and its digest (`layers/dense.py.1f2e3d4c5b6a`). A new text gets a new name,
  so a run killed between two renames never leaves the index pointing at the wrong
  text; texts nothing points to are deleted once the index is written.

A member of a generated file that differs from its base was edited by a person.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError

NAME = "layergen.lock"
BASES = Path(".layergen") / "base"
VERSION = 2
_DIGITS = 12  # of the digest, in a base file's name


@dataclass(frozen=True)
class Entry:
    digest: str  # sha256 of the generated text
    tie: str | None = None  # ties the text to its unformatted source


class Lock:
    def __init__(
        self,
        root: Path,
        entries: dict[str, Entry] | None = None,
        texts: dict[str, str] | None = None,
    ):
        self.root = root
        self.entries = dict(entries or {})
        self._texts = dict(texts or {})  # key -> text, read lazily or recorded in this run

    @property
    def path(self) -> Path:
        return self.root / NAME

    @classmethod
    def read(cls, root: Path) -> Lock:
        """The lock as committed; a lock that cannot be read stops the run (never silently dropped)."""
        path = root / NAME
        if not path.is_file():
            return cls(root)
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith(("<<<<<<<", "=======", ">>>>>>>")):
                raise DiagnosticError(
                    [
                        _unreadable(
                            path,
                            number,
                            "it holds merge conflict markers",
                            "keep one side of the conflict, then run layergen again",
                        )
                    ]
                )
        try:
            data = json.loads(text)
            if data.get("version") == 1:  # the whole texts inline: read them, write the new form
                files = data["files"]
                texts = {k: v["generated"] for k, v in files.items()}
                entries = {k: Entry(_digest(t)) for k, t in texts.items()}
                return cls(root, entries, texts)
            entries = {k: Entry(v["digest"], v.get("source")) for k, v in data["files"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DiagnosticError(
                [
                    _unreadable(
                        path,
                        1,
                        f"it is not a layergen lock ({exc})",
                        "restore it from version control, or delete it to start over",
                    )
                ]
            ) from None
        return cls(root, entries)

    def base(self, path: Path) -> str | None:
        """The text generated last time for `path`, or None if it never was."""
        key = self._key(path)
        if key not in self._texts:
            entry = self.entries.get(key)
            if entry is None:
                return None
            file = self.root / BASES / f"{key}.{entry.digest[:_DIGITS]}"
            try:
                text = file.read_text(encoding="utf-8")
            except OSError:
                text = None
            if text is None or _digest(text) != entry.digest:
                raise DiagnosticError(
                    [
                        _unreadable(
                            self.path,
                            1,
                            f"the base text of {key} is missing or altered ({file.relative_to(self.root).as_posix()})",
                            "restore .layergen/ from version control with the lock",
                        )
                    ]
                )
            self._texts[key] = text
        return self._texts[key]

    def formatted(self, path: Path, source_digest: str) -> str | None:
        """The generated text, if it was formatted from the source with this digest."""
        key = self._key(path)
        entry = self.entries.get(key)
        if entry is None or entry.tie is None:
            return None
        text = self.base(path)
        return text if text is not None and entry.tie == _tie(source_digest, text) else None

    def record(self, path: Path, generated: str, source_digest: str | None = None) -> None:
        key = self._key(path)
        self._texts[key] = generated
        self.entries[key] = Entry(
            _digest(generated), _tie(source_digest, generated) if source_digest else None
        )

    def files(self) -> dict[Path, str]:
        """What to write: each recorded base text not on disk yet, then the index (last)."""
        out: dict[Path, str] = {}
        for key, entry in sorted(self.entries.items()):
            file = self.root / BASES / f"{key}.{entry.digest[:_DIGITS]}"
            if (
                key in self._texts and not file.exists()
            ):  # named by its digest: one on disk is this text
                out[file] = self._texts[key]
        index = {
            k: {"digest": e.digest, **({"source": e.tie} if e.tie else {})}
            for k, e in sorted(self.entries.items())
        }
        out[self.path] = json.dumps({"version": VERSION, "files": index}, indent=1) + "\n"
        return out

    def stale(self) -> list[Path]:
        """Base texts the index no longer points to (delete them once the index is written)."""
        folder = self.root / BASES
        if not folder.is_dir():
            return []
        wanted = {folder / f"{k}.{e.digest[:_DIGITS]}" for k, e in self.entries.items()}
        return [p for p in folder.rglob("*") if p.is_file() and p not in wanted]

    def is_lock_file(self, path: Path) -> bool:
        return path == self.path or path.is_relative_to(self.root / BASES)

    def _key(self, path: Path) -> str:
        # The path as given (a link is not followed), relative to the root; `..` parts
        # (a tests folder outside the project) are spelled so the base file stays inside.
        relative = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(self.root)))
        return "/".join("__up__" if part == ".." else part for part in relative.parts)


def _unreadable(path: Path, line: int, why: str, hint: str) -> Diagnostic:
    return Diagnostic(str(path), line, 1, "bad-lock", f"cannot read the lock: {why}", hint)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _tie(source_digest: str, text: str) -> str:
    return hashlib.sha256(f"{source_digest}\n{text}".encode()).hexdigest()
