"""`layergen check` on the round-two corpus (issue 37, benchmarks/check_corpus_round2.md):
each false-positive pattern found there, rebuilt as a small synthetic project and run
through `check_files` as a whole-project run would. Each test failed before its fix."""

from __future__ import annotations

import textwrap
from pathlib import Path

from layergen.lint.engine import check_files
from layergen.lint.rules import DEFAULT_RULES
from layergen.lint.settings import CheckSettings


def check(
    root: Path, files: dict[str, str], select: frozenset[str] = DEFAULT_RULES
) -> list[tuple[str, str, str]]:
    """Write `files` under `root` and check them together: [(file, rule, message)]."""
    paths = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        paths.append(path)
    report = check_files(paths, CheckSettings(root=root, select=select))
    assert not report.errors
    return sorted(
        (path.relative_to(root).as_posix(), f.code, f.message)
        for path, found in report.findings.items()
        for f in found
    )


def rules(root: Path, files: dict[str, str], **kwargs) -> list[str]:
    return [code for _, code, _ in check(root, files, **kwargs)]


# --- A: a Keras base class with no get_config of its own --------------------------------

RNN_CELL = """
    import tensorflow as tf

    class Cell(tf.keras.layers.AbstractRNNCell):
        def __init__(self, units, mode="default", **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.mode = mode

        @property
        def state_size(self):
            return self.units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units))

        def call(self, inputs, states):
            y = tf.matmul(inputs, self.kernel)
            y = tf.tanh(y) if self.mode == "pure" else y
            return y, [y]
    """


def test_a_keras_base_without_get_config_auto_configs_like_the_bare_layer(tmp_path):
    # AbstractRNNCell (Keras 2) defines no get_config: Layer's auto-config saves `units`
    # and `mode` (run on tf_keras 2.21: Cell(8, mode="pure") comes back "pure").
    assert rules(tmp_path, {"cell.py": RNN_CELL}) == []
    # Keras 3's ELU and Identity have none either.
    elu = """
        import keras

        class Leaky(keras.layers.ELU):
            def __init__(self, alpha=1.0, floor=0.0, **kwargs):
                super().__init__(alpha=alpha, **kwargs)
                self.floor = floor

            def call(self, x):
                return keras.ops.maximum(super().call(x), self.floor)
        """
    assert rules(tmp_path, {"leaky.py": elu}) == []


def test_a_keras_base_with_a_get_config_of_its_own_still_loses_the_argument(tmp_path):
    dense = """
        import keras

        class Scaled(keras.layers.Dense):
            def __init__(self, units, scale=1.0, **kwargs):
                super().__init__(units, **kwargs)
                self.scale = scale

            def call(self, x):
                return super().call(x) * self.scale
        """
    assert rules(tmp_path, {"scaled.py": dense}) == ["config-missing"]
