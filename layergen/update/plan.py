"""A planned run: every file's new text, before it meets what is on disk.

`generate` plans it; `update.apply` reconciles it with the disk; the type lives here,
below both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..textfiles import Seen
from .changes import LockChanges
from .lock import Lock


@dataclass
class Plan:
    """Every file of a run: `generated` files are merged into what is on disk; `support`
    files (package `__init__`, the tests' conftest) are only ever added to."""

    generated: dict[Path, str]
    support: dict[Path, str]
    sources: dict[Path, str]  # generated path -> digest of its unformatted source
    # As read for this run (frozen): the merge bases, and the texts black was spared.
    lock: Lock
    companions: dict[Path, Path] = field(default_factory=dict)  # module -> its test module
    hand_written: dict[Path, frozenset[str]] = field(
        default_factory=dict
    )  # module -> members kept as written
    # module -> owned members whose body the declaration does not state: kept, never followed
    unstated: dict[Path, frozenset[str]] = field(default_factory=dict)
    # module -> members (`Class.call`) whose hand edit `sync` carried into the declaration: the
    # file takes their new generation (the same code, formatted as generated code is), the
    # person's comments in and above them kept.
    carried: dict[Path, frozenset[str]] = field(default_factory=dict)
    # module -> members (`Class.build`) `sync` listed under `hand_written` in this run: said.
    handed: dict[Path, list[str]] = field(default_factory=dict)
    reused: frozenset[Path] = frozenset()  # files taken from the lock: as on disk, nothing to merge
    # The support files it writes, as the run read them; see `writes.write`.
    read: dict[Path, Seen] = field(default_factory=dict)
    # Files of declarations that were renamed or moved, or are gone (layergen/renames.py, layergen/claims.py):
    moved: dict[Path, Path] = field(default_factory=dict)  # new path -> the old file it takes
    removed: dict[Path, Seen] = field(default_factory=dict)  # as generated: deleted
    orphans: dict[Path, str] = field(default_factory=dict)  # hand-edited: kept and reported
    # Generated files outside the run that hold unsettled conflicts: {path: marker lines}.
    unsettled: dict[Path, list[int]] = field(default_factory=dict)
    # What planning changes in the lock (records of what it rendered, of gone declarations,
    # members settled by `sync`): reconcile reads the lock with them, and adds its own.
    changes: LockChanges = field(default_factory=LockChanges)
    # How a lost base is rendered again from its declaration (the planner's stage renders;
    # `base_history.rendered_base`), or None: a lost base stays lost.
    rebase: Callable[[Lock, str], Any] | None = None

    def planned_lock(self) -> Lock:
        """The lock as planning leaves it, read-only (the lock as read when nothing changed)."""
        return self.changes.applied(self.lock).copy(frozen=True) if self.changes else self.lock

    @property
    def files(self) -> dict[Path, str]:
        return {**self.generated, **self.support}
