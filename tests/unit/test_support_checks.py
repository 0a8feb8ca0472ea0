"""The checks of the generated tests' support module (`layergen/templates/support.py.j2`),
called directly with data, as a generated test calls them: each passes on a
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


class Scaled(keras.layers.Layer):
    """A kernel, a bias left out when `use_bias` is false, and a count kept as state."""

    def __init__(self, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.use_bias = use_bias

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3))
        self.bias = self.add_weight(shape=(3,)) if self.use_bias else None
        self.count = self.add_weight(shape=(), trainable=False, aggregation="sum")

    def call(self, x):
        y = ops.matmul(x, self.kernel)
        return y + self.bias if self.use_bias else y


def built_scaled(use_bias=True):
    layer = Scaled(use_bias)
    layer(np.ones((2, 4), "float32"))
    return layer


class WithUnusedSublayer(Scaled):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inner = keras.layers.Dense(2)  # `call` never uses it


SCALED = {"kernel": ((4, 3), True), "bias": ((3,), True), "count": ((), False)}


def test_weights_match_as_declared(support):
    support.assert_weights_match(
        built_scaled(), SCALED, aggregations={"count": "sum"}, exact_count=True
    )
    support.assert_weights_match(built_scaled(False), {**SCALED, "bias": None}, exact_count=True)


@pytest.mark.parametrize(
    "declared, options",
    [
        ({**SCALED, "kernel": ((3, 4), True)}, {}),  # another shape
        ({**SCALED, "count": ((), True)}, {}),  # trainable state
        ({**SCALED, "bias": None}, {}),  # made where the arguments leave it out
        ({"kernel": SCALED["kernel"]}, {"exact_count": True}),  # an undeclared weight
        (SCALED, {"aggregations": {"count": "mean"}}),
        (SCALED, {"sublayers": ["inner"]}),  # a sublayer never built
    ],
)
def test_weights_fail_where_the_layer_differs(support, declared, options):
    layer = WithUnusedSublayer()
    layer(np.ones((2, 4), "float32"))
    with pytest.raises(AssertionError):
        support.assert_weights_match(layer, declared, **options)


class LeftOutBias(Scaled):
    """The bias is made and never used: no gradient reaches it."""

    def call(self, x):
        return ops.matmul(x, self.kernel)


class NoWeights(keras.layers.Layer):
    def call(self, x):
        return x * 2.0


def test_a_fit_step_trains_every_weight(support):
    support.assert_fit_step_trains_every_weight(example(support, Scaled))


def test_a_fit_step_fails_where_a_weight_gets_no_gradient(support):
    with pytest.raises(AssertionError, match="no gradient reaches weight"):
        support.assert_fit_step_trains_every_weight(example(support, LeftOutBias))


def test_a_fit_step_without_trainable_weights_fails_or_skips_as_declared(support):
    with pytest.raises(AssertionError, match="no trainable weights"):
        support.assert_fit_step_trains_every_weight(example(support, NoWeights))
    with pytest.raises(pytest.skip.Exception):
        support.assert_fit_step_trains_every_weight(
            example(support, NoWeights), has_trainable=False
        )


class LoraDense(keras.layers.Layer):
    """A dense layer with a low-rank update, `lora_b` initialised to zeros as every LoRA
    is: at the initial weights no gradient reaches `lora_a`, at any other it does."""

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], 3))
        self.lora_a = self.add_weight(name="lora_a", shape=(input_shape[-1], 2))
        self.lora_b = self.add_weight(name="lora_b", shape=(2, 3), initializer="zeros")

    def call(self, x):
        update = ops.matmul(ops.matmul(x, self.lora_a), self.lora_b)
        return ops.matmul(x, self.kernel) + update


class LoraIgnoresA(LoraDense):
    """The update reads `lora_b` alone: no gradient ever reaches `lora_a`."""

    def call(self, x):
        return ops.matmul(x, self.kernel) + ops.sum(self.lora_b) * x[:, :3]


def test_a_fit_step_from_seeded_weights_trains_a_lora_with_zero_lora_b(support):
    support.assert_fit_step_trains_every_weight(example(support, LoraDense))
    with pytest.raises(AssertionError, match=r"no gradient reaches weight .*lora_a"):
        support.assert_fit_step_trains_every_weight(example(support, LoraIgnoresA))


class KeyBiased(keras.layers.Layer):
    """An attention's key bias, in small: what it adds to every logit a softmax ignores,
    so its gradient is zero but for rounding, and a step from seeded weights falls
    below its float32 spacing."""

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], 3))
        self.key_bias = self.add_weight(name="key_bias", shape=(1,), initializer="zeros")

    def call(self, x):
        return ops.softmax(ops.matmul(x, self.kernel) + self.key_bias, axis=-1)


def test_a_fit_step_counts_a_weight_the_gradient_reaches_at_seeded_weights(support):
    support.assert_fit_step_trains_every_weight(example(support, KeyBiased))


class Cancelled(keras.layers.Layer):
    """A weight the call reads whose effect the math cancels (its gradient is exactly
    zero at any weights, as an attention key's bias is but for rounding)."""

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], 3))
        self.shift = self.add_weight(name="shift", shape=(3,))

    def call(self, x):
        return ops.matmul(x, self.kernel) + 0.0 * self.shift


