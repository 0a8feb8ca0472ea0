"""`layergen sync`: bring declarations up to date with hand-edited modules, then regenerate them."""

from __future__ import annotations

from pathlib import Path

from .report import Echo
from .run import apply, one_run


def sync(
    modules: list[Path], config, *, echo: Echo, quiet: bool = False, skip_undeclared: bool = False
) -> int:
    """`modules`: generated modules edited by hand, or folders of them; the exit status."""
    from ..sync import sync as sync_modules

    with one_run(config, "write", echo):

        def planned():
            return sync_modules(modules, config, skip_undeclared=skip_undeclared)

        run = planned()
        return apply(run, quiet=quiet, echo=echo, replan=planned) if run is not None else 0
