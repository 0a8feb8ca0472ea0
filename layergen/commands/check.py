"""`layergen check`: find the classic bugs of hand-written Keras layers (read, never
imported), and fix the safe ones. The rules live in `layergen/lint/`."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .report import Echo, shown, unified_diff


def explain(code: str, *, echo: Echo) -> int:
    """Print what rule `code` finds, with an example."""
    from ..lint.rules import RULES

    if code not in RULES:
        raise DiagnosticError(
            [
                Diagnostic(
                    "--explain",
                    1,
                    1,
                    "unknown-rule",
                    f"unknown rule `{code}`",
                    did_you_mean(code, RULES) or f"rules: {', '.join(RULES)}",
                )
            ]
        )
    echo(RULES[code].explain())
    return 0


def check(
    paths: list[Path] | None,
    *,
    echo: Echo,
    fix: bool = False,
    diff: bool = False,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    quiet: bool = False,
    no_cache: bool = False,
) -> int:
    """Check `paths` (default: the project's Python files and declaration folders); the exit
    status: 1 when anything was found (or, with `diff`, would be fixed)."""
    from ..lint.cache import CheckCache
    from ..lint.engine import check_files, default_paths, python_files
    from ..lint.settings import load_settings

    settings = load_settings(select=select, ignore=ignore)
    project = python_files(default_paths(settings), settings)
    files = python_files([p.resolve() for p in paths], settings) if paths else project
    # The files named are checked with the project around them (their parents, subclasses
    # and registration functions), so they get the findings a whole-project run gives them.
    context = list(dict.fromkeys([*project, *files]))
    only = set(files) if paths else None
    # --fix and --diff rewrite the files they parse: they do not take findings from the cache.
    cache = None if (fix or diff or no_cache) else CheckCache(settings)
    report = check_files(context, settings, cache=cache, only=only)
    if report.errors:
        raise DiagnosticError(report.errors)
    for skipped in report.skipped:
        echo(skipped.format(), err=True)
    fixed: dict[Path, str] = {}
    if fix or diff:
        fixed = _fixed(report, settings, echo)
        if diff:
            for path, text in fixed.items():
                echo(unified_diff(path, text, report.files[path].text), nl=False)
            return 1 if fixed or report.findings else 0
        from ..writes import write

        write(fixed)
        report = check_files(context, settings, texts=fixed, only=only) if fixed else report
    diagnostics = report.diagnostics(lambda path: str(shown(path)))
    for d in diagnostics:
        echo(d.format())
    if not quiet:
        _summary(report, diagnostics, fixed, fix, settings, echo)
    return 1 if diagnostics else 0


def _fixed(report, settings, echo: Echo) -> dict[Path, str]:
    """The new text of each file that the safe fixes of its findings change."""
    from ..lint.engine import deep_enough
    from ..lint.fixes import apply_fixes

    fixed = {}
    for path, findings in report.findings.items():
        fixes = [f.fix for f in findings if f.fix is not None]
        if not fixes:
            continue
        try:
            with deep_enough():
                text = apply_fixes(report.files[path].text, fixes, settings.style)
        except RecursionError:  # what Python parses, libcst or black may not
            echo(
                f"{shown(path)}: not fixed: an expression too deeply nested to rewrite safely",
                err=True,
            )
            continue
        if text != report.files[path].text:
            fixed[path] = text
    return fixed


def _summary(report, diagnostics, fixed, fix: bool, settings, echo: Echo) -> None:
    fixable = sum(1 for found in report.findings.values() for f in found if f.fix is not None)
    parts = [f"{len(diagnostics)} finding{'s' if len(diagnostics) != 1 else ''}"]
    if fixable and not fix:
        parts.append(f"{fixable} fixable with --fix")
    if fixed:
        parts.append(f"{len(fixed)} file{'s' if len(fixed) != 1 else ''} fixed")
    echo(f"{'; '.join(parts)} ({report.checked} files checked)", err=True)
    skipped = {p: set(n) & settings.named for p, n in report.not_run.items()}
    skipped = {p: n for p, n in skipped.items() if n}
    if skipped:  # a rule asked for by name, silently not run, would read as a clean file
        codes = ", ".join(f"`{c}`" for c in sorted(set().union(*skipped.values())))
        files = sorted(str(shown(p)) for p in skipped)
        named = ", ".join(files[:5]) + (f", and {len(files) - 5} more" if len(files) > 5 else "")
        echo(
            f"{codes} not run on {len(files)} file{'s' if len(files) != 1 else ''},"
            f" for Keras 3 only: {'they are' if len(files) != 1 else 'it is'} Keras 2 ({named})",
            err=True,
        )
