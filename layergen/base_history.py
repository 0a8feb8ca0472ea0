"""A lost base rendered again from its declaration (`.layergen/base/` lost, the file edited).
The planner hands `rendered_base` to the run (`Plan.rebase`): rendering is its stage.

Nothing in the file tells the person's lines from the generation's, but the lock's record of
its declaration keeps the digest of the declaration's text but its class name
(`Record.content`). A text of the declaration with that digest (the one on disk, or one in git
history, newest first), given the class the record names and rendered now, is the base if it
comes out byte for byte as the digest the lock keeps for the file: proved, never guessed.
Anything else is no base, said as before.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .update.lock import Lock

_VERSIONS = 50  # of the declaration in git history, newest first


@dataclass(frozen=True)
class Found:
    text: str  # the base
    declaration: str  # the declaration it was rendered from (the lock's key)
    when: str  # "as it is now", or "as committed in 3f2a1b0 on 2026-12-01"


def rendered_base(lock: Lock, key: str, *, plan: Callable[..., Any]) -> Found | None:
    """The base of the generated file `key` rendered again from its declaration (by `plan`,
    the planner: `generate.plan_run`), or None."""
    entry = lock.entries.get(key)
    owners = [(k, r) for k, r in lock.records.items() if key in r.outputs and r.content]
    if entry is None or len(owners) != 1:
        return None
    declaration, record = owners[0]
    for raw, when in _texts(lock.root, declaration):
        text = _rendered(plan, lock.root, declaration, raw, record.name, record.content).get(key)
        if text is not None and hashlib.sha256(text.encode()).hexdigest() == entry.digest:
            return Found(text, declaration, when)
    return None


def _texts(root: Path, declaration: str):
    """The declaration's texts: on disk, then in git history (newest first)."""
    path = root / declaration
    if path.is_file():
        yield path.read_bytes(), "as it is now"
    log = _git(root, "log", f"-n{_VERSIONS}", "--format=%H %cs", "--", declaration)
    for line in (log or b"").decode().splitlines():
        commit, _, day = line.partition(" ")
        raw = _git(root, "show", f"{commit}:{declaration}")
        if raw is not None:
            yield raw, f"as committed in {commit[:7]} on {day}"


def _rendered(
    plan_run: Callable[..., Any], root: Path, declaration: str, raw: bytes, name: str, content: str
) -> dict:
    """{key: text} of the files the declaration's text renders to, with the class `name`;
    nothing when its text is another than the one recorded (`content`) or does not render."""
    from .config import load_config
    from .diagnostics import DiagnosticError
    from .renames import content as content_of
    from .renames import with_class

    if content_of(raw) != content:
        return {}
    try:
        text = with_class(raw.decode("utf-8"), name) if name else raw.decode("utf-8")
        if text is None:
            return {}
        path = root / declaration
        plan = plan_run([path], load_config(root), texts={path: text}, renames=False)
    except (DiagnosticError, UnicodeDecodeError):
        return {}
    return {plan.lock.key(p): t for p, t in plan.generated.items()}


def _git(root: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
