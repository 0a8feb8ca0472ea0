"""Project settings: defaults < `[tool.layergen]` in pyproject.toml < command-line flags."""

from __future__ import annotations

import keyword
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .textfiles import read_text

# The declaration folder of a project whose `paths` names none: `init` configures it, `new`
# writes there, and `generate`, `sync` and `watch` run on it where it exists.
DEFAULT_FOLDER = "layers"

KEYS = {
    "paths": "declaration files or folders that `layergen generate` renders by default"
    f" (default: {DEFAULT_FOLDER})",
    "tests": "the folder generated tests are written to (default: tests)",
    "package": "the default registration package (default: the project's name)",
    "templates": "a folder of templates that override the built-in ones of the same name",
    "line-length": "black's line length for generated files"
    " (default: [tool.black]'s, else [tool.ruff]'s, else 88)",
    "mesh-axes": "the axis names of the device mesh that weight layouts name (default: batch, model)",
    "check": "the [tool.layergen.check] table: settings of `layergen check`",
}


def user_cache() -> Path | None:
    """layergen's folder in the user's cache (compiled templates, black's results):
    `$XDG_CACHE_HOME/layergen` when that is an absolute path, as the XDG spec asks, else
    `~/.cache/layergen`; None when there is no home to put it in."""
    home = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(home):
        return Path(home) / "layergen"
    try:
        return Path.home() / ".cache" / "layergen"
    except RuntimeError:  # no HOME and no user entry
        return None


@dataclass(frozen=True)
class BlackStyle:
    """The settings of the project's black that change what it writes (`[tool.black]`, and
    `requires-python`, which black reads for its target versions). Generated files are
    formatted with them, so they pass the project's own `black --check`."""

    line_length: int = 88
    target_versions: tuple[str, ...] = ()  # black's names, such as "py311"
    requires_python: str | None = None  # black's targets when target-version is not set
    skip_string_normalization: bool = False
    skip_magic_trailing_comma: bool = False
    preview: bool = False
    unstable: bool = False


@dataclass(frozen=True)
class ImportStyle:
    """How the project's isort (ruff's, else isort's own) writes imports: the imports layergen
    adds to a package's `__init__.py` are written so, and pass its checks."""

    # One name a statement (`force-single-line`), else the names of a module in one
    # statement. A project that configures no isort gets one name a statement.
    single_line: bool = True


BLACK_DEFAULTS = BlackStyle()  # black's own, for a project that configures none
IMPORT_DEFAULTS = ImportStyle()  # for a project that configures no isort
# The axes of a device mesh, as keras-hub names them: data parallel, then model parallel.
MESH_AXES = ("batch", "model")


@dataclass(frozen=True)
class Config:
    root: Path
    paths: list[Path] = field(default_factory=list)
    tests: Path | None = None
    package: str | None = None
    templates: Path | None = None
    black: BlackStyle = BLACK_DEFAULTS
    imports: ImportStyle = IMPORT_DEFAULTS
    mesh_axes: tuple[str, ...] = MESH_AXES  # the names a weight's `layout` may use
    project_name: str = (
        ""  # [project] name, made an identifier: the registration package by default
    )
    # [tool.layergen.check] as written, and pyproject.toml's text (for the lines of its
    # errors): `layergen check` takes its settings from here, so the file is read once.
    check: dict = field(default_factory=dict, compare=False, hash=False)
    pyproject_text: str = field(default="", compare=False, hash=False, repr=False)

    @property
    def line_length(self) -> int:
        return self.black.line_length

    @property
    def tests_dir(self) -> Path:
        return self.tests or self.root / "tests"

    @property
    def declaration_paths(self) -> list[Path]:
        """What `generate`, `sync` and `watch` run on when given nothing: `paths`, else the
        default folder where it exists."""
        if self.paths:
            return list(self.paths)
        default = self.root / DEFAULT_FOLDER
        return [default] if default.is_dir() else []

    @property
    def new_folder(self) -> Path:
        """Where `new` writes a declaration: the first folder of `paths`, else the default one."""
        folders = [path for path in self.paths if path.is_dir()]
        return folders[0] if folders else self.root / DEFAULT_FOLDER

    @property
    def user_templates(self) -> str | None:
        """The project's templates folder, searched before the built-in templates."""
        return str(self.templates) if self.templates else None

    def override(self, **flags: Any) -> Config:
        """Flags the user actually set win over the file."""
        problem = package_problem(flags["package"]) if flags.get("package") is not None else None
        if problem:
            raise DiagnosticError(
                [Diagnostic("--package", None, None, "bad-package", f"`--package` {problem}")]
            )
        return replace(self, **{k: v for k, v in flags.items() if v is not None})


