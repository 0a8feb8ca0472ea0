"""`layergen check --fix` is safe by construction: the eight ways it broke real files
(issue 24), each once. Each test failed before the fix it names."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

from layergen.lint.rules import RULES

from helpers import layergen_in_process

FIXABLE = ",".join(code for code, rule in RULES.items() if rule.fixable)


def fix(tmp_path, files: dict[str, str], *args: str, pyproject: str = "") -> dict[str, str]:
    """Write `files`, run `check --fix` with every fixable rule, return the files after."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n" + pyproject)
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip())
    result = layergen_in_process("check", "--fix", "--select", FIXABLE, *args, cwd=tmp_path)
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
    return {name: (tmp_path / name).read_text() for name in files}


def binds_keras_before_use(code: str) -> bool:
    tree = ast.parse(code)
    imports = [
        n.lineno
        for n in tree.body
        if isinstance(n, ast.Import) and any(a.name == "keras" and not a.asname for a in n.names)
    ]
    uses = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "keras"]
    return bool(imports) and min(imports) < min(uses)


def test_the_registration_fix_adds_the_import_it_needs(tmp_path):
    fixed = fix(
        tmp_path,
        {"scale.py": """
                from keras import layers


                class Scale(layers.Layer):
                    def call(self, x):
                        return x * 2.0
                """},
    )["scale.py"]
    assert "@keras.saving.register_keras_serializable" in fixed
    assert binds_keras_before_use(fixed), fixed


def test_a_keras_2_file_gets_no_keras_3_decorator(tmp_path):
    files = {
        "tf2.py": """
            import tensorflow as tf


            class Scale(tf.keras.layers.Layer):
                def call(self, x):
                    return x * 2.0
            """,
        "tfk.py": """
            import tf_keras
            layers = tf_keras.layers


            class Scale2(layers.Layer):
                def call(self, x):
                    return x * 2.0
            """,
    }
    fixed = fix(tmp_path, files)
    assert fixed == {name: textwrap.dedent(text).lstrip() for name, text in files.items()}


def test_a_regularizer_without_get_config_is_left_alone(tmp_path):
    """A Regularizer's base get_config raises NotImplementedError: saving fails loudly,
    naming the class, so there is no silent bug to fix (check_corpus_round2.md, pattern D)."""
    fixed = fix(
        tmp_path,
        {"reg.py": """
                import keras


                @keras.saving.register_keras_serializable(package="demo")
                class L3(keras.regularizers.Regularizer):
                    def __init__(self, factor=0.01):
                        self.factor = factor

                    def __call__(self, x):
                        return self.factor * keras.ops.sum(keras.ops.abs(x) ** 3)
                """},
    )["reg.py"]
    assert "get_config" not in fixed


def test_no_dtype_policy_is_passed_before_super_init(tmp_path):
    """keras's rnn.py makes its cell before super().__init__(): self.dtype_policy does not exist yet."""
    code = """
        import keras


        @keras.saving.register_keras_serializable(package="demo")
        class Wrapper(keras.layers.Layer):
            def __init__(self, units, **kwargs):
                self.cell = keras.layers.Dense(units)
                super().__init__(**kwargs)
                self.units = units
                self.after = keras.layers.Dense(units)

            def call(self, x):
                return self.after(self.cell(x))

            def get_config(self):
                return {**super().get_config(), "units": self.units}
        """
    fixed = fix(tmp_path, {"wrap.py": code})["wrap.py"]
    assert "self.cell = keras.layers.Dense(units)\n" in fixed
    assert "self.after = keras.layers.Dense(units, dtype=self.dtype_policy)" in fixed


GET_CONFIG_WITH_A_TABLE = """
    import keras


    @keras.saving.register_keras_serializable(package="demo")
    class Pick(keras.layers.Layer):
        def __init__(self, mode="sum", shift=0.0, **kwargs):
            super().__init__(**kwargs)
            self.mode = mode
            self.shift = shift

        def call(self, x):
            return x + self.shift

        def get_config(self):
            names = {"sum": "add", "shift": "offset"}
            config = super().get_config()
            config.update({"mode": names[self.mode]})
            return config
    """


def test_the_config_fix_writes_into_what_get_config_returns(tmp_path):
    fixed = fix(tmp_path, {"pick.py": GET_CONFIG_WITH_A_TABLE})["pick.py"]
    assert 'names = {"sum": "add", "shift": "offset"}' in fixed
    assert 'config.update({"mode": names[self.mode], "shift": self.shift})' in fixed


def test_a_lookup_table_does_not_hide_a_missing_key(tmp_path):
    (tmp_path / "pick.py").write_text(textwrap.dedent(GET_CONFIG_WITH_A_TABLE))
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
