"""`layergen resolve`: settle the conflicts in files by keeping one side of each.

A conflict block is told from look-alike lines with the text layergen generated last for
the file (the lock's base): lines of it, such as a `=======` inside a string, are code.
"""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import DiagnosticError
from ..textfiles import read_text, split_line_ends, with_line_ends
from . import conflicts
from .lock import Lock


def settled(files: list[Path], side: conflicts.Side, root: Path) -> dict[Path, str]:
    """The new text of each file in `files` that holds conflicts, each settled on `side`."""
    bases = _bases(root)
    out: dict[Path, str] = {}
    for path in files:
        text, ends = split_line_ends(read_text(path))
        generated = bases(path)
        if conflicts.blocks(text, generated):
            out[path] = with_line_ends(conflicts.resolve(text, side, generated), ends)
    return out


def _bases(root: Path):
    """path -> the lock's base text of it, or None (no lock, no base, or one that cannot be read:
    every marker-like line is then taken for a marker, as it always was)."""
    try:
        lock = Lock.read(root)
    except DiagnosticError:
        return lambda path: None

    def base(path: Path) -> str | None:
        try:
            return lock.base(path)
        except DiagnosticError:
            return None

    return base
