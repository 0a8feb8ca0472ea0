"""The lock: what layergen generated last, the base of every 3-way merge.

Two parts, both committed with the code:

- `layergen.lock` beside pyproject.toml, a short index: for each generated file
  (relative to the project root) the digest of the text generated for it, and a digest
  that ties that text to the template output black formatted it from (so an unchanged
  rendering skips black; a text and a source that do not belong together never match).
- `.layergen/base/`, the generated texts themselves, one file per generated file under its
  own path (`.layergen/base/layers/dense.py.base`): a new generation rewrites it, so a small
  declaration change is a small diff in review. Each text is taken only if its digest is
  the index's (a run killed between two writes, a lock merged by hand: no base, said);
  texts nothing points to are deleted once the index is written. Bases under the hashed
  names of layergen before 0.3 (`layers/dense.py.1f2e3d4c5b6a`) are read, and moved.
- `.layergen/undo/`, for a file whose last run can be undone, the texts that takes, as
  changes to its base (undo_file.py).

A member of a generated file that differs from its base was edited by a person.

The index also keeps, for each declaration, a `Record`: the digest of everything its
files are made from (its text, the templates, layergen's version, the configuration) and
what a run needs of it besides its files (class name, package). When a declaration's
inputs are as recorded and each of its files is exactly its base text, the files are
what a new rendering would give: the run takes them as they are, nothing parsed,
rendered or formatted. A seal over the record and its files' entries keeps a
record that does not belong with them (a lock merged by hand) from ever being used.

`Lock.read` gives a frozen lock: planning and reconcile only read it, and say what should
change as `update.changes.LockChanges`, applied to a copy (`LockChanges.applied`) just
before the write. A frozen lock raises `FrozenLock` on any change, and reading it writes
nothing: what a run reads of it once and asks again (base texts, merge bases) is kept by
the run's `LockReader`, which also says which bases are lost.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from ..diagnostics import Diagnostic, DiagnosticError
from ..textfiles import read_text

NAME = "layergen.lock"
BASES = Path(".layergen") / "base"
UNDO = Path(".layergen") / "undo"
VERSION = 2
_DIGITS = 12  # of the digest, in the name of a base file of layergen before 0.3


@dataclass(frozen=True)
class Entry:
    digest: str  # sha256 of the generated text
    tie: str | None = None  # ties the text to its unformatted source
    # Members written by hand (`hand_written`) -> digest of their generated version the person
    # last settled: when the generation of one changes, every run says so until it is settled.
    owned: tuple[tuple[str, str], ...] = ()
    # Set by a run that changed the file: (digest of the file as it was before, digest of the
    # base it was merged against), both texts kept in `.layergen/base/`. A file put back as
    # it was (an undo, a checkout), wholly or every member the run changed, is merged against
    # that base again: against the new one, the run's changes would read as hand edits
    # undoing them. Part of a run put back is a hand edit (members.put_back).
    undo: tuple[str, str] | None = None


@dataclass(frozen=True)
class Record:
    """What a run needs of a declaration whose files it takes from the lock."""

    inputs: str  # digest of everything its files are made from
    outputs: tuple[str, ...]  # keys of its generated files
    name: str = ""  # the class
    package: str = ""  # its registration package
    hand_written: tuple[str, ...] = ()  # members kept as written
    # Set when the record is written over its files' entries; None while one of them holds
    # an unsettled conflict (and in the run that renders it).
    seal: str | None = None
    # The registration package in effect when no `package` is declared: it stays the default,
    # so models saved with the class still load (empty in a lock of layergen 0.1: `package`).
    default_package: str = ""
    # Declared layouts, (path in the layer, mesh axis per dim): the folder's layout map.
    layouts: tuple[tuple[str, tuple[str | None, ...]], ...] = ()
    # The declaration is gone and the record stays for its hand-edited files (orphans): they
    # were reported, and no later declaration is taken for a rename of it by its shape.
    orphaned: bool = False
    # Digest of the declaration's text but its class name (renames.content): a declaration
    # renamed, file and class, with nothing else changed is followed by it.
    content: str = ""
    # The module's further classes, its declaration file's further documents, in order:
    # (class, registration package, members kept as written) each.
    classes: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # What rendering warned of in the declaration (line, col, code, message, hint each): a
    # run that takes its files from the lock says it again.
    warnings: tuple[tuple[int, int, str, str, str], ...] = ()

    def declared(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """Every class the declaration declares: (class, package, hand_written) each."""
        return ((self.name, self.package, self.hand_written), *self.classes)

    def sealed(self, entries: dict[str, Entry]) -> str | None:
        """The seal of this record over its files' entries; None if one is missing."""
        if any(key not in entries for key in self.outputs):
            return None
        parts = [self.inputs, self.name, self.package, self.default_package, *self.hand_written]
        if self.layouts:  # (a record without them seals as before)
            parts.append(json.dumps(self.layouts))
        if self.content:  # (likewise)
            parts.append(f"content {self.content}")
        if self.classes:  # (likewise)
            parts.append(json.dumps(self.classes))
        if self.warnings:  # (likewise)
            parts.append(json.dumps(self.warnings))
        parts.append("|")
        for key in self.outputs:
            parts += [key, entries[key].digest, entries[key].tie or ""]
        return _digest("\n".join(parts))

    def as_json(self) -> dict:
        return {
            "inputs": self.inputs,
            "outputs": list(self.outputs),
            "class": self.name,
            "package": self.package,
            **({"hand_written": list(self.hand_written)} if self.hand_written else {}),
            **({"default_package": self.default_package} if self.default_package else {}),
            **({"layouts": [list(item) for item in self.layouts]} if self.layouts else {}),
            **({"orphaned": True} if self.orphaned else {}),
            **({"content": self.content} if self.content else {}),
            **({"classes": [list(c) for c in self.classes]} if self.classes else {}),
            **({"warnings": [list(w) for w in self.warnings]} if self.warnings else {}),
            "seal": self.seal,
        }

    @classmethod
    def from_json(cls, data: dict) -> Record:
        return cls(
            data["inputs"],
            tuple(data["outputs"]),
            data["class"],
            data["package"],
            tuple(data.get("hand_written", ())),
            data["seal"],
            data.get("default_package", ""),
            tuple((path, tuple(axes)) for path, axes in data.get("layouts", ())),
            bool(data.get("orphaned", False)),
            data.get("content", ""),
            tuple((c, p, tuple(h)) for c, p, h in data.get("classes", ())),
            tuple(tuple(w) for w in data.get("warnings", ())),
        )


