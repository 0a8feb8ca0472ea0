"""`layergen mv`: rename or move a declaration with its layer and tests, hand edits kept."""

from __future__ import annotations

import os
from pathlib import Path

from .report import Echo
from .run import apply, one_run


def mv(
    old: Path, new: Path, config, *, echo: Echo, class_name: str | None = None, quiet: bool = False
) -> int:
    """`new` may be a folder (the file keeps its name); the exit status."""
    from ..move import plan_move

    old_path, new_path = Path(os.path.abspath(old)), Path(os.path.abspath(new))
    if new_path.is_dir():
        new_path = new_path / old_path.name

    def planned():
        return plan_move(old_path, new_path, config, class_name)

    with one_run(config, "write", echo):
        return apply(planned(), quiet=quiet, echo=echo, replan=planned)