def find_root(start: Path) -> Path:
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return start


def load_config(cwd: Path | None = None) -> Config:
    root = find_root(cwd or Path.cwd())
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return Config(root, project_name=_identifier(root.name))
    text = read_text(pyproject)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DiagnosticError(
            [
                Diagnostic(
                    str(pyproject), *toml_position(exc, text), "toml-syntax", f"invalid TOML: {exc}"
                )
            ]
        ) from None
    errors: list[Diagnostic] = []

    def table(parent: dict, key: str, dotted: str) -> dict:
        """The table at `dotted`; a value of another kind (`tool = "x"`, `[[tool.layergen]]`) is an error."""
        value = parent.get(key, {})
        if isinstance(value, dict):
            return value
        errors.append(
            Diagnostic(
                str(pyproject),
                line_of(text, key, dotted.rpartition(".")[0]),
                1,
                "bad-config",
                f"`{dotted}` must be a table, not {_toml_kind(value)}",
                f"write it as a `[{dotted}]` section",
            )
        )
        return {}

    project = table(data, "project", "project")
    tool = table(data, "tool", "tool")
    written = table(tool, "layergen", "tool.layergen")
    check = table(written, "check", "tool.layergen.check")  # read by `layergen check`
    # Keys with dashes or underscores, as black reads its own (`mesh_axes` = `mesh-axes`).
    section = {_dashed(str(k)): v for k, v in written.items()}
    # black reads its keys with dashes or underscores
    black = {_dashed(str(k)): v for k, v in table(tool, "black", "tool.black").items()}
    formatter = "tool.black"  # the table the formatting settings come from
    if "black" not in tool and "ruff" in tool:
        ruff = table(tool, "ruff", "tool.ruff")
        black = _ruff_as_black(ruff, table(ruff, "format", "tool.ruff.format"))
        formatter = "tool.ruff"
    if errors:
        raise DiagnosticError(errors)
    black_length = black.get("line-length", 88)
    for key in written:
        if _dashed(key) not in KEYS:
            line = line_of(text, key)
            errors.append(
                Diagnostic(
                    str(pyproject),
                    line,
                    1,
                    "unknown-config",
                    f"unknown key `{key}` in [tool.layergen]",
                    did_you_mean(key, KEYS) or f"keys: {', '.join(KEYS)}",
                )
            )
    if errors:
        raise DiagnosticError(errors)
    paths = section.get("paths", [])
    paths = [paths] if isinstance(paths, str) else paths
    line_length = section.get("line-length", black_length)

    def bad(key: str, message: str, hint: str, section: str = "tool.layergen") -> None:
        line = line_of(text, key, section)
        errors.append(Diagnostic(str(pyproject), line, 1, "bad-config", f"`{key}` {message}", hint))

    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        bad(
            "paths",
            "must be a folder or file name, or a list of them",
            'such as `paths = ["layers"]`',
        )
    elif any("\0" in p for p in paths):
        bad(
            "paths", "holds a NUL character, which no file name can", 'such as `paths = ["layers"]`'
        )
    elif outside := [p for p in paths if not (root / p).resolve().is_relative_to(root.resolve())]:
        # Declarations live in the project (their modules are imported from it); `/` would
        # send `sync` and `watch` through the whole disk, /proc included.
        bad(
            "paths",
            f"names {', '.join(map(repr, outside))}, outside the project {root}",
            'name folders of the project, such as `paths = ["layers"]`',
        )
    for key in ("tests", "templates"):
        if key in section and not isinstance(section[key], str):
            bad(key, "must be a folder name", f'such as `{key} = "{key}"`')
        elif "\0" in section.get(key, ""):
            bad(
                key, "holds a NUL character, which no folder name can", f'such as `{key} = "{key}"`'
            )
    if "package" in section:
        problem = package_problem(section["package"])
        if problem:
            bad("package", problem, 'such as `package = "my_project"`')
    if "line-length" in section and (type(line_length) is not int or line_length < 1):
        bad("line-length", "must be a positive whole number", "such as `line-length = 88`")
    if type(black_length) is not int or black_length < 1:
        bad(
            "line-length",
            f"in [{formatter}] must be a positive whole number",
            "such as `line-length = 88`",
            formatter,
        )
    targets = black.get("target-version", [])
    targets = [targets] if isinstance(targets, str) else targets
    if not isinstance(targets, list) or not all(
        isinstance(t, str) and re.fullmatch(r"py3\d{1,2}", t) for t in targets
    ):
        bad(
            "target-version",
            "in [tool.black] must be a list of black's version names",
            'such as `target-version = ["py311"]`',
            "tool.black",
        )
    mesh_axes = section.get("mesh-axes", list(MESH_AXES))
    if (
        not isinstance(mesh_axes, list)
        or not mesh_axes
        or not all(isinstance(a, str) and a.isidentifier() for a in mesh_axes)
        or len(set(mesh_axes)) < len(mesh_axes)
    ):
        bad(
            "mesh-axes",
            "must be a list of distinct axis names",
            'such as `mesh-axes = ["batch", "model"]`: the data axis first',
        )
    requires_python = project.get("requires-python")
    if errors:
        raise DiagnosticError(errors)
    return Config(
        root=root,
        paths=[root / p for p in paths],
        tests=root / section["tests"] if "tests" in section else None,
        package=section.get("package"),
        templates=root / section["templates"] if "templates" in section else None,
        mesh_axes=tuple(mesh_axes),
        black=BlackStyle(
            line_length=line_length if type(line_length) is int and line_length > 0 else 88,
            target_versions=tuple(targets),
            requires_python=requires_python if isinstance(requires_python, str) else None,
            **{
                flag.replace("-", "_"): black.get(flag) is True
                for flag in (
                    "skip-string-normalization",
                    "skip-magic-trailing-comma",
                    "preview",
                    "unstable",
                )
            },
        ),
        imports=_import_style(tool),
        project_name=_identifier(str(project.get("name") or root.name)),
        check=check,
        pyproject_text=text,
    )


