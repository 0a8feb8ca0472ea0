"""The command line: parse, call the library, print diagnostics, map outcomes to exit codes.

Exit codes: 0 ok, 1 `--check` found work to do, 2 bad input.
"""

from __future__ import annotations

import gc
import os
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


def _report(outputs: dict[Path, str], changed: list[Path], quiet: bool, created=None, conflicted=()) -> None:
    if quiet:
        return
    from .output import file_states, styled, summary

    states = file_states(outputs, changed, created, conflicted)
    for path, state in states.items():
        typer.echo(f"{styled(state)} {_shown(path)}")
    if len(states) > 1:
        typer.echo(summary(states))


@app.command()
def generate(
    paths: list[Path] = typer.Argument(None, help="Declaration files or folders (default: [tool.layergen] paths)."),
    tests: Optional[Path] = typer.Option(None, "--tests", help="Folder for the generated tests."),
    package: Optional[str] = typer.Option(None, "--package", help="Registration package of the generated classes."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if any file would change."),
    diff: bool = typer.Option(False, "--diff", help="Print the unified diff instead of writing."),
    force: bool = typer.Option(False, "--force", help="On a conflict, take the generated version of the member."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
    record: bool = typer.Option(False, "--record", help="Store each layer's outputs on its example inputs beside its test; the test then checks them."),
) -> None:
    """Render declarations into Keras layers and their tests, keeping hand edits."""
    from .generate import find_declarations, plan_run

    try:
        config = _config(tests, package)
        roots = [p.resolve() for p in paths] if paths else config.paths
        if not roots:
            _fail([Diagnostic("pyproject.toml", 1, 1, "no-paths", "no declarations given",
                              "pass files or folders, or set `paths` under [tool.layergen]")])
        from .output import progress_bar

        run = plan_run(find_declarations(roots), config, progress=progress_bar(quiet or check or diff))
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    if record and not (check or diff):  # write, record the outputs, then plan the tests that check them
        from .golden import record_goldens

        _apply(run, check=False, diff=False, prefer="generated" if force else "merge", quiet=True)
        try:
            record_goldens([p for p in run.generated if p.name.startswith("test_")])
            run = plan_run(find_declarations(roots), config)
        except DiagnosticError as exc:
            _fail(exc.diagnostics)
    _apply(run, check=check, diff=diff, prefer="generated" if force else "merge", quiet=quiet)


def _apply(run, *, check: bool, diff: bool, prefer: str, quiet: bool) -> None:
    """Merge the run into the files on disk, then check, show or write; exit 1 on conflicts."""
    from .generate import write
    from .update.apply import reconcile

    outcome = reconcile(run, prefer=prefer)
    changed = outcome.changed()
    if check or diff:
        for path in changed:
            if diff:
                typer.echo(_unified_diff(path, outcome.files[path]), nl=False)
            else:
                typer.echo(f"would change {_shown(path)}", err=True)
        raise typer.Exit(1 if changed and check else 0)
    created = [p for p in changed if not p.exists()]
    write({**outcome.files, **outcome.rejects()})  # also clears temp files a killed run left
    _report(outcome.files, changed, quiet, created, conflicted=list(outcome.conflicts))
    for path, conflicts in outcome.conflicts.items():
        for c in conflicts:
            typer.echo(
                f"{_shown(path)}:{c.line}: conflict: `{c.member}` was edited by hand and the declaration changes it too;"
                f" yours is kept, the generated version is in {_shown(path)}.rej (--force takes it) [conflict]",
                err=True,
            )
    if outcome.conflicts:
        raise typer.Exit(1)


def _unified_diff(path: Path, text: str) -> str:
    import difflib

    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    shown = str(_shown(path))
    return "".join(difflib.unified_diff(old.splitlines(True), text.splitlines(True), f"a/{shown}", f"b/{shown}"))


def _shown(path: Path):
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


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
    from .generate import plan_run, write
    from .schema import ensure_schema_file, modeline
    from .scaffold import declaration, file_name, parse_params
    from .spec.load import parse_declaration

    try:
        config = _config(tests, None)
        folder = (directory or (config.paths[0] if config.paths and config.paths[0].is_dir() else Path("layers"))).resolve()
        path = folder / file_name(name)
        if path.exists() and not force:
            _fail([Diagnostic(str(path), 1, 1, "exists", "the declaration already exists", "pass --force to overwrite it")])
        split = lambda text: [item.strip() for item in text.split(",") if item.strip()]
        text = modeline(path, config.root) + declaration(name, split(weights), parse_params(params), split(inputs))
        parse_declaration(str(path), text.encode())  # the same checks as a file the user wrote
        folder.mkdir(parents=True, exist_ok=True)
        write({path: text})
        try:
            run = plan_run([path], config)
        except DiagnosticError:
            path.unlink()
            raise
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    schema_file = ensure_schema_file(config.root)  # what the declaration's first line points editors to
    if not quiet:
        from .output import styled

        for written in (path, schema_file) if schema_file else (path,):
            typer.echo(f"{styled('created')} {_shown(written)}")
    _apply(run, check=False, diff=False, prefer="merge", quiet=quiet)


@app.command()
def sync(
    modules: list[Path] = typer.Argument(..., help="Generated modules edited by hand."),
    skip_undeclared: bool = typer.Option(
        False, "--skip-undeclared", help="Pass over modules with no declaration beside them (for hooks)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Bring declarations up to date with hand-edited modules, then regenerate them."""
    from .generate import plan_run, write
    from .spec.load import parse_declaration
    from .update.sync import declaration_of, synced_declaration

    try:
        config = _config(None, None)
        declarations = {}
        for module in modules:
            module = module.resolve()
            try:
                declaration = declaration_of(module)
            except DiagnosticError:
                if skip_undeclared:
                    continue
                raise
            text = synced_declaration(module, declaration)
            parse_declaration(str(declaration), text.encode())  # the same checks as a file the user wrote
            declarations[declaration] = text
        if not declarations:
            return
        write(declarations)
        run = plan_run(list(declarations), config)
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    _apply(run, check=False, diff=False, prefer="current", quiet=quiet)


@app.command("tests")
def tests_command(
    target: str = typer.Argument(..., help="A module with Keras layers, as FILE or FILE:Class."),
    example: list[str] = typer.Option([], "--example", help="A constructor argument for the tests, as name=value."),
    input_shape: str = typer.Option("2,4", "--input-shape", help="The example input's shape, batch first."),
    tests: Optional[Path] = typer.Option(None, "--tests", help="Folder for the generated tests."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Generate tests for Keras layers written without layergen."""
    from .generate import write
    from .handwritten import parse_examples, plan_tests

    file, _, wanted = target.partition(":")
    try:
        try:
            shape = tuple(int(d) for d in input_shape.split(","))
        except ValueError:
            _fail([Diagnostic("--input-shape", 1, 1, "bad-option", f"cannot read `{input_shape}`: write dims such as 2,5")])
        if not Path(file).is_file():
            _fail([Diagnostic(file, 1, 1, "no-such-file", "no such file")])
        outputs = plan_tests(Path(file), wanted or None, _config(tests, None), parse_examples(example), shape)
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    _report(outputs, write(outputs), quiet)


@app.command()
def schema(
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write it to this file instead of printing it."),
) -> None:
    """Print the JSON Schema of declarations (for editors; generated from the models that validate them)."""
    from .schema import schema_text

    if output is None:
        typer.echo(schema_text(), nl=False)
    else:
        from .generate import write

        write({output.resolve(): schema_text()})


@app.command("init")
def init_command(
    paths: Optional[str] = typer.Option(None, "--paths", help="Declaration folders, such as layers,losses (default: layers)."),
    tests: Optional[str] = typer.Option(None, "--tests", help="Folder for the generated tests (default: tests)."),
    package: Optional[str] = typer.Option(None, "--package", help="Registration package of the generated classes."),
) -> None:
    """Set up pyproject.toml's tool.layergen, VS Code tasks, the declaration schema and pre-commit (merging)."""
    from .config import find_root
    from .init import init

    try:
        done = init(find_root(Path.cwd()), paths=[p.strip() for p in paths.split(",") if p.strip()] if paths else None,
                    tests=tests, package=package)
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    for path, state, note in done.files:
        typer.echo(f"{state:10} {_shown(path)}" + (f" ({note})" if note else ""))
    if done.snippet:
        typer.echo(f"add the layergen hooks under `repos:` in .pre-commit-config.yaml:\n{done.snippet}", nl=False)


@app.command()
def watch(
    paths: list[Path] = typer.Argument(None, help="Declaration files or folders (default: [tool.layergen] paths)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Regenerate each declaration when it is saved (and sync edited modules); errors are printed and watching goes on."""
    from .watch import watch as watch_paths

    try:
        watch_paths(paths, quiet=quiet)
    except DiagnosticError as exc:
        _fail(exc.diagnostics)


def main() -> None:
    """The `layergen` command."""
    # Start-up imports a few hundred thousand objects that live until exit, and a
    # collection every 700 allocations (Python's default) walks them again and again.
    # Collecting every 300,000 still frees the parse trees of a long run.
    gc.set_threshold(300_000)
    try:
        app(prog_name="layergen")
    finally:
        # At exit Python collects once more over every object; frozen ones are skipped
        # and the OS frees them all at once.
        gc.freeze()


if __name__ == "__main__":
    main()
