"""What layergen generated for a declaration that is gone: moved along, removed, or reported.

The lock records, for each declaration, the files it generated. A declaration file renamed
or moved claims those files: its module and test module are merged from the old ones, hand
edits and hand-added tests included, and the old ones go. A rename is followed only on
evidence that cannot pair two different layers: the class name kept, or the declaration's
text kept but for the class name, or a person's word (`layergen mv OLD NEW`). Files of a
declaration that was deleted are claimed by nothing: a file still as generated is removed,
and one with hand edits is kept and reported on every run, for the person to move what they
need and delete it. A class that is no longer exported leaves its package's `__init__.py`
(its import, and its name in `__all__`).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError
from .targets import SUFFIXES
from .textfiles import Seen, read_bytes, split_line_ends
from .update.changes import LockChanges
from .update.lock import Lock, Record

_CLASS = re.compile(rb"^(?:layer|loss|constraint|regularizer|initializer):[ \t]*['\"]?(\w+)", re.M)


@dataclass
class Unclaimed:
    """Files generated for declarations that are gone, and what becomes of them."""

    removed: dict[Path, Seen] = field(default_factory=dict)  # as generated: deleted
    kept: dict[Path, str] = field(default_factory=dict)  # hand-edited -> the declaration's key
    unexported: list[tuple[Path, str, str]] = field(default_factory=list)  # (folder, stem, class)
    changes: LockChanges = field(default_factory=LockChanges)  # records dropped or kept


def gone(lock: Lock, declarations: list[Path]) -> dict[str, Record]:
    """The lock's records of declarations no longer on disk, and not among this run's
    `declarations` (whose text a run may be given before it is written: `new`)."""
    here = {lock.key(d) for d in declarations}
    return {
        key: record
        for key, record in lock.records.items()
        if key.endswith(SUFFIXES) and key not in here and not (lock.root / key).exists()
    }


def class_position(raw: bytes) -> int:
    """Where the class name stands in a declaration's text (0 if it names none)."""
    named = _CLASS.search(raw)
    return named.start(1) if named else 0


def class_named(raw: bytes) -> str | None:
    """The class a declaration's text names, read without parsing it."""
    named = _CLASS.search(raw)
    return named.group(1).decode() if named else None


def moved_away(
    lock: Lock, declarations: list[Path], raw: dict[Path, bytes | None]
) -> list[Diagnostic]:
    """Declarations that now declare another class while the class the lock recorded for them
    is declared by another declaration of the project: the class moved to another file and a new
    one took its place (`attention.layer.yaml` kept as `attention_v1.layer.yaml`, a new
    `attention.layer.yaml`), or two files swapped their classes. The files at the old place
    are the moved class's, with its hand edits; which way they go cannot be told from the
    paths, so the run stops."""
    declared = {}  # class -> the declaration that declares it now, in the run or not
    here = {lock.key(d) for d in declarations}
    for key in lock.records:
        path = lock.root / key
        if key.endswith(SUFFIXES) and key not in here and path.is_file():
            declared[class_named(read_declaration(path) or b"")] = path
    declared.update(
        {class_named(raw.get(d) or b""): d for d in declarations if raw.get(d) is not None}
    )
    errors = []
    for declaration in declarations:
        record = lock.records.get(lock.key(declaration))
        now = class_named(raw.get(declaration) or b"")
        if record is None or record.orphaned or now in (None, record.name):
            continue
        other = declared.get(record.name)
        if other is not None and other != declaration:
            errors.append(
                Diagnostic(
                    str(declaration),
                    1,
                    1,
                    "taken-module",
                    f"it now declares {now}, and {record.name}, which it declared, is declared by"
                    f" {os.path.relpath(other)} now: {record.name}'s files and hand edits stand"
                    " beside this declaration",
                    "move one class at a time: put the files back as they were, then"
                    " `layergen mv OLD NEW` for each move (through a free name for a swap)",
                )
            )
    return errors


def with_class(text: str, name: str) -> str | None:
    """The declaration's text declaring the class `name`; None if it names no class."""
    named = _CLASS.search(text.encode())
    if named is None:
        return None
    raw = text.encode()
    return (raw[: named.start(1)] + name.encode() + raw[named.end(1) :]).decode()


def read_declaration(path: Path) -> bytes | None:
    """A declaration's bytes; None if it cannot be read (its rendering says why, located)."""
    try:
        return read_bytes(path)
    except DiagnosticError:
        return None


def renamed_in_module(base: str | None, current: str, declared: str) -> str | None:
    """The name the `declared` class has in the module now when a person renamed it there (an
    IDE's rename): it was generated (`base`), no name in the module is it any more, and
    exactly one class is new. Anything else is no rename of it."""
    import ast

    def classes(tree: ast.Module) -> set[str]:
        return {node.name for node in tree.body if isinstance(node, ast.ClassDef)}

    try:
        was, now = ast.parse(base or ""), ast.parse(current)
    except SyntaxError:  # conflict markers, or a typo: its own run says so
        return None
    if declared not in classes(was):
        return None
    names = {n.id for n in ast.walk(now) if isinstance(n, ast.Name)} | classes(now)
    added = classes(now) - classes(was)
    if declared in names or len(added) != 1:
        return None
    return added.pop()


