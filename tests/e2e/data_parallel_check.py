"""Run by tests/test_data_parallel.py in a fresh process, in a generated project, on one backend.

For every generated layer test module under tests/: train the layer (in the model its
generated tests build) on one device, then on two with data parallelism (JAX
`keras.distribution.DataParallel` over two host CPU devices; TensorFlow `MirroredStrategy`
over two logical CPUs), from the same initial weights on the same data; the weights after
training must agree, and the two-device model must save and reload to the same outputs.
Prints {module: "ok" | "skipped: why" | "mismatch: ..." | "error: ..."} as JSON.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import ClassVar

import numpy as np

BACKEND = os.environ["KERAS_BACKEND"]
if BACKEND == "tensorflow":
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    # One strategy for the whole run: collective ops of several strategies in one process collide.
    STRATEGY = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

import keras  # noqa: E402

sys.path[:0] = [str(Path("tests").resolve()), str(Path(".").resolve())]


@contextlib.contextmanager
def two_devices():
    if BACKEND == "jax":
        devices = keras.distribution.list_devices("cpu")
        assert len(devices) == 2, devices
        keras.distribution.set_distribution(keras.distribution.DataParallel(devices=devices))
        try:
            yield
        finally:
            keras.distribution.set_distribution(None)
    else:
        assert STRATEGY.num_replicas_in_sync == 2
        with STRATEGY.scope():
            yield


def batch(t):
    """Two of the example's batches: an even batch, split across the devices."""
    first, second = t.make_inputs(seed=0), t.make_inputs(seed=1)
    if isinstance(first, list):
        return [np.concatenate([a, b]) for a, b in zip(first, second)]
    return np.concatenate([first, second])


def train(t, x, targets, scope):
    keras.utils.set_random_seed(0)
    with scope():
        model = t.EXAMPLE.model(t.make_layer())
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    size = len(x[0]) if isinstance(x, list) else len(x)
    model.fit(x, targets, batch_size=size, epochs=3, shuffle=False, verbose=0)
    return model


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def to_numpy(value):
    return keras.ops.convert_to_numpy(value)


def check(t) -> str:
    x = batch(t)
    keras.utils.set_random_seed(0)
    outputs = as_list(t.EXAMPLE.model(t.make_layer()).predict(x, verbose=0))
    if not all(np.issubdtype(o.dtype, np.floating) for o in outputs):
        return "skipped: an output is not a float tensor (no mse target)"
    targets = [np.full_like(o, 0.5) for o in outputs]
    targets = targets if len(targets) > 1 else targets[0]
    one = train(t, x, targets, contextlib.nullcontext)
    two = train(t, x, targets, two_devices)
    problems = []
    for a, b in zip(one.weights, two.weights):
        replicas = [to_numpy(v) for v in getattr(b.value, "values", [b.value])]
        if not all(np.allclose(r, replicas[0]) for r in replicas):
            problems.append(f"{b.path}: the replicas differ")
        if not np.allclose(to_numpy(a), to_numpy(b), rtol=1e-4, atol=1e-5):
            gap = np.max(np.abs(to_numpy(a) - to_numpy(b)))
            values = (
                f" (one device {to_numpy(a).round(4).tolist()}, two {to_numpy(b).round(4).tolist()})"
                if np.size(to_numpy(a)) <= 4
                else ""
            )
            problems.append(f"{a.path}: max diff {gap:.3g}{values}")
    if len(one.weights) != len(two.weights):
        problems.append(f"{len(one.weights)} weights on one device, {len(two.weights)} on two")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.keras")
        two.save(path)
        loaded = keras.saving.load_model(path)
        for ours, theirs in zip(
            as_list(two.predict(x, verbose=0)), as_list(loaded.predict(x, verbose=0))
        ):
            if not np.allclose(ours, theirs, rtol=1e-5, atol=1e-6):
                problems.append("the reloaded two-device model computes something else")
    return "mismatch: " + "; ".join(problems) if problems else "ok"


class KerasBatchNormalization:
    """Keras's own layer with non-trainable state updated in training, as a control."""

    INPUT_SHAPES: ClassVar = {"x": (4, 3)}

    def make_layer(self):
        return keras.layers.BatchNormalization(momentum=0.5)

    def make_inputs(self, seed=0):
        return np.random.default_rng(seed).standard_normal((4, 3)).astype("float32") * 3 + 1

    @property
    def EXAMPLE(self):  # as the generated modules name it: the control is its own example
        return self

    def model(self, layer):
        inputs = keras.Input(shape=(3,))
        return keras.Model(inputs, layer(inputs))

    as_list = staticmethod(
        lambda outputs: list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    )
    numpy = staticmethod(keras.ops.convert_to_numpy)


results = {}
try:
    results["keras_batch_normalization"] = check(KerasBatchNormalization())
except Exception:
    results["keras_batch_normalization"] = "error: " + traceback.format_exc(limit=3)[-1500:]
for path in sorted(Path("tests").glob("test_*.py")):
    try:
        t = importlib.import_module(path.stem)
        if not hasattr(t, "make_layer"):
            continue  # a loss, constraint, ...: no layer of its own to train
        results[path.stem] = check(t)
    except Exception:
        results[path.stem] = "error: " + traceback.format_exc(limit=3)[-1500:]
print("RESULTS " + json.dumps(results))
