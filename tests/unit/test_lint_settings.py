"""`--select`/`--ignore` and [tool.layergen.check] (layergen/lint/settings.py), and what the
summary says about the rules selected."""

from __future__ import annotations

import textwrap

import pytest

from layergen.diagnostics import DiagnosticError
from layergen.lint.rules import RULES
from layergen.lint.settings import load_settings

from helpers import layergen_in_process


def test_select_all_selects_every_rule(tmp_path):
    """`--select ALL` (ruff's spelling, what a person tries first) was
    an unknown rule; so was `select = ["ALL"]`."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    every = frozenset(RULES)
    assert load_settings(tmp_path, select=["ALL"]).select == every
    assert load_settings(tmp_path, select=["ALL"], ignore=["init-kwargs"]).select == every - {
        "init-kwargs"
    }
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen.check]\nselect = ['ALL']\n"
    )
    assert load_settings(tmp_path).select == every


KERAS2 = """\
    import tensorflow as tf


    class Scaled(tf.keras.layers.Layer):
        def __init__(self, units=2, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.dense = tf.keras.layers.Dense(units)

        def call(self, x):
            return self.dense(x)

        def get_config(self):
            return {**super().get_config(), "units": self.units}
    """
KERAS3 = KERAS2.replace("import tensorflow as tf", "import keras").replace("tf.keras", "keras")


def test_the_summary_says_which_selected_rules_were_not_run_where_and_why(tmp_path):
    """A rule selected by name was skipped on Keras 2 files without a
    word; the default rules that do not apply to Keras 2 are not worth a line."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "old.py").write_text(textwrap.dedent(KERAS2))
    (tmp_path / "older.py").write_text(textwrap.dedent(KERAS2))
    (tmp_path / "new.py").write_text(textwrap.dedent(KERAS3))
    picked = layergen_in_process(
        "check", "--select", "sublayer-dtype,unregistered", ".", cwd=tmp_path
    )
    assert picked.returncode == 1, picked.stderr
    assert "new.py:4:1:" in picked.stdout and "old.py" not in picked.stdout
    assert (
        "`sublayer-dtype`, `unregistered` not run on 2 files, for Keras 3 only: they are"
        " Keras 2 (old.py, older.py)" in picked.stderr
    ), picked.stderr
    again = layergen_in_process(
        "check", "--select", "sublayer-dtype,unregistered", ".", cwd=tmp_path
    )
    assert again.stderr == picked.stderr  # from the cache
    everything = layergen_in_process("check", "--select", "ALL", ".", cwd=tmp_path)
    assert "not run on 2 files" in everything.stderr, everything.stderr
    default = layergen_in_process("check", ".", cwd=tmp_path)
    assert "not run" not in default.stderr, default.stderr


def test_a_config_mistake_is_located_on_its_own_line_whatever_the_header_carries(tmp_path):
    """The header of [tool.layergen.check] with a comment (or TOML's spaces) was not found:
    an unknown key was reported at line 1."""
    for header in (
        "[tool.layergen.check]  # layergen check's settings",
        "[ tool . layergen . check ]",
        '[tool."layergen".check]#settings',
    ):
        (tmp_path / "pyproject.toml").write_text(
            f"[project]\nname = 'demo'\n\n{header}\nselect = ['ALL']\nslect = []\n"
        )
        with pytest.raises(DiagnosticError) as raised:
            load_settings(tmp_path)
        [diagnostic] = raised.value.diagnostics
        assert (diagnostic.code, diagnostic.line) == ("unknown-config", 6), header
