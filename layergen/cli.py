"""The command line: parse, call the library, print diagnostics, map outcomes to exit codes.

Exit codes: 0 ok, 1 `--check` found work to do, 2 bad input.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import typer

from . import commands
from .diagnostics import Diagnostic, DiagnosticError
from .lint.command import check

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
    raise typer.Exit(commands.report(diagnostics, typer.echo))


def _config(tests: Path | None, package: str | None):
    from .config import load_config

    return load_config().override(tests=tests.resolve() if tests else None, package=package)


@app.command()
def generate(
    paths: list[Path] = typer.Argument(
        None, help="Declaration files or folders (default: [tool.layergen] paths)."
    ),
    tests: Path | None = typer.Option(None, "--tests", help="Folder for the generated tests."),
    package: str | None = typer.Option(
        None, "--package", help="Registration package of the generated classes."
    ),
    check: bool = typer.Option(
        False, "--check", help="Write nothing; exit 1 if any file would change or conflicts."
    ),
    diff: bool = typer.Option(False, "--diff", help="Print the unified diff instead of writing."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Settle conflicting lines with the generated ones; other hand edits stay.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
    record: bool = typer.Option(
        False,
        "--record",
        help="Store each layer's outputs on its example inputs beside its test; the test then checks them.",
    ),
) -> None:
    """Render declarations into Keras layers and their tests, keeping hand edits."""
    mode = "check" if check else "diff" if diff else "write"
    try:
        config = _config(tests, package)
        roots = (
            [Path(os.path.abspath(p)) for p in paths] if paths else config.paths
        )  # links kept: output goes beside them
        if not roots:
            from .config import no_paths

            _fail([no_paths(config.root, "generate", "no declarations given")])
        code = commands.generate(
            roots,
            config,
            echo=typer.echo,
            mode=mode,
            prefer="generated" if force else "merge",
            quiet=quiet,
            record=record,
        )
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    raise typer.Exit(code)


def _one_run(config, mode: str = "write"):
    """Hold the project for this run (read-only runs share it)."""
    return commands.one_run(config, mode, typer.echo)


def _apply(run, replan, *, quiet: bool = False) -> int:
    """Reconcile the run with the files on disk and write it; the exit status."""
    return commands.apply(run, quiet=quiet, echo=typer.echo, replan=replan)


_shown = commands.shown


@app.command()
def new(
    name: str = typer.Argument(..., help="Class name, such as ScaledDense."),
    weights: str = typer.Option("", "--weights", help="Weights, such as kernel,scale,bias."),
    params: str = typer.Option("", "--params", help="Params, such as units:int,rate:float=0.1."),
    inputs: str = typer.Option("", "--inputs", help="Input names, such as x1,x2 (default: x)."),
    directory: Path = typer.Option(
        None,
        "--dir",
        help="Folder for the declaration (default: the first [tool.layergen] path, else layers).",
    ),
    tests: Path | None = typer.Option(None, "--tests", help="Folder for the generated tests."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Overwrite an existing declaration; merge into a module already there.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Scaffold a declaration, its layer and its tests, which pass as they are."""
    from .config import outside_paths
    from .declaration.load import parse_declaration
    from .generate import plan_run
    from .scaffold import declaration, file_name, parse_params
    from .schema import modeline, schema_path, schema_text
    from .targets import target
    from .textfiles import Seen

    try:
        config = _config(tests, None)
        folder = (
            directory
            or (config.paths[0] if config.paths and config.paths[0].is_dir() else Path("layers"))
        ).resolve()
        path = folder / file_name(name)
        outside = outside_paths(folder, config)
        if outside:
            _fail([outside])
        if path.exists() and not force:
            _fail(
                [
                    Diagnostic(
                        str(path),
                        1,
                        1,
                        "exists",
                        "the declaration already exists",
                        "pass --force to overwrite it",
                    )
                ]
            )

        module = target(path, config).module
        if not force and not path.exists() and not _as_generated(module, config.root):
            _fail(
                [
                    Diagnostic(
                        str(module),
                        1,
                        1,
                        "exists",
                        "a module of that name is already there; `new` writes a new one",
                        "pick another class name or --dir, move the file away, or pass --force"
                        " to merge the new layer into it (your edits are kept)",
                    )
                ]
            )

        def split(text):
            return [item.strip() for item in text.split(",") if item.strip()]

        text = modeline(path, config.root) + declaration(
            name, split(weights), parse_params(params), split(inputs)
        )
        parse_declaration(str(path), text.encode())  # the same checks as a file the user wrote
        # The declaration, and the schema its first line points editors to, are written with
        # the layer and its tests, by the same run: all of them, or (an error) none.
        schema = schema_path(config.root)
        scaffold = {path: text, **({} if schema.is_file() else {schema: schema_text()})}
        read = {file: Seen.read(file) for file in scaffold}

        def planned():
            run = plan_run([path], config, texts={path: text}, renames=False)
            run.support.update(scaffold)
            run.read.update(read)
            return run

        with _one_run(config):
            run = planned()
            code = _apply(run, planned, quiet=quiet)
            if code == 0 and not quiet:
                typer.echo(_next_steps(path, run.companions))
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    raise typer.Exit(code)


