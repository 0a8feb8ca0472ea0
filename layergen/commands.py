"""What `generate` and `sync` do, for the command line and for `watch`, printing through `echo`.

Every command ends in `apply`, so they all see the same merges and the same conflicts.
Nothing here knows typer: the CLI and `watch` hand in their `echo`.
"""

from __future__ import annotations

import os
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

        def planned():
            return plan_run(find_declarations(roots), config)

        run = plan_run(
            find_declarations(roots), config, progress=progress_bar(quiet or mode != "write")
        )
        if (
            record and mode == "write"
        ):  # write, record the outputs, then plan the tests that check them
            from .golden import record_goldens

            apply(run, mode=mode, prefer=prefer, quiet=True, echo=echo, replan=planned)
            record_goldens([p for p in run.generated if p.name.startswith("test_")])
            run = planned()
        code = apply(run, mode=mode, prefer=prefer, quiet=quiet, echo=echo, replan=planned)
        return max(code, _handwritten_tests(roots, config, echo, mode, prefer, quiet))


def _handwritten_tests(roots: list[Path], config, echo: Echo, mode, prefer, quiet) -> int:
    """The tests `layergen tests` wrote for the hand-written layers under `roots`, derived
    again from their code with the flags it remembers: `generate` and its `--check` (the
    pre-commit hook) keep them in step as they keep generated files (issue 34)."""
    from .update.lock import Lock

    lock = Lock.read(config.root)
    if not lock.handwritten:  # the common case: nothing more to import or read
        return 0
    from .handwritten import plan_tests, remembered

    within = [Path(os.path.abspath(r)) for r in roots]
    if not remembered(lock, config, within):
        return 0

    def planned():
        return plan_tests(None, None, config, {}, None, within=within)[0]

    return apply(planned(), mode=mode, prefer=prefer, quiet=quiet, echo=echo, replan=planned)


def sync(
    modules: list[Path], config, *, echo: Echo, quiet: bool = False, skip_undeclared=False
) -> int:
    """Bring declarations up to date with hand-edited modules, then regenerate them."""
    from .sync import sync as sync_modules

    with one_run(config, "write", echo):

        def planned():
            return sync_modules(modules, config, skip_undeclared=skip_undeclared)

        run = planned()
        return apply(run, quiet=quiet, echo=echo, replan=planned) if run is not None else 0


def one_run(config, mode: str, echo: Echo):
    """Hold the project for this run (read-only runs share it)."""
    from .update.runlock import one_run_at_a_time

    return one_run_at_a_time(
        config.root, shared=mode != "write", waiting=lambda text: echo(text, err=True)
    )


def apply(
    run,
    *,
    echo: Echo,
    mode: str = "write",
    prefer: str = "merge",
    quiet: bool = False,
    replan: Callable[[], object] | None = None,
) -> int:
    """Reconcile the run with the files on disk, then write, check or diff it; the exit status.

    A file saved while the run writes (an editor takes no lock) stops the write before it is
    overwritten: the run is planned again with `replan` from what is on disk now, a few times,
    then reported (nothing written)."""
    from .output import file_states, styled, summary
    from .update.apply import reconcile
    from .writes import Changed, write

    for attempt in range(SAVE_RETRIES + 1):
        outcome = reconcile(run, prefer=prefer)
        changed = outcome.changed()
        if mode != "write":
            for path in changed:
                if mode == "diff":
                    if not outcome.is_lock_file(path):  # the lock is bookkeeping, not a change
                        echo(unified_diff(path, outcome.files.get(path, "")), nl=False)
                else:
                    echo(f"would change {shown(path)}", err=True)
            unsettled = report_unsettled(outcome, echo)
            return 1 if unsettled or (changed and mode == "check") else 0
        created = [p for p in changed if not p.exists()]
        removed = [p for p in outcome.deleted if p.exists() and not outcome.is_lock_file(p)]
        try:
            write(outcome.files, delete=outcome.deleted, expected=outcome.read)
            break
        except Changed as exc:
            if replan is None or attempt == SAVE_RETRIES:
                raise DiagnosticError([changed_during_run(exc.path)]) from None
            run = replan()
    if not quiet:
        listed = [p for p in outcome.files if not outcome.is_lock_file(p)] + removed
        listed += [outcome.lock.path] if outcome.lock.path in outcome.files else []
        states = file_states(
            listed, changed, created, conflicted=list(outcome.conflicts), removed=removed
        )
        for path, state in states.items():
            echo(f"{styled(state)} {shown(path)}")
        if len(states) > 1:
            echo(summary(states))
    return 1 if report_unsettled(outcome, echo) else 0


SAVE_RETRIES = 3  # plans again after a file saved during the write, then reports it


def changed_during_run(path: Path) -> Diagnostic:
    return Diagnostic(
        str(path),
        1,
        1,
        "changed-during-run",
        f"the file changed {SAVE_RETRIES + 1} times while layergen was writing it"
        " (an editor saving it?); it was not overwritten",
        "save it and run layergen again",
    )


def report(diagnostics: list[Diagnostic], echo: Echo) -> int:
    """Print located errors and say nothing was written; the exit status (2)."""
    from dataclasses import replace

    for d in diagnostics:
        where = shown(Path(d.path)) if Path(d.path).is_absolute() else d.path
        echo(replace(d, path=str(where)).format(), err=True)
    count = len(diagnostics)
    written = any(d.code == "partly-written" for d in diagnostics)  # see writes.write
    outcome = "some files were written (see above)" if written else "nothing was written"
    echo(f"{count} error{'s' if count != 1 else ''}; {outcome}.", err=True)
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


def report_unsettled(outcome, echo: Echo) -> bool:
    """Say what waits for the person (conflicts, changes to their members, orphans); any?"""
    for path in outcome.no_base:
        echo(
            f"{shown(path)}:1: warning: layergen has no base for this file (layergen.lock or"
            " .layergen/base/ lost): what matches the generation is taken as generated, and"
            " what differs is a conflict marked `in the file`, a hand edit or an older"
            " generation: keep what is yours [no-base]",
            err=True,
        )
    report_conflicts(outcome.conflicts, echo)
    report_hand_written(outcome.hand_written, echo)
    report_orphans(outcome.orphans, echo)
    return bool(outcome.conflicts or outcome.hand_written or outcome.orphans)


def report_hand_written(changed: dict[Path, list[tuple[str, int]]], echo: Echo) -> None:
    for path, found in changed.items():
        where = shown(path)
        for member, line in found:
            echo(
                f"{where}:{line}: hand-written: `{member}` is yours (hand_written), and the"
                " declaration changes it: bring it up to date by hand, then run"
                f" `layergen resolve {where} --ours` (`--theirs` takes the generated one)"
                " [hand-written]",
                err=True,
            )


def report_orphans(orphans: dict[Path, str], echo: Echo) -> None:
    for path, what in orphans.items():
        echo(
            f"{shown(path)}:1: orphan: generated for {what}, which is gone, and edited by"
            " hand since: it is kept; move what you need where it belongs now (the files of"
            " what took its place), then delete it [orphan]",
            err=True,
        )


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
