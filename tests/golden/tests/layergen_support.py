"""Helpers shared by the tests that layergen generates in this folder.

Written by layergen 0.1.0; `layergen generate` rewrites it, so edit the test
modules instead. It uses only Keras's public API.
"""

import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import keras
import numpy as np
import pytest
from keras import ops

# TensorFlow and JAX fit with XLA, their production path; torch.compile on CPU
# takes 10 to 55 s per model, so torch fits eagerly, as it does by default.
JIT_COMPILE = keras.backend.backend() != "torch"

# Mixed precision policies and the rounding error of their compute dtype.
MIXED_PRECISION_EPS = {"mixed_float16": 2.0**-10, "mixed_bfloat16": 2.0**-7}

# Mixed precision outputs may differ from float32 ones by this many times the
# compute dtype's epsilon, relative to the outputs' magnitude: rounding at every
# step of a small computation, not overflow or lost precision.
MIXED_PRECISION_ULPS = 16

# A statistic of random draws may stray this many standard errors from its mean.
STANDARD_ERRORS = 5

# Layers with declared layouts are tested under ModelParallel on this many host CPU
# devices, in a JAX process of their own: JAX fixes the device count when it starts.
HOST_DEVICES = 8
MODEL_PARALLEL_SKIP = (
    "keras.distribution.ModelParallel runs on JAX only (Keras's TensorFlow distribution"
    " backend is a prototype marked DO NOT USE, torch has none): run under"
    " KERAS_BACKEND=jax"
)
# Sharded and one-device numbers differ by the order of float32 sums across devices.
MODEL_PARALLEL_TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


def make_inputs(shapes, dtypes, value_range=None, seed=0):
    """One array per input: integers in `value_range` (default [0, 10)), floats
    uniform in it, or from a standard normal when it is None."""
    rng = np.random.default_rng(seed)
    arrays = []
    for name, shape in shapes.items():
        dtype = dtypes[name]
        if "int" in dtype:
            low, high = value_range or (0, 10)
            arrays.append(rng.integers(low, high, size=shape).astype(dtype))
        elif value_range is not None:
            arrays.append(rng.uniform(*value_range, size=shape).astype(dtype))
        else:
            arrays.append(rng.standard_normal(shape).astype(dtype))
    return arrays


def make_model(layer, shapes, dtypes):
    """A functional model around `layer`, one `keras.Input` per layer input."""
    inputs = [
        keras.Input(shape=shape[1:], dtype=dtypes[name], name=name)
        for name, shape in shapes.items()
    ]
    outputs = layer(inputs if len(inputs) > 1 else inputs[0])
    if isinstance(outputs, tuple):
        outputs = list(outputs)
    return keras.Model(inputs, outputs)


def as_list(outputs):
    """The outputs as a list; outputs by name in the order of their names, which is the
    same for a layer and for `model.predict` (that sorts them)."""
    if isinstance(outputs, dict):
        return [outputs[name] for name in sorted(outputs)]
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def numpy(value):
    return ops.convert_to_numpy(value)


def shape_list(shapes):
    """`compute_output_shape` returns one shape, or a tuple of them."""
    if shapes and isinstance(shapes[0], (tuple, list)):
        return [tuple(shape) for shape in shapes]
    return [tuple(shapes)]


def is_float(value):
    return "float" in keras.backend.standardize_dtype(value.dtype)


def random_targets(outputs, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(out.shape).astype("float32") for out in outputs]


def assert_close_to_float32(outputs, reference, policy):
    """Outputs of a mixed precision layer: finite, and within rounding of float32."""
    eps = MIXED_PRECISION_EPS[policy]
    for index, (got, want) in enumerate(zip(outputs, reference)):
        got = numpy(ops.cast(got, "float32"))
        want = numpy(want)
        message = f"output {index} under {policy}"
        assert np.all(np.isfinite(got)), f"{message} is not finite (overflow?)"
        scale = float(np.max(np.abs(want), initial=0.0))
        tolerance = MIXED_PRECISION_ULPS * eps * max(scale, 1.0)
        error = float(np.max(np.abs(got - want), initial=0.0))
        assert error <= tolerance, (
            f"{message} differs from float32 by {error:.3g}"
            f" (tolerance {tolerance:.3g}); compute it in float32"
            " (`compute_dtype: float32` in its declaration)"
        )