@app.command("mv")
def mv(
    old: Path = typer.Argument(..., help="The declaration as it was at the last run."),
    new: Path = typer.Argument(..., help="Its new path (a folder keeps the file's name)."),
    class_name: str | None = typer.Option(None, "--class", help="Rename its class too."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Rename or move a declaration with its layer and tests, hand edits kept."""
    from .move import plan_move

    try:
        config = _config(None, None)
        old_path, new_path = Path(os.path.abspath(old)), Path(os.path.abspath(new))
        if new_path.is_dir():
            new_path = new_path / old_path.name

        def planned():
            return plan_move(old_path, new_path, config, class_name)

        with _one_run(config):
            code = _apply(planned(), planned, quiet=quiet)
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    raise typer.Exit(code)


def _as_generated(module: Path, root: Path) -> bool:
    """Whether `module` is missing, or exactly what layergen generated there last: nothing of
    a person's that `new` would merge into (a hand-written layer, an orphan's edits)."""
    from .textfiles import read_text, split_line_ends
    from .update.lock import Lock

    text = read_text(module, missing_ok=True)
    return text is None or split_line_ends(text)[0] == Lock.read(root).base(module)


def _next_steps(declaration: Path, companions: dict[Path, Path]) -> str:
    """What a newcomer does after `new`: where the layer and its tests are, and what next."""
    ((module, test),) = companions.items()
    return (
        f"\nYour layer is {_shown(module)}, declared in {_shown(declaration)};"
        f" its tests are {_shown(test)}.\nNext:\n"
        f"  pytest {_shown(test)}    # KERAS_BACKEND=jax or torch for another backend\n"
        f"  edit {_shown(declaration)}, then `layergen generate` (or keep `layergen watch`"
        " running); hand edits to the module are kept"
    )


@app.command()
def sync(
    modules: list[Path] = typer.Argument(
        None,
        help="Generated modules edited by hand, or folders of them (default: [tool.layergen] paths).",
    ),
    skip_undeclared: bool = typer.Option(
        False,
        "--skip-undeclared",
        help="Pass over modules with no declaration beside them (for hooks).",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Bring declarations up to date with hand-edited modules, then regenerate them.

    What the code says and the declaration can say (constructor arguments, a `call`
    body) goes into the declaration; a member it cannot say is listed under
    `hand_written`. A declaration change not yet generated is never thrown away: where
    it meets a hand edit, it is a conflict, as with `generate`.
    """
    try:
        config = _config(None, None)
        code = commands.sync(
            modules or config.paths,
            config,
            echo=typer.echo,
            quiet=quiet,
            skip_undeclared=skip_undeclared,
        )
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    raise typer.Exit(code)


@app.command()
def resolve(
    files: list[Path] = typer.Argument(..., help="Files with conflict markers."),
    ours: bool = typer.Option(False, "--ours", help="Keep your version of each conflict."),
    theirs: bool = typer.Option(
        False, "--theirs", help="Take the generated version of each conflict."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Settle the conflicts in files: keep your side (--ours) or take the generated one (--theirs)."""
    from .update.settle import settle
    from .writes import write

    try:
        if ours == theirs:
            _fail(
                [
                    Diagnostic(
                        "resolve",
                        1,
                        1,
                        "bad-option",
                        "say which side to keep",
                        "pass --ours or --theirs",
                    )
                ]
            )
        missing = [
            Diagnostic(str(f), None, None, "no-such-file", "no such file")
            for f in files
            if not f.is_file()
        ]
        if missing:
            _fail(missing)
        config = _config(None, None)
        resolved = [f.resolve() for f in files]
        with _one_run(config):
            done = settle(resolved, "ours" if ours else "theirs", config.root)
            write({**done.texts, **(done.lock.files() if done.lock else {})})
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    if not quiet:
        for f in resolved:
            typer.echo(f"{'resolved' if f in done.resolved else 'no conflict':10} {_shown(f)}")


@app.command("tests")
def tests_command(
    target: str | None = typer.Argument(
        None,
        help="A module with Keras layers, as FILE or FILE:Class (default: every layer "
        "`layergen tests` wrote tests for, with the flags it was given).",
    ),
    example: list[str] = typer.Option(
        [], "--example", help="A constructor argument for the tests, as name=value."
    ),
    input_shape: str | None = typer.Option(
        None,
        "--input-shape",
        help="The example input's shape, batch first (default: read from the code).",
    ),
    tests: Path | None = typer.Option(None, "--tests", help="Folder for the generated tests."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Generate tests for Keras layers written without layergen (kept in step like generated files)."""
    from dataclasses import replace

    from .handwritten import parse_examples, plan_tests

    file, _, wanted = (target or "").partition(":")
    try:
        shape = None
        if input_shape is not None:
            try:
                shape = tuple(int(d) for d in input_shape.split(","))
            except ValueError:
                _fail(
                    [
                        Diagnostic(
                            "--input-shape",
                            1,
                            1,
                            "bad-option",
                            f"cannot read `{input_shape}`: write dims such as 2,5",
                        )
                    ]
                )
        if target and not Path(file).is_file():
            _fail([Diagnostic(file, None, None, "no-such-file", "no such file")])
        config = _config(tests, None)
        with _one_run(config):

            def planned():
                return plan_tests(
                    Path(file) if target else None,
                    wanted or None,
                    config,
                    parse_examples(example),
                    shape,
                )

            run, notes = planned()
            for note in notes if not quiet else []:
                typer.echo(replace(note, path=str(_shown(Path(note.path)))).format(), err=True)
            code = _apply(run, lambda: planned()[0], quiet=quiet)
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    raise typer.Exit(code)


@app.command()
def schema(
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write it to this file instead of printing it."
    ),
) -> None:
    """Print the JSON Schema of declarations (for editors; generated from the models that validate them)."""
    from .schema import schema_text

    if output is None:
        typer.echo(schema_text(), nl=False)
    else:
        from .writes import write

        write({output.resolve(): schema_text()})


@app.command("init")
def init_command(
    paths: str | None = typer.Option(
        None, "--paths", help="Declaration folders, such as layers,losses (default: layers)."
    ),
    tests: str | None = typer.Option(
        None, "--tests", help="Folder for the generated tests (default: tests)."
    ),
    package: str | None = typer.Option(
        None, "--package", help="Registration package of the generated classes."
    ),
) -> None:
    """Set up pyproject.toml's tool.layergen, VS Code tasks, the declaration schema and pre-commit (merging)."""
    from .config import find_root
    from .init import init

    try:
        done = init(
            find_root(Path.cwd()),
            paths=[p.strip() for p in paths.split(",") if p.strip()] if paths else None,
            tests=tests,
            package=package,
        )
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    for path, state, note in done.files:
        typer.echo(f"{state:10} {_shown(path)}" + (f" ({note})" if note else ""))
    if done.snippet:
        typer.echo(
            f"add the layergen hooks under `repos:` in .pre-commit-config.yaml:\n{done.snippet}",
            nl=False,
        )


@app.command()
def watch(
    paths: list[Path] = typer.Argument(
        None, help="Declaration files or folders (default: [tool.layergen] paths)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Regenerate each declaration when it is saved (and sync edited modules); errors are printed and watching goes on."""
    from .watch import watch as watch_paths

    try:
        config = _config(None, None)
        roots = [p.resolve() for p in paths] if paths else list(config.paths)

        def generate_saved(declarations: list[Path]) -> int:  # as `layergen generate` does
            return commands.generate(
                declarations, _config(None, None), echo=typer.echo, quiet=quiet
            )

        def sync_edited(modules: list[Path]) -> int:
            return commands.sync(modules, _config(None, None), echo=typer.echo, quiet=quiet)

        watch_paths(
            roots,
            generate=commands.reporting(generate_saved, typer.echo),
            sync=commands.reporting(sync_edited, typer.echo),
            warm_up=lambda: commands.warm_up(config),
            quiet=quiet,
            echo=typer.echo,
        )
    except DiagnosticError as exc:
        _fail(exc.diagnostics)


@app.command()
def adopt(
    targets: list[str] = typer.Argument(
        ..., help="FILE, FILE:Class or FOLDER of hand-written layers."
    ),
    example: list[str] = typer.Option(
        [], "--example", help="A constructor argument for the tests, as name=value."
    ),
    input_shape: str | None = typer.Option(
        None, "--input-shape", help="The example input's shape, batch first (such as 2,4)."
    ),
    diff: bool = typer.Option(False, "--diff", help="Print what it would write; write nothing."),
) -> None:
    """Put hand-written layers under a declaration, keeping saved models loading."""
    from .adopt.command import adopt as adopt_layers
    from .handwritten import parse_examples

    try:
        shape = [int(d) for d in input_shape.split(",")] if input_shape else None
        code = adopt_layers(
            targets,
            _config(None, None),
            echo=typer.echo,
            mode="diff" if diff else "write",
            examples=parse_examples(example),
            input_shape=shape,
        )
    except DiagnosticError as exc:
        _fail(exc.diagnostics)
    raise typer.Exit(code)


# `layergen check` lives in layergen/lint/ (its imports are lazy, like every command's).
app.command("check")(check)


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
