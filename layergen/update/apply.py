"""Turn a planned run into the final text of each file: one reconcile for every command.

`generate`, `--check`, `--diff`, `sync`, `tests` and `watch` all compute the same
`Outcome` (render, 3-way merge against the lock's base, conflicts) and differ only in
what they do with it: write it, compare it with the disk, or print its diff.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..textfiles import parse_python, read_text, same_text, split_line_ends, with_line_ends
from . import conflicts as markers
from .lock import Lock

if TYPE_CHECKING:
    from .merge import Conflict, Prefer
    from .plan import Plan

_REJECT_HEADER = "# layergen: generated `"  # what the .rej files of layergen 0.1 began with
_CLASS = re.compile(r"^class (\w+)\b", re.MULTILINE)


@dataclass
class Outcome:
    files: dict[Path, str]  # final texts: generated files, support files, then the lock
    lock: Lock
    conflicts: dict[Path, list[Conflict]] = field(default_factory=dict)
    deleted: list[Path] = field(
        default_factory=list
    )  # stale base texts, .rej files of layergen 0.1

    def changed(self) -> list[Path]:
        """The files a write would change, deletions included."""
        changed = [p for p, text in self.files.items() if not same_text(p, text)]
        return changed + [p for p in self.deleted if p.exists()]

    def is_lock_file(self, path: Path) -> bool:
        return self.lock.is_lock_file(path)


def reconcile(plan: Plan, *, prefer: Prefer = "merge") -> Outcome:
    """Merge every generated file into what is on disk.

    A member edited by hand and changed by the declaration is a conflict: both versions
    are written between markers and the base moves on to the new generation (as git
    does), so settling the markers by keeping either side is understood next time. A
    file that still holds markers is left alone and its conflicts reported again, until a
    person settles them (or `--force` takes the generated side).
    """
    lock = plan.lock
    files: dict[Path, str] = dict(plan.support)
    conflicts: dict[Path, list[Conflict]] = {}
    deleted: list[Path] = []
    renames = _renames(plan, lock)
    for path, new in plan.generated.items():
        reject = path.with_name(path.name + ".rej")
        if reject.is_file() and reject.read_bytes().startswith(_REJECT_HEADER.encode()):
            deleted.append(reject)  # conflicts are markers in the file now
        if path in plan.reused:  # as the lock recorded it, and what would be generated
            files[path] = new
            continue
        if not path.is_file():
            files[path] = new
            lock.record(path, new, plan.sources.get(path))
            continue
        from .merge import Conflict, merge

        as_stored = read_text(path)
        current, line_ends = split_line_ends(as_stored)  # merged with `\n`, written with its own
        base = lock.base(path)
        unsettled = markers.blocks(current, base)
        if unsettled:
            if prefer != "generated":
                files[path] = as_stored
                conflicts[path] = [Conflict("", b.start + 1) for b in unsettled]
                continue  # the base stays: the markers were made against it
            current = markers.resolve(current, "theirs", base)
        if current not in (base, new):  # a generated text parses; a hand-edited one may not
            parse_python(path, current, "merge into")
        result = merge(
            base,
            current,
            new,
            prefer=prefer,
            renames=renames.get(path),
            keep=plan.hand_written.get(path, frozenset()),
        )
        # Not formatted: generated members come formatted, and hand-written code stays as written.
        files[path] = with_line_ends(result.text, line_ends)
        if result.conflicts:
            conflicts[path] = result.conflicts
        lock.record(path, new, plan.sources.get(path))
    if plan.generated:
        files.update(lock.files())
        deleted.extend(lock.stale())
    return Outcome(files, lock, conflicts, deleted)


def _renames(plan: Plan, lock: Lock) -> dict[Path, dict[str, str]]:
    """A class renamed in its declaration, for its module and its test module: {old: new}."""
    renames: dict[Path, dict[str, str]] = {}
    for module, test in plan.companions.items():
        if module in plan.reused:  # the declaration did not change: no class was renamed
            continue
        base = lock.base(module) if module.is_file() else None
        if base is None or module not in plan.generated:
            continue
        old = set(_CLASS.findall(base)) - set(_CLASS.findall(plan.generated[module]))
        new = set(_CLASS.findall(plan.generated[module])) - set(_CLASS.findall(base))
        if len(old) == 1 and len(new) == 1:
            renames[module] = renames[test] = {old.pop(): new.pop()}
    return renames
