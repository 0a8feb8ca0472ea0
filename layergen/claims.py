"""What layergen generated for a declaration that is gone: moved along, removed, or reported.

The lock records, for each declaration, the files it generated. A declaration file renamed
or moved claims those files: its module and test module are merged from the old ones, hand
edits and hand-added tests included, and the old ones go. It is renamed when its class
name is kept, or, when its class was renamed too, when it is the only new declaration and
the gone one the only gone one in its folder and the layers they generate mostly keep the
same params, weights, sublayers and state (a guess that moves hand edits into another
class and deletes the old files would lose them). Files of a declaration that was deleted
are claimed by nothing: a file still as generated is removed, and one with hand edits is
kept and reported on every run, for the person to move what they need and delete it. A
class that is no longer exported leaves its package's `__init__.py` (its import, and its
name in `__all__`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic
from .kinds import kind_of_file
from .targets import SUFFIXES
from .textfiles import Seen, split_line_ends
from .update.lock import Lock, Record

_CLASS = re.compile(rb"^(?:layer|loss|constraint|regularizer|initializer):[ \t]*['\"]?(\w+)", re.M)


@dataclass
class Unclaimed:
    """Files generated for declarations that are gone, and what becomes of them."""

    removed: dict[Path, Seen] = field(default_factory=dict)  # as generated: deleted
    kept: dict[Path, str] = field(default_factory=dict)  # hand-edited -> the declaration's key
    unexported: list[tuple[Path, str, str]] = field(default_factory=list)  # (folder, stem, class)


def gone(lock: Lock, declarations: list[Path]) -> dict[str, Record]:
    """The lock's records of declarations no longer on disk, and not among this run's
    `declarations` (whose text a run may be given before it is written: `new`)."""
    here = {lock.key(d) for d in declarations}
    return {
        key: record
        for key, record in lock.records.items()
        if key.endswith(SUFFIXES) and key not in here and not (lock.root / key).exists()
    }


def class_named(raw: bytes) -> str | None:
    """The class a declaration's text names, read without parsing it."""
    named = _CLASS.search(raw)
    return named.group(1).decode() if named else None


def renamed_from(
    lock: Lock, declarations: list[Path], raw: dict[Path, bytes | None]
) -> dict[Path, str]:
    """{declaration: the key of the gone one it was renamed or moved from}: a declaration the
    lock has no record of, whose class is the class of exactly one gone declaration."""
    by_class: dict[str, list[str]] = {}
    for key, record in gone(lock, declarations).items():
        by_class.setdefault(record.name, []).append(key)
    found: dict[Path, str] = {}
    for declaration in declarations:
        if lock.key(declaration) in lock.records or not raw.get(declaration):
            continue
        keys = by_class.get(class_named(raw[declaration] or b""))
        if keys and len(keys) == 1 and keys[0] not in found.values():
            found[declaration] = keys[0]
    return found


def moved_away(
    lock: Lock, declarations: list[Path], raw: dict[Path, bytes | None]
) -> list[Diagnostic]:
    """Declarations that now declare another class while the class the lock recorded for them
    is declared by a new declaration of this run: the class moved to another file and a new
    one took its place (`attention.layer.yaml` kept as `attention_v1.layer.yaml`, a new
    `attention.layer.yaml`). The files at the old place are the moved class's, with its hand
    edits; which way they go cannot be told from the paths, so the run stops."""
    new = {
        class_named(raw.get(d) or b""): d
        for d in declarations
        if lock.key(d) not in lock.records and raw.get(d)
    }
    errors = []
    for declaration in declarations:
        record = lock.records.get(lock.key(declaration))
        now = class_named(raw.get(declaration) or b"")
        if record is None or record.orphaned or now in (None, record.name):
            continue
        if record.name in new:
            errors.append(
                Diagnostic(
                    str(declaration),
                    1,
                    1,
                    "taken-module",
                    f"it now declares {now}, and {record.name}, which it declared, is declared by"
                    f" {new[record.name]} now: {record.name}'s files and hand edits stand here",
                    f"run layergen once with {new[record.name]} alone added (the move), then"
                    f" declare {now}",
                )
            )
    return errors