class CutOff(Cancelled):
    """`shift` moves the outputs, but no gradient flows to it: it never trains."""

    def call(self, x):
        return ops.matmul(x, self.kernel) + ops.stop_gradient(self.shift)


def test_a_fit_step_counts_a_weight_inert_by_the_math_not_one_cut_off_from_training(support):
    support.assert_fit_step_trains_every_weight(example(support, Cancelled))
    with pytest.raises(AssertionError, match=r"no gradient reaches weight .*shift"):
        support.assert_fit_step_trains_every_weight(example(support, CutOff))


class Reversible(keras.layers.Layer):
    """Projects 4 features to 3, or with `reverse=True` 3 back to 4 through a weight of
    its own, which the default call never reads (as an untied ReversibleEmbedding);
    `context` (a keyword tensor) adds a projection read only when it is given."""

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(4, 3))
        self.back = self.add_weight(name="back", shape=(3, 4))
        self.context_kernel = self.add_weight(name="context_kernel", shape=(2, 3))

    def call(self, x, reverse=False, context=None):
        if reverse:
            return ops.matmul(x, self.back)
        outputs = ops.matmul(x, self.kernel)
        if context is not None:
            outputs = outputs + ops.matmul(context, self.context_kernel)
        return outputs


class ReverseIgnoresItsWeight(Reversible):
    """The reverse call reads the transposed kernel: `back` is never trained."""

    def call(self, x, reverse=False, context=None):
        if reverse:
            return ops.matmul(x, ops.transpose(self.kernel))
        return super().call(x, context=context)


def reversible_cases():
    """The call cases `(keywords, inputs)`: the reverse on inputs of its own shape, and
    a keyword tensor."""
    rng = np.random.default_rng(0)
    return [
        ({"reverse": True}, rng.standard_normal((2, 3)).astype("float32")),
        (
            {"context": rng.standard_normal((2, 2)).astype("float32")},
            rng.standard_normal((2, 4)).astype("float32"),
        ),
    ]


def test_a_fit_step_trains_a_weight_only_a_call_case_reads(support):
    reversible = example(support, Reversible)
    support.assert_fit_step_trains_every_weight(reversible, cases=reversible_cases())
    # Through the default call alone, the weights the cases read get no gradient.
    with pytest.raises(AssertionError, match=r"no gradient reaches weight .*back"):
        support.assert_fit_step_trains_every_weight(reversible)


def test_a_fit_step_fails_where_no_call_case_trains_a_weight(support):
    ignores = example(support, ReverseIgnoresItsWeight)
    with pytest.raises(AssertionError, match=r"no gradient reaches weight .*/back through"):
        support.assert_fit_step_trains_every_weight(ignores, cases=reversible_cases())


class Float32Output(Scaled):
    """Computes in float32 whatever its policy: the output is not in the compute dtype."""

    def call(self, x):
        return ops.matmul(ops.cast(x, "float32"), ops.cast(self.kernel, "float32"))


class Overflowing(Scaled):
    """Squares its outputs twice: float16 overflows where float32 does not."""

    def call(self, x):
        y = ops.matmul(x, self.kernel) * 100.0
        return y * y * y


class KeepsSublayerOnFloat32(Scaled):
    def build(self, input_shape):
        super().build(input_shape)
        self.inner = keras.layers.Dense(3, dtype="float32")  # not the layer's policy
        self.inner.build(input_shape)

    def call(self, x):
        return ops.cast(self.inner(x), self.compute_dtype) + super().call(x)


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_mixed_precision_matches_float32_as_declared(support, policy):
    support.assert_mixed_precision_matches_float32(example(support, Scaled), policy)


@pytest.mark.parametrize(
    "layer_class, options",
    [
        (Float32Output, {}),
        (Overflowing, {}),
        (KeepsSublayerOnFloat32, {"policy_sublayers": ["inner"]}),
    ],
)
def test_mixed_precision_fails_where_the_layer_breaks_it(support, layer_class, options):
    with pytest.raises(AssertionError):
        support.assert_mixed_precision_matches_float32(
            example(support, layer_class), "mixed_float16", **options
        )


