"""`layergen sync`: bring declarations up to date with hand-edited modules, then regenerate them."""

from __future__ import annotations

from pathlib import Path

from .report import Echo, shown
from .run import apply, one_run


def sync(
    modules: list[Path], config, *, echo: Echo, quiet: bool = False, skip_undeclared: bool = False
) -> int:
    """`modules`: generated modules edited by hand, or folders of them; the exit status."""
    from ..sync import sync as sync_modules

    runs = []

    def planned():
        runs.append(sync_modules(modules, config, skip_undeclared=skip_undeclared))
        return runs[-1]

    with one_run(config, "write", echo):
        run = planned()
        if run is None:
            return 0
        code = apply(run, quiet=quiet, echo=echo, replan=planned)
    if code != 2:
        report_handed(runs[-1].handed, echo)
    return code


def report_handed(handed: dict[Path, list[str]], echo: Echo) -> None:
    """Each member `sync` left to the person, at its line: never a silent `hand_written`."""
    from ..sync import declaration_of
    from ..textfiles import read_text
    from ..update import members

    for module, names in handed.items():
        text = read_text(module, missing_ok=True) or ""
        declaration = shown(declaration_of(module))
        for name in names:
            echo(
                f"{shown(module)}:{members.line(text, name)}: info: `{name}` is yours now:"
                f" the declaration cannot say your edit, so sync listed it under hand_written"
                f" in {declaration}; layergen keeps it as you write it, and says when the"
                " declaration changes it [hand-written]",
                err=True,
            )
