"""`layergen check`: the typer command (registered in cli.py). Heavy imports are lazy."""

from __future__ import annotations

from pathlib import Path

import typer

from ..diagnostics import Diagnostic, DiagnosticError, did_you_mean


def check(
    paths: list[Path] = typer.Argument(
        None,
        help="Files or folders (default: the project's Python files and [tool.layergen] paths).",
    ),
    fix: bool = typer.Option(
        False, "--fix", help="Rewrite what can be fixed safely, then report the rest."
    ),
    diff: bool = typer.Option(
        False, "--diff", help="Print the fixes as a unified diff; write nothing."
    ),
    explain: str | None = typer.Option(
        None, "--explain", help="Explain a rule code, with an example."
    ),
    select: str | None = typer.Option(
        None, "--select", help="Only these rule codes (comma-separated), or ALL."
    ),
    ignore: str | None = typer.Option(
        None, "--ignore", help="Skip these rule codes (comma-separated)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print findings only, no summary."),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Check every file again (no .layergen/check-cache/)."
    ),
) -> None:
    """Find the classic bugs of hand-written Keras layers (read, never imported); --fix the safe ones."""
    from .rules import RULES

    if explain is not None:
        if explain not in RULES:
            _fail(
                [
                    Diagnostic(
                        "--explain",
                        1,
                        1,
                        "unknown-rule",
                        f"unknown rule `{explain}`",
                        did_you_mean(explain, RULES) or f"rules: {', '.join(RULES)}",
                    )
                ]
            )
        typer.echo(RULES[explain].explain())
        return
    from .engine import check_files, default_paths, python_files
    from .settings import load_settings

    def split(text):
        return [c.strip() for c in text.split(",") if c.strip()] if text else None

    try:
        settings = load_settings(select=split(select), ignore=split(ignore))
        project = python_files(default_paths(settings), settings)
        files = python_files([p.resolve() for p in paths], settings) if paths else project
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    from .cache import CheckCache

    # The files named are checked with the project around them (their parents, subclasses
    # and registration functions), so they get the findings a whole-project run gives them.
    context = list(dict.fromkeys([*project, *files]))
    only = set(files) if paths else None
    # --fix and --diff rewrite the files they parse: they do not take findings from the cache.
    cache = None if (fix or diff or no_cache) else CheckCache(settings)
    report = check_files(context, settings, cache=cache, only=only)
    if report.errors:
        _fail(report.errors)
    fixed: dict[Path, str] = {}
    if fix or diff:
        from .engine import deep_enough
        from .fixes import apply_fixes

        for path, findings in report.findings.items():
            fixes = [f.fix for f in findings if f.fix is not None]
            if fixes:
                try:
                    with deep_enough():
                        text = apply_fixes(report.files[path].text, fixes, settings.style)
                except RecursionError:  # what Python parses, libcst or black may not
                    typer.echo(
                        f"{_shown(path)}: not fixed: an expression too deeply nested to"
                        " rewrite safely",
                        err=True,
                    )
                    continue
                if text != report.files[path].text:
                    fixed[path] = text
        if diff:
            for path, text in fixed.items():
                typer.echo(_unified_diff(path, report.files[path].text, text), nl=False)
            raise typer.Exit(1 if fixed or report.findings else 0)
        from ..writes import write

        write(fixed)
        report = check_files(context, settings, texts=fixed, only=only) if fixed else report
    diagnostics = report.diagnostics(_shown)
    for d in diagnostics:
        typer.echo(d.format())
    if not quiet:
        fixable = sum(1 for found in report.findings.values() for f in found if f.fix is not None)
        parts = [f"{len(diagnostics)} finding{'s' if len(diagnostics) != 1 else ''}"]
        if fixable and not fix:
            parts.append(f"{fixable} fixable with --fix")
        if fixed:
            parts.append(f"{len(fixed)} file{'s' if len(fixed) != 1 else ''} fixed")
        typer.echo(f"{'; '.join(parts)} ({report.checked} files checked)", err=True)
        skipped = {p: set(n) & settings.named for p, n in report.not_run.items()}
        skipped = {p: n for p, n in skipped.items() if n}
        if skipped:  # a rule asked for by name, silently not run, would read as a clean file
            codes = ", ".join(f"`{c}`" for c in sorted(set().union(*skipped.values())))
            files = sorted(_shown(p) for p in skipped)
            shown = ", ".join(files[:5]) + (
                f", and {len(files) - 5} more" if len(files) > 5 else ""
            )
            typer.echo(
                f"{codes} not run on {len(files)} file{'s' if len(files) != 1 else ''},"
                f" for Keras 3 only: {'they are' if len(files) != 1 else 'it is'} Keras 2 ({shown})",
                err=True,
            )
    raise typer.Exit(1 if diagnostics else 0)


def _fail(diagnostics: list[Diagnostic]) -> None:
    for d in diagnostics:
        d = Diagnostic(
            str(_shown(Path(d.path))) if Path(d.path).is_absolute() else d.path,
            d.line,
            d.col,
            d.code,
            d.message,
            d.hint,
            d.severity,
        )
        typer.echo(d.format(), err=True)
    raise typer.Exit(2)


def _shown(path) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _unified_diff(path: Path, old: str, new: str) -> str:
    import difflib

    shown = _shown(path)
    return "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{shown}", f"b/{shown}")
    )
