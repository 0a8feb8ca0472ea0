"""Project settings and project templates (layergen/config.py, render/render.py): what the
config check lets through never crashes later. Issue 34 item 17."""

from __future__ import annotations

import pytest

from helpers import cli, snapshot


def configure(root, lines: str) -> None:
    (root / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.layergen]\n{lines}\n")


@pytest.mark.parametrize("length", [1, 5, 12])
def test_a_short_line_length_generates(scaler_project, length):
    """`line-length` 1 to 12 passed the config check, then crashed in textwrap."""
    configure(scaler_project, f"line-length = {length}")
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    assert cli("generate", "--check", "layers").exit_code == 0


@pytest.mark.parametrize(
    "template, message, line",
    [
        ("{% if %}\n", "template: Expected an expression", 1),
        ("# ok\n{{ no_such_name }}\n", "template: 'no_such_name' is undefined", 2),
        ("this is not python (\n", "the template renders what is not Python", 1),
    ],
)
def test_a_project_template_that_fails_is_a_located_error(scaler_project, template, message, line):
    configure(scaler_project, 'templates = "templates"')
    (scaler_project / "templates").mkdir()
    (scaler_project / "templates" / "layer.py.j2").write_text(template)
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        (scaler_project / "layers" / "scaler.layer.yaml").read_text().replace("ones", "zeros")
    )
    before = snapshot(scaler_project)
    result = cli("generate", "layers")
    assert result.exit_code == 2 and "[bad-template]" in result.output, result.output
    assert f"templates/layer.py.j2:{line}:1: error: {message}" in result.output, result.output
    assert snapshot(scaler_project) == before


def test_paths_outside_the_project_are_refused(scaler_project):
    """`paths = ["/"]` sent `sync` through the whole disk, /proc included."""
    configure(scaler_project, 'paths = ["/"]')
    for args in (("sync",), ("generate",)):
        result = cli(*args)
        assert result.exit_code == 2 and "[bad-config]" in result.output, result.output
        assert "pyproject.toml:5:1: error: `paths` names '/', outside the project" in result.output