def assert_mean_near(values, expected, what):
    """The mean of many random draws is within `STANDARD_ERRORS` of `expected`."""
    values = np.asarray(numpy(values), dtype="float64").ravel()
    error = STANDARD_ERRORS * values.std() / math.sqrt(values.size)
    mean = values.mean()
    assert abs(mean - expected) <= error + 1e-7, (
        f"the mean of {what} is {mean:.4g}, expected {expected} +- {error:.3g}"
        f" ({values.size} draws)"
    )


def backend_gradients(fn, args, upstream):
    """Gradients of sum(fn(*args) * upstream), by the backend's own autodiff."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        tensors = [tf.convert_to_tensor(a) for a in args]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            total = tf.reduce_sum(fn(*tensors) * upstream)
        return tape.gradient(total, tensors)
    if backend == "jax":
        import jax

        def total(*a):
            return jax.numpy.sum(fn(*a) * upstream)

        return jax.grad(total, argnums=tuple(range(len(args))))(*args)
    if backend == "torch":
        import torch

        tensors = [torch.tensor(a, requires_grad=True) for a in args]
        (fn(*tensors) * torch.as_tensor(upstream)).sum().backward()
        return [t.grad for t in tensors]
    pytest.skip(f"the {backend} backend has no autodiff")


def golden_path(test_file):
    """Where a test module's recorded outputs live: beside it."""
    return Path(test_file).with_suffix(".golden.json")


def record_golden(module):
    """Store the weights and inference outputs of a test module's layer."""
    layer = module.make_layer()
    outputs = as_list(layer(module.make_inputs(), training=False))
    data = {
        "backend": keras.backend.backend(),
        "weights": [numpy(w).tolist() for w in layer.weights],
        "outputs": [numpy(out).tolist() for out in outputs],
    }
    path = golden_path(module.__file__)
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    return path


def assert_matches_golden(layer, inputs, test_file):
    """The layer, given the recorded weights, computes the recorded outputs."""
    data = json.loads(golden_path(test_file).read_text(encoding="utf-8"))
    layer(inputs)
    assert len(layer.weights) == len(data["weights"]), "the layer's weights changed"
    for weight, value in zip(layer.weights, data["weights"]):
        dtype = keras.backend.standardize_dtype(weight.dtype)
        weight.assign(np.asarray(value, dtype=dtype))
    outputs = as_list(layer(inputs, training=False))
    assert len(outputs) == len(data["outputs"])
    message = "the outputs changed since they were recorded (generate --record)"
    for got, want in zip(outputs, data["outputs"]):
        want = np.asarray(want)
        atol = 1e-5 * max(float(np.max(np.abs(want), initial=0.0)), 1.0)
        np.testing.assert_allclose(
            numpy(got), want, rtol=1e-5, atol=atol, err_msg=message
        )


def mesh_shape(axes):
    """The shape of a mesh of `HOST_DEVICES` devices over `axes`: 2x4 for two axes,
    the factors of 2 dealt out from the last axis (the first, the data axis, gets
    fewest)."""
    sizes = [1] * len(axes)
    for i in range(int(math.log2(HOST_DEVICES))):
        sizes[-1 - i % len(axes)] *= 2
    return tuple(sizes)


def path_in_layer(weight, layer):
    """A weight's path inside the layer that holds it: `kernel`, `router/kernel`."""
    return weight.path.removeprefix(f"{layer.path}/")


