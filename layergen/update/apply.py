"""Turn a planned run into the final text of each file, merging hand edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..generate import Plan
from .merge import Conflict, Prefer, merge


@dataclass
class Outcome:
    files: dict[Path, str]  # final texts, the lock file included
    conflicts: dict[Path, list[Conflict]] = field(default_factory=dict)

    def changed(self) -> list[Path]:
        return [p for p, text in self.files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]

    def rejects(self) -> dict[Path, str]:
        """For each file with conflicts, the generated versions of the members that collided."""
        return {
            path.with_name(path.name + ".rej"): "".join(
                f"# layergen: generated `{c.member}` (yours is kept in {path.name}, line {c.line})\n{c.generated.lstrip()}\n"
                for c in conflicts
            )
            for path, conflicts in self.conflicts.items()
        }


def reconcile(plan: Plan, *, prefer: Prefer = "merge") -> Outcome:
    lock = plan.lock
    files: dict[Path, str] = dict(plan.support)
    conflicts: dict[Path, list[Conflict]] = {}
    for path, new in plan.generated.items():
        if path.is_file():
            result = merge(lock.base(path), path.read_text(encoding="utf-8"), new, prefer=prefer)
            files[path] = result.text
            if result.conflicts:
                # The old base stays, so the conflict is shown again until it is settled.
                conflicts[path] = result.conflicts
                continue
        else:
            files[path] = new
        lock.record(path, new, plan.sources.get(path))
    if plan.generated:
        files[lock.path] = lock.text()
    return Outcome(files, conflicts)
