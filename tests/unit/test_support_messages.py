"""What a failed check of the generated tests' support module says: the expected and
actual values, and the declaration key to look at (`output_shape`, `weights.x.when`,
`example.weights.x`). A bare assert would say only `AssertionError`."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import keras
import numpy as np
import pytest
from keras import ops

from layergen.render.support import support_files


@pytest.fixture(scope="module")
def support(tmp_path_factory):
    """The support module as `layergen generate` writes it, imported."""
    folder = tmp_path_factory.mktemp("tests")
    ((path, text),) = support_files(folder).items()
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("layergen_support_messages", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def example(support, layer_class):
    """An Example of `layer_class()` on one float input `x` of (2, 4)."""
    shapes, dtypes = {"x": (2, 4)}, {"x": "float32"}

    def make_layer(**overrides):
        keras.utils.set_random_seed(0)
        return layer_class(**overrides)

    def make_inputs(seed=0):
        return support.make_inputs(shapes, dtypes, None, seed)[0]

    return support.Example(make_layer, make_inputs, shapes, dtypes)


class Dense3(keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3))

    def call(self, x):
        return ops.matmul(x, self.kernel)


class Biased(keras.layers.Layer):
    def __init__(self, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.use_bias = use_bias

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3))
        self.bias = self.add_weight(shape=(3,)) if self.use_bias else None

    def call(self, x):
        y = ops.matmul(x, self.kernel)
        return y + self.bias if self.use_bias else y


def built(layer):
    layer(np.ones((2, 4), "float32"))
    return layer


def failure(check, *args, **kwargs) -> str:
    with pytest.raises(AssertionError) as raised:
        check(*args, **kwargs)
    return str(raised.value)


def test_every_assert_of_the_support_module_carries_a_message():
    ((_, text),) = support_files(Path("tests")).items()
    bare = [n.lineno for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Assert) and not n.msg]
    assert not bare, f"asserts without a message at lines {bare} of layergen_support.py"


def test_a_wrong_output_shape_says_both_shapes_and_output_shape(support):
    message = failure(support.assert_output_shapes, example(support, Dense3), lambda x: [(x[0], 4)])
    assert "[(2, 3)]" in message and "[(2, 4)]" in message, message
    assert "`output_shape`" in message, message


def test_a_weight_made_where_its_when_is_false_says_when(support):
    declared = {"kernel": ((4, 3), True), "bias": None}
    message = failure(support.assert_weights_match, built(Biased()), declared)
    assert "weight bias exists" in message and "`weights.bias.when`" in message, message


def test_a_weight_missing_where_its_when_is_true_says_when(support):
    declared = {"kernel": ((4, 3), True), "bias": ((3,), True)}
    message = failure(support.assert_weights_match, built(Biased(False)), declared)
    assert "weight bias is not made" in message and "`weights.bias.when`" in message


def test_a_wrong_weight_shape_says_both_shapes_and_the_key(support):
    declared = {"kernel": ((3, 4), True), "bias": ((3,), True)}
    message = failure(support.assert_weights_match, built(Biased()), declared)
    assert "(4, 3)" in message and "(3, 4)" in message, message
    assert "`weights.kernel.shape`" in message, message


def test_an_undeclared_weight_names_every_weight(support):
    declared = {"kernel": ((4, 3), True)}
    message = failure(support.assert_weights_match, built(Biased()), declared, exact_count=True)
    assert re.search(r"2 weights \(.*\), the declaration 1 \(kernel\)", message), message


def test_a_stated_weight_of_another_shape_says_both_shapes_and_example_weights(support):
    stated = {"kernel": np.ones((4,)).tolist()}
    message = failure(
        support.assert_stated_outputs,
        example(support, Dense3),
        {"x": [[1.0, 2.0, 3.0, 4.0]]},
        [np.zeros((1, 3))],
        1e-6,
        weights=stated,
    )
    assert "(4,)" in message and "(4, 3)" in message, message
    assert "`example.weights.kernel`" in message, message


def test_a_config_that_does_not_round_trip_names_the_keys(support):
    class Forgetful(Dense3):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def get_config(self):
            return {**super().get_config(), "units": self.units}

        @classmethod
        def from_config(cls, config):
            return cls(**{**config, "units": 5})

    message = failure(support.assert_config_round_trip, example(support, Forgetful), [])
    assert "['units'] differ" in message and "{'units': 3}" in message, message
