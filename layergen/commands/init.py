"""`layergen init`: set up pyproject.toml's tool.layergen, VS Code tasks, the declaration
schema and pre-commit, merging into what is there (`layergen/init.py` plans it)."""

from __future__ import annotations

from pathlib import Path

from .report import Echo, shown


def init(
    *,
    echo: Echo,
    paths: list[str] | None = None,
    tests: str | None = None,
    package: str | None = None,
    quiet: bool = False,
) -> int:
    from ..config import find_root
    from ..init import init as set_up

    done = set_up(find_root(Path.cwd()), paths=paths, tests=tests, package=package)
    if quiet:
        return 0
    for path, state, note in done.files:
        echo(f"{state:10} {shown(path)}" + (f" ({note})" if note else ""))
    if done.snippet:
        echo(
            f"add the layergen hooks under `repos:` in .pre-commit-config.yaml:\n{done.snippet}",
            nl=False,
        )
    return 0
