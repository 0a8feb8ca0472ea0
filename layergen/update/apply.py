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

from ..textfiles import Seen, parse_python, same_text, split_line_ends, with_line_ends
from . import conflicts as markers
from . import members
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
    read: dict[Path, Seen] = field(default_factory=dict)  # the files it merged into, as read
    orphans: dict[Path, str] = field(default_factory=dict)  # kept: hand edits, no declaration
    # Members a person owns that the declaration changes: (member, line) by file.
    hand_written: dict[Path, list[tuple[str, int]]] = field(default_factory=dict)

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
    read: dict[Path, Seen] = dict(plan.read)
    conflicts: dict[Path, list[Conflict]] = {}
    changed_owned: dict[Path, list[tuple[str, int]]] = {}
    deleted: list[Path] = []
    renames = _renames(plan, lock)
    for path, new in plan.generated.items():
        reject = path.with_name(path.name + ".rej")
        if reject.is_file() and reject.read_bytes().startswith(_REJECT_HEADER.encode()):
            deleted.append(reject)  # conflicts are markers in the file now
        read[path] = Seen.read(path)
        if path in plan.reused:  # as the lock recorded it, and what would be generated
            files[path] = new
            stale = _stale(lock.owned(path), new)  # said on every run until settled
            if stale:
                changed_owned[path] = [(name, members.line(new, name)) for name in stale]
            continue
        origin = _origin(plan, path, read)  # a renamed declaration's file: where it was
        if origin != path:
            deleted.append(origin)  # its text moves to `path`
        owned = plan.hand_written.get(path, frozenset()) - plan.unstated.get(path, frozenset())
        if read[origin].text is None:
            files[path] = new
            lock.record(path, new, plan.sources.get(path), _owned(owned, None, new, {})[0])
            continue
        from .merge import Conflict, merge

        as_stored = read[origin].text
        current, line_ends = split_line_ends(as_stored)  # merged with `\n`, written with its own
        # A file put back as it was before a run that wrote conflicts into it is merged again
        # against the base that run used: the conflicts come back, and so does what merged.
        base = lock.merge_base(origin, current)
        settled = _renamed_keys(lock.owned(origin), renames.get(path, {}))
        if origin != path:
            lock.forget(origin)
        unsettled = markers.blocks(current, base)
        if unsettled:
            if prefer != "generated":
                files[path] = as_stored
                conflicts[path] = [Conflict("", b.start + 1) for b in unsettled]
                if origin != path:  # the base stays: the markers were made against it
                    lock.record(path, base)
                continue
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
            take=plan.carried.get(path, frozenset()),
        )
        # Not formatted: generated members come formatted, and hand-written code stays as written.
        files[path] = with_line_ends(result.text, line_ends)
        if result.conflicts:
            conflicts[path] = result.conflicts
        acks, stale = _owned(owned, base, new, settled)
        if stale:
            changed_owned[path] = [(name, members.line(result.text, name)) for name in stale]
        # A file the run changed, put back as it was (an undo, a checkout), would read as hand
        # edits undoing the run against the new base: the lock keeps the base it was merged
        # against. Not where the run only wrote conflicts: putting that file back is keeping
        # one's side, a settlement like any other.
        merged_more = markers.resolve(result.text, "ours", new) != current
        undo = (current, base) if base is not None and merged_more else None
        lock.record(path, new, plan.sources.get(path), acks, undo)
    for path, lines in plan.unsettled.items():  # outside the run: said all the same
        from .merge import Conflict

        conflicts[path] = [Conflict("", line) for line in lines]
    for path, seen in plan.removed.items():  # generated for a declaration that is gone
        deleted.append(path)
        read[path] = seen
        lock.forget(path)
    if plan.generated or plan.removed:
        files.update(lock.files())
        deleted.extend(lock.stale())
    return Outcome(files, lock, conflicts, deleted, read, dict(plan.orphans), changed_owned)


def _owned(
    owned: frozenset[str], base: str | None, new: str, settled: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """For members a person owns: the digest of the generation of each they have settled
    (the lock's, else the base's: when they took it over), and those whose generation is
    another now (the declaration changed them: said on every run until settled)."""
    acks = {}
    for name in sorted(owned):
        was = members.member(base, name) if base is not None else None
        acks[name] = settled.get(name) or members.digest(
            was if was is not None else members.member(new, name)
        )
    return acks, _stale(acks, new)


def _renamed_keys(owned: dict[str, str], renames: dict[str, str]) -> dict[str, str]:
    """The owned members (`Class.member`) of a class renamed in this run, under its new name:
    what the person settled stays settled, and what they have not stays said."""
    out = {}
    for name, ack in owned.items():
        owner, _, member = name.partition(".")
        out[f"{renames.get(owner, owner)}.{member}"] = ack
    return out


def _stale(acks: dict[str, str], new: str) -> list[str]:
    """The owned members (`acks`: name -> the generation settled) generated otherwise now."""
    return [
        name
        for name, ack in sorted(acks.items())
        if members.digest(members.member(new, name)) != ack
    ]


def _origin(plan: Plan, path: Path, read: dict[Path, Seen]) -> Path:
    """Where `path`'s text is: the file itself, or the one of a renamed declaration it takes."""
    origin = plan.moved.get(path)
    if origin is None or read[path].text is not None:
        return path
    read[origin] = Seen.read(origin)
    if read[origin].text is None:
        plan.lock.forget(origin)
        return path
    return origin


def _renames(plan: Plan, lock: Lock) -> dict[Path, dict[str, str]]:
    """A class renamed in its declaration, for its module and its test module: {old: new}."""
    renames: dict[Path, dict[str, str]] = {}
    for module, test in plan.companions.items():
        if module in plan.reused:  # the declaration did not change: no class was renamed
            continue
        source = module if module.is_file() else plan.moved.get(module, module)
        current = Seen.read(source).text
        # The base it is merged against: an undone run's, whose class had the old name.
        base = lock.merge_base(source, split_line_ends(current)[0]) if current else None
        if base is None or module not in plan.generated:
            continue
        old = set(_CLASS.findall(base)) - set(_CLASS.findall(plan.generated[module]))
        new = set(_CLASS.findall(plan.generated[module])) - set(_CLASS.findall(base))
        if len(old) == 1 and len(new) == 1:
            renames[module] = renames[test] = {old.pop(): new.pop()}
    return renames
