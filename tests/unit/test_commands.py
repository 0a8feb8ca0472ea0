"""layergen/commands/: one module per subcommand, no typer in them, and a run
where nothing changed loads none of the heavy libraries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from layergen.cli import app

from helpers import REPO

COMMANDS = REPO / "layergen" / "commands"
SHARED = {"__init__", "report", "run"}  # the reporter and what every writing command shares


def test_every_subcommand_has_its_module_and_none_knows_typer():
    names = {c.name or c.callback.__name__ for c in app.registered_commands}
    modules = {p.stem for p in COMMANDS.glob("*.py")} - SHARED
    assert names == modules
    for path in COMMANDS.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and not node.level
        }
        assert "typer" not in imported, path.name


def test_a_generate_that_changes_nothing_loads_no_heavy_library(scaler_project):
    """Neither pydantic (the declaration models) nor libcst, black, Jinja or ruamel: the
    declaration is taken from the lock, and nothing is merged."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from layergen.commands.generate import generate\n"
        "from layergen.config import load_config\n"
        "status = generate([Path('layers').resolve()], load_config(), echo=print, quiet=True)\n"
        "heavy = ('pydantic', 'libcst', 'black', 'jinja2', 'ruamel')\n"
        "print(status, sorted(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=scaler_project,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
    )
    assert result.stdout.strip().splitlines()[-1] == "0 []", result.stdout + result.stderr
    assert Path(scaler_project / "layers" / "scaler.py").is_file()
