"""What a run changes in the lock, said while planning and reconciling, applied once.

Planning (`generate.plan_run`, `claims`, `layout_maps`, `handwritten`, `sync`) and
reconcile (`update/apply.py`) read the lock through a frozen view (`Lock.read` gives one)
and never change it: each says what should change as a `LockChanges`, a list of small
typed steps in the order they were decided. `applied` replays them on a copy of the lock,
once, just before its files are written with the run's (all or nothing); the lock as read
stays as it was, so a run planned again (a file saved meanwhile) starts from it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .lock import Lock, Record


@dataclass(frozen=True)
class Remember:
    """A declaration (or a support file, a layout map) rendered in this run into `files`."""

    declaration: Path
    record: Record
    files: tuple[tuple[Path, str], ...]

    def to(self, lock: Lock) -> None:
        lock.remember(self.declaration, self.record, dict(self.files))


@dataclass(frozen=True)
class KeepRecord:
    """A gone declaration's record kept for `outputs` only (none: dropped)."""

    key: str
    outputs: tuple[str, ...]

    def to(self, lock: Lock) -> None:
        lock.keep_record(self.key, self.outputs)


@dataclass(frozen=True)
class Forget:
    """`path` is no generated file any more (deleted, or moved away)."""

    path: Path

    def to(self, lock: Lock) -> None:
        lock.forget(self.path)


@dataclass(frozen=True)
class RecordText:
    """The text generated for `path` in this run: the base of the next merge."""

    path: Path
    generated: str
    source_digest: str | None = None
    owned: tuple[tuple[str, str], ...] = ()
    conflicted: tuple[str, str] | None = None

    def to(self, lock: Lock) -> None:
        lock.record(
            self.path, self.generated, self.source_digest, dict(self.owned), self.conflicted
        )


@dataclass(frozen=True)
class SettleOwned:
    """The person has seen these generations of the members they own in `path`."""

    path: Path
    owned: tuple[tuple[str, str], ...]

    def to(self, lock: Lock) -> None:
        lock.settle_owned(self.path, dict(self.owned))


@dataclass(frozen=True)
class Handwritten:
    """What `layergen tests` wrote the test module `key` from (None: it writes it no more)."""

    key: str
    entry: dict | None

    def to(self, lock: Lock) -> None:
        lock.set_handwritten(self.key, self.entry)


Step = Remember | KeepRecord | Forget | RecordText | SettleOwned | Handwritten


@dataclass
class LockChanges:
    steps: Sequence[Step] = field(default_factory=list)  # a tuple once `fixed`

    def fixed(self) -> LockChanges:
        """These changes, to be read only (a planned run's): adding to them raises."""
        return self if isinstance(self.steps, tuple) else LockChanges(tuple(self.steps))

    def remember(self, declaration: Path, record: Record, files: dict[Path, str]) -> None:
        self._add(Remember(declaration, record, tuple(files.items())))

    def keep_record(self, key: str, outputs: tuple[str, ...]) -> None:
        self._add(KeepRecord(key, outputs))

    def forget(self, path: Path) -> None:
        self._add(Forget(path))

    def record(
        self,
        path: Path,
        generated: str,
        source_digest: str | None = None,
        owned: dict[str, str] | None = None,
        conflicted: tuple[str, str] | None = None,
    ) -> None:
        self._add(
            RecordText(path, generated, source_digest, tuple((owned or {}).items()), conflicted)
        )

    def settle_owned(self, path: Path, owned: dict[str, str]) -> None:
        self._add(SettleOwned(path, tuple(owned.items())))

    def handwritten(self, key: str, entry: dict | None) -> None:
        self._add(Handwritten(key, entry))

    def extend(self, other: LockChanges) -> LockChanges:
        """These changes, then `other`'s (returns self)."""
        self._add(*other.steps)
        return self

    def _add(self, *steps: Step) -> None:
        if isinstance(self.steps, tuple):
            raise AttributeError("a planned run's lock changes are fixed: add to `changes + more`")
        self.steps.extend(steps)

    def __add__(self, other: LockChanges) -> LockChanges:
        return LockChanges([*self.steps, *other.steps])

    def __bool__(self) -> bool:
        return bool(self.steps)

    def handwritten_table(self, lock: Lock) -> dict[str, dict]:
        """`lock.handwritten` as these changes leave it (what `layergen tests` plans from),
        the lock itself not changed: the changes are made once, by `applied`."""
        table = dict(lock.handwritten)
        for step in self.steps:
            if isinstance(step, Handwritten) and step.entry is None:
                table.pop(step.key, None)
            elif isinstance(step, Handwritten):
                table[step.key] = step.entry
        return table

    def applied(self, lock: Lock) -> Lock:
        """A copy of `lock` with these changes made, in order; `lock` is left as it is."""
        changed = lock.copy()
        for step in self.steps:
            step.to(changed)
        return changed
