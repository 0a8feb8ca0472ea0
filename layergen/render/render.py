"""Render contexts through the Jinja templates and format the result with black."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any



@functools.lru_cache(maxsize=None)
def environment(user_templates: str | None = None):
    import jinja2

    loaders: list[Any] = []
    if user_templates:  # a user's template overrides the built-in one of the same name
        loaders.append(jinja2.FileSystemLoader(user_templates))
    loaders.append(jinja2.FileSystemLoader(str(_builtin_templates())))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        bytecode_cache=_bytecode_cache(jinja2),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["pyrepr"] = repr
    return env


def _bytecode_cache(jinja2):
    """Compiled templates are kept between runs, as Python keeps .pyc files.

    Jinja checks each template's source against its cached code, so an edited
    template is recompiled.
    """
    import os

    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "layergen" / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a read-only home: compile every time
    return jinja2.FileSystemBytecodeCache(str(folder))


def _builtin_templates() -> Path:
    """Templates ship inside the package; in a source checkout they sit at the top."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "templates"


def render(template: str, context: dict[str, Any], *, user_templates: str | None = None, line_length: int = 88) -> str:
    code = environment(user_templates).get_template(template).render(**context)
    return format_code(code, line_length)


def format_code(code: str, line_length: int = 88) -> str:
    import black

    return black.format_str(code, mode=black.Mode(line_length=line_length))
