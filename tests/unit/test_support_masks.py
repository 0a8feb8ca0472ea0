"""The support module's checks of a layer's Keras mask (`layergen/templates/_support_masks.j2`),
called with data as a generated test calls them: each passes on a correct layer
and fails on one with the bug it is there to catch."""

from __future__ import annotations

import keras
import pytest
from keras import ops
from test_support_checks import example, support  # noqa: F401 (the fixture, by its name)

# ruff: noqa: F811 (the tests take the fixture by its name)

STEPS = {"x": (2, 5, 3)}  # (batch, steps, features): the mask is of (batch, steps)


class Doubles(keras.layers.Layer):
    """Passes the mask on, as `masking: true` declares."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, x):
        return x * 2.0


class DropsTheMask(keras.layers.Layer):
    """Does not support masking: the mask is lost."""

    def call(self, x):
        return x * 2.0


class MaskedMean(keras.layers.Layer):
    """The mean over the kept steps; the mask is consumed (`masking: None`)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, x, mask=None):
        kept = ops.ones(ops.shape(x)[:2]) if mask is None else ops.cast(mask, x.dtype)
        kept = ops.expand_dims(kept, -1)
        return ops.sum(x * kept, axis=1) / ops.maximum(ops.sum(kept, axis=1), 1.0)

    def compute_mask(self, x, mask=None):
        return None


class MeanOfEveryStep(MaskedMean):
    def call(self, x, mask=None):
        return ops.mean(x, axis=1)


def consumed(layer, inputs, mask):
    return None


def test_a_mask_passed_through(support):
    doubles = example(support, Doubles, STEPS)
    support.assert_masking(doubles, support.make_mask((2, 5)))


def test_a_mask_declared_passed_through_and_lost_fails(support):
    drops = example(support, DropsTheMask, STEPS)
    with pytest.raises(AssertionError, match="carries no mask"):
        support.assert_masking(drops, support.make_mask((2, 5)))


def test_a_mask_consumed_as_declared(support):
    mean = example(support, MaskedMean, STEPS)
    support.assert_masking(mean, support.make_mask((2, 5)), consumed)


def test_a_mask_declared_consumed_and_passed_on_fails(support):
    doubles = example(support, Doubles, STEPS)
    with pytest.raises(AssertionError, match="carries a mask where none is declared"):
        support.assert_masking(doubles, support.make_mask((2, 5)), consumed)


def test_masked_steps_do_not_change_the_output(support):
    mean = example(support, MaskedMean, STEPS)
    support.assert_masked_steps_do_not_change_the_output(mean, support.make_mask((2, 5)))
    doubles = example(support, Doubles, STEPS)  # the outputs carry the mask: kept steps
    support.assert_masked_steps_do_not_change_the_output(doubles, support.make_mask((2, 5)))


def test_masked_steps_that_change_the_output_fail(support):
    every_step = example(support, MeanOfEveryStep, STEPS)
    with pytest.raises(AssertionError, match="changed when only masked steps"):
        support.assert_masked_steps_do_not_change_the_output(every_step, support.make_mask((2, 5)))
