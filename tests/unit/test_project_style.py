"""The project's own style kept in what layergen writes: the line length of its ruff
configuration where it configures no black, and imports placed where the project's isort
settings (as ruff reads them) accept them. Checked against the real `ruff check`."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from layergen.config import BlackStyle, ImportStyle, load_config
from layergen.package_init import package_init

from helpers import REPO, cli

RUFF = """\
[project]
name = "demo"

[tool.ruff]
line-length = 80

[tool.ruff.lint]
select = ["E", "F", "I"]

[tool.ruff.lint.per-file-ignores]
"**/__init__.py" = ["F401"]

[tool.ruff.lint.isort]
force-single-line = true
known-first-party = ["demo"]
"""

# A layer whose generated get_config has a line of 88 columns (black's default length).
WIDE = """\
import keras


@keras.saving.register_keras_serializable(package="demo")
class Wide(keras.layers.Layer):
    def __init__(
        self,
        units,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.units = units
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)

    def build(self, input_shape):
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_shape[-1], self.units),
            initializer=self.kernel_initializer,
        )
        self.bias = self.add_weight(
            name="bias",
            shape=(self.units,),
            initializer=self.bias_initializer,
        )

    def call(self, x):
        return keras.ops.matmul(x, self.kernel) + self.bias

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "kernel_initializer": keras.initializers.serialize(
                    self.kernel_initializer
                ),
                "bias_initializer": keras.initializers.serialize(
                    self.bias_initializer
                ),
            }
        )
        return config
"""


def ruff(root, *args: str) -> subprocess.CompletedProcess:
    """The real `ruff check` in `root`, reading the project's own configuration."""
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format=concise", *args],
        cwd=root,
        capture_output=True,
        text=True,
    )


def test_ruff_line_length_is_the_formatting_length_where_black_has_no_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 80\n")
    assert load_config(tmp_path).black.line_length == 80


def test_ruff_format_settings_black_shares_are_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.ruff]\nline-length = 100\n\n"
        '[tool.ruff.format]\nquote-style = "preserve"\nskip-magic-trailing-comma = true\n'
    )
    assert load_config(tmp_path).black == BlackStyle(
        line_length=100, skip_string_normalization=True, skip_magic_trailing_comma=True
    )


def test_black_settings_win_over_ruffs(tmp_path):
    # black formats with its own table, defaults included: [tool.ruff] is not black's
    (tmp_path / "pyproject.toml").write_text(
        "[tool.black]\nskip-magic-trailing-comma = true\n\n[tool.ruff]\nline-length = 80\n"
    )
    assert load_config(tmp_path).black == BlackStyle(skip_magic_trailing_comma=True)


@pytest.mark.parametrize("value", ["0", '"80"'])
def test_a_wrong_ruff_line_length_is_located(tmp_path, monkeypatch, value):
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\n\n[tool.ruff]\nline-length = {value}\n'
    )
    monkeypatch.chdir(tmp_path)
    result = cli("generate")
    assert result.exit_code == 2, result.output
    assert "pyproject.toml:5:1: error: `line-length` in [tool.ruff]" in result.output


@pytest.fixture
def ruff_project(tmp_path, monkeypatch):
    """A project configured as keras-hub configures ruff, and no black."""
    (tmp_path / "pyproject.toml").write_text(RUFF)
    (tmp_path / "demo").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_adopted_module_keeps_the_projects_style(ruff_project):
    package = ruff_project / "demo"
    (package / "__init__.py").write_text(REGISTERS)  # keras-hub's form
    (package / "wide.py").write_text(WIDE)
    assert ruff(ruff_project, "demo").returncode == 0  # the original passes
    result = cli("adopt", "demo/wide.py:Wide")
    assert result.exit_code == 0, result.output
    assert "get_config" not in result.output  # the declaration's now, not the person's
    checked = ruff(ruff_project, "demo")
    assert checked.returncode == 0, checked.stdout


def lint(root, path: str, text: str) -> str:
    """What the project's ruff says of `text` written at `path` ("" when it passes)."""
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)
    checked = ruff(root, "--select", "I,E", path)
    return "" if checked.returncode == 0 else checked.stdout


# keras-hub's own package __init__.py files: absolute imports, then code.
REGISTERS = """\
from demo.models.backbone import Backbone
from demo.models.presets import backbone_presets
from demo.utils.preset_utils import register_presets

register_presets(backbone_presets, Backbone)
"""


