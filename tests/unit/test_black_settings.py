"""Generated files are formatted as the project's own black formats them: `[tool.black]` and
`requires-python`, which black reads for its target versions."""

from __future__ import annotations

import subprocess
import sys

import black
import pytest

from layergen.config import BlackStyle, load_config
from layergen.render.formatting import format_code

from helpers import layergen_in_process

# A magic trailing comma that skip-magic-trailing-comma removes, and a `with` statement that
# black wraps in parentheses only for Python 3.9 and later.
DECLARATION = """\
layer: Twice
doc: Concatenates its input with itself.
call: ops.concatenate([x, x,], axis=-1)
"""
WITH = (
    "def f():\n"
    "    with open_the_first_file_by_name(name) as first, open_the_second_file(other_name) as b:\n"
    "        pass\n"
)


def test_black_settings_are_read_from_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nrequires-python = ">=3.10"\n\n'
        "[tool.black]\nline_length = 100\nskip-magic-trailing-comma = true\npreview = true\n"
    )
    assert load_config(tmp_path).black == BlackStyle(
        line_length=100,
        requires_python=">=3.10",
        skip_magic_trailing_comma=True,
        preview=True,
    )
    (tmp_path / "pyproject.toml").write_text('[tool.black]\ntarget-version = ["py311", "py312"]\n')
    assert load_config(tmp_path).black.target_versions == ("py311", "py312")


def test_a_wrong_target_version_is_located(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.black]\ntarget-version = ["3.11"]\n'
    )
    result = layergen_in_process("generate", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "pyproject.toml:5:1: error: `target-version` in [tool.black]" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "style",
    [
        BlackStyle(requires_python=">=3.11"),
        BlackStyle(target_versions=("py39",)),
        BlackStyle(skip_magic_trailing_comma=True, line_length=60),
        BlackStyle(skip_string_normalization=True),
        BlackStyle(preview=True),  # formatted whole: black's preview features change any release
    ],
    ids=repr,
)
def test_each_setting_formats_as_black_does(style):
    code = f"x = ['a', 'b',]\ny = f'{{x}}'\n\n\n{WITH}\n\n{WITH.replace('f()', 'g()')}"
    versions = {
        v
        for v in black.TargetVersion
        if v.name.lower() in style.target_versions or (style.requires_python and v.value >= 11)
    }
    mode = black.Mode(
        target_versions=versions,
        line_length=style.line_length,
        string_normalization=not style.skip_string_normalization,
        magic_trailing_comma=not style.skip_magic_trailing_comma,
        preview=style.preview,
    )
    expected = black.format_str(code, mode=mode)
    assert format_code(code, style) == expected
    if not style.preview:
        assert expected != black.format_str(code, mode=black.Mode()), "the setting changed nothing"


def test_generated_files_pass_the_projects_own_black_check(tmp_path):
    modules = {}
    for name, black_section in [("plain", ""), ("configured", CONFIGURED)]:
        root = tmp_path / name
        (root / "layers").mkdir(parents=True)
        (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\n{black_section}')
        (root / "layers" / "twice.layer.yaml").write_text(DECLARATION)
        result = layergen_in_process("generate", "layers", cwd=root)
        assert result.returncode == 0, result.stderr
        modules[name] = (root / "layers" / "twice.py").read_text()
        check = subprocess.run(
            [sys.executable, "-m", "black", "--check", "layers", "tests"],
            cwd=root,
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stderr
    assert "ops.concatenate([x, x], axis=-1)" in modules["configured"]
    assert "ops.concatenate([x, x], axis=-1)" not in modules["plain"], "the setting changed nothing"


CONFIGURED = 'requires-python = ">=3.11"\n\n[tool.black]\nskip-magic-trailing-comma = true\n'
