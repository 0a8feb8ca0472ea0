"""`layergen check --fix` is safe by construction: the eight ways it once broke real
files, each once. Each test failed before the fix it names. Those that are one rule's
fix of one file are data in tests/fixtures/lint_rules/ (test_lint_rule_fixtures.py): the
registration's import (unregistered/registration_adds_the_import_it_needs), no Keras 3
decorator on Keras 2 (unregistered/keras2_*), no config for a Regularizer
(config-missing/regularizer_without_get_config_is_left_alone), no dtype policy before
super().__init__ (sublayer-dtype/made_before_super_init), the config fix beside a lookup
table (config-missing/get_config_with_a_lookup_table)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from layergen.lint.rules import RULES

from helpers import FIXTURES, layergen_in_process

FIXABLE = ",".join(code for code, rule in RULES.items() if rule.fixable)


def fix(tmp_path, files: dict[str, str], *args: str, pyproject: str = "") -> dict[str, str]:
    """Write `files`, run `check --fix` with every fixable rule, return the files after."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n" + pyproject)
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip())
    result = layergen_in_process("check", "--fix", "--select", FIXABLE, *args, cwd=tmp_path)
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
    return {name: (tmp_path / name).read_text() for name in files}


def test_a_lookup_table_does_not_hide_a_missing_key(tmp_path):
    """What the finding says (its fix is config-missing/get_config_with_a_lookup_table.fixed.py)."""
    (tmp_path / "pick.py").write_text(
        (
            FIXTURES / "lint_rules" / "config-missing" / "get_config_with_a_lookup_table.py"
        ).read_text()
    )
    result = layergen_in_process("check", "pick.py", cwd=tmp_path)
    assert result.returncode == 1 and "leaves out `shift`" in result.stdout, result.stdout


def test_fixed_lines_follow_the_projects_black(tmp_path):
    black_clean = """
        import keras


        @keras.saving.register_keras_serializable(package="demo")
        class Gate(keras.layers.Layer):
            def __init__(self, temperature_of_the_gate=1.0, offset_of_the_gate=0.0, **kwargs):
                super().__init__(**kwargs)
                self.temperature_of_the_gate = temperature_of_the_gate
                self.offset_of_the_gate = offset_of_the_gate

            def call(self, x):
                return x / self.temperature_of_the_gate + self.offset_of_the_gate

            def get_config(self):
                return {**super().get_config(), "temperature_of_the_gate": 1}
        """
    # Not black's style (two-space indents): black would reindent the whole file, so the
    # fix stays as written and every other line as it was.
    hand_styled = black_clean.replace("    ", "  ").replace("Gate", "Gate2")
    fixed = fix(
        tmp_path,
        {"gate.py": black_clean, "gate2.py": hand_styled},
        pyproject="\n[tool.black]\nline-length = 100\n",
    )
    assert "offset_of_the_gate" in fixed["gate.py"].split("def get_config")[1]
    assert max(len(line) for line in fixed["gate.py"].splitlines()) <= 100
    check = subprocess.run(
        [sys.executable, "-m", "black", "--check", "-q", "gate.py"], cwd=tmp_path
    )
    assert check.returncode == 0, fixed["gate.py"]
    before = textwrap.dedent(hand_styled).lstrip().splitlines()
    after = fixed["gate2.py"].splitlines()
    assert len(after) == len(before) and "offset_of_the_gate" in after[-1]
    assert after[:-1] == before[:-1]


def test_a_config_entry_too_long_for_the_line_is_wrapped_as_black_cannot(tmp_path):
    """keras-hub's line length is 80: `"use_sliding_window_attention": self.use_sliding_
    window_attention,` at its indent is 82 columns, which black leaves as it is; the fix
    parenthesizes the value, and black splits it."""
    code = """
        import keras


        @keras.saving.register_keras_serializable(package="demo")
        class Decoder(keras.layers.Layer):
            def __init__(
                self, dropout=0.0, use_sliding_window_attention=False, **kwargs
            ):
                super().__init__(**kwargs)
                self.dropout = dropout
                self.use_sliding_window_attention = use_sliding_window_attention

            def call(self, x):
                return x

            def get_config(self):
                config = super().get_config()
                config.update(
                    {
                        "dropout": self.dropout,
                    }
                )
                return config
        """
    fixed = fix(tmp_path, {"decoder.py": code}, pyproject="\n[tool.ruff]\nline-length = 80\n")
    text = fixed["decoder.py"]
    assert "self.use_sliding_window_attention\n" in text, text  # the fix is made
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert '"dropout": self.dropout,' in text  # a line that fits is left alone


def test_a_file_checked_alone_gets_what_a_project_run_gives_it(tmp_path):
    """Its subclasses elsewhere make it a base class, which is not registered."""
    files = {
        "base.py": """
            import keras


            class Block(keras.layers.Layer):
                def call(self, x):
                    return x
            """,
        "child.py": """
            import keras
            from base import Block


            @keras.saving.register_keras_serializable(package="demo")
            class Twice(Block):
                def call(self, x):
                    return 2 * x
            """,
    }
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip())
    alone = layergen_in_process(
        "check", "--fix", "--select", "unregistered", "base.py", cwd=tmp_path
    )
    assert alone.returncode == 0, alone.stdout
    assert (tmp_path / "base.py").read_text() == textwrap.dedent(files["base.py"]).lstrip()