def run_model_parallel(test_file):
    """What `model_parallel_report` saw of `test_file`'s layer, in a fresh process."""
    if keras.backend.backend() != "jax":
        pytest.skip(MODEL_PARALLEL_SKIP)
    flags = os.environ.get("XLA_FLAGS", "")
    flags = re.sub(r"--xla_force_host_platform_device_count=\S+", "", flags)
    count = f"--xla_force_host_platform_device_count={HOST_DEVICES}"
    env = {
        **os.environ,
        "KERAS_BACKEND": "jax",
        "JAX_PLATFORMS": "cpu",
        "XLA_FLAGS": f"{flags} {count}".strip(),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        done = subprocess.run(
            [sys.executable, __file__, str(test_file), str(report)],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr[-5000:]
        return json.loads(report.read_text(encoding="utf-8"))


def model_parallel_report(test_file):
    """The test module's layer on one device, then under ModelParallel over a mesh of
    the host's devices, from the same weights on the same data: shardings, outputs,
    weights after one fit step, a saved and reloaded model, and the warnings given."""
    spec = importlib.util.spec_from_file_location(Path(test_file).stem, test_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    axes = module.MESH_AXES
    devices = keras.distribution.list_devices("cpu")
    mesh = keras.distribution.DeviceMesh(mesh_shape(axes), axes, devices)
    distribution = keras.distribution.ModelParallel(
        layout_map=module.get_layout_map(mesh), batch_dim_name=axes[0]
    )
    inputs = module.make_inputs()
    batch = len(inputs[0] if isinstance(inputs, list) else inputs)
    assert batch % mesh.shape[0] == 0, (
        f"the example's batch of {batch} does not split over the {mesh.shape[0]}"
        f" devices of the mesh's `{axes[0]}` axis: make it even"
    )
    keras.utils.set_random_seed(0)
    layer = module.make_layer()
    model = module.make_model(layer)
    initial = model.get_weights()
    outputs = as_list(model.predict(inputs, verbose=0))
    targets = random_targets(outputs)
    report = {"outputs": lists(outputs), "trained": fit_step(model, inputs, targets)}
    report["absent"] = [p for p in module.LAYOUTS if getattr(layer, p, "") is None]
    with distribution.scope():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sharded_layer = module.make_layer()
            sharded = module.make_model(sharded_layer)
        sharded.set_weights(initial)
        report["warnings"] = [str(w.message) for w in caught]
        report["shardings"] = shardings(sharded_layer)
        report["sharded_outputs"] = lists(as_list(sharded.predict(inputs, verbose=0)))
        report["sharded_trained"] = fit_step(sharded, inputs, targets)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "model.keras"
            sharded.save(path)
            loaded = keras.saving.load_model(path)
        (loaded_layer,) = [o for o in loaded.layers if isinstance(o, type(layer))]
        report["loaded_shardings"] = shardings(loaded_layer)
        report["loaded_outputs"] = lists(as_list(loaded.predict(inputs, verbose=0)))
        report["trained_outputs"] = lists(as_list(sharded.predict(inputs, verbose=0)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module.make_model(module.make_layer(name="named_by_hand"))
        report["renamed_warnings"] = [str(w.message) for w in caught]
    return report


def shardings(layer):
    """The mesh axis each dim of each weight is split over, by path in the layer."""
    found = {}
    for weight in layer.weights:
        spec = list(weight.value.sharding.spec)
        spec += [None] * (len(weight.shape) - len(spec))  # trailing dims not split
        found[path_in_layer(weight, layer)] = spec
    return found


def fit_step(model, inputs, targets):
    """The weights after one compiled step of SGD on the whole batch."""
    optimizer = keras.optimizers.SGD(learning_rate=0.1)
    model.compile(optimizer=optimizer, loss="mse", jit_compile=JIT_COMPILE)
    batch = len(inputs[0] if isinstance(inputs, list) else inputs)
    targets = targets if len(targets) > 1 else targets[0]
    model.fit(inputs, targets, batch_size=batch, epochs=1, shuffle=False, verbose=0)
    return lists(model.weights)


def lists(arrays):
    return [numpy(a).tolist() for a in arrays]


if __name__ == "__main__":  # run by `run_model_parallel`, in a JAX process of its own
    result = model_parallel_report(sys.argv[1])
    Path(sys.argv[2]).write_text(json.dumps(result), encoding="utf-8")
