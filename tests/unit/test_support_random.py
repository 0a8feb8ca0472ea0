"""The support module's checks of a random layer (`layergen/templates/_support_random.j2`),
called with data as a generated test calls them: each passes on a correct
layer and fails on one with the bug it is there to catch."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from keras import ops
from test_support_checks import example, support  # noqa: F401 (the fixture, by its name)

# ruff: noqa: F811 (the tests take the fixture by its name)


class Jitter(keras.layers.Layer):
    """Adds normal noise of `stddev` in training calls, drawn from its `seed`."""

    def __init__(self, stddev=0.2, seed=1, **kwargs):
        super().__init__(**kwargs)
        self.stddev = stddev
        self.seed_generator = keras.random.SeedGenerator(seed)

    def call(self, x, training=None):
        if not training:
            return x
        return x + self.stddev * keras.random.normal(ops.shape(x), seed=self.seed_generator)


class SeedIgnored(Jitter):
    def __init__(self, stddev=0.2, seed=1, **kwargs):
        super().__init__(stddev, 1, **kwargs)  # always the same seed


class UnseededNumPy(Jitter):
    def call(self, x, training=None):
        noise = np.random.default_rng().standard_normal(np.shape(x)).astype("float32")
        return x + self.stddev * noise if training else x


class Dropout(keras.layers.Layer):
    """Inverted dropout of `rate`, a draw per cell of `noise_shape` (None: per element)."""

    def __init__(self, rate=0.5, seed=1, noise_shape=None, scaled=True, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.scaled = rate, noise_shape, scaled
        self.seed_generator = keras.random.SeedGenerator(seed)

    def call(self, x, training=None):
        if not training:
            return x
        kept = keras.random.dropout(
            ops.ones_like(x), self.rate, noise_shape=self.noise_shape, seed=self.seed_generator
        )
        return x * kept if self.scaled else x * kept * (1.0 - self.rate)


def jitter_statistics(inputs, outputs):
    return [
        (outputs - inputs, 0.0, "outputs - x"),
        (ops.square(outputs - inputs), 0.04, "ops.square(outputs - x)"),
    ]


def test_the_seed_decides_the_random_draws(support):
    support.assert_the_seed_decides_the_random_draws(example(support, Jitter), 1)


def test_the_seed_check_fails_where_the_seed_decides_nothing(support):
    with pytest.raises(pytest.fail.Exception, match="a different seed gave the same"):
        support.assert_the_seed_decides_the_random_draws(example(support, SeedIgnored), 1)
    with pytest.raises(AssertionError, match="the same seed gave different outputs"):
        support.assert_the_seed_decides_the_random_draws(example(support, UnseededNumPy), 1)


def test_the_seed_check_of_an_example_that_draws_nothing_skips_with_the_hint(support):
    def never_drops(**overrides):
        return Dropout(rate=0.0, **overrides)

    with pytest.raises(pytest.skip.Exception, match=r"draws nothing.*outputs; set `rate`"):
        support.assert_the_seed_decides_the_random_draws(
            example(support, never_drops), 1, "set `rate`"
        )


def test_draws_have_the_declared_statistics(support):
    jitter = example(support, Jitter)
    support.assert_draws_have_the_declared_statistics(jitter, jitter_statistics)


def test_draws_of_another_spread_fail_the_statistics(support):
    wider = example(support, lambda **overrides: Jitter(stddev=0.3, **overrides))
    with pytest.raises(AssertionError, match=r"the mean of ops\.square"):
        support.assert_draws_have_the_declared_statistics(wider, jitter_statistics)


def test_inference_is_the_mean_of_training(support):
    support.assert_inference_is_the_mean_of_training(example(support, Dropout, {"x": (4, 8)}))


def test_inference_off_the_mean_of_training_fails(support):
    unscaled = example(support, lambda **overrides: Dropout(scaled=False, **overrides))
    with pytest.raises(AssertionError, match="off the inference output"):
        support.assert_inference_is_the_mean_of_training(unscaled)


def per_row(**overrides):
    return Dropout(noise_shape=(4, 1), **overrides)


def test_noise_is_drawn_once_per_cell_of_its_declared_shape(support):
    rows = example(support, per_row, {"x": (4, 8)})
    support.assert_noise_is_drawn_once_per_cell(rows, lambda x: (x[0], 1))
    support.assert_noise_is_drawn_once_per_cell(
        rows, lambda layer, x: (x[0], 1), declared_reads_layer=True
    )


def test_noise_drawn_per_element_fails_a_shape_of_one_per_row(support):
    elements = example(support, Dropout, {"x": (4, 8)})
    with pytest.raises(AssertionError, match="draws its noise more than once along axis 1"):
        support.assert_noise_is_drawn_once_per_cell(elements, lambda x: (x[0], 1))