class FrozenLock(RuntimeError):
    """A change to the lock as read: planning says its changes (`LockChanges`) instead."""


class Lock:
    def __init__(
        self,
        root: Path,
        entries: dict[str, Entry] | None = None,
        texts: dict[str, str] | None = None,
        records: dict[str, Record] | None = None,
        handwritten: dict[str, dict] | None = None,
        *,
        frozen: bool = False,
    ):
        self.root = root
        self.frozen = frozen
        view = MappingProxyType if frozen else dict
        self.entries = view(dict(entries or {}))
        self._texts = dict(texts or {})  # key -> text generated in this run (or a v1 lock's)
        self.records = view(dict(records or {}))  # declaration key -> Record
        # test module key -> what `layergen tests` wrote it from: the hand-written module,
        # the class, and the flags given once (handwritten.py), so a rerun needs none
        self.handwritten = view(dict(handwritten or {}))
        self._rendered: dict[str, dict[str, str]] = {}  # key -> its files' rendered digests
        # key -> the texts of `Entry.undo` recorded now: the file before the run, its base
        self._undo_texts: dict[str, tuple[str, str]] = {}
        self._recorded: set[str] = set()  # keys of the texts generated in this run
        # Files of `.layergen/` that `files()` writes again from what proves them (the file
        # itself, or a base under an earlier name): no change a `--check` reports (a clone
        # that ignores `.layergen/` stays green).
        self.rebuilt: set[Path] = set()

    @property
    def path(self) -> Path:
        return self.root / NAME

    def copy(self, *, frozen: bool = False) -> Lock:
        """A lock of the same state (and the texts generated so far) to change, or to read."""
        other = Lock(
            self.root,
            dict(self.entries),
            self._texts,
            dict(self.records),
            {key: dict(entry) for key, entry in self.handwritten.items()},
            frozen=frozen,
        )
        other._rendered = {key: dict(files) for key, files in self._rendered.items()}
        other._undo_texts = dict(self._undo_texts)
        other._recorded = set(self._recorded)
        return other

    def _changing(self) -> None:
        if self.frozen:
            raise FrozenLock("the lock is read-only while a run is planned: say it in LockChanges")

    @classmethod
    def read(cls, root: Path) -> Lock:
        """The lock as committed; a lock that cannot be read stops the run (never silently dropped)."""
        path = root / NAME
        text = read_text(path, missing_ok=True)
        if text is None:
            return cls(root, frozen=True)
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
                return cls(root, entries, texts, frozen=True)
            entries = {
                k: Entry(
                    v["digest"],
                    v.get("source"),
                    tuple(sorted(v.get("owned", {}).items())),
                    (v["undo"]["before"], v["undo"]["base"]) if "undo" in v else None,
                )
                for k, v in data["files"].items()
            }
            records = {k: Record.from_json(v) for k, v in data.get("records", {}).items()}
            handwritten = dict(data.get("handwritten", {}))
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
        return cls(root, entries, records=records, handwritten=handwritten, frozen=True)

    def base(self, path: Path) -> str | None:
        """The text generated last time for `path` (read each time: a run's `LockReader`
        reads it once), or None if it never was or its text is lost."""
        key = self._key(path)
        if key in self._texts:
            return self._texts[key]
        entry = self.entries.get(key)
        if entry is None:
            return None
        return self._stored(key, entry.digest) or self._as_generated(key, entry.digest)

    def merge_base(self, path: Path, text: str) -> str | None:
        """The base to merge `text`, the file as it is, against: the text generated last time,
        or, when `text` is the file put back as it was before the run that made that text (an
        undo), wholly or member by member, the base that run merged against (`Entry.undo`).
        Worked out each time: a run's `LockReader` works it out once."""
        key = self._key(path)
        entry = self.entries.get(key)
        if entry is None or entry.undo is None:
            return self.base(path)
        return self._undone_base(key, entry, text)

    def _undone_base(self, key: str, entry: Entry, text: str) -> str | None:
        old = self._undo_text(key, entry.undo[1])
        if old is not None and _digest(text) == entry.undo[0]:
            return old
        # Put back, then edited further: merged against `old` if all the run's changes are.
        before = self._undo_text(key, entry.undo[0])  # (not stored by layergen 0.1's locks)
        new = self.base(self.root / key)
        if old is None or before is None or new is None:
            return new
        from .members import put_back

        return put_back(old, new, before, text)

    def _stored(self, key: str, digest: str) -> str | None:
        """The stored text of that digest; None when it is missing or altered (a clone of a
        repository that ignores `.layergen/` still runs)."""
        for file in (self._base_file(key), self.root / BASES / f"{key}.{digest[:_DIGITS]}"):
            text = _read(file)
            if text is not None and _digest(text) == digest:
                return text
        return None

    def _undo_text(self, key: str, digest: str) -> str | None:
        """A text an undo of `key`'s last run takes (`Entry.undo`); None when it is lost."""
        text = self._stored(key, digest)  # the base itself, or a text of layergen before 0.3
        kept = _read(self._undo_file(key)) if text is None else None
        base = self.base(self.root / key) if kept is not None else None
        if base is None:
            return text
        from . import undo_file

        return undo_file.text(kept, base, digest)

    def _as_generated(self, key: str, digest: str) -> str | None:
        """The file itself, when its text is the generation the lock records: its own base
        (`.layergen/base/` lost, nothing edited since); rebuilt when the lock is written."""
        text = _read(self.root / key)
        return text if text is not None and _digest(text) == digest else None

    def formatted(self, path: Path, source_digest: str) -> str | None:
        """The generated text, if it was formatted from the source with this digest."""
        key = self._key(path)
        entry = self.entries.get(key)
        if entry is None or entry.tie is None:
            return None
        text = self.base(path)
        return text if text is not None and entry.tie == _tie(source_digest, text) else None

    def reusable(self, declaration: Path, inputs: str) -> tuple[Record, dict[Path, str]] | None:
        """The declaration's record and files, if its inputs are as recorded and each file
        is its base text byte for byte (no hand edit, no conflict); else None."""
        record = self.records.get(self._key(declaration))
        if (
            record is None
            or record.seal is None  # unsettled: a file of it still holds a conflict
            or record.orphaned  # kept for files a deleted declaration left: not all of them
            or record.inputs != inputs
            or record.seal != record.sealed(self.entries)
        ):
            return None
        files: dict[Path, str] = {}
        for key in record.outputs:
            path = self.root / key
            try:
                data = path.read_bytes() if path.is_file() else b""  # a pipe would never end
            except OSError:
                return None
            if hashlib.sha256(data).hexdigest() != self.entries[key].digest:
                return None
            files[path] = data.decode("utf-8")
        return record, files

    def remember(self, declaration: Path, record: Record, files: dict[Path, str]) -> None:
        """Record a declaration rendered in this run into `files`; it is sealed when the index
        is written, if each of its files' bases is then what was rendered (a file that still
        holds conflict markers keeps its old base, and a sealed record over it would say it is
        new: it is written unsealed)."""
        self._changing()
        key = self._key(declaration)
        self.records[key] = record
        self._rendered[key] = {self._key(p): _digest(text) for p, text in files.items()}

    def keep_record(self, key: str, outputs: tuple[str, ...]) -> None:
        """Keep the record of a gone declaration for `outputs` only (the files that stay), or
        drop it when none does."""
        self._changing()
        record = self.records.pop(key, None)
        if record is not None and outputs:
            self.records[key] = replace(record, outputs=outputs, seal=None, orphaned=True)
            self._rendered[key] = {o: self.entries[o].digest for o in outputs}

    def forget(self, path: Path) -> None:
        """`path` is no generated file any more (deleted, or moved away)."""
        self._changing()
        key = self._key(path)
        self.entries.pop(key, None)
        self._texts.pop(key, None)

    def key(self, path: Path) -> str:
        return self._key(path)

    def record(
        self,
        path: Path,
        generated: str,
        source_digest: str | None = None,
        owned: dict[str, str] | None = None,
        conflicted: tuple[str, str] | None = None,
    ) -> None:
        """`conflicted`: (the file before this run, its base) when the run wrote conflicts
        into it. That base stays in `.layergen/` until the generation changes again (see
        `Entry.undo`): settling the conflicts changes nothing in the lock."""
        self._changing()
        key = self._key(path)
        self._texts[key] = generated
        self._recorded.add(key)
        digest = _digest(generated)
        was = self.entries.get(key)
        if conflicted:
            undo = (_digest(conflicted[0]), _digest(conflicted[1]))
            self._undo_texts[key] = conflicted  # stored under this name (the file may have moved)
        else:
            undo = was.undo if was is not None and was.digest == digest else None
        self.entries[key] = Entry(
            digest,
            _tie(source_digest, generated) if source_digest else None,
            tuple(sorted((owned or {}).items())),
            undo,
        )

    def owned(self, path: Path) -> dict[str, str]:
        """The hand-owned members of `path` and the digests of their settled generation."""
        entry = self.entries.get(self._key(path))
        return dict(entry.owned) if entry else {}

    def settle_owned(self, path: Path, owned: dict[str, str]) -> None:
        """Record that the person has seen these generations of their members (`resolve`)."""
        self._changing()
        key = self._key(path)
        self.entries[key] = replace(self.entries[key], owned=tuple(sorted(owned.items())))

    def set_handwritten(self, key: str, entry: dict | None) -> None:
        """What `layergen tests` wrote the test module `key` from; None: forget it."""
        self._changing()
        if entry is None:
            self.handwritten.pop(key, None)
        else:
            self.handwritten[key] = entry

    def files(self) -> dict[Path, str]:
        """What to write: each base text generated in this run, or missing on disk and proved
        (`rebuilt`); the texts of each undo recorded now; then the index (last)."""
        from . import undo_file

        out: dict[Path, str] = {}
        for key, entry in sorted(self.entries.items()):
            file = self._base_file(key)
            base = self._texts.get(key)
            if key in self._recorded:
                out[file] = self._texts[key]
            elif not file.exists() and (base := self.base(self.root / key)) is not None:
                out[file] = base
                self.rebuilt.add(file)
            undo = self._undo_file(key)
            if entry.undo is None:
                continue
            if base is None and (key in self._undo_texts or not undo.exists()):
                base = self.base(self.root / key)
            if base is None:
                continue
            if key in self._undo_texts:
                texts = dict(zip(entry.undo, self._undo_texts[key]))
            elif undo.exists():
                continue
            else:  # kept under the names of layergen before 0.3
                texts = {digest: self._stored(key, digest) for digest in entry.undo}
                if None in texts.values():
                    continue
                self.rebuilt.add(undo)
            out[undo] = undo_file.render(key, base, texts)
        index = {
            k: {
                "digest": e.digest,
                **({"source": e.tie} if e.tie else {}),
                **({"owned": dict(e.owned)} if e.owned else {}),
                **({"undo": {"before": e.undo[0], "base": e.undo[1]}} if e.undo else {}),
            }
            for k, e in sorted(self.entries.items())
        }
        records = {}
        for key, record in sorted(self.records.items()):
            seal = record.sealed(self.entries)
            if seal is None:  # a file of it is no generated file any more
                continue
            if key in self._rendered:  # rendered in this run: sealed over its files' entries,
                # unless a file still holds conflict markers (its base is the old text): then
                # it stays unsealed, known to claims (a rename finds its files) and never
                # taken by the fast path.
                rendered = self._rendered[key].items()
                settled = all(
                    getattr(self.entries.get(k), "digest", None) == d for k, d in rendered
                )
                record = replace(record, seal=seal if settled else None)
            elif record.seal is not None and record.seal != seal:
                continue  # one that no longer fits its files (a lock merged by hand) is dropped
            records[key] = record.as_json()
        data = {"version": VERSION, "files": index, **({"records": records} if records else {})}
        if self.handwritten:
            data["handwritten"] = dict(sorted(self.handwritten.items()))
        out[self.path] = json.dumps(data, indent=1) + "\n"
        return out

    def stale(self) -> list[Path]:
        """Texts of `.layergen/` the index no longer points to (bases of files no longer
        generated, texts of undos no longer possible, names of layergen before 0.3): delete
        them once the index is written."""
        wanted = {self._base_file(key) for key in self.entries}
        wanted |= {self._undo_file(key) for key, e in self.entries.items() if e.undo}
        return [
            p
            for folder in (self.root / BASES, self.root / UNDO)
            if folder.is_dir()
            for p in folder.rglob("*")
            if p.is_file() and p not in wanted
        ]

    def _base_file(self, key: str) -> Path:
        # Not `.py`: no linter, type checker or test runner takes a base for a module.
        return self.root / BASES / f"{key}.base"

    def _undo_file(self, key: str) -> Path:
        return self.root / UNDO / f"{key}.undo"

    def is_lock_file(self, path: Path) -> bool:
        return path == self.path or any(
            path.is_relative_to(self.root / folder) for folder in (BASES, UNDO)
        )

    def _key(self, path: Path) -> str:
        # The path as given (a link is not followed), relative to the root; `..` parts
        # (a tests folder outside the project) are spelled so the base file stays inside.
        relative = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(self.root)))
        return "/".join("__up__" if part == ".." else part for part in relative.parts)


