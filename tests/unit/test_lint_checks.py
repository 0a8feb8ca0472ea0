"""Rules of layergen/lint/rules/ whose fixes must leave a class that round-trips: each
fixed class is imported and rebuilt from its config, through JSON as a saved file holds it."""

from __future__ import annotations

import atexit
import functools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from layergen.lint.engine import check_files, python_files
from layergen.lint.fixes import apply_fixes
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings


def check_and_fix(tmp_path: Path, code: str) -> tuple[list[tuple[str, int]], str]:
    """The findings of `code` (as layers.py) and the file after --fix."""
    path = tmp_path / "layers.py"
    path.write_text(textwrap.dedent(code))
    settings = CheckSettings(root=tmp_path, select=frozenset(RULES) - {"unregistered"})
    report = check_files(python_files([tmp_path], settings), settings)
    found = report.findings.get(path, [])
    fixes = [f.fix for f in found if f.fix is not None]
    fixed = apply_fixes(path.read_text(), fixes, settings.style) if fixes else path.read_text()
    return [(f.code, f.line) for f in found], fixed


# One process, numpy backend, answers every round trip of the session: a line of JSON in
# (the file, the objects to make), a line out. Keras is imported once, not once per check.
ROUND_TRIP = """
import importlib.util, json, sys, traceback
import numpy as np
answer, sys.stdout = sys.stdout, sys.stderr  # what the checked code prints is not an answer
for request in sys.stdin:
    path, objects = json.loads(request)
    try:
        spec = importlib.util.spec_from_file_location("layers", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except BaseException:
        answer.write(json.dumps({"error": traceback.format_exc()}) + "\\n")
        answer.flush()
        continue
    results = {}
    for label, (expression, shape) in objects.items():
        try:
            made = eval(expression, vars(module))
            config = json.loads(json.dumps(made.get_config()))  # as a saved file holds it
            again = type(made).from_config(config)
            same = again.get_config() == made.get_config()
            if shape:  # called, it makes its weights from what came back, and an output
                x = np.ones(shape, dtype="float32")
                same = same and tuple(again(x).shape) == tuple(made(x).shape)
            results[label] = "ok" if same else "differs"
        except Exception as exc:
            results[label] = f"{type(exc).__name__}: {exc}"
    answer.write(json.dumps({"results": results}) + "\\n")
    answer.flush()
"""


@functools.cache
def round_trip_process() -> subprocess.Popen:
    """Ends with this session, when its input closes."""
    process = subprocess.Popen(
        [sys.executable, "-c", ROUND_TRIP],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "KERAS_BACKEND": "numpy"},
    )
    atexit.register(lambda: (process.stdin.close(), process.wait(timeout=60)))
    return process


