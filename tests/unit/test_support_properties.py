"""The property checks of the generated tests' support module
(`layergen/templates/_support_properties.j2`: the numpy reference, call arguments, masks,
causality, caches, recorded goldens), called directly with data, as a generated test
calls them: each passes on a layer that does what it is told and fails on one
with the bug it is there to catch."""

from __future__ import annotations

import json

import keras
import numpy as np
import pytest
import test_support_checks
from keras import ops
from test_support_checks import Dense3, example

support = test_support_checks.support  # the fixture: the support module, imported


def dense3_reference(layer, x):
    return x @ np.asarray(layer.kernel)


class Scaled3(Dense3):
    """`x @ kernel * scale`; `bug`: the keyword argument ignored."""

    def __init__(self, bug=False, **kwargs):
        super().__init__(**kwargs)
        self.bug = bug

    def call(self, x, scale=1.0):
        return ops.matmul(x, self.kernel) * (1.0 if self.bug else scale)


def scaled_reference(layer, x, scale=1.0):
    return x @ np.asarray(layer.kernel) * scale


SCALE_CASES = [("scale=2.0", {"scale": 2.0}, np.ones((3, 4), "float32"))]


def test_call_cases_take_the_example_inputs_or_their_own(support):
    shapes = {"a": (2, 3), "b": (2, 5)}
    pair = example(support, Dense3, shapes, separate=True)
    given = support.call_args({"mask": [[1, 0]], "flag": True}, {"mask": "int32"})
    assert given["mask"].dtype == np.int32 and given["flag"] is True
    own = {
        "name": "reverse",
        "args": {"reverse": True},
        "input_shapes": {"a": (4, 3), "b": (4, 5)},
        "input_dtypes": {"a": "float32", "b": "float32"},
        "input_range": None,
    }
    flag, reverse = support.call_cases(pair, {"flag": True}, [own])
    assert flag[0] == "flag" and flag[1] == {"flag": True}
    np.testing.assert_array_equal(flag[2][0], pair.make_inputs()[0])
    assert reverse[:2] == ("reverse", {"reverse": True})
    assert isinstance(reverse[2], tuple) and [a.shape for a in reverse[2]] == [(4, 3), (4, 5)]


def test_the_numpy_reference_passes_where_the_layer_computes_it(support):
    support.assert_matches_numpy_reference(example(support, Dense3), dense3_reference, 1e-6)
    scaled = example(support, Scaled3)
    support.assert_matches_numpy_reference(scaled, scaled_reference, 1e-6, SCALE_CASES)


def test_the_numpy_reference_fails_where_the_layer_or_a_call_case_differs(support):
    with pytest.raises(AssertionError):
        support.assert_matches_numpy_reference(
            example(support, Dense3), lambda layer, x: 2 * dense3_reference(layer, x), 1e-6
        )
    ignores_scale = example(support, lambda **kw: Scaled3(bug=True, **kw))
    support.assert_matches_numpy_reference(ignores_scale, scaled_reference, 1e-6)
    with pytest.raises(AssertionError, match=r"scale=2\.0"):
        support.assert_matches_numpy_reference(ignores_scale, scaled_reference, 1e-6, SCALE_CASES)


def test_the_numpy_reference_takes_stated_weights(support):
    weights = {"kernel": np.eye(4, 3).tolist()}
    support.assert_matches_numpy_reference(
        example(support, Dense3), lambda layer, x: x[:, :3], 1e-6, weights=weights
    )
    with pytest.raises(AssertionError):  # seeded weights are not the identity
        support.assert_matches_numpy_reference(
            example(support, Dense3), lambda layer, x: x[:, :3], 1e-6
        )


class Counted(keras.layers.Layer):
    """`x * count`, where each training call adds one to `count`."""

    def build(self, input_shape):
        self.count = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, x, training=None):
        if training:
            self.count.assign(self.count + 1.0)
        return x * self.count


def test_the_numpy_reference_of_a_moved_state(support):
    counted = example(support, Counted)
    layer = counted.make_layer()
    layer(counted.make_inputs())
    support.set_seeded_weights(layer)
    moved = float(np.asarray(layer.count)) + 1.0  # after one training call

    def reference(layer, x):
        return x * moved

    support.assert_matches_numpy_reference(counted, reference, 1e-6, state_moves_first=True)
    with pytest.raises(AssertionError):
        support.assert_matches_numpy_reference(counted, reference, 1e-6)


