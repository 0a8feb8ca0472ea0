"""`layergen mv OLD NEW`: a person says a declaration was renamed or moved.

A rename with other changes (a new param, a new class name and a new weight) leaves no
evidence layergen may follow on its own: the gone declaration's edited files would stay as
orphans. This is the person's word for it. Two forms:

- `OLD` is on disk: it moves to `NEW` (its class renamed with `--class`), and the layer's
  module and tests move with it, hand edits and hand-added tests kept, in one run;
- `OLD` is gone (renamed by hand, or in an editor) and `NEW` was never generated: `NEW`
  takes OLD's files.

Nothing else is guessed; anything else is a located error, and nothing is written.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from .config import Config, outside_paths
from .diagnostics import Diagnostic, DiagnosticError
from .renames import with_class
from .textfiles import Seen, read_bytes
from .update.lock import Lock
from .update.plan import Plan


def plan_move(old: Path, new: Path, config: Config, class_name: str | None = None) -> Plan:
    """The run that follows the rename of `old` to `new` (absolute paths)."""
    from .targets import SUFFIXES

    lock = Lock.read(config.root)
    key = lock.key(old)
    record = lock.records.get(key)

    def fail(path: Path, message: str, hint: str, code: str = "bad-move") -> DiagnosticError:
        return DiagnosticError([Diagnostic(str(path), 1, 1, code, message, hint)])

    if not new.name.endswith(SUFFIXES):
        raise fail(new, "not a declaration's name", f"name it like {old.name}")
    outside = outside_paths(new.resolve().parent, config)
    if outside:  # as `new --dir` there: no later run would see the declaration
        hint = "add the folder to `paths` in pyproject.toml, or move the declaration into one"
        raise DiagnosticError([dataclasses.replace(outside, path=str(new), hint=hint)])
    if record is None or record.orphaned:
        raise fail(
            old,
            "layergen has generated nothing for this declaration (no record in layergen.lock)",
            "name a declaration as it was at the last `layergen generate`",
        )
    if lock.key(new) in lock.records:
        raise fail(
            new,
            "layergen generated files for this declaration already",
            "`mv` follows a rename to a declaration not generated yet",
        )
    if old.exists():
        if new.exists():
            raise fail(new, "the file is already there", "pick a name that is free")
        text = read_bytes(old).decode("utf-8")
        if class_name is not None:
            renamed = with_class(text, class_name) if class_name.isidentifier() else None
            if renamed is None:
                raise fail(old, "no class name to rename", "give `--class` a Python name")
            text = renamed
        try:
            run = _planned(config, key, new, text)
        except DiagnosticError as exc:  # said of NEW's text, not written yet: OLD is the file
            raise DiagnosticError([_at(d, new, old) for d in exc.diagnostics]) from None
        return dataclasses.replace(
            run,
            support={**run.support, new: text},
            read={**run.read, new: Seen.read(new)},
            removed={**run.removed, old: Seen.read(old)},
        )
    if class_name is not None:
        raise fail(
            old, "the declaration is gone already", "edit the class name in NEW, without --class"
        )
    if not new.is_file():
        raise fail(new, "no such declaration", f"rename {os.path.relpath(old)} first, or name it")
    return _planned(config, key, new, None)


def _planned(config: Config, key: str, new: Path, text: str | None):
    """The run that follows `key`'s declaration to `new` (its text: `text`, or on disk); every
    import of its module and class in the project follows it (`generate`, `move_imports`)."""
    from .generate import plan_run

    texts = {new: text} if text is not None else None
    return plan_run([new], config, texts=texts, follow={new: key})


def _at(diagnostic: Diagnostic, new: Path, old: Path) -> Diagnostic:
    """A diagnostic of the declaration NEW, located in OLD (the same text but its class name)."""
    if diagnostic.path != str(new):
        return diagnostic
    return dataclasses.replace(diagnostic, path=str(old))