def no_paths(
    root: Path, command: str, what: str, pass_what: str = "files or folders"
) -> Diagnostic:
    """Nothing to run on: at `[tool.layergen]` in the project's pyproject.toml, where `paths`
    would go; at the command where there is no pyproject.toml (a line of a missing file helps
    nobody)."""
    pyproject = root / "pyproject.toml"
    where = "" if pyproject.is_file() else " in a pyproject.toml (`layergen init` writes one)"
    hint = (
        f"pass {pass_what}, or set `paths` under [tool.layergen]{where}; without it, the"
        f" `{DEFAULT_FOLDER}` folder `layergen new` writes to"
    )
    if not pyproject.is_file():
        return Diagnostic(f"layergen {command}", None, None, "no-paths", what, hint)
    line = line_of(read_text(pyproject), "layergen", "tool")
    return Diagnostic(str(pyproject), line, 1, "no-paths", what, hint)


def toml_position(exc: tomllib.TOMLDecodeError, text: str) -> tuple[int, int]:
    """Where tomllib found the error: "(at line L, column C)" or "(at end of document)"."""
    found = re.search(r"at line (\d+), column (\d+)", str(exc))
    if found:
        return int(found[1]), int(found[2])
    lines = text.splitlines() or [""]
    return len(lines), len(lines[-1]) + 1


def _identifier(name: str) -> str:
    """`my-project` -> `my_project`: a name fit for a registration package."""
    import re

    name = re.sub(r"\W+", "_", name).strip("_") or "layers"
    return f"_{name}" if name[0].isdigit() else name


def package_problem(package: object) -> str | None:
    """Why `package` cannot be a registration package (a dotted Python name), or None."""
    if not isinstance(package, str):
        return "must be a dotted name, not a " + type(package).__name__
    parts = package.split(".")
    if not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        return f"must be a dotted Python name, such as `my_project.layers`; got {package!r}"
    return None


