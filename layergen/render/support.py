"""The support module of a tests folder: the helpers every generated test imports.

One file per tests folder, so each test module keeps only its layer's constants and
its own tests. Like conftest.py it is a 'support' file of a run.
"""

from __future__ import annotations

from pathlib import Path

SUPPORT_MODULE = "layergen_support.py"


def support_files(tests_dir: Path, *, user_templates: str | None = None, line_length: int = 88) -> dict[Path, str]:
    """{path: text} of the support module of `tests_dir`, pre-formatted."""
    from importlib.metadata import PackageNotFoundError, version

    from .render import render

    try:
        release = version("layergen")
    except PackageNotFoundError:  # a source checkout
        release = "(source)"
    text = render("support.py.j2", {"version": release}, user_templates=user_templates, line_length=line_length)
    return {tests_dir / SUPPORT_MODULE: text}