class NanWith(Scaled3):
    """`x @ kernel / scale`: NaN where `scale` is 0; its symbolic outputs are wrong
    when given a `scale`."""

    def call(self, x, scale=1.0):
        return ops.matmul(x, self.kernel) / scale

    def compute_output_spec(self, x, scale=None):
        return keras.KerasTensor((*x.shape[:-1], 3 if scale is None else 4))


def test_each_keyword_argument_must_give_finite_outputs(support):
    scaled = example(support, Scaled3)
    support.assert_each_keyword_argument_runs(scaled, SCALE_CASES, symbolic_shapes=True)
    nan = example(support, NanWith)
    zero = [("scale=0.0", {"scale": 0.0}, np.zeros((3, 4), "float32"))]
    with pytest.raises(AssertionError, match=r"scale=0\.0"):
        support.assert_each_keyword_argument_runs(nan, zero)


def test_the_symbolic_outputs_with_a_keyword_argument_must_be_the_eager_ones(support):
    nan = example(support, NanWith)
    support.assert_each_keyword_argument_runs(nan, SCALE_CASES)
    with pytest.raises(AssertionError, match=r"scale=2\.0"):
        support.assert_each_keyword_argument_runs(nan, SCALE_CASES, symbolic_shapes=True)


@keras.saving.register_keras_serializable(package="test_support_properties")
class ContextSum(keras.layers.Layer):
    """`x + context @ kernel`: `build` makes the kernel from the context's shape.
    `offset`: a number drawn at construction and not in the config (the bug: a
    loaded copy differs)."""

    def __init__(self, drawn=False, **kwargs):
        super().__init__(**kwargs)
        self.drawn = drawn
        self.offset = float(np.random.default_rng().random()) if drawn else 0.0

    def build(self, x_shape, context_shape=None):
        self.kernel = self.add_weight(shape=(context_shape[-1], x_shape[-1]))

    def call(self, x, context=None):
        return x + ops.matmul(context, self.kernel)[:, :1] + self.offset

    def get_config(self):
        return {**super().get_config(), "drawn": self.drawn}


CONTEXT = {"context": np.linspace(-1, 1, 2 * 5 * 3, dtype="float32").reshape(2, 5, 3)}


def test_a_layer_built_with_a_keyword_tensor_saves_and_loads(support, tmp_path):
    shapes = {"x": (2, 1, 4)}
    support.assert_saves_and_loads_built_with_each_keyword_tensor(
        example(support, ContextSum, shapes), {**CONTEXT, "flag": True}, tmp_path
    )
    drawn = example(support, lambda **kw: ContextSum(drawn=True, **kw), shapes)
    with pytest.raises(AssertionError, match="context"):
        support.assert_saves_and_loads_built_with_each_keyword_tensor(drawn, CONTEXT, tmp_path)


class PaddedSum(keras.layers.Layer):
    """Each step plus the sum of the steps its `padding_mask` keeps (of `context` where
    one is given, with `context_mask`); `bug`: a mask ignored."""

    def __init__(self, bug=False, **kwargs):
        super().__init__(**kwargs)
        self.bug = bug

    def build(self, x_shape, padding_mask_shape=None, context_shape=None, **shapes):
        self.kernel = self.add_weight(shape=(x_shape[-1], x_shape[-1]))

    def call(self, x, padding_mask=None, context=None, context_mask=None):
        seen, mask = (x, padding_mask) if context is None else (context, context_mask)
        if mask is not None and not self.bug:
            seen = seen * ops.cast(mask, seen.dtype)[:, :, None]
        return ops.matmul(x + ops.sum(seen, axis=1, keepdims=True), self.kernel)


def hiding_the_first_step(shape):
    mask = np.ones(shape, bool)
    mask[:, 0] = False  # a hidden step before the kept ones
    return mask


def test_the_steps_a_mask_hides_change_nothing_it_keeps(support):
    padded = example(support, PaddedSum, {"x": (2, 3, 4)})
    mask = hiding_the_first_step((2, 3))
    support.assert_hidden_steps_change_nothing(padded, "padding_mask", mask, index=0)
    ignored = example(support, lambda **kw: PaddedSum(bug=True, **kw), {"x": (2, 3, 4)})
    with pytest.raises(AssertionError, match="masked steps"):
        support.assert_hidden_steps_change_nothing(ignored, "padding_mask", mask, index=0)


