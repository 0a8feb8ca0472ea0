"""`layergen resolve`: settle the conflicts in files, keeping one side of each."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from ..update.conflicts import Side
from .report import Echo, shown
from .run import one_run


def resolve(files: list[Path], side: Side | None, *, echo: Echo, quiet: bool = False) -> int:
    """`side` None: the person said neither or both; the exit status. The project's
    configuration is read once the arguments are known to be right."""
    from ..config import load_config
    from ..update.settle import settle
    from ..writes import write

    if side is None:
        raise DiagnosticError(
            [
                Diagnostic(
                    "resolve",
                    1,
                    1,
                    "bad-option",
                    "say which side to keep",
                    "pass --ours or --theirs",
                )
            ]
        )
    missing = [
        Diagnostic(str(f), None, None, "no-such-file", "no such file")
        for f in files
        if not f.is_file()
    ]
    if missing:
        raise DiagnosticError(missing)
    config = load_config()
    resolved = [f.resolve() for f in files]
    with one_run(config, "write", echo):
        done = settle(resolved, side, config.root)
        write({**done.texts, **(done.lock.files() if done.lock else {})})
    if not quiet:
        for f in resolved:
            echo(f"{'resolved' if f in done.resolved else 'no conflict':10} {shown(f)}")
    return 0
