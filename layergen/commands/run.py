"""What every writing command shares: one run at a time, and `apply`, which reconciles a
planned run with the files on disk and writes, checks or diffs it.

Every command ends in `apply`, so they all see the same merges and the same conflicts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ..diagnostics import Diagnostic, DiagnosticError
from ..update.conflicts import Prefer
from .report import Echo, report_unsettled, report_warnings, shown, unified_diff

Mode = Literal["write", "check", "diff"]  # write the files; exit 1 if any would change; print diffs

SAVE_RETRIES = 3  # plans again after a file saved during the write, then reports it


def one_run(config, mode: Mode, echo: Echo):
    """Hold the project for this run (read-only runs share it)."""
    from ..update.runlock import one_run_at_a_time

    return one_run_at_a_time(
        config.root, shared=mode != "write", waiting=lambda text: echo(text, err=True)
    )


def apply(
    run,
    *,
    echo: Echo,
    mode: Mode = "write",
    prefer: Prefer = "merge",
    quiet: bool = False,
    replan: Callable[[], object] | None = None,
) -> int:
    """Reconcile the run with the files on disk, then write, check or diff it; the exit status.

    A file saved while the run writes (an editor takes no lock) stops the write before it is
    overwritten: the run is planned again with `replan` from what is on disk now, a few times,
    then reported (nothing written)."""
    from ..output import file_states, stale, styled, summary
    from ..update.apply import reconcile
    from ..writes import Changed, write

    if not quiet:
        report_warnings(run.warnings, echo)
    for attempt in range(SAVE_RETRIES + 1):
        outcome = reconcile(run, prefer=prefer)
        changed = outcome.changed()
        if mode != "write":
            for path in changed if mode == "diff" else ():
                if not outcome.is_lock_file(path):  # the lock is bookkeeping, not a change
                    echo(unified_diff(path, outcome.files.get(path, "")), nl=False)
            unsettled = report_unsettled(outcome, echo)
            for line in stale(changed, outcome.is_lock_file) if mode == "check" else ():
                echo(line, err=True)  # after the conflicts: the last line says the fix
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


def changed_during_run(path) -> Diagnostic:
    return Diagnostic(
        str(path),
        1,
        1,
        "changed-during-run",
        f"the file changed {SAVE_RETRIES + 1} times while layergen was writing it"
        " (an editor saving it?); it was not overwritten",
        "save it and run layergen again",
    )


def warm_up(config) -> None:
    """Load what a run needs (for `watch`: a saved declaration then costs its own work only)."""
    import libcst

    from ..render_many import warm_up as warm_rendering
    from ..update import merge  # noqa: F401

    warm_rendering(config)
    libcst.parse_module("pass\n")