def test_the_steps_a_mask_hides_of_a_keyword_tensor_change_no_output(support):
    context = np.linspace(-1, 1, 2 * 5 * 4, dtype="float32").reshape(2, 5, 4)
    keyword = ("context", context)
    mask = hiding_the_first_step((2, 5))
    padded = example(support, PaddedSum, {"x": (2, 3, 4)})
    support.assert_hidden_steps_change_nothing(padded, "context_mask", mask, keyword=keyword)
    ignored = example(support, lambda **kw: PaddedSum(bug=True, **kw), {"x": (2, 3, 4)})
    with pytest.raises(AssertionError, match="masked steps"):
        support.assert_hidden_steps_change_nothing(ignored, "context_mask", mask, keyword=keyword)


class RoutedTokens(keras.layers.Layer):
    """Each token through a dense layer, plus its logits flattened over the batch and the
    steps, `(batch * steps, units)`, as a router returns them; a training call adds the
    mean of the tokens' logits that `padding_mask` keeps as a loss (`bug`: of them all).
    `dropout`: the loss of a random half of the tokens, the same half in each call from
    the same seed."""

    def __init__(self, bug=False, dropout=False, **kwargs):
        super().__init__(**kwargs)
        self.bug, self.dropout = bug, dropout
        self.seed_generator = keras.random.SeedGenerator(1)

    def build(self, x_shape, padding_mask_shape=None):
        self.kernel = self.add_weight(shape=(x_shape[-1], 2))

    def call(self, x, padding_mask=None, training=None):
        tokens = ops.matmul(x, self.kernel)
        logits = ops.reshape(tokens, (-1, 2))
        if training:
            weights = ops.ones(ops.shape(tokens)[:2])
            if padding_mask is not None and not self.bug:
                weights = ops.cast(padding_mask, "float32")
            if self.dropout:
                keep = keras.random.uniform(ops.shape(weights), seed=self.seed_generator)
                weights = weights * ops.cast(keep < 0.5, "float32")
            self.add_loss(ops.sum(ops.mean(tokens, axis=-1) * weights))
        return tokens, logits


def test_the_steps_a_mask_hides_change_no_loss_of_a_training_call(support):
    """The MoE block's load-balancing loss ignoring its padding mask was the
    one real-layer bug the tests missed without recorded outputs. The router's flattened
    logits of the hidden tokens may change: they are compared at the kept ones."""
    mask = hiding_the_first_step((2, 3))
    routed = example(support, RoutedTokens, {"x": (2, 3, 4)})
    support.assert_hidden_steps_change_nothing(routed, "padding_mask", mask, index=0)
    ignored = example(support, lambda **kw: RoutedTokens(bug=True, **kw), {"x": (2, 3, 4)})
    with pytest.raises(AssertionError, match="loss 0 changed"):
        support.assert_hidden_steps_change_nothing(ignored, "padding_mask", mask, index=0)


def test_random_losses_are_compared_from_the_same_seed_and_state(support):
    mask = hiding_the_first_step((2, 3))
    dropped = example(support, lambda **kw: RoutedTokens(dropout=True, **kw), {"x": (2, 3, 4)})
    support.assert_hidden_steps_change_nothing(dropped, "padding_mask", mask, index=0)


def test_outputs_kept_are_compared_flattened_or_by_their_first_axes(support):
    kept = np.array([[True, False], [False, True]])
    ours = [np.arange(8.0).reshape(2, 2, 2), np.arange(8.0).reshape(4, 2)]
    theirs = [ours[0].copy(), ours[1].copy()]
    theirs[0][0, 1] = theirs[1][1] = theirs[1][2] = -1.0  # where the mask hides
    support.assert_same_where_kept(ours, theirs, kept)
    theirs[1][3] = -1.0  # the last token, kept
    with pytest.raises(AssertionError, match="output 1"):
        support.assert_same_where_kept(ours, theirs, kept)
    with pytest.raises(AssertionError, match="output 0"):
        support.assert_same_where_kept(ours, theirs, None)


class CumulativeSum(keras.layers.Layer):
    """The running sum along the steps when `causal`, else the whole sum at every step;
    `bug`: summed from the end."""

    def __init__(self, bug=False, **kwargs):
        super().__init__(**kwargs)
        self.bug = bug

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], input_shape[-1]))

    def call(self, x, causal=False):
        if not causal:
            summed = ops.sum(x, axis=1, keepdims=True) + 0.0 * x
        elif self.bug:
            summed = ops.flip(ops.cumsum(ops.flip(x, axis=1), axis=1), axis=1)
        else:
            summed = ops.cumsum(x, axis=1)
        return ops.matmul(summed, self.kernel)


