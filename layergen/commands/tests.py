"""`layergen tests`: tests for Keras layers written without layergen, kept in step like
generated files (`handwritten.py` plans them)."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from .report import Echo, shown
from .run import apply, one_run


def tests(
    target: str | None,
    *,
    echo: Echo,
    examples: list[str] = (),
    input_shape: str | None = None,
    tests_folder: Path | None = None,
    quiet: bool = False,
) -> int:
    """`target`: FILE or FILE:Class (None: every layer `tests` wrote tests for, with the
    flags it was given); the exit status. The configuration is read once the arguments
    are known to be right."""
    from dataclasses import replace

    from ..config import load_config
    from ..handwritten import parse_examples, parse_input_shape, plan_tests

    file, _, wanted = (target or "").partition(":")
    shape = parse_input_shape(input_shape)
    if target and not Path(file).is_file():
        raise DiagnosticError([Diagnostic(file, None, None, "no-such-file", "no such file")])
    config = load_config().override(
        tests=tests_folder.resolve() if tests_folder else None, package=None
    )
    with one_run(config, "write", echo):

        def planned():
            return plan_tests(
                Path(file) if target else None,
                wanted or None,
                config,
                parse_examples(list(examples)),
                shape,
            )

        run, notes = planned()
        for note in notes if not quiet else []:
            echo(replace(note, path=str(shown(Path(note.path)))).format(), err=True)
        return apply(run, quiet=quiet, echo=echo, replan=lambda: planned()[0])
