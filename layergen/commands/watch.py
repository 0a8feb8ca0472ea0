"""`layergen watch`: regenerate each declaration when it is saved (and sync edited modules),
printing through the same commands (`layergen/watch.py` does the watching)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from .report import Echo, reporting

if TYPE_CHECKING:
    import threading


def watch(
    paths: list[Path] | None,
    *,
    echo: Echo,
    quiet: bool = False,
    stop_event: threading.Event | None = None,
) -> int:
    """Returns on Ctrl-C (or when `stop_event` is set); raises `DiagnosticError` when there
    is nothing to watch."""
    from ..watch import watch as watch_paths

    generate, sync, warm_up, configured = runners(quiet, echo)
    watch_paths(
        [p.resolve() for p in paths] if paths else configured,
        generate=generate,
        sync=sync,
        warm_up=warm_up,
        quiet=quiet,
        echo=echo,
        stop_event=stop_event,
    )
    return 0


@contextlib.contextmanager
def fresh_trees():
    """A run keeps the module trees and members' code it made (a run meets them again);
    a watcher runs for hours: each run's are let go when it ends."""
    from ..textfiles import parsed
    from ..update.merge import code

    try:
        yield
    finally:
        parsed.cache_clear()
        code.cache_clear()


def runners(quiet: bool, echo: Echo) -> tuple:
    """layergen's own generate, sync and warm-up for the watcher, and the configured paths.
    Each run reads the configuration again: pyproject.toml may have changed meanwhile."""
    from ..config import load_config
    from .generate import generate as generate_declarations
    from .run import warm_up
    from .sync import sync as sync_modules

    def generate(declarations: list[Path]) -> int:  # as `layergen generate` does
        with fresh_trees():
            return generate_declarations(declarations, load_config(), echo=echo, quiet=quiet)

    def sync(modules: list[Path]) -> int:
        with fresh_trees():
            return sync_modules(modules, load_config(), echo=echo, quiet=quiet)

    config = load_config()
    return (
        reporting(generate, echo),
        reporting(sync, echo),
        lambda: warm_up(config),
        config.declaration_paths,
    )
