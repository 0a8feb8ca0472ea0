"""`[tool.layergen.check]` in pyproject.toml, with --select/--ignore over it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..config import BLACK_DEFAULTS, BlackStyle, line_of
from ..diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .rules import DEFAULT_RULES, RULES

_SECTION = "tool.layergen.check"
KEYS = {
    "select": "rule codes to run, or ALL (default: the rules on by default; see `--explain`)",
    "ignore": "rule codes to skip",
    "registration-decorators": "project decorators that call register_keras_serializable (names or dotted paths)",
    "exclude": "folder or file names (globs) to skip when searching for Python files, beside test files",
}


@dataclass(frozen=True)
class CheckSettings:
    root: Path
    paths: list[Path] = field(default_factory=list)  # [tool.layergen] paths
    package: str | None = None  # [tool.layergen] package, for the registration fix
    select: frozenset[str] = DEFAULT_RULES
    named: frozenset[str] = frozenset()  # the rules selected by name (the summary's care)
    registrars: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    style: BlackStyle = BLACK_DEFAULTS  # the project's black, for the lines --fix writes


def load_settings(
    cwd: Path | None = None, select: list[str] | None = None, ignore: list[str] | None = None
) -> CheckSettings:
    from ..config import load_config

    config = load_config(cwd)  # pyproject.toml, read once: [tool.layergen.check] is in it
    section, text = config.check, config.pyproject_text
    where = str(config.root / "pyproject.toml")
    errors = [
        Diagnostic(
            where,
            line_of(text, key, _SECTION),
            1,
            "unknown-config",
            f"unknown key `{key}` in [tool.layergen.check]",
            did_you_mean(key, KEYS) or f"keys: {', '.join(KEYS)}",
        )
        for key in section
        if key not in KEYS
    ]
    for key in ("select", "ignore", "registration-decorators", "exclude"):
        value = section.get(key, [])
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            errors.append(
                Diagnostic(
                    where,
                    line_of(text, key, _SECTION),
                    1,
                    "bad-config",
                    f"`{key}` must be a list of strings",
                )
            )
    if errors:
        raise DiagnosticError(errors)
    named = set(select or section.get("select") or [])
    if "ALL" in named:  # ruff's spelling
        named = (named - {"ALL"}) | set(RULES)
    chosen = named or set(DEFAULT_RULES)
    dropped = set(section.get("ignore", [])) | set(ignore or [])
    unknown = [
        (code, "--select/--ignore" if code in (select or []) + (ignore or []) else where)
        for code in sorted(chosen | dropped)
        if code not in RULES
    ]
    if unknown:
        raise DiagnosticError(
            [
                Diagnostic(
                    w,
                    line_of(text, "select", _SECTION) if w == where else 1,
                    1,
                    "unknown-rule",
                    f"unknown rule `{code}`",
                    did_you_mean(code, RULES) or "see `layergen check --explain`",
                )
                for code, w in unknown
            ]
        )
    return CheckSettings(
        root=config.root,
        paths=config.paths,
        package=config.package,
        select=frozenset(chosen - dropped),
        named=frozenset(named - dropped),
        registrars=frozenset(section.get("registration-decorators", [])),
        exclude=tuple(section.get("exclude", [])),
        style=config.black,
    )
