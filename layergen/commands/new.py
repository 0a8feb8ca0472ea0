"""`layergen new`: scaffold a declaration, its layer and its tests, which pass as they are."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from .report import Echo, shown
from .run import apply, one_run


def new(
    name: str,
    config,
    *,
    echo: Echo,
    weights: list[str] = (),
    params: str = "",
    inputs: list[str] = (),
    directory: Path | None = None,
    force: bool = False,
    quiet: bool = False,
) -> int:
    """`params` as typed (`units:int,rate:float=0.1`); the exit status."""
    from ..config import outside_paths
    from ..declaration.load import parse_declaration
    from ..generate import plan_run
    from ..init import editor_files
    from ..scaffold import declaration, file_name, parse_params
    from ..schema import modeline, schema_path, schema_text
    from ..targets import target
    from ..textfiles import Seen

    folder = (directory or config.new_folder).resolve()
    path = folder / file_name(name)
    outside = outside_paths(folder, config)
    if outside:
        raise DiagnosticError([outside])
    twice = [
        Diagnostic(option, None, None, "duplicate-name", f"`{twin}` is given twice", "give it once")
        for option, names in (("--weights", weights), ("--inputs", inputs))
        for twin in {n for n in names if list(names).count(n) > 1}
    ]
    if twice:
        raise DiagnosticError(twice)
    text = modeline(path, config.root) + declaration(
        name, list(weights), parse_params(params), list(inputs)
    )
    try:  # the same checks as a file the user wrote, reported at what the person typed
        parse_declaration(str(path), text.encode())
    except DiagnosticError as exc:
        raise DiagnosticError(_as_typed(exc.diagnostics, str(path), text)) from None
    if path.exists() and not force:
        raise DiagnosticError(
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
        raise DiagnosticError(
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

    # The declaration, and the schema its first line points editors to, are written with
    # the layer and its tests, by the same run: all of them, or (an error) none.
    schema = schema_path(config.root)
    scaffold = {path: text}
    if not schema.is_file():  # a project `init` has not set up: the editor files with it
        scaffold.update({schema: schema_text(), **editor_files(config.root)})
    read = {file: Seen.read(file) for file in scaffold}

    def planned():
        run = plan_run([path], config, texts={path: text}, renames=False)
        return replace(run, support={**run.support, **scaffold}, read={**run.read, **read})

    with one_run(config, "write", echo):
        run = planned()
        code = apply(run, quiet=quiet, echo=echo, replan=planned)
        if code == 0 and not quiet:
            echo(_next_steps(path, run.companions, set_up=_set_up(config)))
    return code


# The option each section of a scaffolded declaration comes from ("layer": the class name);
# a mistake elsewhere (`call`, `example`) follows from one of them.
_TYPED = {
    "layer": "layergen new",
    "params": "--params",
    "weights": "--weights",
    "inputs": "--inputs",
}


def _as_typed(diagnostics: list[Diagnostic], path: str, text: str) -> list[Diagnostic]:
    """Mistakes in the declaration `new` would write, at the name or option they came from
    (the file is not there for the person to open); those that follow from another, left out."""
    typed, following = [], []
    lines = text.split("\n")
    for diagnostic in diagnostics:
        if diagnostic.path != path or diagnostic.line is None:
            typed.append(diagnostic)
            continue
        sections = re.findall(r"^(\w+):", "\n".join(lines[: diagnostic.line]), re.M)
        section = sections[-1] if sections else "layer"
        where = _TYPED.get(section, "layergen new")
        moved = replace(diagnostic, path=where, line=None, col=None)
        (typed if section in _TYPED else following).append(moved)
    return typed or following


def _as_generated(module: Path, root: Path) -> bool:
    """Whether `module` is missing, or exactly what layergen generated there last: nothing of
    a person's that `new` would merge into (a hand-written layer, an orphan's edits)."""
    from ..textfiles import read_text, split_line_ends
    from ..update.lock import Lock

    text = read_text(module, missing_ok=True)
    return text is None or split_line_ends(text)[0] == Lock.read(root).base(module)


def _set_up(config) -> bool:
    """Whether pyproject.toml has a [tool.layergen] table (`init` writes one)."""
    import tomllib

    return "layergen" in tomllib.loads(config.pyproject_text).get("tool", {})


def _next_steps(declaration: Path, companions: dict[Path, Path], set_up: bool = True) -> str:
    """What a newcomer does after `new`: where the layer and its tests are, and what next
    (`init` first, in a project it has not set up)."""
    ((module, test),) = companions.items()
    init = (
        ""
        if set_up
        else "  layergen init    # [tool.layergen], editor tasks, pre-commit hooks for the project\n"
    )
    return (
        f"\nYour layer is {shown(module)}, declared in {shown(declaration)};"
        f" its tests are {shown(test)}.\nNext:\n{init}"
        f"  pytest {shown(test)}    # KERAS_BACKEND=jax or torch for another backend\n"
        f"  edit {shown(declaration)}, then `layergen generate` (or keep `layergen watch`"
        " running); hand edits to the module are kept"
    )