def test_a_causal_argument_makes_each_step_depend_on_earlier_ones_only(support):
    causal = example(support, CumulativeSum, {"x": (2, 4, 3)})
    support.assert_each_step_depends_on_earlier_steps_only(causal, "causal", index=0)
    backwards = example(support, lambda **kw: CumulativeSum(bug=True, **kw), {"x": (2, 4, 3)})
    with pytest.raises(AssertionError, match="masked steps"):
        support.assert_each_step_depends_on_earlier_steps_only(backwards, "causal", index=0)


class CachedSum(keras.layers.Layer):
    """`x`'s running sum along the steps, plus the mean of `bias` over its steps (a
    sequence read whole, the shape of `x`). Given `cache` (the steps of `x` so far,
    `(batch, steps, dim)`) and `index`, the steps of `x` are written there and summed
    with the earlier ones; returns `(outputs, cache)`. `masked`: causal only through
    `seen`, the steps each sees, `(batch, steps, cache steps)`. `bug`: the cache is
    not updated."""

    def __init__(self, masked=False, bug=False, **kwargs):
        super().__init__(**kwargs)
        self.masked, self.bug = masked, bug

    def build(self, x_shape, bias_shape=None):
        self.kernel = self.add_weight(shape=(x_shape[-1], x_shape[-1]))

    def call(self, x, bias, cache=None, index=None, seen=None):
        shift = ops.mean(bias, axis=1, keepdims=True)
        if cache is None:
            keys, start = x, 0
        else:
            start = index
            updated = ops.slice_update(cache, (0, index, 0), x)
            keys = updated
            cache = cache if self.bug else updated
        steps, length = ops.shape(x)[1], ops.shape(keys)[1]
        if self.masked:  # every step, unless told
            seen = ops.ones((ops.shape(x)[0], steps, length)) if seen is None else seen
            summed = ops.einsum("bqk,bkd->bqd", ops.cast(seen, x.dtype), keys)
        else:
            rows = ops.arange(steps)[:, None] + start
            seen = ops.cast(ops.arange(length)[None, :] <= rows, x.dtype)
            summed = ops.einsum("qk,bkd->bqd", seen, keys)
        summed = summed + shift
        outputs = ops.matmul(summed, self.kernel)
        return outputs if cache is None else (outputs, cache)


def cached(support, **options):
    shapes = {"x": (2, 3, 4), "bias": (2, 3, 4)}
    return example(support, lambda **kw: CachedSum(**options, **kw), shapes, separate=True)


EMPTY = np.zeros((2, 3, 4), "float32")


def test_a_cache_decodes_step_by_step_what_the_whole_sequence_gives(support):
    names = {"cache": "cache", "index": "index", "empty": EMPTY, "output": 1}
    support.assert_cache_decodes_step_by_step(cached(support), of=["x"], **names)
    masked = cached(support, masked=True)
    support.assert_cache_decodes_step_by_step(masked, of=["x"], mask="seen", **names)
    with pytest.raises(AssertionError):  # causal only through its mask
        support.assert_cache_decodes_step_by_step(masked, of=["x"], **names)
    with pytest.raises(AssertionError):  # the cache never moves on
        support.assert_cache_decodes_step_by_step(cached(support, bug=True), of=["x"], **names)


def test_a_cache_steps_only_the_inputs_of_of(support):
    """`bias` has the shape of `x` and is read whole: cut to the step, each step sees
    another mean (the tests once cut every input of that shape)."""
    names = {"cache": "cache", "index": "index", "empty": EMPTY, "output": 1}
    with pytest.raises(AssertionError):
        support.assert_cache_decodes_step_by_step(cached(support), of=["x", "bias"], **names)


def test_a_recorded_golden_holds_each_run_and_catches_a_change(support, tmp_path):
    test_file = tmp_path / "test_scaled.py"
    scaled = example(support, Scaled3)

    def golden_run(layer):
        return support.golden_runs(scaled, layer, SCALE_CASES)

    layer = scaled.make_layer()
    layer(scaled.make_inputs())
    support.set_seeded_weights(layer)
    runs = golden_run(layer)
    assert sorted(runs) == ["outputs", "outputs with scale=2.0"]
    data = {
        "weights": [support.numpy(w).tolist() for w in layer.weights],
        "runs": {n: [support.numpy(o).tolist() for o in outs] for n, outs in runs.items()},
    }
    support.golden_path(test_file).write_text(json.dumps(data))
    support.assert_matches_golden(scaled, golden_run, test_file)
    ignores_scale = example(support, lambda **kw: Scaled3(bug=True, **kw))

    def golden_run_of_the_bug(layer):
        return support.golden_runs(ignores_scale, layer, SCALE_CASES)

    with pytest.raises(AssertionError, match=r"outputs with scale=2\.0"):
        support.assert_matches_golden(ignores_scale, golden_run_of_the_bug, test_file)