def content(raw: bytes) -> str:
    """The digest of a declaration's text but its class name: the same for a declaration
    renamed, file and class, without another change (as git pairs a rename by its content)."""
    named = _CLASS.search(raw)
    if named:
        raw = raw[: named.start(1)] + b"\0" + raw[named.end(1) :]
    return hashlib.sha256(raw).hexdigest()


def renamed_from(
    lock: Lock, declarations: list[Path], raw: dict[Path, bytes | None]
) -> dict[Path, str]:
    """{declaration: the key of the gone one it was renamed or moved from}, for a declaration
    the lock has no record of, on evidence that cannot pair two different layers:
    - its class is the class of exactly one gone declaration (a file renamed or moved);
    - or its text, class name aside, is the text of exactly one gone declaration, and no other
      new declaration has that text (file and class renamed at once). A gone declaration
      already reported as an orphan is no candidate.
    Anything else is no rename: `layergen mv OLD NEW` says it is one."""
    gone_ones = gone(lock, declarations)
    by_class: dict[str, list[str]] = {}
    by_content: dict[str, list[str]] = {}
    for key, record in gone_ones.items():
        by_class.setdefault(record.name, []).append(key)
        if record.content and not record.orphaned:
            by_content.setdefault(record.content, []).append(key)
    new = [d for d in declarations if lock.key(d) not in lock.records and raw.get(d)]
    found: dict[Path, str] = {}
    for declaration in new:
        keys = by_class.get(class_named(raw[declaration] or b""))
        if keys and len(keys) == 1 and keys[0] not in found.values():
            found[declaration] = keys[0]
    unpaired = [d for d in new if d not in found]
    texts = {d: content(raw[d] or b"") for d in unpaired}
    for declaration in unpaired:
        keys = by_content.get(texts[declaration], [])
        alone = list(texts.values()).count(texts[declaration]) == 1
        if len(keys) == 1 and alone and keys[0] not in found.values():
            found[declaration] = keys[0]
    return found


def unclaimed(lock: Lock, declarations: list[Path], moved: set[str]) -> Unclaimed:
    """What to do with the files of gone declarations (not among this run's `declarations`)
    not `moved` (by key); their records are to be dropped from the lock, or kept for the
    hand-edited files that stay (`Unclaimed.changes`)."""
    out = Unclaimed()
    for key, record in gone(lock, declarations).items():
        if key in moved:
            continue
        staying = []
        for output in record.outputs:
            path = lock.root / output
            seen = Seen.read(path)
            if seen.text is None:  # deleted by hand (an orphan moved away): nothing to keep
                out.changes.forget(path)
            if seen.text is not None and split_line_ends(seen.text)[0] != lock.base(path):
                out.kept[path] = key
                staying.append(output)
                continue
            if seen.text is not None:
                out.removed[path] = seen
            if output == record.outputs[0]:  # the module: its class is exported no more
                out.unexported.append((path.parent, path.stem, record.name))
        out.changes.keep_record(key, tuple(staying))
    return out


def tests_of_gone_classes(
    lock: Lock,
    handwritten: dict[str, dict],
    tests_dir: Path,
    source: str,
    stem: str,
    now: dict[Path, str],
) -> tuple[dict[Path, Path], Unclaimed]:
    """The test modules `layergen tests` wrote for classes of the module `source` that it writes
    no more. One such and one new test module (`now`: this run's, by path, with their texts)
    that generate the same tests but for the class's name: the class was renamed, and the new
    one takes the old one's text ({new: old}). Otherwise they are unclaimed: removed, or kept
    and reported. `handwritten`: the lock's table of `layergen tests` as this run leaves it."""
    header = " ".join(f"generated by layergen from `{source}`.".split())
    earlier = []
    for key in list(lock.entries):
        path = lock.root / key
        ours = path.name == f"test_{stem}.py" or path.name.startswith(f"test_{stem}_")
        if path.parent != tests_dir or not ours or path in now:
            continue
        if header in " ".join((lock.base(path) or "")[:400].split()):
            earlier.append(path)
    new = [path for path in now if not path.exists()]
    if (
        len(earlier) == 1
        and len(new) == 1
        and _same_tests(lock, handwritten, earlier[0], new[0], now[new[0]])
    ):
        return {new[0]: earlier[0]}, Unclaimed()
    out = Unclaimed()
    for path in earlier:
        seen = Seen.read(path)
        if seen.text is None:
            out.changes.forget(path)
        elif split_line_ends(seen.text)[0] == lock.base(path):
            out.removed[path] = seen
        else:
            out.kept[path] = f"a class of {source}"
    return {}, out


def _same_tests(lock: Lock, handwritten: dict[str, dict], old: Path, new: Path, text: str) -> bool:
    """Whether the tests generated now (`text`, for `new`) are those generated last for `old`,
    but for the class's name: the same class, renamed (its arguments, weights and shapes as
    they were), as git pairs a rename by its content."""
    was = handwritten.get(lock.key(old), {}).get("class")
    now = handwritten.get(lock.key(new), {}).get("class")
    if not was or not now:
        return False
    return re.sub(rf"\b{re.escape(now)}\b", was, text) == lock.base(old)
