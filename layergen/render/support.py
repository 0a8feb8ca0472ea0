"""The support module of a tests folder: the helpers every generated test imports.

One file per tests folder, so each test module keeps only its layer's constants and
its own tests. Like conftest.py it is a 'support' file of a run.
"""

from __future__ import annotations

from pathlib import Path

SUPPORT_MODULE = "layergen_support.py"
# The host CPU devices of the mesh a sharded layer is tested on under ModelParallel; the
# conftest asks JAX for them, the support module builds the mesh.
HOST_DEVICES = 8


def support_files(tests_dir: Path, *, user_templates: str | None = None) -> dict[Path, str]:
    """{path: text} of the support module of `tests_dir`, pre-formatted."""
    from .. import __version__ as release
    from .render import render_source

    # The template is written as black writes it (the lint test checks): no black run.
    text = render_source(
        "support.py.j2",
        {"version": release, "host_devices": HOST_DEVICES},
        user_templates=user_templates,
    )
    return {tests_dir / SUPPORT_MODULE: text}