@pytest.mark.parametrize(
    "existing, names",
    [
        pytest.param(REGISTERS, [("layers", "Pooler")], id="after-absolute-imports-then-code"),
        pytest.param(
            "from .b_layer import BLayer\nfrom .d_layer import DLayer\n",
            [("a_layer", "ALayer"), ("c_layer", "CLayer"), ("e_layer", "ELayer")],
            id="among-relative-imports",
        ),
        pytest.param(
            '"""The package."""\n\nimport os\n\nfrom .b import B\n\nVALUE = os.sep\n',
            [("a", "A")],
            id="into-its-section",
        ),
        pytest.param('"""The package."""\n\nVALUE = 1\n', [("a", "A")], id="no-imports-yet"),
        pytest.param(
            'from .b import B\n\n__all__ = ["B"]\n', [("a", "A"), ("b", "C")], id="with-all"
        ),
    ],
)
def test_imports_added_to_a_package_init_pass_the_projects_isort(tmp_path, existing, names):
    (tmp_path / "pyproject.toml").write_text(RUFF)
    assert lint(tmp_path, "demo/__init__.py", existing) == ""
    edited = package_init(existing, names, package="demo")
    assert lint(tmp_path, "demo/__init__.py", edited) == "", edited
    assert all(f"from .{module} import {name}\n" in edited for module, name in names)


def test_a_new_package_init_passes_the_projects_isort(tmp_path):
    (tmp_path / "pyproject.toml").write_text(RUFF)
    text = package_init(None, [("b_layer", "Second"), ("a_layer", "First"), ("a_layer", "AB")])
    assert lint(tmp_path, "demo/__init__.py", text) == "", text


@pytest.mark.parametrize(
    "pyproject, single_line",
    [
        ("", True),  # no isort configured: one name a statement, as layergen always wrote
        ('[tool.ruff.lint]\nselect = ["I"]\n', False),  # ruff's isort default
        ("[tool.ruff.lint.isort]\nforce-single-line = true\n", True),
        ("[tool.ruff.isort]\nforce-single-line = true\n", True),  # ruff's older table
        ("[tool.isort]\nforce_single_line = true\n", True),
        ('[tool.isort]\nprofile = "black"\n', False),
    ],
)
def test_the_projects_isort_style_is_read(tmp_path, pyproject, single_line):
    (tmp_path / "pyproject.toml").write_text(pyproject)
    assert load_config(tmp_path).imports == ImportStyle(single_line=single_line)


MERGING = '[project]\nname = "demo"\n\n[tool.ruff.lint]\nselect = ["I"]\n'


def test_classes_of_one_module_share_an_import_where_isort_merges_them(tmp_path):
    (tmp_path / "pyproject.toml").write_text(MERGING)
    style = load_config(tmp_path)
    names = [("b_layer", "Second"), ("a_layer", "First"), ("a_layer", "AB")]
    text = package_init(None, names, style=style.black, imports=style.imports)
    assert "from .a_layer import AB, First\n" in text
    assert lint(tmp_path, "demo/__init__.py", text) == "", text
    many = [("a_layer", f"ALongClassNameNumber{n}") for n in range(5)]
    text = package_init(text, [*names, *many], style=style.black, imports=style.imports)
    assert "from .a_layer import (\n    AB,\n    ALongClassNameNumber0,\n" in text
    assert lint(tmp_path, "demo/__init__.py", text) == "", text


@pytest.mark.parametrize(
    "isort", ["", "\n[tool.ruff.lint.isort]\nforce-single-line = true\n"], ids=["merged", "single"]
)
def test_a_generated_package_of_several_layers_a_module_passes_the_projects_isort(
    tmp_path, monkeypatch, isort
):
    from test_several_layers_per_module import TWO

    (tmp_path / "pyproject.toml").write_text(MERGING + isort)
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "blocks.layer.yaml").write_text(TWO)
    (tmp_path / "layers" / "more.layer.yaml").write_text(
        TWO.replace("Sca", "Hea").replace("Shif", "Lif")
    )
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # written new, then edited: a module of classes renamed
        result = cli("generate", "layers")
        assert result.exit_code == 0, result.output
        init = (tmp_path / "layers" / "__init__.py").read_text()
        assert lint(tmp_path, "layers/__init__.py", init) == "", init
        (tmp_path / "layers" / "blocks.layer.yaml").write_text(TWO.replace("Sh", "Bh"))


def test_the_comments_a_layer_module_gets_keep_a_narrower_line_length(tmp_path, monkeypatch):
    """Every example generated at ruff's line length 80: no comment line the layer template
    writes passes it (a declaration's own code, comments included, is the person's)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n\n' + RUFF_80)
    shutil.copytree(REPO / "examples", tmp_path / "layers", ignore=shutil.ignore_patterns("*.md"))
    monkeypatch.chdir(tmp_path)
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    template = (REPO / "layergen" / "templates" / "layer.py.j2").read_text()
    long = [
        line
        for module in (tmp_path / "layers").glob("*.py")
        for line in module.read_text().splitlines()
        if len(line) > 80
        and line.lstrip().startswith("#")
        and line.split("# ")[-1][:30] in template
    ]
    assert not long
    written = {
        line
        for module in (tmp_path / "layers").glob("*.py")
        for line in module.read_text().splitlines()
    }
    assert "        # Sublayers created here, where the input shape is known." in written


RUFF_80 = "[tool.ruff]\nline-length = 80\n"
