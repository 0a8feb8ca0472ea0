"""What `generate` and `sync` do, for the command line and for `watch`, printing through `echo`.

Every command ends in `apply`, so they all see the same merges and the same conflicts.
Nothing here knows typer: the CLI and `watch` hand in their `echo`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError

Echo = Callable[..., None]  # echo(text, err=False, nl=True)


def generate(
    roots: list[Path],
    config,
    *,
    echo: Echo,
    mode: str = "write",
    prefer: str = "merge",
    quiet: bool = False,
    record: bool = False,
) -> int:
    """Render the declarations under `roots` and write, check or diff them; the exit status.
    Raises `DiagnosticError` for a mistake in the input."""
    from .generate import find_declarations, plan_run
    from .output import progress_bar

    with one_run(config, mode, echo):
        run = plan_run(
            find_declarations(roots), config, progress=progress_bar(quiet or mode != "write")
        )
        if (
            record and mode == "write"
        ):  # write, record the outputs, then plan the tests that check them
            from .golden import record_goldens

            apply(run, mode=mode, prefer=prefer, quiet=True, echo=echo)
            record_goldens([p for p in run.generated if p.name.startswith("test_")])
            run = plan_run(find_declarations(roots), config)
        return apply(run, mode=mode, prefer=prefer, quiet=quiet, echo=echo)


def sync(
    modules: list[Path], config, *, echo: Echo, quiet: bool = False, skip_undeclared=False
) -> int:
    """Bring declarations up to date with hand-edited modules, then regenerate them."""
    from .sync import sync as sync_modules

    with one_run(config, "write", echo):
        run = sync_modules(modules, config, skip_undeclared=skip_undeclared)
        return apply(run, quiet=quiet, echo=echo) if run is not None else 0


def one_run(config, mode: str, echo: Echo):
    """Hold the project for this run (read-only runs share it)."""
    from .update.runlock import one_run_at_a_time

    return one_run_at_a_time(
        config.root, shared=mode != "write", waiting=lambda text: echo(text, err=True)
    )


def apply(
    run, *, echo: Echo, mode: str = "write", prefer: str = "merge", quiet: bool = False
) -> int:
    """Reconcile the run with the files on disk, then write, check or diff it; the exit status."""
    from .generate import write
    from .output import file_states, styled, summary
    from .update.apply import reconcile

    outcome = reconcile(run, prefer=prefer)
    changed = outcome.changed()
    if mode != "write":
        for path in changed:
            if mode == "diff":
                if not outcome.is_lock_file(
                    path
                ):  # the lock is bookkeeping, not a change to review
                    echo(unified_diff(path, outcome.files.get(path, "")), nl=False)
            else:
                echo(f"would change {shown(path)}", err=True)
        report_conflicts(outcome.conflicts, echo)
        return 1 if outcome.conflicts or (changed and mode == "check") else 0
    created = [p for p in changed if not p.exists()]
    write(outcome.files, delete=outcome.deleted)
    if not quiet:
        listed = [p for p in outcome.files if not outcome.is_lock_file(p) or p == outcome.lock.path]
        states = file_states(listed, changed, created, conflicted=list(outcome.conflicts))
        for path, state in states.items():
            echo(f"{styled(state)} {shown(path)}")
        if len(states) > 1:
            echo(summary(states))
    report_conflicts(outcome.conflicts, echo)
    return 1 if outcome.conflicts else 0


def report(diagnostics: list[Diagnostic], echo: Echo) -> int:
    """Print located errors and say nothing was written; the exit status (2)."""
    from dataclasses import replace

    for d in diagnostics:
        where = shown(Path(d.path)) if Path(d.path).is_absolute() else d.path
        echo(replace(d, path=str(where)).format(), err=True)
    count = len(diagnostics)
    echo(f"{count} error{'s' if count != 1 else ''}; nothing was written.", err=True)
    return 2


def reporting(command: Callable[..., int], echo: Echo) -> Callable[..., int]:
    """`command` with its mistakes printed as located errors (status 2) instead of raised."""

    def run(*args, **kwargs) -> int:
        try:
            return command(*args, **kwargs)
        except DiagnosticError as exc:
            return report(exc.diagnostics, echo)

    return run


def warm_up(config) -> None:
    """Load what a run needs (for `watch`: a saved declaration then costs its own work only)."""
    import libcst

    from .render_many import warm_up as warm_rendering
    from .update import merge  # noqa: F401

    warm_rendering(config)
    libcst.parse_module("pass\n")


def report_conflicts(conflicts, echo: Echo) -> None:
    for path, found in conflicts.items():
        where = shown(path)
        settle = (
            f"keep yours, the generated lines or a mix, and delete the markers"
            f" (or run `layergen resolve {where} --ours|--theirs`)"
        )
        for c in found:
            what = (
                f"`{c.member}` was edited by hand and the declaration changes it too: both are in the file"
                if c.member
                else "an unsettled conflict between a hand edit and the declaration"
            )
            echo(f"{where}:{c.line}: conflict: {what}; {settle} [conflict]", err=True)


def unified_diff(path: Path, text: str) -> str:
    import difflib

    from .textfiles import read_text

    old = read_text(path, missing_ok=True) or ""
    where = str(shown(path))
    return "".join(
        difflib.unified_diff(
            old.splitlines(True), text.splitlines(True), f"a/{where}", f"b/{where}"
        )
    )


def shown(path: Path):
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path
