"""The support module's checks of a layer's gradients (`layergen/templates/_support_gradients.j2`),
called with data as a generated test calls them: each passes on a correct layer
and fails on one with the bug it is there to catch."""

from __future__ import annotations

import keras
import pytest
from keras import ops
from test_support_checks import example, support  # noqa: F401 (the fixture, by its name)

# ruff: noqa: F811 (the tests take the fixture by its name)


class Squares(keras.layers.Layer):
    """Squares its input times a kernel through an op with a gradient of its own."""

    slope = 2.0  # of the op's gradient: 2 is the derivative of the square

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1],))

    def call(self, x):
        return self.square(x * self.kernel)

    def square(self, x):
        slope = self.slope

        @ops.custom_gradient
        def forward(x):
            def grad(*args, upstream=None):
                if upstream is None:
                    (upstream,) = args
                return upstream * slope * x

            return x * x, grad

        return forward(x)


class WrongGradient(Squares):
    slope = 1.0


class NeverReachesItsOp(Squares):
    def call(self, x):
        return ops.square(x * self.kernel)


class DeclaredOps:
    """The op as declared; its `self` is the layer."""

    def square(self, x):
        return ops.square(x)


def test_gradients_match_finite_differences(support):
    support.assert_gradients_match_finite_differences(example(support, Squares))
    support.assert_gradients_match_finite_differences(
        example(support, Squares), precision="float32", training=False
    )


def test_a_wrong_gradient_differs_from_finite_differences(support):
    with pytest.raises(pytest.fail.Exception, match="differs from finite differences"):
        support.assert_gradients_match_finite_differences(example(support, WrongGradient))


def test_gradients_come_from_the_declared_ops(support):
    squares = example(support, Squares)
    support.assert_gradients_come_from_the_declared_ops(
        squares, DeclaredOps, ["square"], reached=["square"]
    )


def test_gradients_other_than_the_declared_ops_fail(support):
    wrong = example(support, WrongGradient)
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        support.assert_gradients_come_from_the_declared_ops(
            wrong, DeclaredOps, ["square"], reached=["square"]
        )


def test_a_call_that_never_reaches_its_op_fails(support):
    unreached = example(support, NeverReachesItsOp)
    with pytest.raises(AssertionError, match=r"never reaches its ops \['square'\]"):
        support.assert_gradients_come_from_the_declared_ops(
            unreached, DeclaredOps, ["square"], reached=["square"]
        )


class Matches(keras.layers.Layer):
    """Returns the index of each row's largest value, as a box matcher does: no float output."""

    def call(self, x):
        return ops.argmax(x, axis=-1)


def test_a_layer_with_integer_outputs_alone_skips_the_gradient_check_saying_why(support):
    with pytest.raises(pytest.skip.Exception, match="outputs are all integers"):
        support.assert_gradients_match_finite_differences(example(support, Matches))
