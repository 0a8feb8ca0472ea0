"""Project settings and project templates (layergen/config.py, render/render.py): what the
config check lets through never crashes later.

Regression tests: inputs that gave tracebacks, broken code reported as success; located errors where
there were tracebacks or silence.
"""

from __future__ import annotations

import pytest

from layergen.config import load_config
from layergen.diagnostics import DiagnosticError

from helpers import cli, errors, layergen_in_process, no_traceback, project, snapshot
from helpers import cli as run


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


# -- configuration of the wrong shape, a pyproject that is not UTF-8 ------------------------------


@pytest.mark.parametrize(
    "pyproject, where, message",
    [
        (
            '[[tool.layergen]]\npaths = ["layers"]\n',
            1,
            "`tool.layergen` must be a table, not an array of tables",
        ),
        ('tool = "x"\n', 1, "`tool` must be a table, not a string"),
        ("[tool]\nlayergen = 3\n", 2, "`tool.layergen` must be a table, not an integer"),
        ("[tool]\nblack = [1]\n", 2, "`tool.black` must be a table, not an array"),
        ("project = true\n", 1, "`project` must be a table, not a boolean"),
        ("[tool.layergen]\ncheck = 3\n", 2, "`tool.layergen.check` must be a table"),
        ('\n[tool.layergen]\npaths = ["la\\u0000yers"]\n', 3, "`paths` holds a NUL character"),
        ('[tool.layergen]\ntests = "t\\u0000"\n', 2, "`tests` holds a NUL character"),
        ('[tool.layergen]\ntemplates = "\\u0000"\n', 2, "`templates` holds a NUL character"),
        (
            '[tool.black]\nline-length = "x"\n',
            2,
            "`line-length` in [tool.black] must be a positive",
        ),
    ],
)
def test_config_of_the_wrong_shape_is_a_located_error_for_every_command(
    scaler_project, pyproject, where, message
):
    (scaler_project / "pyproject.toml").write_text(pyproject)
    before = snapshot(scaler_project)
    for args in (
        ("generate",),
        ("generate", "layers"),
        ("sync", "layers"),
        ("new", "Other"),
        ("tests", "layers/scaler.py"),
        ("check", "layers"),
        ("resolve", "layers/scaler.py", "--ours"),
        ("watch", "nowhere"),
    ):
        result = run(*args)
        no_traceback(result)
        assert result.exit_code == 2, (args, result.output)
        assert f"pyproject.toml:{where}:1: error: {message}" in result.output, (args, result.output)
        assert "[bad-config]" in result.output
    assert snapshot(scaler_project) == before


def test_a_pyproject_that_is_not_utf8_is_a_located_error(scaler_project):
    (scaler_project / "pyproject.toml").write_bytes(b"[project]\nname = 'd\xe9mo'\n")
    for args in (("generate", "layers"), ("init",), ("check", "layers")):
        result = run(*args)
        no_traceback(result)
        assert result.exit_code == 2 and "pyproject.toml:2:10: error:" in result.output, args
        assert "[encoding]" in result.output


@pytest.mark.parametrize(
    "line",
    [
        "paths = 5",
        "paths = [1, 2]",
        'line-length = "x"',
        "line-length = true",
        "line-length = 0",
        "tests = 5",
        "package = 5",
        "templates = []",
        'package = "a>b"',
        'package = "with space"',
        'package = ""',
        'package = "a..b"',
        'package = "class.x"',
    ],
)
def test_wrong_config_values_are_located(tmp_path, line):
    root = project(
        tmp_path, {}, f"[project]\nname = 'demo'\n\n[tool.layergen]\n# a comment\n{line}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        load_config(root)
    assert [(d.line, d.code) for d in info.value.diagnostics] == [(6, "bad-config")]


def test_wrong_config_values_exit_2_without_a_traceback(tmp_path):
    root = project(
        tmp_path,
        {"layers/a.layer.yaml": "layer: Foo\ncall: x\n"},
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = 5\n",
    )
    assert errors(layergen_in_process("generate", cwd=root)) == [
        ("pyproject.toml", 5, 1, "bad-config")
    ]


def test_good_config_values_load(tmp_path):
    root = project(
        tmp_path,
        {},
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = 'layers'\n"
        "line-length = 100\ntests = 't'\npackage = 'my_pkg.layers'\n",
    )
    config = load_config(root)
    assert (config.paths, config.line_length, config.package) == (
        [root / "layers"],
        100,
        "my_pkg.layers",
    )


@pytest.mark.parametrize(
    "header",
    ["[tool . layergen]  # ours", '[tool."layergen"]', "[ 'tool'.layergen ]"],
)
def test_a_key_is_located_under_any_spelling_of_its_header(tmp_path, header):
    """pyproject.toml's line of a key is looked up in one place (`config.line_of`), for
    [tool.layergen] as for [tool.layergen.check]: a header written with spaces, quotes or a
    comment is still the header."""
    root = project(tmp_path, {}, f"[project]\nname = 'demo'\n\n{header}\npahts = ['layers']\n")
    with pytest.raises(DiagnosticError) as info:
        load_config(root)
    assert [(d.line, d.code) for d in info.value.diagnostics] == [(5, "unknown-config")]


def test_line_of_finds_a_key_and_a_table():
    from layergen.config import line_of

    text = "[tool.layergen]\npaths = []\n\n[tool . layergen . check]  # lint\nselect = []\n"
    assert line_of(text, "paths") == 2
    assert line_of(text, "check") == 4  # the table it opens
    assert line_of(text, "select", "tool.layergen.check") == 5
    assert line_of(text, "layergen", "tool") == 1
    assert line_of(text, "missing") == 1
