"""The command line: declare each subcommand's options and dispatch to `layergen/commands/`.

Exit codes: 0 ok, 1 `--check` found work to do, 2 bad input. Every command module
returns its status and raises `DiagnosticError` for a mistake in the input, printed here
through the one reporter (`commands/report.py`).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from pathlib import Path

import typer

from .diagnostics import DiagnosticError

# The CLI validates with pydantic but needs no pydantic plugins; finding them costs a scan
# of every installed distribution at each start.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

app = typer.Typer(
    name="layergen",
    help="Generate Keras 3 layers and their tests from short YAML declarations.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Help texts are plain text: `[tool.layergen]` is not markup to drop, and a flag
    # shows no value (Rich's panels showed `<bool>` on each).
    rich_markup_mode=None,
)


def _run(command: Callable[[], int]) -> None:
    """Run `command`; exit with its status, or report its mistakes (status 2)."""
    try:
        code = command()
    except DiagnosticError as exc:
        from .commands.report import report

        code = report(exc.diagnostics, typer.echo)
    raise typer.Exit(code)


def _config(tests: Path | None = None, package: str | None = None):
    from .config import load_config

    return load_config().override(tests=tests.resolve() if tests else None, package=package)


_FLAG_VALUES = {"true", "false", "yes", "no", "on", "off", "1", "0"}


def _no_flag_value(paths: list[Path] | None) -> list[Path] | None:
    """`--check true`: flags take no value, so `true` arrives as a path; say so."""
    for path in paths or ():
        if str(path).lower() in _FLAG_VALUES and not path.exists():
            raise typer.BadParameter(
                f"no file or folder `{path}`; flags such as --check take no value: drop `{path}`"
            )
    return paths


def _split(text: str | None) -> list[str]:
    """`a, b,c` as its items."""
    return [item.strip() for item in (text or "").split(",") if item.strip()]


@app.command(short_help="Render declarations into layers and tests, keeping hand edits.")
def generate(
    paths: list[Path] = typer.Argument(
        None,
        metavar="PATH",
        callback=_no_flag_value,
        help="Declaration files or folders (default: [tool.layergen] paths, else layers).",
    ),
    tests: Path | None = typer.Option(
        None, "--tests", metavar="FOLDER", help="Folder for the generated tests."
    ),
    package: str | None = typer.Option(
        None,
        "--package",
        metavar="PACKAGE",
        help="Registration package of the generated classes, such as my_project.layers.",
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
    from .commands.generate import generate_command

    _run(
        lambda: generate_command(
            paths,
            _config(tests, package),
            echo=typer.echo,
            mode="check" if check else "diff" if diff else "write",
            prefer="generated" if force else "merge",
            quiet=quiet,
            record=record,
        )
    )


@app.command(short_help="Scaffold a declaration, its layer and its passing tests.")
def new(
    name: str = typer.Argument(..., metavar="CLASS", help="Class name, such as ScaledDense."),
    weights: str = typer.Option(
        "", "--weights", metavar="NAMES", help="Weights, such as kernel,scale,bias."
    ),
    params: str = typer.Option(
        "", "--params", metavar="PARAMS", help="Params, such as units:int,rate:float=0.1."
    ),
    inputs: str = typer.Option(
        "", "--inputs", metavar="NAMES", help="Input names, such as x1,x2 (default: x)."
    ),
    directory: Path = typer.Option(
        None,
        "--dir",
        metavar="FOLDER",
        help="Folder for the declaration (default: the first [tool.layergen] path, else layers).",
    ),
    tests: Path | None = typer.Option(
        None, "--tests", metavar="FOLDER", help="Folder for the generated tests."
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Overwrite an existing declaration; merge into a module already there.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Scaffold a declaration, its layer and its tests, which pass as they are."""
    from .commands.new import new as scaffold

    _run(
        lambda: scaffold(
            name,
            _config(tests),
            echo=typer.echo,
            weights=_split(weights),
            params=params,
            inputs=_split(inputs),
            directory=directory,
            force=force,
            quiet=quiet,
        )
    )