class ActivityLoss(keras.layers.Layer):
    """`factor * mean(x^2)` as a loss of training calls, and `mean(|x|)` of every call."""

    def __init__(self, factor=0.5, sign=1.0, always=True, **kwargs):
        super().__init__(**kwargs)
        self.factor, self.sign, self.always = factor, sign, always

    def call(self, x, training=None):
        if self.always:
            self.add_loss(ops.mean(ops.abs(x)))
        if training:
            self.add_loss(self.factor * ops.mean(ops.square(x)) * self.sign)
        return x


def expected_losses(layer, x):
    return [ops.mean(ops.abs(x)), 0.5 * ops.mean(ops.square(x))]


def test_losses_as_declared(support):
    activity = example(support, ActivityLoss)
    support.assert_declared_losses(activity, 1, expected=expected_losses)
    support.assert_declared_losses(activity, 1, count=2)


@pytest.mark.parametrize(
    "options, inference_losses",
    [
        ({"sign": -1.0}, 1),  # a sign flipped
        ({"always": False}, 0),  # a loss left out
        ({}, 0),  # a loss added by inference calls too
    ],
)
def test_losses_fail_where_the_layer_differs(support, options, inference_losses):
    activity = example(support, lambda **kw: ActivityLoss(**options, **kw))
    with pytest.raises(AssertionError):
        support.assert_declared_losses(activity, inference_losses, expected=expected_losses)


class RunningMax(keras.layers.Layer):
    """`moving_max = max(moving_max, max |x|)` in training calls."""

    def __init__(self, bug=None, **kwargs):
        super().__init__(**kwargs)
        self.bug = bug

    def build(self, input_shape):
        self.moving_max = self.add_weight(shape=(), initializer="ones", trainable=False)

    def call(self, x, training=None):
        if training or self.bug == "updated in inference":
            new = ops.maximum(self.moving_max, ops.max(ops.abs(x)))
            self.moving_max.assign(new if self.bug != "min" else ops.minimum(new, 1.0))
        return x * self.moving_max


def expected_state(layer, inputs, before):
    return {"moving_max": np.maximum(before["moving_max"], np.max(np.abs(inputs)))}


def test_state_updates_as_declared(support):
    support.assert_state_updates(example(support, RunningMax), ["moving_max"], expected_state)


@pytest.mark.parametrize("bug", ["min", "updated in inference"])
def test_state_updates_fail_where_the_layer_differs(support, bug):
    running_max = example(support, lambda **kw: RunningMax(bug, **kw))
    with pytest.raises(AssertionError):
        support.assert_state_updates(running_max, ["moving_max"], expected_state)


def test_state_must_stay_float32_and_finite(support):
    layer = RunningMax(dtype="mixed_float16")
    layer(np.full((2, 4), 2.0, "float32"), training=True)
    support.assert_float32_and_finite(layer, ["moving_max"])
    layer.moving_max.assign(np.inf)
    with pytest.raises(AssertionError):
        support.assert_float32_and_finite(layer, ["moving_max"])


class Dropped(keras.layers.Layer):
    """Zeroes a random half in training calls; `seeded`: the same draw each call."""

    def __init__(self, seeded=False, **kwargs):
        super().__init__(**kwargs)
        self.seeded = seeded
        self.seed_generator = keras.random.SeedGenerator(1)

    def call(self, x, training=None):
        seed = 1 if self.seeded else self.seed_generator
        dropped = keras.random.dropout(x, 0.5, seed=seed)
        return dropped if training else x


class RandomInInference(Dropped):
    def call(self, x, training=None):
        return keras.random.dropout(x, 0.5, seed=self.seed_generator)


def test_inference_is_deterministic_or_fails(support):
    support.assert_inference_is_deterministic(example(support, Dropped))
    with pytest.raises(AssertionError):
        support.assert_inference_is_deterministic(example(support, RandomInInference))


def test_training_changes_the_output_or_fails(support):
    support.assert_training_changes_the_output(example(support, Dropped))
    with pytest.raises(AssertionError, match="ignores `training`"):
        support.assert_training_changes_the_output(example(support, Dense3))


def test_inference_follows_the_moved_state_or_fails(support):
    support.assert_inference_follows_the_moved_state(example(support, RunningMax))
    with pytest.raises(AssertionError, match="ignores the state"):
        support.assert_inference_follows_the_moved_state(example(support, Dense3))


