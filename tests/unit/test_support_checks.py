"""The checks of the generated tests' support module (`layergen/templates/support.py.j2`),
called directly with data, as a generated test calls them (issue 38): each passes on a
layer that does what it is told and fails on one with the bug it is there to catch."""

from __future__ import annotations

import importlib.util
import sys

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
    spec = importlib.util.spec_from_file_location("layergen_support_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def example(support, layer_class, shapes=None, **fields):
    """An Example of `layer_class()` on float inputs of `shapes` (one input `x` of (2, 4))."""
    shapes = shapes or {"x": (2, 4)}
    dtypes = {name: "float32" for name in shapes}

    def make_layer(**overrides):
        keras.utils.set_random_seed(0)
        return layer_class(**overrides)

    def make_inputs(seed=0):
        arrays = support.make_inputs(shapes, dtypes, None, seed)
        if len(arrays) == 1:
            return arrays[0]
        return tuple(arrays) if fields.get("separate") else arrays

    return support.Example(make_layer, make_inputs, shapes, dtypes, **fields)


class Dense3(keras.layers.Layer):
    """Three units, no bias; `compute_output_shape` as declared."""

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3))

    def call(self, x):
        return ops.matmul(x, self.kernel)

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], 3)


class WrongComputedShape(Dense3):
    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], 4)


class Concat(keras.layers.Layer):
    """Two inputs, each an argument of its own."""

    def call(self, a, b):
        return ops.concatenate([a, b], axis=-1)


class Named(keras.layers.Layer):
    """Outputs by name, `b` declared first."""

    def call(self, x):
        return {"b": x * 2.0, "a": x[:, :1]}

    def compute_output_shape(self, input_shape):
        return {"b": tuple(input_shape), "a": (input_shape[0], 1)}


def test_output_shapes_pass_as_declared(support):
    support.assert_output_shapes(example(support, Dense3), lambda x: [(*x[:-1], 3)])


def test_output_shapes_fail_where_the_declaration_says_otherwise(support):
    with pytest.raises(AssertionError):
        support.assert_output_shapes(example(support, Dense3), lambda x: [(x[0], 4)])


def test_output_shapes_fail_where_keras_computes_others(support):
    with pytest.raises(AssertionError):
        support.assert_output_shapes(example(support, WrongComputedShape))


def test_output_shapes_call_separate_inputs_as_arguments(support):
    shapes = {"a": (2, 3), "b": (2, 5)}
    concat = example(support, Concat, shapes, separate=True)
    support.assert_output_shapes(concat, lambda a, b: [(*a[:-1], a[-1] + b[-1])])
    with pytest.raises(AssertionError):
        support.assert_output_shapes(concat, lambda a, b: [tuple(a)])


def test_output_shapes_by_name_in_the_declared_order(support):
    named = example(support, Named, output_names=("b", "a"))
    support.assert_output_shapes(named, lambda x: [tuple(x), (x[0], 1)])
    with pytest.raises(AssertionError):  # the shapes in the other order
        support.assert_output_shapes(named, lambda x: [(x[0], 1), tuple(x)])


def test_declared_shapes_that_read_the_layer_are_given_it(support):
    def declared(layer, x):
        assert isinstance(layer, Dense3)
        return [(*x[:-1], 3)]

    support.assert_output_shapes(example(support, Dense3), declared, declared_reads_layer=True)


def test_an_example_lists_outputs_by_name_and_refuses_other_names(support):
    named = example(support, Named, output_names=("b", "a"))
    assert named.outputs({"a": 1, "b": 2}) == [2, 1]
    with pytest.raises(AssertionError):
        named.outputs({"a": 1, "c": 2})
    assert np.shape(named.call(Dense3(), np.ones((2, 4), "float32"))[0]) == (2, 3)