@app.command("mv", short_help="Rename or move a declaration with its layer and tests.")
def mv(
    old: Path = typer.Argument(
        ..., metavar="DECLARATION", help="The declaration as it was at the last run."
    ),
    new: Path = typer.Argument(
        ..., metavar="NEW_PATH", help="Its new path (a folder keeps the file's name)."
    ),
    class_name: str | None = typer.Option(
        None, "--class", metavar="CLASS", help="Rename its class too."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Rename or move a declaration with its layer and tests, hand edits kept."""
    from .commands.mv import mv as move

    _run(lambda: move(old, new, _config(), echo=typer.echo, class_name=class_name, quiet=quiet))


@app.command(short_help="Bring declarations up to date with hand-edited modules.")
def sync(
    modules: list[Path] = typer.Argument(
        None,
        metavar="MODULE",
        callback=_no_flag_value,
        help="Generated modules edited by hand, or folders of them (default: [tool.layergen] paths, else layers).",
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
    from .commands.sync import sync as sync_modules

    def command() -> int:
        config = _config()
        return sync_modules(
            modules or config.declaration_paths,
            config,
            echo=typer.echo,
            quiet=quiet,
            skip_undeclared=skip_undeclared,
        )

    _run(command)


@app.command(short_help="Settle conflicts: keep yours (--ours) or take the generated.")
def resolve(
    files: list[Path] = typer.Argument(..., metavar="FILE", help="Files with conflict markers."),
    ours: bool = typer.Option(False, "--ours", help="Keep your version of each conflict."),
    theirs: bool = typer.Option(
        False, "--theirs", help="Take the generated version of each conflict."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Settle the conflicts in files: keep your side (--ours) or take the generated one (--theirs)."""
    from .commands.resolve import resolve as settle

    side = None if ours == theirs else "ours" if ours else "theirs"
    _run(lambda: settle(files, side, echo=typer.echo, quiet=quiet))


@app.command("tests", short_help="Generate tests for layers written without layergen.")
def tests_command(
    target: str | None = typer.Argument(
        None,
        metavar="FILE[:CLASS]",
        help="A module with Keras layers, as FILE or FILE:Class (default: every layer "
        "`layergen tests` wrote tests for, with the flags it was given).",
    ),
    example: list[str] = typer.Option(
        [],
        "--example",
        metavar="NAME=VALUE",
        help="A constructor argument for the tests (repeat it for each).",
    ),
    input_shape: str | None = typer.Option(
        None,
        "--input-shape",
        metavar="SHAPE",
        help="The example input's shape, batch first (default: read from the code).",
    ),
    tests: Path | None = typer.Option(
        None, "--tests", metavar="FOLDER", help="Folder for the generated tests."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Generate tests for Keras layers written without layergen (kept in step like generated files)."""
    from .commands.tests import tests as layer_tests

    _run(
        lambda: layer_tests(
            target,
            echo=typer.echo,
            examples=example,
            input_shape=input_shape,
            tests_folder=tests,
            quiet=quiet,
        )
    )


@app.command(short_help="Print the JSON Schema of declarations, for editors.")
def schema(
    output: Path | None = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write it to this file instead of printing it."
    ),
) -> None:
    """Print the JSON Schema of declarations (for editors; generated from the models that validate them)."""
    from .commands.schema import schema as write_schema

    _run(lambda: write_schema(output, echo=typer.echo))


@app.command("init", short_help="Set a project up: pyproject.toml, VS Code, git, pre-commit.")
def init_command(
    paths: str | None = typer.Option(
        None,
        "--paths",
        metavar="FOLDERS",
        help="Declaration folders, such as layers,losses (default: layers).",
    ),
    tests: str | None = typer.Option(
        None, "--tests", metavar="FOLDER", help="Folder for the generated tests (default: tests)."
    ),
    package: str | None = typer.Option(
        None,
        "--package",
        metavar="PACKAGE",
        help="Registration package of the generated classes, such as my_project.layers.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Set a project up: [tool.layergen] in pyproject.toml, VS Code settings and tasks, the
    declaration schema, .gitattributes and pre-commit, merged into the files already there."""
    from .commands.init import init

    _run(
        lambda: init(
            echo=typer.echo,
            paths=_split(paths) if paths else None,
            tests=tests,
            package=package,
            quiet=quiet,
        )
    )


@app.command(short_help="Regenerate each declaration when it is saved.")
def watch(
    paths: list[Path] = typer.Argument(
        None,
        metavar="PATH",
        callback=_no_flag_value,
        help="Declaration files or folders (default: [tool.layergen] paths, else layers).",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only."),
) -> None:
    """Regenerate each declaration when it is saved (and sync edited modules); errors are printed and watching goes on."""
    from .commands.watch import watch as watch_paths

    _run(lambda: watch_paths(paths, echo=typer.echo, quiet=quiet))


@app.command("check", short_help="Find the classic bugs of hand-written Keras layers.")
def check(
    paths: list[Path] = typer.Argument(
        None,
        metavar="PATH",
        callback=_no_flag_value,
        help="Files or folders (default: the project's Python files and [tool.layergen] paths).",
    ),
    fix: bool = typer.Option(
        False, "--fix", help="Rewrite what can be fixed safely, then report the rest."
    ),
    diff: bool = typer.Option(
        False, "--diff", help="Print the fixes as a unified diff; write nothing."
    ),
    explain: str | None = typer.Option(
        None, "--explain", metavar="CODE", help="Explain a rule code, with an example."
    ),
    select: str | None = typer.Option(
        None, "--select", metavar="CODES", help="Only these rule codes (comma-separated), or ALL."
    ),
    ignore: str | None = typer.Option(
        None, "--ignore", metavar="CODES", help="Skip these rule codes (comma-separated)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print findings only, no summary."),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Check every file again (no .layergen/check-cache/)."
    ),
) -> None:
    """Find the classic bugs of hand-written Keras layers (read, never imported); --fix the safe ones."""
    from .commands import check as checking

    if explain is not None:
        _run(lambda: checking.explain(explain, echo=typer.echo))
    _run(
        lambda: checking.check(
            paths,
            echo=typer.echo,
            fix=fix,
            diff=diff,
            select=_split(select) if select else None,
            ignore=_split(ignore) if ignore else None,
            quiet=quiet,
            no_cache=no_cache,
        )
    )


@app.command(short_help="Put hand-written layers under a declaration.")
def adopt(
    targets: list[str] = typer.Argument(
        ...,
        metavar="TARGET",
        help="Hand-written layers, as FILE, FILE:Class or FOLDER.",
    ),
    example: list[str] = typer.Option(
        [],
        "--example",
        metavar="NAME=VALUE",
        help="A constructor argument for the tests (repeat it for each).",
    ),
    input_shape: str | None = typer.Option(
        None,
        "--input-shape",
        metavar="SHAPE",
        help="The example input's shape, batch first (such as 2,4).",
    ),
    diff: bool = typer.Option(False, "--diff", help="Print what it would write; write nothing."),
    observe: bool = typer.Option(
        True,
        "--observe/--no-observe",
        help="Where no literal call in the project gives a required argument or the input's"
        " shape, run the project's tests that construct the class (pytest, your Keras backend,"
        " 120 s at most) and take them from its first construction and call.",
    ),
    trial: bool = typer.Option(
        True,
        "--trial/--no-trial",
        envvar="LAYERGEN_ADOPT_TRIAL",
        help="Before writing, run the generated tests on the code as adopted (pytest,"
        " your Keras backend, 120 s a class at most); each that fails is stated skipped"
        " in the declaration with its failure, and printed.",
    ),
) -> None:
    """Put hand-written layers under a declaration, keeping saved models loading."""
    from .commands.adopt import adopt_command

    _run(
        lambda: adopt_command(
            targets,
            _config(),
            echo=typer.echo,
            diff=diff,
            examples=example,
            input_shape=input_shape,
            observe=observe,
            trial=trial,
        )
    )


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
