"""`layergen resolve`: settle what waits for the person in files, keeping one side.

Two things wait: conflict blocks (a hand edit and the declaration changed the same lines),
and changes the declaration made to members the person owns (`hand_written`), which the
lock remembers until settled. `--ours` keeps the person's lines (and says the change was
seen); `--theirs` takes the generated ones. A conflict block is told from look-alike lines
with the text layergen generated last for the file (the lock's base): lines of it, such as
a `=======` inside a string, are code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import DiagnosticError
from ..textfiles import parse_python, read_text, split_line_ends, with_line_ends
from . import conflicts, members
from .changes import LockChanges
from .lock import Lock


@dataclass
class Settled:
    texts: dict[Path, str] = field(default_factory=dict)  # files whose text changes
    resolved: set[Path] = field(default_factory=set)  # files where something was settled
    lock: Lock | None = None  # to write again: a change to an owned member was settled
    changes: LockChanges = field(default_factory=LockChanges)  # what makes `lock` from the read one
    # Owned members (`Class.build`) whose generation `--theirs` took: the declaration's again.
    taken: dict[Path, list[str]] = field(default_factory=dict)


def settle(files: list[Path], side: conflicts.Side, root: Path) -> Settled:
    try:
        lock: Lock | None = Lock.read(root)
    except DiagnosticError:  # every marker-like line is then taken for a marker, as it always was
        lock = None
    out = Settled()
    for path in files:
        stored = read_text(path)
        text, ends = split_line_ends(stored)
        generated = _base(lock, path)
        if conflicts.blocks(text, generated):
            text = conflicts.resolve(text, side, generated)
            out.resolved.add(path)
        if lock is not None and generated is not None and lock.owned(path):
            parse_python(path, text, "settle")
            text = _settle_owned(lock, path, text, generated, side, out)
        if with_line_ends(text, ends) != stored:
            out.texts[path] = with_line_ends(text, ends)
    if out.changes:
        out.lock = out.changes.applied(lock)
    return out


def _settle_owned(
    lock: Lock, path: Path, text: str, generated: str, side: conflicts.Side, out: Settled
) -> str:
    """Settle the changes to members the person owns: seen (`ours`), or taken (`theirs`)."""
    owned = lock.owned(path)
    now = {name: members.member(generated, name) for name in owned}
    changed = [name for name, ack in owned.items() if members.digest(now[name]) != ack]
    if not changed:
        return text
    for name in changed:
        if side == "theirs" and now[name] is not None:
            text = members.with_member(text, name, now[name])
            out.taken.setdefault(path, []).append(name)
    out.changes.settle_owned(
        path, {**owned, **{name: members.digest(now[name]) for name in changed}}
    )
    out.resolved.add(path)
    return text


def _base(lock: Lock | None, path: Path) -> str | None:
    """The lock's base text of `path`; None without one (or one that cannot be read)."""
    try:
        return lock.base(path) if lock is not None else None
    except DiagnosticError:
        return None