class LockReader:
    """One run's reading of a lock: each base text read from `.layergen/` once, each merge
    base worked out once, and whether a base is lost. The run keeps what it read; the lock
    is never written by reading it."""

    def __init__(self, lock: Lock):
        self.lock = lock
        self._bases: dict[str, str | None] = {}
        self._merge_bases: dict[tuple[str, ...], str | None] = {}

    def base(self, path: Path) -> str | None:
        """`Lock.base`, read once in the run."""
        key = self.lock.key(path)
        if key not in self._bases:
            self._bases[key] = self.lock.base(path)
        return self._bases[key]

    def merge_base(self, path: Path, text: str) -> str | None:
        """`Lock.merge_base`, worked out once in the run for each text of the file."""
        key = self.lock.key(path)
        entry = self.lock.entries.get(key)
        if entry is None or entry.undo is None:
            return self.base(path)
        asked = (key, entry.digest, *entry.undo, _digest(text))
        if asked not in self._merge_bases:
            self._merge_bases[asked] = self.lock.merge_base(path, text)
        return self._merge_bases[asked]

    def lost(self, path: Path) -> bool:
        """Whether layergen generated `path` (the lock has its digest) and its base text is
        missing or altered (`.layergen/` not restored with the lock): merged as never
        generated, and said."""
        return self.lock.key(path) in self.lock.entries and self.base(path) is None


def _read(file: Path) -> str | None:
    try:
        # `\r\n` read as `\n`: a checkout may add them. A pipe would never end.
        return file.read_text(encoding="utf-8") if file.is_file() else None
    except (OSError, UnicodeDecodeError):
        return None


def _unreadable(path: Path, line: int, why: str, hint: str) -> Diagnostic:
    return Diagnostic(str(path), line, 1, "bad-lock", f"cannot read the lock: {why}", hint)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _tie(source_digest: str, text: str) -> str:
    return hashlib.sha256(f"{source_digest}\n{text}".encode()).hexdigest()