def lone_renames(
    lock: Lock, declarations: list[Path], raw: dict[Path, bytes | None], found: dict[Path, str]
) -> dict[Path, str]:
    """Files renamed with their classes at once, maybe: {declaration: the key of a gone one},
    where a folder holds one new declaration left unpaired by `renamed_from`'s `found` and one
    gone declaration, of the same kind, that was there at the last run (an orphan, already
    reported, is no candidate) and whose class no declaration of this run declares.
    `same_layer` tells, once the new one is rendered, whether it is the old one renamed (as
    git pairs a lone rename by its content)."""
    new: dict[Path, list[Path]] = {}
    for d in declarations:
        if d not in found and lock.key(d) not in lock.records and raw.get(d):
            new.setdefault(d.parent, []).append(d)
    # A gone declaration whose class a declaration of this run declares went there (two
    # files swapped): it is no lone rename.
    declared = {class_named(raw.get(d) or b"") for d in declarations}
    left: dict[Path, list[Path]] = {}
    for key, record in gone(lock, declarations).items():
        if key not in found.values() and not record.orphaned and record.name not in declared:
            left.setdefault((lock.root / key).parent, []).append(lock.root / key)
    pairs = {}
    for folder, ones in new.items():
        was = left.get(folder, [])
        if (
            len(ones) == 1
            and len(was) == 1
            and kind_of_file(was[0].name) == kind_of_file(ones[0].name)
        ):
            pairs[ones[0]] = lock.key(was[0])
    return pairs


def same_layer(lock: Lock, key: str, module: str) -> bool:
    """Whether the generated `module` is the layer the gone declaration `key` generated,
    renamed: `_alike` on the names of what their classes keep on `self` (params, weights,
    sublayers, state). Their generated text alone tells nothing: every layer's has the same
    frame."""
    outputs = lock.records[key].outputs
    was = lock.base(lock.root / outputs[0]) if outputs else None
    return _alike(_names(was, _layer_names), _names(module, _layer_names))


def _alike(old: set[str], new: set[str]) -> bool:
    """At least half of the names shared (as git pairs a rename by its lines). Layers with
    no names to tell them by are not alike: a guess would move one's edits into the other."""
    return 2 * len(old & new) >= len(old | new) > 0


def _names(text: str | None, found: Callable[[ast.AST], Iterable[str]]) -> set[str]:
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return set()
    return {name for node in ast.walk(tree) for name in found(node)}


# What layer.py.j2 keeps on `self` for any layer of a kind, whatever it declares.
_FRAME = frozenset({"input_spec", "seed_generator", "supports_masking", "autocast"})


def _layer_names(node: ast.AST) -> Iterable[str]:
    """Of a generated module: the attributes its class sets on `self`, but the frame's."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr not in _FRAME
    ):
        yield node.attr


def _tested_names(node: ast.AST) -> Iterable[str]:
    """Of a generated test module: the layer's arguments (`ARGS`) and weights (`declared`)."""
    if (
        isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] in (["ARGS"], ["declared"])
        and isinstance(node.value, ast.Dict)
    ):
        yield from (k.value for k in node.value.keys if isinstance(k, ast.Constant))


def unclaimed(lock: Lock, declarations: list[Path], moved: set[str]) -> Unclaimed:
    """What to do with the files of gone declarations (not among this run's `declarations`)
    not `moved` (by key); their records are dropped from the lock, or kept for the
    hand-edited files that stay."""
    out = Unclaimed()
    for key, record in gone(lock, declarations).items():
        if key in moved:
            continue
        staying = []
        for output in record.outputs:
            path = lock.root / output
            seen = Seen.read(path)
            if seen.text is None:  # deleted by hand (an orphan moved away): nothing to keep
                lock.forget(path)
            if seen.text is not None and split_line_ends(seen.text)[0] != lock.base(path):
                out.kept[path] = key
                staying.append(output)
                continue
            if seen.text is not None:
                out.removed[path] = seen
            if output == record.outputs[0]:  # the module: its class is exported no more
                out.unexported.append((path.parent, path.stem, record.name))
        lock.keep_record(key, tuple(staying))
    return out


def tests_of_gone_classes(
    lock: Lock, tests_dir: Path, source: str, stem: str, now: dict[Path, str]
) -> tuple[dict[Path, Path], Unclaimed]:
    """The test modules `layergen tests` wrote for classes of the module `source` that it writes
    no more. One such and one new test module (`now`: this run's, by path, with their texts),
    testing a layer of mostly the same arguments and weights: the class was renamed, and the
    new one takes the old one's text ({new: old}). Otherwise they are unclaimed: removed, or
    kept and reported."""
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
    if len(earlier) == 1 and len(new) == 1:
        texts = (lock.base(earlier[0]), now[new[0]])
        if _alike(*(_names(text, _tested_names) for text in texts)):
            return {new[0]: earlier[0]}, Unclaimed()
    out = Unclaimed()
    for path in earlier:
        seen = Seen.read(path)
        if seen.text is None:
            lock.forget(path)
        elif split_line_ends(seen.text)[0] == lock.base(path):
            out.removed[path] = seen
        else:
            out.kept[path] = f"a class of {source}"
    return {}, out
