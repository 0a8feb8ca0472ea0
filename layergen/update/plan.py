"""A planned run: every file's new text, before it meets what is on disk.

`generate` plans it; `update.apply` reconciles it with the disk; the type lives here,
below both. A plan is a value: its tables are read-only views, its lock changes a fixed
list; a command that adds to a run (`new`'s scaffold, `sync`'s declarations) makes a
variant with `dataclasses.replace`, as copier builds its workers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..diagnostics import Diagnostic
from ..textfiles import Seen
from .changes import LockChanges
from .lock import Lock


@dataclass(frozen=True)
class Plan:
    """Every file of a run: `generated` files are merged into what is on disk; `support`
    files (package `__init__`, the tests' conftest) are only ever added to."""

    generated: Mapping[Path, str]
    support: Mapping[Path, str]
    sources: Mapping[Path, str]  # generated path -> digest of its unformatted source
    # As read for this run (frozen): the merge bases, and the texts black was spared.
    lock: Lock
    companions: Mapping[Path, Path] = field(default_factory=dict)  # module -> its test module
    hand_written: Mapping[Path, frozenset[str]] = field(
        default_factory=dict
    )  # module -> members kept as written
    # module -> owned members whose body the declaration does not state: kept, never followed
    unstated: Mapping[Path, frozenset[str]] = field(default_factory=dict)
    # module -> members (`Class.call`) whose hand edit `sync` carried into the declaration: the
    # file takes their new generation (the same code, formatted as generated code is), the
    # person's comments in and above them kept.
    carried: Mapping[Path, frozenset[str]] = field(default_factory=dict)
    # module -> members (`Class.build`) `sync` listed under `hand_written` in this run: said.
    handed: Mapping[Path, list[str]] = field(default_factory=dict)
    reused: frozenset[Path] = frozenset()  # files taken from the lock: as on disk, nothing to merge
    # The support files it writes, as the run read them; see `writes.write`.
    read: Mapping[Path, Seen] = field(default_factory=dict)
    # Files of declarations that were renamed or moved, or are gone (layergen/renames.py, layergen/claims.py):
    moved: Mapping[Path, Path] = field(default_factory=dict)  # new path -> the old file it takes
    removed: Mapping[Path, Seen] = field(default_factory=dict)  # as generated: deleted
    orphans: Mapping[Path, str] = field(default_factory=dict)  # hand-edited: kept and reported
    # Generated files outside the run that hold unsettled conflicts: {path: marker lines}.
    unsettled: Mapping[Path, list[int]] = field(default_factory=dict)
    # What planning changes in the lock (records of what it rendered, of gone declarations,
    # members settled by `sync`): reconcile reads the lock with them, and adds its own.
    changes: LockChanges = field(default_factory=LockChanges)
    # How a lost base is rendered again from its declaration (the planner's stage renders;
    # `base_history.rendered_base`), or None: a lost base stays lost.
    rebase: Callable[[Lock, str], Any] | None = None
    # What the declarations warn of (a `when` the tests build one side of): said, not
    # settled; the exit status stays what the files make it.
    warnings: tuple[Diagnostic, ...] = ()

    def __post_init__(self) -> None:
        for each in fields(self):
            value = getattr(self, each.name)
            if isinstance(value, Mapping):
                object.__setattr__(self, each.name, MappingProxyType(dict(value)))
        object.__setattr__(self, "changes", self.changes.fixed())

    @cached_property
    def planned_lock(self) -> Lock:
        """The lock as planning leaves it, read-only (the lock as read when nothing changed):
        the planned changes made once, whoever asks."""
        return self.changes.applied(self.lock).copy(frozen=True) if self.changes else self.lock

    @property
    def files(self) -> dict[Path, str]:
        return {**self.generated, **self.support}