def test_stated_outputs_with_stated_weights(support):
    x = {"x": [[1.0, 2.0, 3.0, 4.0]]}
    weights = {"kernel": np.ones((4, 3)).tolist()}
    stated = [np.full((1, 3), 10.0)]
    dense = example(support, Dense3)
    support.assert_stated_outputs(dense, x, stated, 1e-6, weights=weights)
    with pytest.raises(AssertionError):
        support.assert_stated_outputs(dense, x, [np.full((1, 3), 10.1)], 1e-6, weights=weights)
    with pytest.raises(AssertionError):  # one output stated, two returned
        support.assert_stated_outputs(dense, x, [*stated, *stated], 1e-6, weights=weights)


class ScaledDense(keras.layers.Layer):
    """`bias: {shape: units, when: use_bias}`, its config round-trips."""

    def __init__(self, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.use_bias = use_bias

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3))
        self.bias = self.add_weight(shape=(3,)) if self.use_bias else None

    def call(self, x):
        y = ops.matmul(x, self.kernel)
        return y + self.bias if self.use_bias else y

    def get_config(self):
        return {**super().get_config(), "use_bias": self.use_bias}


class AddsBiasAlways(ScaledDense):
    def call(self, x):
        return ops.matmul(x, self.kernel) + self.bias


class MakesBiasAlways(ScaledDense):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3))
        self.bias = self.add_weight(shape=(3,))


NO_BIAS = [
    {"args": {"use_bias": False}, "made": {"bias": False}, "keys": {"bias": "weights.bias.when"}}
]


def test_the_other_side_of_a_when_calls_and_round_trips(support):
    support.assert_other_sides_call_and_round_trip(example(support, ScaledDense), NO_BIAS)


@pytest.mark.parametrize(
    "layer_class, said",
    [
        (
            AddsBiasAlways,
            r"(?s)with use_bias=False the layer's call fails: .* \(see `weights.bias.when`",
        ),
        (MakesBiasAlways, r"with use_bias=False bias is made; its `when` says left out"),
    ],
)
def test_the_other_side_of_a_when_fails_where_the_layer_ignores_it(support, layer_class, said):
    with pytest.raises((AssertionError, pytest.fail.Exception), match=said):
        support.assert_other_sides_call_and_round_trip(example(support, layer_class), NO_BIAS)


class Scores(keras.layers.Layer):
    """`outputs: {out: x, scores: {shape: x, when: return_scores}}`: the scores are
    returned only when the param says so."""

    def __init__(self, return_scores=True, **kwargs):
        super().__init__(**kwargs)
        self.return_scores = return_scores

    def call(self, x):
        scores = ops.softmax(x)
        return (x * scores, scores) if self.return_scores else x * scores

    def get_config(self):
        return {**super().get_config(), "return_scores": self.return_scores}


class ReturnsScoresAlways(Scores):
    def call(self, x):
        scores = ops.softmax(x)
        return x * scores, scores


NO_SCORES = [
    {
        "args": {"return_scores": False},
        "made": {},
        "keys": {"scores": "outputs.scores.when"},
        "returns": ["out"],
    }
]


def test_the_other_side_of_an_outputs_when_returns_what_it_says(support):
    support.assert_other_sides_call_and_round_trip(example(support, Scores), NO_SCORES)


def test_the_other_side_of_an_outputs_when_fails_where_the_call_ignores_it(support):
    said = (
        r"with return_scores=False the layer returns 2 outputs; the declared `when`s say"
        r" 1: \['out'\] \(see `outputs.scores.when`\)"
    )
    with pytest.raises(AssertionError, match=said):
        support.assert_other_sides_call_and_round_trip(
            example(support, ReturnsScoresAlways), NO_SCORES
        )


class CacheOrNone(keras.layers.Layer):
    """keras-hub's GPT-NeoX attention returns `(outputs, cache)`, the cache None when
    none is given: None is no output."""

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3))

    def call(self, x, cache=None):
        return ops.matmul(x, self.kernel), cache


def test_a_none_among_the_outputs_is_no_output(support):
    cached = example(support, CacheOrNone)
    support.assert_config_round_trip(cached, [])
    support.assert_inference_is_deterministic(cached)
    support.assert_gradients_match_finite_differences(cached)
    support.assert_mixed_precision_matches_float32(cached, "mixed_bfloat16")


def test_a_none_output_fails_the_output_shapes_check(support):
    """What a symbolic call cannot return: the check of the output shapes says so."""
    with pytest.raises(AssertionError, match="returns None as output 1"):
        support.assert_output_shapes(example(support, CacheOrNone))
