"""`layergen generate`: render declarations into layers and their tests, keeping hand edits."""

from __future__ import annotations

import os
from pathlib import Path

from ..diagnostics import DiagnosticError
from .report import Echo
from .run import Mode, Prefer, apply, one_run


def generate_command(
    paths: list[Path] | None,
    config,
    *,
    echo: Echo,
    mode: Mode = "write",
    prefer: Prefer = "merge",
    quiet: bool = False,
    record: bool = False,
) -> int:
    """`paths` as the person gave them (default: the configured paths); the exit status."""
    # Links kept: output goes beside them.
    roots = [Path(os.path.abspath(p)) for p in paths] if paths else config.declaration_paths
    if not roots:
        from ..config import no_paths

        raise DiagnosticError([no_paths(config.root, "generate", "no declarations given")])
    return generate(
        roots,
        config,
        echo=echo,
        mode=mode,
        prefer=prefer,
        quiet=quiet,
        record=record,
        whole_project=not paths,
    )


def generate(
    roots: list[Path],
    config,
    *,
    echo: Echo,
    mode: Mode = "write",
    prefer: Prefer = "merge",
    quiet: bool = False,
    record: bool = False,
    whole_project: bool = False,
) -> int:
    """Render the declarations under `roots` and write, check or diff them; the exit status.
    `whole_project`: the run is the project's (no paths named), and so are the tests
    `layergen tests` wrote, wherever their layers are. Raises `DiagnosticError` for a
    mistake in the input."""
    from ..generate import find_declarations, plan_run
    from ..output import progress_bar

    with one_run(config, mode, echo):

        def planned():
            return plan_run(find_declarations(roots), config)

        run = plan_run(
            find_declarations(roots), config, progress=progress_bar(quiet or mode != "write")
        )
        if mode == "write":  # write, record the outputs, then plan the tests that check them
            from ..golden import golden_path, originals, record_goldens

            twins = originals(
                find_declarations(roots), config, run.companions, missing_only=not record
            )
            tests = [p for p in run.generated if p.name.startswith("test_")] if record else []
            tests += [t for t in twins if t not in tests and not golden_path(t).is_file()]
            if tests:
                apply(run, mode=mode, prefer=prefer, quiet=True, echo=echo, replan=planned)
                record_goldens([t for t in tests if t.is_file()], twins=twins)
                run = planned()
        code = apply(run, mode=mode, prefer=prefer, quiet=quiet, echo=echo, replan=planned)
        within = None if whole_project else [Path(os.path.abspath(r)) for r in roots]
        return max(code, _handwritten_tests(within, config, echo, mode, prefer, quiet))


def _handwritten_tests(
    within: list[Path] | None, config, echo: Echo, mode: Mode, prefer: Prefer, quiet: bool
) -> int:
    """The tests `layergen tests` wrote for the hand-written layers in the folders or files
    `within` (None: all of them, outside the configured `paths` too), derived again from
    their code with the flags it remembers: `generate` and its `--check` (the pre-commit
    hook) keep them in step as they keep generated files."""
    from ..update.lock import Lock

    lock = Lock.read(config.root)
    if not lock.handwritten:  # the common case: nothing more to import or read
        return 0
    from ..handwritten import plan_tests, remembered

    if not remembered(lock, config, within):
        return 0

    def planned():
        return plan_tests(None, None, config, {}, None, within=within)[0]

    return apply(planned(), mode=mode, prefer=prefer, quiet=quiet, echo=echo, replan=planned)
