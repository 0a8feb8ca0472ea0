"""The support module's checks of a layer's base arguments, config and saving
(`layergen/templates/_support_config.j2`), called with data as a generated test calls
them: each passes on a correct layer and fails on one with the bug it is there
to catch."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from keras import ops
from test_support_checks import example, support  # noqa: F401 (the fixture, by its name)

# ruff: noqa: F811 (the tests take the fixture by its name)


@keras.saving.register_keras_serializable(package="layergen_support_config")
class Scale(keras.layers.Layer):
    """Multiplies by `factor` and a kernel of one weight per feature."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.kernel * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class NoKwargs(Scale):
    def __init__(self, factor=2.0):  # the base layer's arguments are refused
        super().__init__(factor=factor)


class KeepsKwargs(Scale):
    def __init__(self, factor=2.0, **kwargs):  # taken, never passed on
        super().__init__(factor=factor)


class ConfigWithoutFactor(Scale):
    def get_config(self):
        return super(Scale, self).get_config()


@keras.saving.register_keras_serializable(package="layergen_support_config")
class ConfigOfAnotherFactor(Scale):
    """Its config makes a layer that computes something else."""

    def get_config(self):
        return {**super().get_config(), "factor": self.factor + 1.0}


class OffsetOutsideTheConfig(Scale):
    """Draws an offset of its own when made: a clone draws another."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(factor=factor, **kwargs)
        self.offset = float(np.random.default_rng().uniform(1.0, 2.0))

    def call(self, x):
        return super().call(x) + self.offset


class Unregistered(Scale):
    def call(self, x):
        return ops.add(super().call(x), 0.0)


def test_base_layer_arguments_pass_through(support):
    support.assert_base_layer_arguments_pass_through(example(support, Scale))


def test_base_layer_arguments_fail_where_refused_or_kept(support):
    with pytest.raises(pytest.fail.Exception, match="does not take \\*\\*kwargs"):
        support.assert_base_layer_arguments_pass_through(example(support, NoKwargs))
    with pytest.raises(AssertionError, match="does not pass \\*\\*kwargs"):
        support.assert_base_layer_arguments_pass_through(example(support, KeepsKwargs))


def test_config_round_trip(support):
    support.assert_config_round_trip(example(support, Scale), ["factor"])


def test_config_round_trip_fails_where_an_argument_is_missing(support):
    with pytest.raises(AssertionError, match="constructor argument 'factor'"):
        support.assert_config_round_trip(example(support, ConfigWithoutFactor), ["factor"])


def test_config_round_trip_fails_where_the_clone_differs(support):
    with pytest.raises(AssertionError):  # another config
        support.assert_config_round_trip(example(support, ConfigOfAnotherFactor), ["factor"])
    with pytest.raises(AssertionError, match="Not equal to tolerance"):  # other outputs
        support.assert_config_round_trip(example(support, OffsetOutsideTheConfig), ["factor"])


def test_save_and_load(support, tmp_path):
    support.assert_saves_and_loads_without_custom_objects(example(support, Scale), tmp_path)


def test_save_and_load_fails_where_the_loaded_layer_computes_otherwise(support, tmp_path):
    broken = example(support, ConfigOfAnotherFactor)
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        support.assert_saves_and_loads_without_custom_objects(broken, tmp_path)


def test_save_and_load_fails_where_the_class_is_not_registered(support, tmp_path):
    with pytest.raises(TypeError, match="Could not locate class 'Unregistered'"):
        support.assert_saves_and_loads_without_custom_objects(
            example(support, Unregistered), tmp_path
        )