class MaskedProjection(Dense3):
    """`x @ kernel`, the steps `padding_mask` hides set to `hidden` (as backends' kernels
    compute an attention row with no step to see each its own way); `bug`: the kept
    steps scaled where a mask is given."""

    def __init__(self, hidden=0.0, bug=False, **kwargs):
        super().__init__(**kwargs)
        self.hidden, self.bug = hidden, bug

    def call(self, x, padding_mask=None):
        y = ops.matmul(x, self.kernel)
        if padding_mask is None:
            return y
        y = y * (1.1 if self.bug else 1.0)
        return ops.where(ops.expand_dims(padding_mask, -1), y, self.hidden)


LEFT_PAD = np.array([[False, True, True], [True, True, True]])


def masked_projection(support, masks=("padding_mask",), **options):
    """The example of a MaskedProjection and its `golden_run`, the mask a call case."""
    projection = example(support, lambda **kw: MaskedProjection(**options, **kw), {"x": (2, 3, 4)})
    cases = [("padding_mask", {"padding_mask": LEFT_PAD}, projection.make_inputs())]

    def golden_run(layer):
        return support.golden_runs(projection, layer, cases, masks=masks)

    return projection, golden_run


def record(support, tmp_path, projection, golden_run):
    """Record the golden of `projection` as `generate --record` does; its path."""
    module = type("Module", (), {})()
    module.make_layer, module.make_inputs = projection.make_layer, projection.make_inputs
    module.golden_run, module.__file__ = golden_run, str(tmp_path / "test_projection.py")
    return support.record_golden(module)


def failure(check, *args) -> str:
    with pytest.raises((AssertionError, pytest.fail.Exception)) as raised:
        check(*args)
    return str(raised.value)


def test_a_golden_compares_only_the_steps_a_declared_mask_keeps(support, tmp_path):
    record(support, tmp_path, *masked_projection(support))
    test_file = tmp_path / "test_projection.py"
    elsewhere = masked_projection(support, hidden=7.0)
    support.assert_matches_golden(*elsewhere, test_file)
    # Without the declared mask every step is compared: the hidden ones differ.
    message = failure(
        support.assert_matches_golden, *masked_projection(support, masks=(), hidden=7.0), test_file
    )
    assert "the outputs with padding_mask, output 0: 3 of 18 elements" in message, message
    # A change at the kept steps fails, saying which steps.
    message = failure(
        support.assert_matches_golden, *masked_projection(support, bug=True), test_file
    )
    assert "15 of 15 elements at the steps its mask keeps" in message, message
    assert "(0, 1, 0): " in message, message


def test_a_golden_from_another_backend_is_compared_within_the_stated_tolerance(support, tmp_path):
    path = record(support, tmp_path, *masked_projection(support))
    data = json.loads(path.read_text())
    outputs = np.asarray(data["runs"]["outputs"][0])
    data["runs"]["outputs"] = [(outputs * (1 + 5e-5)).tolist()]
    for backend, passes in ((data["backend"], False), ("another", True)):
        path.write_text(json.dumps({**data, "backend": backend}))
        check = (
            support.assert_matches_golden,
            *masked_projection(support),
            tmp_path / "test_projection.py",
        )
        if passes:
            check[0](*check[1:])
        else:
            message = failure(*check)
            assert f"by more than 1e-05 of the largest value ({backend} recorded" in message


def test_a_golden_says_whether_it_was_recorded_from_other_code(support, tmp_path):
    path = record(support, tmp_path, *masked_projection(support))
    test_file = tmp_path / "test_projection.py"

    class Renamed(MaskedProjection):  # other code, computing otherwise
        def call(self, x, padding_mask=None):
            return super().call(x, padding_mask) * 2.0

    other = example(support, Renamed, {"x": (2, 3, 4)})
    message = failure(
        support.assert_matches_golden,
        other,
        lambda layer: support.golden_runs(other, layer),
        test_file,
    )
    assert "Recorded from other code: the declaration or the layer changed" in message
    data = json.loads(path.read_text())
    data["runs"]["outputs"] = [(np.asarray(data["runs"]["outputs"][0]) + 1.0).tolist()]
    path.write_text(json.dumps(data))
    message = failure(support.assert_matches_golden, *masked_projection(support), test_file)
    assert "the outputs, output 0: 18 of 18 elements" in message, message
    assert "Recorded from this very code" in message, message
