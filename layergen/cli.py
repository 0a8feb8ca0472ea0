"""The command line: parse, call the library, print diagnostics, map outcomes to exit codes.

Exit codes: 0 ok, 1 `--check` found work to do, 2 bad input.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

from .diagnostics import Diagnostic, DiagnosticError

# The CLI validates with pydantic but needs no pydantic plugins; finding them costs a scan
# of every installed distribution at each start.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

app = typer.Typer(
    name="layergen",
    help="Generate Keras 3 layers and their tests from short YAML declarations.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)


def _fail(diagnostics: list[Diagnostic]) -> None:
    for d in diagnostics:
        typer.echo(d.format(), err=True)
    count = len(diagnostics)
    typer.echo(f"{count} error{'s' if count != 1 else ''}; nothing was written.", err=True)
    raise typer.Exit(2)


def _config(tests: Optional[Path], package: Optional[str]):
    from .config import load_config

    return load_config().override(tests=tests.resolve() if tests else None, package=package)


def _report(outputs: dict[Path, str], changed: list[Path], quiet: bool) -> None:
    if quiet:
        return
    cwd = Path.cwd()
    for path in outputs:
        state = "wrote" if path in changed else "unchanged"
        try:
            shown = path.relative_to(cwd)
        except ValueError:
            shown = path
        typer.echo(f"{state:9} {shown}")


@app.command()
def generate(
    paths: list[Path] = typer.Argument(None, help="Declaration files or folders (default: [tool.layergen] paths)."),
    tests: Optional[Path] = typer.Option(None, "--tests", help="Folder for the generated tests."),
    package: Optional[str] = typer.Option(None, "--package", help="Registration package of the generated classes."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if any file would change."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Render declarations into Keras layers and their tests."""
    from .generate import find_declarations, plan, write

    try:
        config = _config(tests, package)
        roots = [p.resolve() for p in paths] if paths else config.paths
        if not roots:
            _fail([Diagnostic("pyproject.toml", 1, 1, "no-paths", "no declarations given",
                              "pass files or folders, or set `paths` under [tool.layergen]")])
        outputs = plan(find_declarations(roots), config)
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    if check:
        stale = [p for p in outputs if not p.exists() or p.read_text(encoding="utf-8") != outputs[p]]
        for path in stale:
            typer.echo(f"would change {path}", err=True)
        raise typer.Exit(1 if stale else 0)
    _report(outputs, write(outputs), quiet)


@app.command()
def new(
    name: str = typer.Argument(..., help="Class name, such as ScaledDense."),
    weights: str = typer.Option("", "--weights", help="Weights, such as kernel,scale,bias."),
    params: str = typer.Option("", "--params", help="Params, such as units:int,rate:float=0.1."),
    inputs: str = typer.Option("", "--inputs", help="Input names, such as x1,x2 (default: x)."),
    directory: Path = typer.Option(None, "--dir", help="Folder for the declaration (default: the first [tool.layergen] path, else layers)."),
    tests: Optional[Path] = typer.Option(None, "--tests", help="Folder for the generated tests."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing declaration."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Scaffold a declaration, its layer and its tests, which pass as they are."""
    from .generate import plan, write
    from .scaffold import declaration, file_name, parse_params
    from .spec.load import parse_declaration

    try:
        config = _config(tests, None)
        folder = (directory or (config.paths[0] if config.paths and config.paths[0].is_dir() else Path("layers"))).resolve()
        path = folder / file_name(name)
        if path.exists() and not force:
            _fail([Diagnostic(str(path), 1, 1, "exists", "the declaration already exists", "pass --force to overwrite it")])
        split = lambda text: [item.strip() for item in text.split(",") if item.strip()]
        text = declaration(name, split(weights), parse_params(params), split(inputs))
        parse_declaration(str(path), text.encode())  # the same checks as a file the user wrote
        path_outputs = {path: text}
        folder.mkdir(parents=True, exist_ok=True)
        write(path_outputs)
        try:
            outputs = plan([path], config)
        except DiagnosticError:
            path.unlink()
            raise
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    outputs = {**path_outputs, **outputs}
    _report(outputs, write(outputs) + [path], quiet)


def main() -> None:  # pragma: no cover - the console script
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
