"""`layergen adopt` of code that deviates from a Keras convention a generated test checks:
the declaration states the deviation (a skip with its reason) and adopt prints it, so
the generated suite is green for the code as it was (keras-hub's RMSNormalization returns
float32 under any dtype policy)."""

from __future__ import annotations

import pytest

from helpers import cli, run_pytest

RMS_NORM = """\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class RMSNorm(keras.layers.Layer):
    def build(self, input_shape):
        self.scale = self.add_weight(
            name="scale", shape=(input_shape[-1],), initializer="ones"
        )

    def call(self, x):
        x = ops.cast(x, {cast})
        rrms = ops.rsqrt(ops.mean(ops.square(x), axis=-1, keepdims=True) + 1e-6)
        return (x * rrms) * self.scale
"""

MIXED_TEST = "test_mixed_precision_matches_float32"


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "__init__.py").write_text("")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("cast", ["float", '"float32"'])
def test_outputs_kept_float32_are_a_stated_and_printed_skip(project, cast):
    (project / "layers" / "rms_norm.py").write_text(RMS_NORM.format(cast=cast))
    result = cli("adopt", "layers/rms_norm.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "rms_norm.layer.yaml").read_text()
    assert f"    {MIXED_TEST}: " in text and "stay float32 under a mixed" in text, text
    assert f"RMSNorm skips {MIXED_TEST}: " in result.output, result.output


def test_a_cast_back_to_the_compute_dtype_is_no_deviation(project):
    code = RMS_NORM.format(cast="float").replace(
        "return (x * rrms) * self.scale",
        "return ops.cast((x * rrms) * self.scale, self.compute_dtype)",
    )
    (project / "layers" / "rms_norm.py").write_text(code)
    result = cli("adopt", "layers/rms_norm.py")
    assert result.exit_code == 0, result.output
    assert MIXED_TEST not in (project / "layers" / "rms_norm.layer.yaml").read_text()


SELECT = """\
import keras
from keras import ops


def select(scores, steps):
    scores = ops.cast(scores, "float32")

    def body(i, s):
        return i + 1, s * 0.5

    _, scores = ops.while_loop(lambda i, s: i < steps, body, (0, scores))
    return scores


@keras.saving.register_keras_serializable(package="mine")
class Select(keras.layers.Layer):
    def __init__(self, steps=2, **kwargs):
        super().__init__(**kwargs)
        self.steps = steps

    def call(self, scores):
        return select(scores, self.steps)

    def get_config(self):
        config = super().get_config()
        config.update({"steps": self.steps})
        return config
"""


def test_deviations_in_the_modules_functions_call_reaches(project):
    """keras-hub's NonMaxSuppression: its `call` calls a function of its module that casts to
    float32 and loops with `ops.while_loop` (which reverse-mode differentiation does not go
    through): both deviations stated, each naming the function."""
    (project / "layers" / "select.py").write_text(SELECT)
    result = cli("adopt", "layers/select.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "select.layer.yaml").read_text()
    assert f"    {MIXED_TEST}: " in text and "(in `select`)" in text, text
    assert "    test_gradients_match_finite_differences: " in text, text
    assert "ops.while_loop" in text, text
    assert "Select skips test_gradients_match_finite_differences: " in result.output


GRID = """\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class Grid(keras.layers.Layer):
    def call(self, images):
        steps = ops.shape(images)[1]
        return self.centers(steps) + ops.zeros_like(images[:, :, 0])

    def centers(self, steps):
        return ops.arange(0, steps, dtype="float32") * 2.0
"""


def test_outputs_made_in_float32_by_a_method_call_reaches(project):
    """keras-hub's AnchorGenerator makes its outputs with `ops.arange(..., dtype="float32")`
    in a method `call` calls: they stay float32 under a mixed policy, a stated skip."""
    (project / "layers" / "grid.py").write_text(GRID)
    result = cli("adopt", "layers/grid.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "grid.layer.yaml").read_text()
    assert f"    {MIXED_TEST}: " in text and "(in `centers`)" in text, text


SHIFTED = """\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class Shifted(keras.layers.Layer):
    def __init__(self, length=4, **kwargs):
        super().__init__(**kwargs)
        self.length = length

    def build(self, input_shape):
        self.table = self.add_weight(name="table", shape=(self.length, input_shape[-1]))

    def call(self, x, start_index=0, reverse=False):
        y = x + ops.slice(self.table, (start_index, 0), (1, ops.shape(x)[-1]))
        return ops.flip(y, axis=-1) if reverse else y

    def get_config(self):
        return {**super().get_config(), "length": self.length}
"""

OTHER_VALUES_TEST = "test_each_call_input_with_a_value_other_than_its_default"


def test_an_int_call_input_no_call_of_the_project_varies_is_a_stated_skip(project):
    """An int keyword is often a position whose valid values depend on the input: with no
    call of the project passing it another value, the tests' `default + 1` is a guess
    (keras-hub's TokenAndPositionEmbedding: `start_index=1` on an input as long as its
    table overflows), so adopt states a skip of the test for that keyword, which leaves it
    at its default; the test still passes the bool keyword `reverse=True`, and passes."""
    from helpers import pytest_in

    (project / "layers" / "shifted.py").write_text(SHIFTED)
    result = cli("adopt", "layers/shifted.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "shifted.layer.yaml").read_text()
    assert f"    {OTHER_VALUES_TEST}[start_index]: " in text and "`start_index`" in text, text
    assert f"Shifted skips {OTHER_VALUES_TEST}[start_index]: " in result.output, result.output
    tests = (project / "tests" / "test_shifted.py").read_text()
    assert 'values = {"reverse": True}' in tests, tests
    marks = tests.split(f"def {OTHER_VALUES_TEST}")[0].rsplit("\n\n\n", 1)[1]
    assert "skip" not in marks, marks
    # TensorFlow starts quickest: the generated tests' seeding imports it on every backend
    ran = pytest_in(project, "-q", "-p", "no:cacheprovider", "tests", KERAS_BACKEND="tensorflow")
    assert ran.returncode == 0, ran.stdout + ran.stderr


SCALED = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Scaled(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, **self._extra()})
        return config

    def _extra(self):
        return {"scaling": self.scaling, "named": self.name}
"""

CONFIG_TESTS = ("test_config_round_trip", "test_save_and_load_without_custom_objects")


def test_get_config_reading_an_attribute_nothing_sets_is_a_stated_skip(project):
    """keras-hub's LlamaAttention.get_config reads `self.rope_scaling_factor`, which its
    `__init__` never sets (nor Keras's Layer): the original raises AttributeError in every
    config round trip, so adopt states the config and save tests skips, naming the
    attribute and the method reading it (here a helper `get_config` calls)."""
    (project / "layers" / "scaled.py").write_text(SCALED)
    result = cli("adopt", "layers/scaled.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "scaled.layer.yaml").read_text()
    for test in CONFIG_TESTS:
        assert f"    {test}: " in text, text
        assert f"Scaled skips {test}: " in result.output, result.output
    assert "`self.scaling`" in text and "`_extra`" in text, text
    assert "self.name" not in text and "self.factor" not in text.split("tests:")[1], text


def test_get_config_reading_what_the_class_or_keras_sets_is_no_deviation(project):
    (project / "layers" / "scaled.py").write_text(
        SCALED.replace('"scaling": self.scaling, ', '"built": self.built, ')
    )
    result = cli("adopt", "layers/scaled.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "scaled.layer.yaml").read_text()
    assert not any(test in text for test in CONFIG_TESTS), text


PATCHES = """\
import keras


def standardize(data_format):
    return data_format or "channels_last"


class Patches(keras.layers.Layer):
    def __init__(self, size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = size
        self.data_format = standardize(data_format)

    def call(self, x):
        if self.data_format == "channels_last":
            return x * self.size
        return x

    def get_config(self):
        config = super().get_config()
        config.update({"size": self.size})
        return config
"""


def test_a_config_key_check_cannot_add_is_a_stated_skip(project):
    """keras-hub's DINOV2PatchEmbedding stores `standardize_data_format(data_format)` and its
    `get_config` leaves `data_format` out: `check` finds it and has no safe fix. The config
    and save tests would fail on the code as it is; adopt states them skipped with check's
    finding and prints it (the suite passing: the e2e test below)."""
    (project / "layers" / "patches.py").write_text(PATCHES)
    result = cli("adopt", "layers/patches.py", "--example", "size=2", "--input-shape", "2,3")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "patches.layer.yaml").read_text()
    for test in CONFIG_TESTS:
        assert f"    {test}: " in text, text
        assert f"Patches skips {test}: " in result.output, result.output
    assert "`get_config` leaves out `data_format`" in text, text


NORMED = """\
import keras


class Normed(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.norm = keras.layers.LayerNormalization(epsilon=1e-5)

    def build(self, input_shape):
        self.norm.build(input_shape)

    def call(self, x):
        return self.norm(x) * 2.0
"""


def test_a_sublayer_without_the_layers_dtype_policy_is_a_stated_mixed_precision_skip(project):
    """keras-hub's MiT blocks make `LayerNormalization(epsilon=1e-5)` without
    `dtype=self.dtype_policy`: under a mixed policy the sublayer computes in float32 and so
    do the outputs. `check` finds it (sublayer-dtype); adopt states the mixed-precision
    test skipped with the finding and changes no code."""
    (project / "layers" / "normed.py").write_text(NORMED)
    result = cli("adopt", "layers/normed.py", "--input-shape", "2,3")
    assert result.exit_code == 0, result.output
    assert "dtype_policy" not in (project / "layers" / "normed.py").read_text()
    text = (project / "layers" / "normed.layer.yaml").read_text()
    assert "    test_mixed_precision_matches_float32: " in text, text
    assert "LayerNormalization" in text.split("tests:")[1], text
    assert "Normed skips test_mixed_precision_matches_float32: " in result.output


@pytest.mark.e2e
def test_the_stated_check_findings_leave_a_green_generated_suite(project):
    """Both classes above adopted: their generated suites pass on the code as it is."""
    (project / "layers" / "patches.py").write_text(PATCHES)
    (project / "layers" / "normed.py").write_text(NORMED)
    given = ("--example", "size=2", "--input-shape", "2,3")
    assert cli("adopt", "layers/patches.py", *given).exit_code == 0
    assert cli("adopt", "layers/normed.py", "--input-shape", "2,3").exit_code == 0
    outcomes = run_pytest(project, "jax", "tests")
    bad = {t: o for t, o in outcomes.items() if o not in ("passed", "skipped")}
    assert outcomes and not bad, bad