def round_trips(tmp_path: Path, code: str, made: dict[str, str]) -> dict[str, str]:
    """For each label, what `from_config(get_config())` does to the object `made` builds
    (an expression, and the shape of an input to call both with, or None)."""
    path = tmp_path / "round_trip.py"
    path.write_text(code)
    process = round_trip_process()
    process.stdin.write(json.dumps([str(path), made]) + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    assert line, f"the round-trip process ended (exit status {process.poll()})"
    answer = json.loads(line)
    assert "error" not in answer, answer["error"]
    return answer["results"]


WRAPPER = """\
    import keras


    class Wrapper(keras.layers.Layer):
        \"\"\"Its own from_config rebuilds `layer` from the config's "inner".\"\"\"

        def __init__(self, layer, scale=1.0, **kwargs):
            super().__init__(**kwargs)
            self.layer = layer
            self.scale = scale

        def get_config(self):
            inner = keras.saving.serialize_keras_object(self.layer)
            return {**super().get_config(), "inner": inner}

        @classmethod
        def from_config(cls, config):
            layer = keras.saving.deserialize_keras_object(config.pop("inner"))
            return cls(layer, **config)
    """


def test_an_argument_its_own_from_config_rebuilds_is_not_missing(tmp_path):
    """The config-missing rule ignored a custom `from_config` that rebuilds an
    argument, and --fix then broke a class that round-tripped ("multiple values for
    argument 'layer'"). `scale`, which nothing saves, is still missing."""
    found, fixed = check_and_fix(tmp_path, WRAPPER)
    assert found == [("config-missing", 12)]
    assert '"scale": self.scale' in fixed and '"layer"' not in fixed
    made = {"wrapper": ["Wrapper(keras.layers.Dense(2), scale=3.0)", None]}
    assert round_trips(tmp_path, fixed, made) == {"wrapper": "ok"}


WEIGHTS = """\
    import keras


    class Scale(keras.layers.Layer):
        def __init__(
            self,
            kernel_initializer="ones",
            kernel_regularizer=None,
            kernel_constraint=None,
            **kwargs,
        ):
            super().__init__(**kwargs)
            self.kernel_initializer = kernel_initializer
            self.kernel_regularizer = kernel_regularizer
            self.kernel_constraint = kernel_constraint

        def build(self, input_shape):
            self.kernel = self.add_weight(
                shape=(input_shape[-1],),
                initializer=self.kernel_initializer,
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
            )

        def call(self, x):
            return x * self.kernel

        def get_config(self):
            return {**super().get_config()}


    class Fixed(keras.layers.Layer):
        \"\"\"Always float32: `dtype=` is its own choice, not its caller's.\"\"\"

        def __init__(self, units=2, name=None):
            super().__init__(name=name, dtype="float32")
            self.units = units

        def get_config(self):
            return {**super().get_config(), "units": self.units}
    """


def test_fixes_write_what_a_saved_file_can_hold_and_load(tmp_path):
    """--fix wrote raw initializer/regularizer objects into a config (a
    saved file cannot hold them as JSON: "Unknown config_item 'L2'" at load), and added
    `**kwargs` beside an explicit `dtype=` (from_config then passes `dtype` twice)."""
    found, fixed = check_and_fix(tmp_path, WEIGHTS)
    assert sorted(found) == [("config-missing", 28), ("init-kwargs", 35)]
    assert "keras.regularizers.serialize(self.kernel_regularizer)" in fixed, fixed
    # Not fixed: `Fixed` decides its dtype; `**kwargs` must drop the one from_config passes.
    assert "def __init__(self, units=2, name=None):" in fixed
    made = {
        "objects": [
            "Scale(keras.initializers.Constant(2.0), keras.regularizers.L2(0.1),"
            " keras.constraints.NonNeg())",
            [2, 3],
        ],
        "names": ["Scale('zeros', 'l2')", [2, 3]],
    }
    assert round_trips(tmp_path, fixed, made) == {"objects": "ok", "names": "ok"}
    # A file that cannot spell `keras.regularizers` gets no fix, rather than a raw object.
    (tmp_path / "round_trip.py").unlink()
    found, fixed = check_and_fix(
        tmp_path,
        WEIGHTS.replace("import keras\n", "from keras import layers\n").replace(
            "keras.layers.", "layers."
        ),
    )
    assert "config-missing" in dict(found)
    assert '"kernel_regularizer": self.kernel_regularizer' not in fixed


LOSSES = """\
    import keras


    class Distill(keras.losses.Loss):
        \"\"\"Takes `name` but not `reduction`, which Loss.get_config saves.\"\"\"

        def __init__(self, temperature=3.0, name="distill"):
            super().__init__(name=name)
            self.temperature = temperature

        def call(self, y_true, y_pred):
            return keras.ops.mean((y_true - y_pred) / self.temperature)

        def get_config(self):
            return {**super().get_config(), "temperature": self.temperature}


    class Complete(keras.losses.Loss):
        def __init__(self, temperature=3.0, name="complete", reduction="sum_over_batch_size"):
            super().__init__(name=name, reduction=reduction)
            self.temperature = temperature

        def call(self, y_true, y_pred):
            return keras.ops.mean(y_pred)

        def get_config(self):
            return {**super().get_config(), "temperature": self.temperature}
    """


def test_a_loss_that_cannot_take_its_reduction_back(tmp_path):
    """A loss whose `__init__` takes `name` but not `reduction` was let
    through, and `Loss.from_config` (`cls(**config)`) raises on every reload."""
    found, fixed = check_and_fix(tmp_path, LOSSES)
    assert found == [("init-kwargs", 7)]
    made = {"distill": ["Distill(5.0)", None], "complete": ["Complete(5.0)", None]}
    before = round_trips(tmp_path, textwrap.dedent(LOSSES), made)
    assert "reduction" in before["distill"] and before["complete"] == "ok"
    assert round_trips(tmp_path, fixed, made) == {"distill": "ok", "complete": "ok"}
