"""Rename following, in one place: which gone declaration a new one was, the checks that a
renamed class may take its name (which class of a module's code was renamed is read in
`class_renames`, below the merge that reads it too).

The lock records, for each declaration, the files it generated. A declaration file renamed or
moved claims those files: its module and test module are merged from the old ones, hand edits
and hand-added tests included. A rename is followed only on evidence that cannot pair two
different layers: the class name kept, or the declaration's text kept but for the class name,
or a person's word (`layergen mv OLD NEW`). A class renamed in its module by an IDE is carried
into the declaration by `sync`; `generate` refuses it until then. What becomes of the files of a
declaration that is gone and was no rename is `claims.py`'s.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from .class_renames import renamed_in_module
from .diagnostics import Diagnostic, DiagnosticError
from .targets import SUFFIXES, Target, module_of, test_module
from .textfiles import Seen, read_bytes, split_line_ends
from .update.lock import Lock, Record

_CLASS = re.compile(rb"^(?:layer|loss|constraint|regularizer|initializer):[ \t]*['\"]?(\w+)", re.M)


def read_declaration(path: Path) -> bytes | None:
    """A declaration's bytes; None if it cannot be read (its rendering says why, located)."""
    try:
        return read_bytes(path)
    except DiagnosticError:
        return None


def class_named(raw: bytes) -> str | None:
    """The class a declaration's text names, read without parsing it."""
    named = _CLASS.search(raw)
    return named.group(1).decode() if named else None


def class_position(raw: bytes) -> int:
    """Where the class name stands in a declaration's text (0 if it names none)."""
    named = _CLASS.search(raw)
    return named.start(1) if named else 0


def with_class(text: str, name: str) -> str | None:
    """The declaration's text declaring the class `name`; None if it names no class."""
    named = _CLASS.search(text.encode())
    if named is None:
        return None
    raw = text.encode()
    return (raw[: named.start(1)] + name.encode() + raw[named.end(1) :]).decode()


def content(raw: bytes) -> str:
    """The digest of a declaration's text but its class name: the same for a declaration
    renamed, file and class, without another change (as git pairs a rename by its content)."""
    named = _CLASS.search(raw)
    if named:
        raw = raw[: named.start(1)] + b"\0" + raw[named.end(1) :]
    return hashlib.sha256(raw).hexdigest()


def gone(lock: Lock, declarations: list[Path]) -> dict[str, Record]:
    """The lock's records of declarations no longer on disk, and not among this run's
    `declarations` (whose text a run may be given before it is written: `new`)."""
    here = {lock.key(d) for d in declarations}
    return {
        key: record
        for key, record in lock.records.items()
        if key.endswith(SUFFIXES) and key not in here and not (lock.root / key).exists()
    }


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


def name_taken(
    t: Target, raw: bytes | None, name: str, was: Record | None, lock: Lock
) -> Diagnostic | None:
    """The class a declaration now names is another thing already in its module (a helper a
    person wrote, or imported): renaming the layer to it would shadow one with the other.
    Not the layer itself, renamed in the module first (`sync` carries that rename)."""
    import ast

    if was is None or was.name == name:
        return None
    # The module the layer's code is in: its old one, where the rename moves it.
    source = t.module if t.module.exists() else lock.root / was.outputs[0]
    current = Seen.read(source).text
    if current is None:
        return None
    text = split_line_ends(current)[0]
    try:
        tree = ast.parse(text)
    except SyntaxError:  # unsettled markers: the merge reports them
        return None
    if renamed_in_module(lock.merge_base(source, text), text, was.name) == name:
        return None
    bound = set()  # the names the module binds at its top
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            bound |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if name not in bound:
        return None
    return _at_class_name(
        t,
        raw,
        "name-taken",
        f"{os.path.relpath(source)} already defines `{name}` (not the layer {was.name}):"
        " the renamed layer and it would shadow each other",
        f"name the class otherwise, or rename your `{name}` in the module first",
    )


def renamed_by_hand(t: Target, raw: bytes | None, name: str, lock: Lock) -> Diagnostic | None:
    """The module renamed the declared class (an IDE's rename): generating would keep the
    declared class deleted and the renamed one as the person's, the package importing a
    name that is gone. The declaration must say it first."""
    current = Seen.read(t.module).text
    if current is None:
        return None
    text = split_line_ends(current)[0]
    now = renamed_in_module(lock.merge_base(t.module, text), text, name)
    if now is None:
        return None
    return _at_class_name(
        t,
        raw,
        "renamed-by-hand",
        f"{os.path.relpath(t.module)} renamed the class {name} to {now}, and the declaration"
        f" still declares {name}",
        f"run `layergen sync {os.path.relpath(t.module)}` to carry the rename into the"
        f" declaration, or rename it back to {name}",
    )


def _at_class_name(t: Target, raw: bytes | None, code: str, message: str, hint: str) -> Diagnostic:
    """An error located at the line of the declaration that names its class."""
    line = (raw or b"")[: class_position(raw or b"")].count(b"\n") + 1
    return Diagnostic(str(t.declaration), line, 1, code, message, hint)


def moved_files(lock: Lock, key: str, was: Record, module: Path, test: Path) -> dict[Path, Path]:
    """The files of a declaration's last generation (`key`'s record `was`) that its new
    `module` and `test` take their text from: {new: old} where a rename or a move changed the
    path. Each by its role: the module stood beside its declaration, the test module is the
    other (a record kept for orphans holds only the files that stayed); those of the module's
    further classes each by its class."""
    old_module = module_of(lock.root / key)
    # the further classes' test modules are named after the first's (`Target.test_of`)
    first = next((lock.root / o for o in was.outputs if lock.root / o != old_module), test)
    old_name, new_name = (t.stem.removeprefix("test_") for t in (first, test))
    further = {
        test_module(first.parent, old_name, name): test_module(test.parent, new_name, name)
        for name, _, _ in was.classes
    }
    found = {}
    for old in (lock.root / output for output in was.outputs):
        new = module if old == old_module else further.get(old, test)
        if new != old:
            found[new] = old
    return found


def taken_origins(
    moved: dict[Path, Path], written: dict[Path, tuple[str, Path]]
) -> list[Diagnostic]:
    """A file a renamed declaration's new file takes its text from (`moved`: {new: old}) that
    another declaration also writes (`written`: {file: (role, declaration)}): one of the two
    would be lost."""
    errors = []
    for new, old in moved.items():
        if old in written and written[old][1] != written[new][1]:
            role, declaration = written[old]
            errors.append(
                Diagnostic(
                    str(declaration),
                    1,
                    1,
                    "duplicate-test" if role == "tests" else "taken-module",
                    f"it would write {os.path.relpath(old)}, which was generated for the"
                    f" declaration renamed to {os.path.relpath(written[new][1])} and moves to"
                    f" {os.path.relpath(new)} in this run",
                    "run layergen once with the rename alone, then add this declaration"
                    " (or name it otherwise)",
                )
            )
    return errors


def same_tests(lock: Lock, handwritten: dict[str, dict], old: Path, new: Path, text: str) -> bool:
    """Whether the tests generated now (`text`, for `new`) are those generated last for `old`,
    but for the class's name: the same class, renamed (its arguments, weights and shapes as
    they were), as git pairs a rename by its content."""
    was = handwritten.get(lock.key(old), {}).get("class")
    now = handwritten.get(lock.key(new), {}).get("class")
    if not was or not now:
        return False
    return re.sub(rf"\b{re.escape(now)}\b", was, text) == lock.base(old)
