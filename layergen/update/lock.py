"""The lock file: what layergen generated last, the base of every 3-way merge.

`layergen.lock` sits beside pyproject.toml; commit it with the code. It maps each
generated file (relative to the project root) to the text generated for it, so a
member that differs from it was edited by a person. With it goes a digest that
ties the text to the template output black formatted it from, so an unchanged
rendering skips black; a text and a source that do not belong together (a lock
merged by hand) never match.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

NAME = "layergen.lock"
VERSION = 1


class Lock:
    def __init__(self, root: Path, files: dict[str, str] | None = None, ties: dict[str, str] | None = None):
        self.root = root
        self.files = dict(files or {})
        self.ties = dict(ties or {})  # path -> _tie(digest of the unformatted source, files[path])

    @property
    def path(self) -> Path:
        return self.root / NAME

    @classmethod
    def read(cls, root: Path) -> "Lock":
        path = root / NAME
        if not path.is_file():
            return cls(root)
        try:
            entries = json.loads(path.read_text(encoding="utf-8")).get("files", {})
            return cls(
                root,
                {k: v["generated"] for k, v in entries.items()},
                {k: v["source"] for k, v in entries.items() if isinstance(v.get("source"), str)},
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return cls(root)  # an unreadable lock: every file is treated as hand-written

    def base(self, path: Path) -> str | None:
        return self.files.get(self._key(path))

    def formatted(self, path: Path, source_digest: str) -> str | None:
        """The generated text, if it was formatted from the source with this digest."""
        key = self._key(path)
        text = self.files.get(key)
        return text if text is not None and self.ties.get(key) == _tie(source_digest, text) else None

    def record(self, path: Path, generated: str, source_digest: str | None = None) -> None:
        key = self._key(path)
        self.files[key] = generated
        if source_digest is None:
            self.ties.pop(key, None)
        else:
            self.ties[key] = _tie(source_digest, generated)

    def text(self) -> str:
        files = {
            k: {"generated": v, **({"source": self.ties[k]} if k in self.ties else {})}
            for k, v in sorted(self.files.items())
        }
        return json.dumps({"version": VERSION, "files": files}, indent=1, ensure_ascii=False) + "\n"

    def _key(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.resolve().as_posix()


def _tie(source_digest: str, text: str) -> str:
    return hashlib.sha256(f"{source_digest}\n{text}".encode()).hexdigest()
