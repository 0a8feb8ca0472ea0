"""The one place commands print through: located errors, conflicts, diffs and paths.

Every command reports through these, so an error reads the same whichever command met it
and always ends with what was (not) written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from ..output import shown

Echo = Callable[..., None]  # echo(text, err=False, nl=True)


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


def report_warnings(warnings, echo: Echo) -> None:
    """Print what the declarations warn of (located, with a hint); the exit status is not
    theirs to change."""
    from dataclasses import replace

    for d in warnings:
        where = shown(Path(d.path)) if Path(d.path).is_absolute() else d.path
        echo(replace(d, path=str(where)).format(), err=True)


def reporting(command: Callable[..., int], echo: Echo) -> Callable[..., int]:
    """`command` with its mistakes printed as located errors (status 2) instead of raised."""

    def run(*args, **kwargs) -> int:
        try:
            return command(*args, **kwargs)
        except DiagnosticError as exc:
            return report(exc.diagnostics, echo)

    return run


def unified_diff(path: Path, new: str, old: str | None = None) -> str:
    """The diff from `old` (default: the file on disk, or nothing) to `new`."""
    import difflib

    if old is None:
        from ..textfiles import read_text

        old = read_text(path, missing_ok=True) or ""
    where = str(shown(path))
    return "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{where}", f"b/{where}")
    )


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
    for path, (declaration, when) in outcome.base_from.items():
        echo(
            f"{shown(path)}:1: info: its base in .layergen/base/ was lost; rendered again"
            f" from {declaration} {when}, which gives the generation layergen.lock records"
            " [base-from-declaration]",
            err=True,
        )
    report_conflicts(outcome.conflicts, echo)
    report_hand_written(outcome.hand_written, echo)
    report_untaken(outcome.untaken, echo)
    report_orphans(outcome.orphans, echo)
    return bool(outcome.conflicts or outcome.hand_written or outcome.untaken or outcome.orphans)


def report_conflicts(conflicts, echo: Echo) -> None:
    for path, found in conflicts.items():
        where = shown(path)
        settle = (
            f"keep yours, the generated lines or a mix, and delete the markers"
            f" (or run `layergen resolve {where} --ours|--theirs`)"
        )
        for c in found:
            if not c.member:
                what = "an unsettled conflict between a hand edit and the declaration"
            elif c.no_base:
                what = (
                    f"`{c.member}` differs from its generation, and with no base layergen cannot"
                    " tell a hand edit from an older generation: both are in the file"
                )
            else:
                what = (
                    f"`{c.member}` was edited by hand and the declaration changes it too:"
                    " both are in the file"
                )
            echo(f"{where}:{c.line}: conflict: {what}; {settle} [conflict]", err=True)


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


def report_untaken(untaken: dict[Path, list[tuple[str, int, list[str]]]], echo: Echo) -> None:
    for path, found in untaken.items():
        where = shown(path)
        for member, line, names in found:
            listed = ", ".join(f"`{name}`" for name in names)
            them = "it" if len(names) == 1 else "them"
            if member.endswith(".__init__"):
                echo(
                    f"{where}:{line}: hand-written: `{member}` is yours (hand_written) and takes"
                    f" {listed}, which the declaration's params leave out (its get_config and"
                    f" tests too): run `layergen sync {where}` to declare {them}, or take {them}"
                    " out of the signature [hand-written]",
                    err=True,
                )
                continue
            echo(
                f"{where}:{line}: hand-written: `{member}` is yours (hand_written) and does not"
                f" take {listed}, which the declaration calls it with (its docstring and tests"
                f" too): add {them} to its signature, or take {them} out of the declaration"
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
