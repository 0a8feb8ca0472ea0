"""A planned run: every file's new text, before it meets what is on disk.

`generate` plans it; `update.apply` reconciles it with the disk; the type lives here,
below both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .lock import Lock


@dataclass
class Plan:
    """Every file of a run: `generated` files are merged into what is on disk; `support`
    files (package `__init__`, the tests' conftest) are only ever added to."""

    generated: dict[Path, str]
    support: dict[Path, str]
    sources: dict[Path, str]  # generated path -> digest of its unformatted source
    lock: Lock  # as read for this run: the merge bases, and the texts black was spared
    companions: dict[Path, Path] = field(default_factory=dict)  # module -> its test module
    hand_written: dict[Path, frozenset[str]] = field(
        default_factory=dict
    )  # module -> members kept as written
    reused: frozenset[Path] = frozenset()  # files taken from the lock: as on disk, nothing to merge

    @property
    def files(self) -> dict[Path, str]:
        return {**self.generated, **self.support}
