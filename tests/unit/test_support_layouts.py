"""The support module's checks of a sharded layer's layout map and of what ModelParallel
did with it (`layergen/templates/_support_layouts.j2`), called with data as a generated test
calls them: each passes on a correct layer or report and fails on one with the
bug it is there to catch. (tests/e2e/test_model_parallel.py runs them under ModelParallel.)
"""

from __future__ import annotations

import keras
import pytest
from keras import ops
from test_support_checks import example, support  # noqa: F401 (the fixture, by its name)

# ruff: noqa: F811 (the tests take the fixture by its name)

AXES = ("batch", "model")
LAYOUTS = {"kernel": (None, "model"), "bias": ("model",)}


class Columns(keras.layers.Layer):
    """A kernel and a bias, each sharded along its output columns."""

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], 8))
        self.bias = self.add_weight(name="bias", shape=(8,), initializer="zeros")

    def call(self, x):
        return ops.matmul(x, self.kernel) + self.bias


def layout_map_of(keys):
    def get_layout_map(mesh):
        layout_map = keras.distribution.LayoutMap(mesh)
        for key, axes in keys.items():
            layout_map[key] = axes
        return layout_map

    return get_layout_map


KEYS = {
    r"(?:.*/)?columns(?:_\d+)?/kernel": (None, "model"),
    r"(?:.*/)?columns(?:_\d+)?/bias": ("model",),
}


def test_the_layout_map_keys_the_declared_weights(support):
    columns = example(support, Columns)
    support.assert_layout_map_keys_the_declared_weights(columns, layout_map_of(KEYS), AXES, LAYOUTS)


@pytest.mark.parametrize(
    "keys",
    [
        {**KEYS, r"(?:.*/)?columns(?:_\d+)?/bias": (None,)},  # another layout
        {r"(?:.*/)?columns(?:_\d+)?/kernel": (None, "model")},  # a weight left out
        {r"(?:.*/)?columns(?:_\d+)?/kernel": (None, "model"), r".*/bias": ("model",)},  # any bias
        {r".*/kernel": (None, "model"), r"(?:.*/)?columns(?:_\d+)?/bias": ("model",)},  # by hand
    ],
)
def test_a_layout_map_that_keys_other_weights_fails(support, keys):
    columns = example(support, Columns)
    with pytest.raises(AssertionError):
        support.assert_layout_map_keys_the_declared_weights(
            columns, layout_map_of(keys), AXES, LAYOUTS
        )


def report(**changes):
    """What `model_parallel_report` saw of a layer sharded as declared, changed."""
    outputs, trained = [[[1.0, 2.0]]], [[[0.5, -0.5]]]
    shardings = {"kernel": [None, "model"], "bias": ["model"], "scale": [None]}
    return {
        "absent": [],
        "shardings": shardings,
        "outputs": outputs,
        "sharded_outputs": outputs,
        "trained": trained,
        "sharded_trained": trained,
        "loaded_shardings": shardings,
        "loaded_outputs": [[[3.0]]],
        "trained_outputs": [[[3.0]]],
        "warnings": [],
        "renamed_warnings": [
            "named_by_hand/kernel has no layout",
            "named_by_hand/bias has no layout",
        ],
        **changes,
    }


def test_a_report_of_a_layer_sharded_as_declared_passes(support):
    support.assert_sharded_as_declared(report(), LAYOUTS)
    support.assert_sharded_outputs_match_one_device(report())
    support.assert_sharded_fit_step_trains_like_one_device(report())
    support.assert_sharded_model_saves_and_loads(report())
    support.assert_warns_of_a_layer_named_by_hand(report(), LAYOUTS)
    # A declared weight the example's arguments leave out is neither sharded nor warned of.
    left_out = report(absent=["bias"], renamed_warnings=["named_by_hand/kernel has no layout"])
    support.assert_sharded_as_declared(left_out, LAYOUTS)
    support.assert_warns_of_a_layer_named_by_hand(left_out, LAYOUTS)


@pytest.mark.parametrize(
    "check, changes",
    [
        ("assert_sharded_as_declared", {"shardings": {"kernel": [None, None], "bias": ["model"]}}),
        (
            "assert_sharded_as_declared",
            {"shardings": {**report()["shardings"], "scale": ["model"]}},
        ),
        ("assert_sharded_outputs_match_one_device", {"sharded_outputs": [[[1.0, 2.1]]]}),
        ("assert_sharded_fit_step_trains_like_one_device", {"sharded_trained": [[[0.5, 0.5]]]}),
        ("assert_sharded_model_saves_and_loads", {"loaded_shardings": {"kernel": [None, None]}}),
        ("assert_sharded_model_saves_and_loads", {"loaded_outputs": [[[3.5]]]}),
        ("assert_warns_of_a_layer_named_by_hand", {"warnings": ["columns/kernel has no layout"]}),
        ("assert_warns_of_a_layer_named_by_hand", {"renamed_warnings": []}),
    ],
)
def test_a_report_of_a_layer_sharded_otherwise_fails(support, check, changes):
    checked = getattr(support, check)
    with pytest.raises(AssertionError):
        if check in ("assert_sharded_as_declared", "assert_warns_of_a_layer_named_by_hand"):
            checked(report(**changes), LAYOUTS)
        else:
            checked(report(**changes))
