"""Layers declared in the v1 format compute what Keras's built-in layers compute.

Copied into a generated project as `tests/test_match_keras.py` (by
`tests/test_generated.py`) and run there on each backend. Each twin gets the
built-in's weights, set to random values first so that nothing passes by
accident (zeros, ones), and must give the same outputs, in training and in
inference, and the same state after a training call.
"""

import numpy as np
import pytest

import keras

from twins.activity_regularization import TwinActivityRegularization
from twins.batch_normalization import TwinBatchNormalization
from twins.concatenate import TwinConcatenate
from twins.conv1d import TwinConv1D
from twins.dense import TwinDense
from twins.dropout import TwinDropout
from twins.embedding import TwinEmbedding
from twins.layer_normalization import TwinLayerNormalization
from twins.masking import TwinMasking
from twins.prelu import TwinPReLU
from twins.reshape import TwinReshape

rng = np.random.default_rng(0)


def floats(*shape):
    return rng.standard_normal(shape).astype("float32")


def with_masked_steps(x):
    x[:, 1] = 0.0  # every feature equals mask_value: a masked timestep
    return x


CASES = {
    "dense": (
        lambda: keras.layers.Dense(5, activation="tanh"),
        lambda: TwinDense(5, activation="tanh"),
        floats(3, 2, 4),
    ),
    "dense_without_bias": (
        lambda: keras.layers.Dense(5, use_bias=False),
        lambda: TwinDense(5, use_bias=False),
        floats(3, 4),
    ),
    "layer_normalization": (
        lambda: keras.layers.LayerNormalization(epsilon=1e-3),
        lambda: TwinLayerNormalization(epsilon=1e-3),
        floats(4, 3, 6),
    ),
    "batch_normalization": (
        lambda: keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-3),
        lambda: TwinBatchNormalization(momentum=0.9, epsilon=1e-3),
        floats(8, 3) * 2 + 1,
    ),
    "prelu": (keras.layers.PReLU, TwinPReLU, floats(4, 3, 2)),
    "embedding": (
        lambda: keras.layers.Embedding(10, 3),
        lambda: TwinEmbedding(10, 3),
        rng.integers(0, 10, (2, 5)).astype("int32"),
    ),
    "conv1d": (
        lambda: keras.layers.Conv1D(4, 3, padding="same"),
        lambda: TwinConv1D(4, 3),
        floats(2, 7, 3),
    ),
    "dropout": (  # the same seed and the same draws: equal in training too
        lambda: keras.layers.Dropout(0.5, seed=7),
        lambda: TwinDropout(0.5, seed=7),
        floats(4, 6),
    ),
    "reshape": (lambda: keras.layers.Reshape((3, 4)), lambda: TwinReshape([3, 4]), floats(2, 12)),
    "activity_regularization": (
        lambda: keras.layers.ActivityRegularization(l1=0.01, l2=0.02),
        lambda: TwinActivityRegularization(l1=0.01, l2=0.02),
        floats(4, 3),
    ),
    "masking": (keras.layers.Masking, TwinMasking, with_masked_steps(floats(2, 5, 3))),
    "concatenate": (
        lambda: keras.layers.Concatenate(axis=-1),
        TwinConcatenate,
        [floats(2, 3), floats(2, 5)],
    ),
}


def numpy(value):
    return keras.ops.convert_to_numpy(value)


def twins(case):
    make_builtin, make_twin, inputs = CASES[case]
    builtin, twin = make_builtin(), make_twin()
    builtin(inputs)
    twin(inputs)
    by_name = {weight.name: weight for weight in builtin.weights}
    assert sorted(by_name) == sorted(w.name for w in twin.weights)
    for weight in twin.weights:
        original = by_name[weight.name]
        if "float" in keras.backend.standardize_dtype(weight.dtype):  # not a seed's state
            value = rng.uniform(0.5, 1.5, original.shape).astype("float32")  # variances stay positive
            original.assign(value)
            weight.assign(value)
    return builtin, twin, inputs


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("training", [False, True])
def test_twin_computes_what_the_builtin_computes(case, training):
    builtin, twin, inputs = twins(case)
    expected = numpy(builtin(inputs, training=training))
    np.testing.assert_allclose(numpy(twin(inputs, training=training)), expected, rtol=1e-5, atol=1e-5)
    for weight in twin.weights:  # state updated (or not) alike
        original = next(w for w in builtin.weights if w.name == weight.name)
        np.testing.assert_allclose(numpy(weight), numpy(original), rtol=1e-6, atol=1e-6, err_msg=weight.name)
    assert len(twin.losses) == len(builtin.losses)
    for ours, theirs in zip(twin.losses, builtin.losses):
        np.testing.assert_allclose(numpy(ours), numpy(theirs), rtol=1e-5, atol=1e-6)


def test_twin_computes_the_builtins_mask():
    builtin, twin, inputs = twins("masking")
    expected = numpy(builtin.compute_mask(inputs))
    assert not expected.all()  # some steps are masked
    np.testing.assert_array_equal(numpy(twin.compute_mask(inputs)), expected)


@pytest.mark.parametrize("case", CASES)
def test_twin_output_shape_is_the_builtins(case):
    builtin, twin, inputs = twins(case)
    shapes = [i.shape for i in inputs] if isinstance(inputs, list) else inputs.shape
    assert tuple(twin.compute_output_shape(shapes)) == tuple(builtin.compute_output_shape(shapes))