def _ruff_as_black(ruff: dict, format: dict) -> dict:
    """The settings of `[tool.ruff]` (and its `format` table) that black has too, under
    black's names: ruff's formatter writes black's style, so a project that configures ruff
    and no black gets its generated files at ruff's line length."""
    settings = {_dashed(str(k)): v for k, v in ruff.items() if _dashed(str(k)) == "line-length"}
    formatting = {_dashed(str(k)): v for k, v in format.items()}
    if formatting.get("quote-style") == "preserve":
        settings["skip-string-normalization"] = True
    if "skip-magic-trailing-comma" in formatting:
        settings["skip-magic-trailing-comma"] = formatting["skip-magic-trailing-comma"]
    return settings


def _import_style(tool: dict) -> ImportStyle:
    """The isort settings of `[tool.ruff.lint.isort]` (or ruff's older `[tool.ruff.isort]`)
    in a project that configures ruff, else of `[tool.isort]`."""
    ruff = tool.get("ruff")
    if isinstance(ruff, dict):
        lint = ruff.get("lint")
        isort = lint.get("isort") if isinstance(lint, dict) else None
        isort = isort if isinstance(isort, dict) else ruff.get("isort")
        isort = {_dashed(str(k)): v for k, v in (isort if isinstance(isort, dict) else {}).items()}
        return ImportStyle(single_line=isort.get("force-single-line") is True)
    isort = tool.get("isort")
    if isinstance(isort, dict):
        isort = {_dashed(str(k)): v for k, v in isort.items()}
        return ImportStyle(single_line=isort.get("force-single-line") is True)
    return ImportStyle()


def _dashed(key: str) -> str:
    return key.replace("_", "-")


# A table header as TOML writes it (`[a.b]`, `[[a.b]]`): spaces around its dots, quoted
# parts, a comment after.
_HEADER = re.compile(r"^\[\[?\s*([^\[\]]*?)\s*\]\]?\s*(?:#.*)?$")


def line_of(text: str, key: str, section: str = "tool.layergen") -> int:
    """The line of pyproject.toml's `text` that sets `key` in `section` ("": the top level),
    or that opens `[section.key]`; 1 when none does. Dashes and underscores in a key are
    one; a header's spaces, quotes and comment aside. The one place a key's line is looked
    up ([tool.layergen], [tool.layergen.check], `init`)."""
    want = _parts(section)
    in_section = not want
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            header = _HEADER.match(stripped)
            parts = _parts(header[1]) if header else None
            if parts == [*want, key]:
                return number
            in_section = parts == want
        elif in_section and _dashed(stripped.split("=")[0].strip().strip("\"'")) == _dashed(key):
            return number
    return 1


def _parts(dotted: str) -> list[str]:
    """A dotted TOML key's parts, unquoted (`tool . "layergen"`: tool, layergen)."""
    return [part.strip().strip("\"'") for part in dotted.split(".")] if dotted else []


def _toml_kind(value: object) -> str:
    """How TOML names the kind of a value, for an error."""
    if isinstance(value, list):
        return "an array of tables" if value and isinstance(value[0], dict) else "an array"
    kinds = {bool: "a boolean", str: "a string", int: "an integer", float: "a float"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), "a date")


def outside_paths(folder: Path, config: Config) -> Diagnostic | None:
    """A folder none of the configured `paths` holds: `layergen generate` and its `--check`
    (the pre-commit hook) would never see what is declared there."""
    if not config.paths or any(
        folder == path or folder.is_relative_to(path) for path in map(Path.resolve, config.paths)
    ):
        return None
    shown = ", ".join(f'"{os.path.relpath(p, config.root)}"' for p in config.paths)
    return Diagnostic(
        str(folder),
        None,
        None,
        "outside-paths",
        f"the folder is outside `paths = [{shown}]` of [tool.layergen]: `layergen generate`"
        " and its --check (the pre-commit hook) would never see the layer",
        "add the folder to `paths` in pyproject.toml, or pick a --dir inside one of them",
    )
