"""The imports layergen writes into a package's `__init__.py`, as the project's isort (ruff's
by default settings, `force-single-line` read from the project) writes them: in its order, one
name a statement or a module's names in one, wrapped as black wraps them."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .config import BLACK_DEFAULTS, IMPORT_DEFAULTS, BlackStyle, ImportStyle


def import_key(level: int, module: str, name: str) -> tuple:
    """Where isort puts `from {"." * level}{module} import {name}` in its section (ruff's
    defaults: furthest to closest, case-insensitive natural order of the modules, then of the
    names: constants, then classes, then the other names)."""
    return (-level, _natural(module.lower()), _natural(module), *name_key(name))


def name_key(name: str) -> tuple:
    """isort's order of the names one `from` import binds (`order-by-type`)."""
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (kind, _natural(name.lower()), name)


def relative_imports(
    names: Iterable[tuple[str, str]],
    imports: ImportStyle = IMPORT_DEFAULTS,
    style: BlackStyle = BLACK_DEFAULTS,
    trailing_comma: bool = False,
) -> list[str]:
    """`from .module import Name` statements of `names` ((module, name) pairs: a name may be
    `Name as alias`), in isort's order; each a line, or as black wraps a long one."""
    by_module: dict[str, list[str]] = {}
    for module, name in names:
        by_module.setdefault(module, []).append(name)
    statements = []
    for module in sorted(by_module, key=lambda m: import_key(1, m, "")):
        bound = sorted(set(by_module[module]), key=name_key)
        groups = [[name] for name in bound] if imports.single_line else [bound]
        for group in groups:
            statements.append(_formatted(f".{module}", group, style, trailing_comma))
    return statements


def _formatted(module: str, names: list[str], style: BlackStyle, trailing_comma: bool) -> str:
    line = f"from {module} import {', '.join(names)}\n"
    if len(line) <= style.line_length + 1 and not trailing_comma:
        return line
    from .render.render import format_code

    return format_code(f"from {module} import ({', '.join(names)},)\n", style)


def _natural(text: str) -> tuple:
    """`text` in natural order: the digits in it compared as numbers (`layer2` < `layer10`)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))
