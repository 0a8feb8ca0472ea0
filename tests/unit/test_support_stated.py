"""The support module's check of the outputs a declaration states (`example.inputs`,
`expected`), given the stated inputs by name as a generated test gives them: they
reach the layer in its declared structure, and outputs other than the stated ones fail."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from keras import ops
from test_support_checks import Concat, example, support  # noqa: F401 (the fixture, by its name)

# ruff: noqa: F811 (the tests take the fixture by its name)

SHAPES = {"a": (1, 2), "b": (1, 1)}
STATED = {"b": [[3.0]], "a": [[1.0, 2.0]]}  # by name: the declared order decides
EXPECTED = [np.array([[1.0, 2.0, 3.0]])]


class ConcatList(keras.layers.Layer):
    """Two inputs in one list."""

    def call(self, inputs):
        return ops.concatenate(inputs, axis=-1)


def test_stated_inputs_as_separate_arguments(support):
    separate = example(support, Concat, SHAPES, separate=True)
    support.assert_stated_outputs(separate, STATED, EXPECTED, 1e-6)
    with pytest.raises(AssertionError):
        support.assert_stated_outputs(separate, STATED, [np.array([[3.0, 1.0, 2.0]])], 1e-6)


def test_stated_inputs_in_one_list(support):
    in_one = example(support, ConcatList, SHAPES)
    support.assert_stated_outputs(in_one, STATED, EXPECTED, 1e-6, training=True)
    with pytest.raises(AssertionError):  # the inputs taken in the other order
        support.assert_stated_outputs(in_one, STATED, [np.array([[3.0, 1.0, 2.0]])], 1e-6)
