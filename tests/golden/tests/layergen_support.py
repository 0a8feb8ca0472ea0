"""Helpers shared by the tests that layergen generates in this folder.

Written by layergen 0.1.0; `layergen generate` rewrites it, so edit the test
modules instead. It uses only Keras's public API (and, to take gradients, the
backend's own autodiff).
"""

import copy
import hashlib
import importlib.util
import inspect
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
from keras import ops

# A compiled `fit` step as `compile` makes it by default, the path a user's `fit` takes:
# XLA on JAX, and on TensorFlow with a GPU; a TensorFlow graph without XLA on a machine
# with CPUs only (Keras turns XLA off there: it spent 3 to 7 s compiling a transformer
# block's step); eagerly on torch (torch.compile on CPU takes 10 to 55 s per model).
JIT_COMPILE = "auto"

# Mixed precision policies and the rounding error of their compute dtype.
MIXED_PRECISION_EPS = {"mixed_float16": 2.0**-10, "mixed_bfloat16": 2.0**-7}
# Below its smallest normal number a dtype's values are this far apart, whatever their
# size: the floor of the rounding error (an embedding drawn near zero meets it).
MIXED_PRECISION_SPACING = {"mixed_float16": 2.0**-24, "mixed_bfloat16": 2.0**-133}

# Each mixed precision output may differ from the float32 one by this many times the
# error that rounding its inputs and weights to the compute dtype causes in float32
# (measured element by element: large where terms cancel), plus as many epsilons of
# itself: each step of a short computation rounds about that much again.
MIXED_PRECISION_ULPS = 8

# A discrete choice (rounding, top-k routing) flips when rounding moves its input
# across a boundary: in layers that make one, this share of the elements may differ.
FLIPPED_SHARE = 0.25


def make_inputs(shapes, dtypes, value_range=None, seed=0, ones=()):
    """One array per input: integers in `value_range` (default [0, 10)), floats
    uniform in it, or from a standard normal when it is None; ones for an integer or
    bool input in `ones` (a keyword tensor passed in every call: a mask that hides
    nothing)."""
    rng = np.random.default_rng(seed)
    arrays = []
    for name, shape in shapes.items():
        dtype = dtypes[name]
        if name in ones and ("int" in dtype or dtype == "bool"):
            arrays.append(np.ones(shape, dtype))
        elif "int" in dtype:
            low, high = value_range or (0, 10)
            arrays.append(rng.integers(low, high, size=shape).astype(dtype))
        elif value_range is not None:
            arrays.append(rng.uniform(*value_range, size=shape).astype(dtype))
        else:
            arrays.append(rng.standard_normal(shape).astype(dtype))
    return arrays


def make_model(layer, shapes, dtypes, keywords=None, separate=False):
    """A functional model around `layer`, one `keras.Input` per layer input, and one per
    array of `keywords`, passed to the layer by name (the other keywords, as `reverse`,
    passed as they are). `separate`: the layer takes its tensor inputs as arguments of
    their own, not a list."""
    inputs = [
        keras.Input(shape=shape[1:], dtype=dtypes[name], name=name)
        for name, shape in shapes.items()
    ]
    keywords = keywords or {}
    given = {
        name: keras.Input(shape=value.shape[1:], dtype=str(value.dtype), name=name)
        for name, value in keywords.items()
        if isinstance(value, np.ndarray)
    }
    passed = {**keywords, **given}
    if separate:
        outputs = layer(*inputs, **passed)
    else:
        outputs = layer(inputs if len(inputs) > 1 else inputs[0], **passed)
    if isinstance(outputs, tuple):
        outputs = list(outputs)
    return keras.Model([*inputs, *given.values()] if given else inputs, outputs)


def predict(model, inputs):
    """What `model.predict(inputs)` returns for one batch, computed by an eager call:
    `predict` compiles the model first (seconds on JAX for a transformer block), which a
    test that predicts once pays for nothing."""
    called = model(as_list(inputs), training=False)  # the model takes a list
    return keras.tree.map_structure(numpy, called)


def per_example_outputs(model, inputs):
    """The model and its predictions, each output that does not start with the batch
    axis (a router's `(batch * seq, experts)` logits) reshaped to `(batch, -1)`, so
    that `fit` can pair outputs and targets example by example."""
    batch = len(as_list(inputs)[0])
    predicted = predict(model, inputs)
    if all(np.shape(out)[:1] == (batch,) for out in keras.tree.flatten(predicted)):
        return model, predicted

    def per_example(out):
        return out if np.shape(out)[:1] == (batch,) else np.reshape(out, (batch, -1))

    def symbolic(out, eager):
        if np.shape(eager)[:1] == (batch,):
            return out
        shape = (np.size(eager) // batch,)  # torch cannot infer a Lambda's output shape
        reshape = keras.layers.Lambda(lambda t: ops.reshape(t, (batch, -1)), shape)
        return reshape(out)

    outputs = keras.tree.map_structure(symbolic, model.output, predicted)
    model = keras.Model(model.inputs, outputs)
    return model, keras.tree.map_structure(per_example, predicted)


def as_list(outputs):
    """The outputs as a list; outputs by name in the order of their names, which is the
    same for a layer and for `model.predict` (that sorts them). A None among them is no
    output (keras-hub's attentions return `(outputs, cache)`, None where no cache)."""
    if isinstance(outputs, dict):
        return [outputs[name] for name in sorted(outputs) if outputs[name] is not None]
    if isinstance(outputs, (list, tuple)):
        return [out for out in outputs if out is not None]
    return [outputs]


def like(inputs, arrays):
    """`arrays` in the structure of `inputs`: a list for several inputs, a tuple for
    several given as arguments of their own, else one."""
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(arrays)
    return arrays[0]


def arguments(inputs):
    """The positional arguments of a call on `inputs`: the tuple of a layer that takes
    its tensor inputs as arguments of their own, else the one tensor, or their list."""
    return inputs if isinstance(inputs, tuple) else (inputs,)


def symbolic(arrays):
    """Symbolic tensors of the shapes and dtypes of `arrays` (one, a list, a tuple)."""
    if isinstance(arrays, (list, tuple)):
        return type(arrays)(symbolic(a) for a in arrays)
    return keras.KerasTensor(arrays.shape, dtype=str(arrays.dtype))


def numpy(value):
    return ops.convert_to_numpy(value)


def is_float(value):
    return "float" in keras.backend.standardize_dtype(value.dtype)


def random_targets(outputs, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(out.shape).astype("float32") for out in outputs]


def spread(shape, args, seed=0):
    """Standard normal draws of `shape`, one scaled by each of a tenth, one and ten
    times the size of each float param and of 1: then every branch a threshold param
    opens runs (a Huber loss's `delta`, a max-norm constraint's `max_norm`)."""
    sizes = {abs(v) for v in args.values() if isinstance(v, float) and v} | {1.0}
    scales = sorted({size * factor for size in sizes for factor in (0.1, 1.0, 10.0)})
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * scale).astype("float32") for scale in scales]


def set_seeded_weights(layer, seed=0):
    """Move each float weight off its initial value by a seeded draw, so that no two
    elements are alike and the bugs that symmetric values hide (zeros, ones) show:
    each element moves up or down by 10% to 50% of the weight's root mean square (of
    1 for a weight of zeros). A constant weight stays on its side of zero."""
    rng = np.random.default_rng(seed)
    for weight in layer.weights:
        if not is_float(weight):
            continue
        value = numpy(weight).astype("float64")
        size = float(np.sqrt(np.mean(np.square(value)))) if value.size else 0.0
        step = rng.uniform(0.1, 0.5, value.shape) * rng.choice([-1, 1], value.shape)
        weight.assign((value + (size or 1.0) * step).astype(weight.dtype))


class WeightTree:
    """A sublayer's weights as read-only NumPy arrays, by their paths inside it:
    `attention.query.kernel` for `query/kernel`; a Sequential's layers by position,
    `mlp.layers[0].kernel`. What a NumPy reference reads of a sublayer."""

    def __init__(self, entries):
        object.__setattr__(self, "_entries", entries)

    def __getattr__(self, name):
        try:
            return self._entries[name]
        except KeyError:
            names = ", ".join(self._entries) or "none"
            message = f"no weight `{name}` here; there are: {names}"
            raise AttributeError(message) from None

    def __setattr__(self, name, value):
        raise AttributeError("a sublayer's weights are read-only in a reference")

    def __dir__(self):
        return list(self._entries)

    def __repr__(self):
        return f"WeightTree({', '.join(self._entries)})"


def sublayer_weights(layer):
    """The weights of `layer` (a sublayer; None stays None) as a WeightTree."""
    if layer is None:
        return None
    if isinstance(layer, keras.Sequential):
        return WeightTree({"layers": tuple(sublayer_weights(s) for s in layer.layers)})
    tree = {}
    for weight in layer.weights:
        # The path inside the sublayer, whatever name the sublayer itself has (a weight
        # made outside its scope, as a tied one, goes by its name).
        inside = layer.path and weight.path.startswith(f"{layer.path}/")
        path = weight.path[len(layer.path) + 1 :] if inside else weight.name
        *scopes, leaf = path.split("/")
        node = tree
        for scope in scopes:
            node = node.setdefault(scope, {})
        value = np.array(numpy(weight))  # a copy: torch's shares the weight's memory
        value.setflags(write=False)
        node[leaf] = value

    def grown(node):
        entries = {n: grown(v) if isinstance(v, dict) else v for n, v in node.items()}
        return WeightTree(entries)

    return grown(tree)


def assert_weights_change_the_output(layer, names, outputs):
    """Moving each named weight (those that exist) changes what `outputs()` returns."""
    rng = np.random.default_rng(1)
    before = [numpy(out) for out in outputs()]
    for name in names:
        weight = getattr(layer, name, None)  # Keras's layers may not set one left out
        if weight is None or not is_float(weight):
            continue
        value = numpy(weight)
        size = float(np.sqrt(np.mean(np.square(value)))) or 1.0
        weight.assign(value + size * rng.uniform(0.2, 0.5, value.shape))
        after = [numpy(out) for out in outputs()]
        weight.assign(value)
        changed = any(not np.allclose(a, b) for a, b in zip(before, after))
        assert changed, (
            f"the output ignores weight {name}: moving it changed no output"
            f" (see `weights.{name}`: does `call` read it?)"
        )


def rounded(inputs, dtype):
    """The float inputs rounded to `dtype`, as a layer computing in it sees them."""
    arrays = [
        numpy(ops.cast(ops.cast(a, dtype), a.dtype)) if is_float(a) else a
        for a in as_list(inputs)
    ]
    return like(inputs, arrays)


def rounding_spread(layer, inputs, policy, as_list=as_list, draws=4, seed=0):
    """How far each float32 output moves when the float inputs and weights move as
    rounding to the policy's compute dtype moves them (up to half an epsilon, at
    random), at most over a few draws; at least the median of that over the output,
    since terms of the usual size may cancel in an element."""
    eps = MIXED_PRECISION_EPS[policy]
    rng = np.random.default_rng(seed)

    def nudged(a):
        if not is_float(a):
            return a
        # up to half an epsilon, and up to half the spacing of the tiniest values
        step = np.maximum(np.abs(a) * eps, MIXED_PRECISION_SPACING[policy]) / 2
        return (a + step * rng.uniform(-1, 1, np.shape(a))).astype(a.dtype)

    weights = layer.get_weights()
    called = layer(*arguments(inputs), training=False)
    reference = [numpy(out) for out in as_list(called)]
    spread = [np.zeros(out.shape) for out in reference]
    for _ in range(draws):
        layer.set_weights([nudged(w) for w in weights])
        nudged_inputs = like(inputs, [nudged(a) for a in as_list(inputs)])
        moved = as_list(layer(*arguments(nudged_inputs), training=False))
        for s, out, ref in zip(spread, moved, reference):
            np.maximum(s, np.abs(numpy(out).astype("float64") - ref), out=s)
    layer.set_weights(weights)
    return [np.maximum(s, np.median(s)) if s.size else s for s in spread]


def assert_close_to_float32(outputs, reference, spread, policy, discrete=False):
    """Outputs of a mixed precision layer: finite, and, element by element, within
    `MIXED_PRECISION_ULPS` times the `spread` of rounding plus as many epsilons of the
    float32 `reference`. `discrete`: the layer makes discrete choices, which rounding
    may flip for some elements."""
    eps = MIXED_PRECISION_EPS[policy]
    for index, (got, want, s) in enumerate(zip(outputs, reference, spread)):
        got = numpy(ops.cast(got, "float32")).astype("float64")
        want = numpy(want).astype("float64")
        message = f"output {index} under {policy}"
        assert np.all(np.isfinite(got)), f"{message} is not finite (overflow?)"
        bound = MIXED_PRECISION_ULPS * (eps * np.abs(want) + s)
        error = np.abs(got - want)
        share = float(np.mean(error > bound)) if error.size else 0.0
        worst = np.unravel_index(np.argmax(error - bound), error.shape)
        assert share <= (FLIPPED_SHARE if discrete else 0.0), (
            f"{message}: {share:.0%} of the elements differ from float32 by more than"
            f" rounding explains, such as {got[worst]:.6g} against {want[worst]:.6g}"
            f" at {worst}: a formula that loses small values or overflows; or compute"
            " it in float32 (`compute_dtype: float32`)"
        )


@dataclass(frozen=True)
class Example:
    """A test module's layer and example inputs, as the checks below take them (as
    Keras's `run_layer_test` takes a layer class, its arguments and an input shape).

    `make_layer(**overrides)` makes the layer with the example's arguments and the same
    initial weights each time; `make_inputs(seed)` the example inputs: one array, a list
    of them, or a tuple for a layer that takes its inputs as arguments of their own.
    `output_names`: the layer returns its outputs in a dict with these names.
    """

    make_layer: Callable[..., Any]
    make_inputs: Callable[..., Any]
    input_shapes: dict[str, tuple[int, ...]]
    input_dtypes: dict[str, str]
    output_names: tuple[str, ...] | None = None
    separate: bool = False  # several inputs, each an argument of its own

    def outputs(self, outputs):
        """The outputs as a list, outputs by name in the declared order."""
        if self.output_names is not None and isinstance(outputs, dict):
            assert sorted(outputs) == sorted(self.output_names), (
                f"the layer returns the outputs {sorted(outputs)}, the declaration"
                f" {sorted(self.output_names)} (see `outputs`)"
            )
            return [outputs[name] for name in self.output_names]
        return as_list(outputs)

    def call(self, layer, inputs, **kwargs):
        """The outputs of `layer` called on `inputs`, as a list."""
        return self.outputs(layer(*arguments(inputs), **kwargs))

    def model(self, layer, inputs=None, keywords=None):
        """A functional model around `layer`; on the shapes and dtypes of `inputs` where
        given (a call case's own), and passing `keywords` (see `make_model`)."""
        shapes, dtypes = self.input_shapes, self.input_dtypes
        if inputs is not None:
            arrays = dict(zip(self.input_shapes, as_list(inputs)))
            shapes = {name: a.shape for name, a in arrays.items()}
            dtypes = {name: str(a.dtype) for name, a in arrays.items()}
        return make_model(layer, shapes, dtypes, keywords, separate=self.separate)


def assert_output_shapes(example, declared=None, declared_reads_layer=False):
    """The output shapes of an eager call, of a symbolic one (batch size None) and the
    ones Keras computes are the same, and the declared ones where `declared(*shapes)`
    (or `declared(layer, *shapes)`) states them."""
    layer = example.make_layer()
    returned = layer(*arguments(example.make_inputs()))
    if isinstance(returned, (list, tuple)):  # the other checks take a None as no output
        gone = [i for i, out in enumerate(returned) if out is None]
        assert not gone, (
            f"an eager call returns None as output {gone[0]}, which a symbolic call"
            " cannot (see `outputs` and their `when`)"
        )
    outputs = example.outputs(returned)
    shapes = list(example.input_shapes.values())
    eager = [tuple(out.shape) for out in outputs]
    if example.output_names is not None:
        symbolic = [
            keras.Input(shape=shape[1:], dtype=example.input_dtypes[name])
            for name, shape in example.input_shapes.items()
        ]
        given = tuple(symbolic) if example.separate else symbolic
        called = example.call(
            example.make_layer(), given if len(symbolic) > 1 else symbolic[0]
        )
        symbolic = [tuple(out.shape) for out in called]
    else:
        symbolic = [
            tuple(out.shape) for out in example.model(example.make_layer()).outputs
        ]
    batchless = [(None, *shape[1:]) for shape in shapes]
    if declared is not None:
        first = [layer] if declared_reads_layer else []
        for what, got, given in (
            ("eager", eager, shapes),
            ("symbolic", symbolic, batchless),
        ):
            want = declared(*first, *given)
            assert got == want, (
                f"the {what} call on inputs of shapes {given} returns outputs of shapes"
                f" {got}; the declaration says {want} (see `output_shape` or `outputs`)"
            )
    # Keras computes them with the layer's `compute_output_shape`, or by tracing `call`
    # where it has none (as keras-hub's MixtralMoeExperts).
    for given, expected in ((shapes, eager), (batchless, symbolic)):
        tensors = [keras.KerasTensor(shape) for shape in given]
        if len(tensors) == 1:
            specs = layer.compute_output_spec(tensors[0])
        elif example.separate:
            specs = layer.compute_output_spec(*tensors)
        else:
            specs = layer.compute_output_spec(tensors)
        if example.output_names is not None:
            assert list(specs) == list(example.output_names), (
                f"`compute_output_spec` names the outputs {list(specs)}, in that order;"
                f" the declaration {list(example.output_names)} (see `outputs`)"
            )
        computed = [tuple(spec.shape) for spec in example.outputs(specs)]
        assert expected == computed, (
            f"Keras computes output shapes {computed} for inputs of shapes {given};"
            f" a call returns {expected} (see `output_shape`, or the layer's"
            " `compute_output_shape`)"
        )


def assert_weights_match(
    layer, declared, aggregations=None, exact_count=False, sublayers=()
):
    """The built layer's weights are the `declared` ones: `{name: (shape, trainable)}`,
    or None for a weight the example's arguments leave out (None or never set, as
    Keras's ReversibleEmbedding leaves a tied kernel). `aggregations`: `{name: how}`;
    `exact_count`: the layer has no weights but these; `sublayers`: the attributes
    holding declared sublayers, each of which `call` must build."""
    made = {name: facts for name, facts in declared.items() if facts is not None}
    for name in sorted(declared.keys() - made.keys()):
        assert getattr(layer, name, None) is None, (
            f"weight {name} exists, yet its `when` is false for the example's arguments"
            f" (see `weights.{name}.when`)"
        )
    for name, (shape, trainable) in made.items():
        variable = getattr(layer, name, None)
        assert variable is not None, (
            f"weight {name} is not made, yet the example's arguments make its `when`"
            f" true (see `weights.{name}.when`)"
        )
        assert tuple(variable.shape) == tuple(shape), (
            f"weight {name} has shape {tuple(variable.shape)}, declared {tuple(shape)}"
            f" (see `weights.{name}.shape`)"
        )
        assert variable.trainable == trainable, (
            f"weight {name} has trainable={variable.trainable}, declared {trainable}"
            f" (see `weights.{name}.trainable`)"
        )
    for name, aggregation in (aggregations or {}).items():
        made_with = getattr(layer, name).aggregation
        assert made_with == aggregation, (
            f"weight {name} has aggregation {made_with!r}, declared {aggregation!r}"
            f" (see `weights.{name}.aggregation`)"
        )
    paths = [weight.path for weight in layer.weights]
    if exact_count:
        assert len(layer.weights) == len(made), (
            f"the layer has {len(layer.weights)} weights ({', '.join(paths)}), the"
            f" declaration {len(made)} ({', '.join(made)}) (see `weights`)"
        )
        trainable = [w.path for w in layer.trainable_weights]
        declared_trainable = [name for name, (_, t) in made.items() if t]
        assert len(trainable) == len(declared_trainable), (
            f"the layer has {len(trainable)} trainable weights"
            f" ({', '.join(trainable)}), the declaration {len(declared_trainable)}"
            f" ({', '.join(declared_trainable)}) (see `weights.*.trainable`)"
        )
    else:
        assert len(layer.weights) >= len(made), (
            f"the layer has {len(layer.weights)} weights ({', '.join(paths)}), fewer"
            f" than the {len(made)} declared ({', '.join(made)}) (see `weights`)"
        )
    for name in sublayers:
        built = getattr(layer, name).built
        message = f"sublayer {name} is never built: does `call` use it?"
        assert built, f"{message} (see `sublayers.{name}`)"


def assert_fit_step_trains_every_weight(example, has_trainable=True, cases=()):
    """One compiled `fit` step, from seeded weights (as the numeric checks take them: at
    the initializers a gradient may be exactly zero, as a LoRA's `lora_a` is while its
    `lora_b` starts at zeros), moves every trainable weight: a gradient reaches each.
    A weight the step leaves where it was (a step below its float32 spacing, as an
    attention key's bias gets: softmax ignores what it adds to every key) counts where
    the backend's gradient of the default call reaches it there. `has_trainable`: the
    declaration says the layer has some (else, where it has none, the test is skipped:
    the gradient test checks such a layer). `cases`: call cases
    `(keywords, inputs)` fitted through too, each on a layer it builds; a weight counts
    as trained when the default call or one case moves it (an untied reverse
    projection is read by its case alone)."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    model = example.model(layer)
    if not has_trainable and not layer.trainable_weights:
        pytest.skip("no trainable weights: the gradient test checks the layer instead")
    if has_trainable:
        assert layer.trainable_weights, (
            "the layer has no trainable weights, yet the declaration has some"
            " (see `weights.*.trainable`)"
        )
    set_seeded_weights(layer)
    moved = weights_a_fit_step_moves(example, layer, model, inputs)
    for keywords, case_inputs in cases:
        case = example.make_layer()
        case_model = example.model(case, case_inputs, keywords)
        set_seeded_weights(case)
        arrays = [v for v in keywords.values() if isinstance(v, np.ndarray)]
        given = [*as_list(case_inputs), *arrays] if arrays else case_inputs
        moved |= weights_a_fit_step_moves(example, case, case_model, given)
    through = " through the default call or any call case" if cases else ""
    left = [w for w in layer.trainable_weights if path_in_layer(w, layer) not in moved]
    if left:
        moved |= weights_the_gradient_reaches(layer, inputs)
        moved |= weights_inert_by_the_math(layer, inputs)
    for weight in left:
        message = f"no gradient reaches weight {weight.path}{through}"
        assert path_in_layer(weight, layer) in moved, message


def weights_the_gradient_reaches(layer, inputs):
    """The paths in `layer` of the trainable weights with a gradient not zero in a
    training call on `inputs`, by the backend's autodiff."""
    loss, values, _, _ = call_loss(layer, inputs)
    grads = gradients(loss, values)
    return {
        path_in_layer(weight, layer)
        for weight, grad in zip(layer.trainable_weights, grads)
        if np.any(numpy(grad))
    }


def weights_inert_by_the_math(layer, inputs, seed=0):
    """The paths in `layer` of the trainable weights a training call on `inputs` reads
    (set to NaN, the weight makes the outputs NaN) while its outputs do not depend on
    them (a random change of the weight leaves them as they were, but for rounding): a
    gradient of zero there is the math's, as an attention key's bias gets (softmax
    ignores what it adds to every key), not a weight left out of the call (it reads no
    NaN) or cut off from training (`stop_gradient`: the outputs still move with it)."""
    loss, values, _, magnitude = call_loss(layer, inputs, seed=seed)
    rng = np.random.default_rng(seed)
    base = float(numpy(loss(*values)))
    inert = set()
    for index, weight in enumerate(layer.trainable_weights):
        value = values[index]

        def swapped(new):
            return float(numpy(loss(*values[:index], new, *values[index + 1 :])))

        nan = ops.full(ops.shape(value), float("nan"), dtype=value.dtype)
        noise = ops.cast(rng.standard_normal(tuple(ops.shape(value))), value.dtype)
        moved = abs(swapped(value + noise) - base)
        if np.isnan(swapped(nan)) and moved <= 1e-4 * max(magnitude, 1e-30):
            inert.add(path_in_layer(weight, layer))
    return inert


def weights_a_fit_step_moves(example, layer, model, inputs):
    """The paths in `layer` of the trainable weights one compiled step of SGD on
    `model` (around `layer`), fitted to random targets, changes."""
    model, predicted = per_example_outputs(model, inputs)
    targets = random_targets(example.outputs(predicted))
    loss = "mse"
    if example.output_names is not None:  # one loss per output, by name
        loss = {name: "mse" for name in example.output_names}
        targets = dict(zip(example.output_names, targets))
    else:
        targets = targets if len(targets) > 1 else targets[0]
    optimizer = keras.optimizers.SGD(learning_rate=0.1)
    model.compile(optimizer=optimizer, loss=loss, jit_compile=JIT_COMPILE)
    before = [numpy(w) for w in layer.trainable_weights]
    # One step, as `fit` takes it, without `fit`'s data pipeline and callbacks; the
    # model takes a list (as in `predict`).
    logs = model.train_on_batch(as_list(inputs), targets, return_dict=True)
    message = f"a fit step's loss is {logs['loss']}, not finite: the outputs overflow"
    assert np.isfinite(logs["loss"]), message
    return {
        path_in_layer(weight, layer)
        for weight, old in zip(layer.trainable_weights, before)
        if np.any(numpy(weight) != old)
    }


def assert_mixed_precision_matches_float32(
    example, policy, policy_sublayers=(), discrete=None
):
    """Under the mixed precision `policy` the layer computes in its compute dtype, keeps
    float32 weights, and its outputs are as close to float32's as rounding explains.
    `policy_sublayers`: attributes holding sublayers given the layer's dtype policy
    (one left on float32 is nearer the float32 reference: its policy shows it);
    `discrete`: an op of the layer that makes discrete choices, which rounding may flip
    for some elements."""
    inputs = example.make_inputs()
    layer = example.make_layer()
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    mixed = example.make_layer(dtype=policy)
    mixed(*arguments(inputs))
    mixed.set_weights(layer.get_weights())
    outputs = example.call(mixed, inputs, training=False)
    trained = example.call(mixed, inputs, training=True)
    for out in outputs + trained:
        if is_float(out):
            dtype = keras.backend.standardize_dtype(out.dtype)
            assert dtype == mixed.compute_dtype, (
                f"under {policy} an output is {dtype}, not the compute dtype"
                f" {mixed.compute_dtype} (see `compute_dtype`)"
            )
    for weight in mixed.weights:
        if is_float(weight):
            dtype = keras.backend.standardize_dtype(weight.dtype)
            assert dtype == "float32", (
                f"under {policy} weight {weight.path} is {dtype}, not float32: make it"
                " with `add_weight`, which keeps the variable dtype (see `weights`)"
            )
            message = f"under {policy} weight {weight.path} is not finite"
            assert np.all(np.isfinite(numpy(weight))), message
    for name in policy_sublayers:
        got = getattr(mixed, name).dtype_policy.name
        assert got == mixed.dtype_policy.name, (
            f"sublayer {name} has the dtype policy {got}, not the layer's"
            f" {mixed.dtype_policy.name}: pass `dtype=self.dtype_policy` (see"
            f" `sublayers.{name}`)"
        )
    # float32 from what the mixed layer computes from: the inputs rounded to its dtype
    rounded_inputs = rounded(inputs, mixed.compute_dtype)
    reference = example.call(layer, rounded_inputs, training=False)
    spread = rounding_spread(layer, rounded_inputs, policy, example.outputs)
    assert_close_to_float32(
        outputs, reference, spread, policy, discrete=discrete is not None
    )


def assert_float32_and_finite(layer, names):
    """The named weights (a mixed precision layer's state) are finite float32."""
    for name in names:
        weight = getattr(layer, name)
        dtype = keras.backend.standardize_dtype(weight.dtype)
        assert dtype == "float32", (
            f"state {name} is {dtype} under mixed precision, not float32"
            f" (see `weights.{name}`)"
        )
        message = f"state {name} is not finite after a training call"
        assert np.all(np.isfinite(numpy(weight))), f"{message} (see `updates.{name}`)"


def assert_inference_is_deterministic(example):
    """Two inference calls on the same inputs give the same outputs."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    first = example.call(layer, inputs, training=False)
    second = example.call(layer, inputs, training=False)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(numpy(a), numpy(b))


def assert_training_changes_the_output(example):
    """A training call and an inference call on the same inputs differ."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    trained = example.call(layer, inputs, training=True)
    inferred = example.call(layer, inputs, training=False)
    assert any(
        not np.allclose(numpy(a), numpy(b)) for a, b in zip(trained, inferred)
    ), "the output ignores `training`"


def assert_inference_follows_the_moved_state(example):
    """Training calls move the state, and the inference output with it."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    first = example.call(layer, inputs, training=False)
    for seed in (1, 2):
        example.call(layer, example.make_inputs(seed), training=True)
    moved = example.call(layer, inputs, training=False)
    assert any(
        not np.allclose(numpy(a), numpy(b)) for a, b in zip(first, moved)
    ), "the inference output ignores the state that training moved"


def assign_stated_weights(layer, weights):
    """Give the built layer the stated `weights` (`{name: value}`), each its shape."""
    for name, value in weights.items():
        value = np.array(value)
        weight = getattr(layer, name)
        assert value.shape == tuple(weight.shape), (
            f"the stated value of weight {name} has shape {value.shape}, the weight"
            f" {tuple(weight.shape)} (see `example.weights.{name}`)"
        )
        weight.assign(value)


def assert_stated_outputs(
    example, inputs, expected, atol, training=False, weights=None
):
    """The outputs of a call on the stated `inputs` (`{name: value}`) are the `expected`
    arrays, within `atol`; `weights`: `{name: value}` the layer's weights are given
    first."""
    arrays = [
        np.array(inputs[name], dtype=example.input_dtypes[name])
        for name in example.input_shapes
    ]
    if len(arrays) == 1:
        inputs = arrays[0]
    else:
        inputs = tuple(arrays) if example.separate else arrays
    layer = example.make_layer()
    layer(*arguments(inputs))
    assign_stated_weights(layer, weights or {})
    outputs = example.call(layer, inputs, training=training)
    assert len(outputs) == len(expected), (
        f"the layer returns {len(outputs)} outputs, the example states {len(expected)}"
        " (see `example.expected`)"
    )
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(numpy(got), want, rtol=0, atol=atol)


def assert_base_layer_arguments_pass_through(example):
    """`__init__` takes the base layer's keyword arguments (`name`, `dtype`, ...) and
    passes them to `super().__init__()`."""
    try:
        layer = example.make_layer(name="renamed_layer")
    except TypeError as exc:
        pytest.fail(
            "__init__ does not take **kwargs for the base layer (name, dtype, ...):"
            f" {exc}"
        )
    message = "__init__ does not pass **kwargs to super().__init__()"
    assert layer.name == "renamed_layer", message


def from_config(cls, config):
    """`cls.from_config` on a copy of `config`: Keras's own classes may take what they
    deserialize out of the config they are given (`Wrapper.from_config` pops `layer`),
    which Keras's own layer tests allow (they keep the config as JSON first)."""
    return cls.from_config(copy.deepcopy(config))


def assert_config_round_trip(example, constructor_args):
    """`get_config()` returns each of `constructor_args` (names), `from_config` makes a
    layer of the same config, and that layer, given the same weights, computes the same
    outputs."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    layer(*arguments(inputs))
    config = layer.get_config()
    for name in constructor_args:
        message = f"get_config() does not return constructor argument {name!r}"
        assert name in config, message
    clone = from_config(type(layer), config)
    again = clone.get_config()
    changed = sorted(k for k in {*config, *again} if config.get(k) != again.get(k))
    assert again == config, (
        f"`from_config(get_config())` makes a layer of another config: {changed} differ"
        f" ({ {k: config.get(k) for k in changed} } became"
        f" { {k: again.get(k) for k in changed} })"
    )
    clone(*arguments(inputs))
    clone.set_weights(layer.get_weights())
    ours = example.call(layer, inputs, training=False)
    theirs = example.call(clone, inputs, training=False)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(numpy(a), numpy(b), rtol=1e-6)


def assert_other_sides_call_and_round_trip(example, sides):
    """The layer made with each of `sides` (`{args, made, keys}`: params that flip
    declared `when`s, whether each attribute under one is then made, and its key in the
    declaration; `returns`, where an output's `when` turns: the outputs then returned)
    calls on the example inputs with finite outputs, makes and leaves out what its
    `when`s say, returns the outputs they say, and its config round-trips to a layer
    computing the same."""
    inputs = example.make_inputs()
    for side in sides:
        where = ", ".join(f"{k}={v!r}" for k, v in side["args"].items())
        keys = ", ".join(f"`{key}`" for key in side["keys"].values())
        layer = example.make_layer(**side["args"])
        try:
            outputs = example.call(layer, inputs, training=False)
        except Exception as error:  # the branch under test: say which, and where
            pytest.fail(
                f"with {where} the layer's call fails: {type(error).__name__}: {error}"
                f" (see {keys}, and the code that reads them)"
            )
        if "returns" in side:
            returned = side["returns"]
            assert len(outputs) == len(returned), (
                f"with {where} the layer returns {len(outputs)} outputs; the declared"
                f" `when`s say {len(returned)}: {returned} (see {keys})"
            )
        for index, out in enumerate(outputs):
            message = f"with {where} output {index} is not finite (see {keys})"
            assert not is_float(out) or np.all(np.isfinite(numpy(out))), message
        for name, made in side["made"].items():
            got = getattr(layer, name, None) is not None
            said, key = "made" if made else "left out", side["keys"][name]
            assert got == made, (
                f"with {where} {name} is {'made' if got else 'left out'}; its"
                f" `when` says {said} (see `{key}`)"
            )
        config = layer.get_config()
        clone = from_config(type(layer), config)
        message = f"with {where} `from_config(get_config())` makes another config"
        assert clone.get_config() == config, message
        clone(*arguments(inputs))
        clone.set_weights(layer.get_weights())
        theirs = example.call(clone, inputs, training=False)
        for ours, again in zip(outputs, theirs):
            np.testing.assert_allclose(
                numpy(again), numpy(ours), rtol=1e-6, err_msg=f"with {where}"
            )


def assert_saves_and_loads_without_custom_objects(example, folder):
    """A model around the layer at seeded weights, saved in `folder` as a `.keras` file
    and loaded without `custom_objects` (the class registered itself), holds a layer of
    its class and predicts what it did."""
    layer = example.make_layer()
    model = example.model(layer)
    inputs = example.make_inputs()
    set_seeded_weights(layer)
    expected = example.outputs(predict(model, inputs))
    path = Path(folder) / "model.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    kinds = [type(other).__name__ for other in loaded.layers]
    assert any(isinstance(other, type(layer)) for other in loaded.layers), (
        f"the loaded model holds layers {kinds}, none a {type(layer).__name__}: is the"
        " class registered (`@keras.saving.register_keras_serializable`)?"
    )
    reloaded = example.outputs(predict(loaded, inputs))
    for ours, theirs in zip(expected, reloaded):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


# A statistic of random draws may stray this many standard errors from its mean.
STANDARD_ERRORS = 5

# How many times the example batch is repeated in a training call whose statistics
# are checked: more draws, a smaller standard error.
DRAWS = 64


def all_equal(outputs, others):
    """Whether two calls' outputs are the same, element for element."""
    return all(np.array_equal(numpy(a), numpy(b)) for a, b in zip(outputs, others))


def assert_mean_near(values, expected, what):
    """The mean of many random draws is within `STANDARD_ERRORS` of `expected`."""
    values = np.asarray(numpy(values), dtype="float64").ravel()
    error = STANDARD_ERRORS * values.std() / math.sqrt(values.size)
    mean = values.mean()
    assert abs(mean - expected) <= error + 1e-7, (
        f"the mean of {what} is {mean:.4g}, expected {expected} +- {error:.3g}"
        f" ({values.size} draws)"
    )


def repeated(inputs, times):
    """Every input's batch repeated `times` times, one copy after the other."""
    return like(inputs, [np.concatenate([a] * times) for a in as_list(inputs)])


def assert_mean_of_draws_is(trained, inferred, draws):
    """`trained` holds `draws` training outputs of the example batch, one after the
    other; their mean is `inferred`. Tested on three sums of the outputs (weighted by
    the inference output, by one and by its absolute value: a scale, a shift and a
    sign-dependent bias), each over the draws, within `STANDARD_ERRORS`."""
    for index, (got, want) in enumerate(zip(trained, inferred)):
        want = numpy(want).astype("float64")
        drift = numpy(got).astype("float64").reshape((draws,) + want.shape) - want
        weights = {"": want, " shifted": 1.0, " sign-dependently": np.abs(want)}
        for what, weight in weights.items():
            sums = np.sum((drift * weight).reshape(draws, -1), axis=1)
            error = STANDARD_ERRORS * sums.std() / math.sqrt(draws)
            floor = 1e-6 * float(np.sum(np.abs(want * weight)))  # float rounding
            assert abs(sums.mean()) <= error + floor, (
                f"output {index}: the mean of {draws} training outputs is{what}"
                f" off the inference output by {sums.mean():.4g} (+- {error:.3g})"
            )


def constant_along(inputs, axes, rank):
    """Each input of `rank` dims with its first slice along `axes` repeated there."""
    arrays = []
    for a in as_list(inputs):
        if a.ndim == rank:
            for axis in axes:
                a = np.repeat(np.take(a, [0], axis=axis), a.shape[axis], axis=axis)
        arrays.append(a)
    return like(inputs, arrays)


def assert_noise_shared_along(trained, inferred, axes, rank):
    """Along `axes` of the outputs of `rank` dims, training differs from inference by
    the same amount or the same factor: one random draw serves them all."""
    for index, (got, want) in enumerate(zip(trained, inferred)):
        got, want = numpy(got).astype("float64"), numpy(want).astype("float64")
        for axis in axes if got.ndim == rank else ():
            got_0, want_0 = np.take(got, [0], axis=axis), np.take(want, [0], axis=axis)
            shift = np.allclose(got - want, got_0 - want_0, rtol=1e-5, atol=1e-6)
            # got / want == got_0 / want_0, multiplied out: no division by zero
            factor = np.allclose(got * want_0, got_0 * want, rtol=1e-5, atol=1e-6)
            message = f"output {index} draws its noise more than once along axis {axis}"
            assert shift or factor, message


def assert_the_seed_decides_the_random_draws(example, seed, draws_hint=""):
    """Two layers of the same `seed` draw the same numbers in a training call, and one
    of another seed draws others. Where two training calls give the same outputs the
    example draws nothing: the check is skipped, saying so and `draws_hint` (what to
    give the example)."""
    inputs = example.make_inputs()
    layers = [
        example.make_layer(),
        example.make_layer(),
        example.make_layer(seed=seed + 1),
    ]
    for layer in layers:  # the same weights: only the seeds differ
        layer(*arguments(inputs))
        layer.set_weights(layers[0].get_weights())
    first, again, other = [
        example.call(layer, inputs, training=True) for layer in layers
    ]
    for a, b in zip(first, again):
        message = "the same seed gave different outputs"
        np.testing.assert_array_equal(numpy(a), numpy(b), message)
    if all_equal(first, other):
        if all_equal(first, example.call(layers[0], inputs, training=True)):
            pytest.skip(
                "the example draws nothing: two training calls gave the same outputs;"
                f" {draws_hint}"
            )
        pytest.fail("a different seed gave the same outputs")


def assert_draws_have_the_declared_statistics(example, statistics):
    """In a training call on the example batch repeated `DRAWS` times, each statistic
    `(values, mean, what)` of `statistics(inputs, outputs)` has its declared mean."""
    layer = example.make_layer()
    inputs = repeated(example.make_inputs(), DRAWS)  # many draws: a small error
    outputs = layer(*arguments(inputs), training=True)
    for values, mean, what in statistics(inputs, outputs):
        assert_mean_near(values, mean, what)


def assert_inference_is_the_mean_of_training(example):
    """The mean of `DRAWS` training calls' outputs, at seeded weights, is the inference
    output."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    inferred = example.call(layer, inputs, training=False)
    trained = example.call(layer, repeated(inputs, DRAWS), training=True)
    assert_mean_of_draws_is(trained, inferred, DRAWS)


def assert_noise_is_drawn_once_per_cell(example, declared, declared_reads_layer=False):
    """A training call draws its noise once per cell of the shape `declared(*shapes)`
    (or `declared(layer, *shapes)`) states over the input shapes: along each axis where
    that shape is 1, inputs constant there come out shifted or scaled alike."""
    shapes = list(example.input_shapes.values())
    layer = example.make_layer()
    shape = declared(*([layer] if declared_reads_layer else []), *shapes)
    axes = [axis for axis, dim in enumerate(shape) if dim == 1 and shapes[0][axis] > 1]
    inputs = constant_along(example.make_inputs(), axes, len(shape))
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    inferred = example.call(layer, inputs, training=False)
    trained = example.call(layer, inputs, training=True)
    assert_noise_shared_along(trained, inferred, axes, len(shape))


def make_mask(shape, seed=0):
    """A mask of the first two axes: the first step of each row kept, the last
    masked, the others drawn."""
    mask = np.random.default_rng(seed).random(shape) < 0.6
    mask[:, 0], mask[:, -1] = True, False
    return mask


class AttachMask(keras.layers.Layer):
    """Passes its input on with `mask` attached, as a masking layer before another."""

    def __init__(self, mask, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.attached = mask

    def call(self, x):
        return ops.copy(x)  # a tensor of its own: the caller's keeps no mask

    def compute_mask(self, x, mask=None):
        return ops.convert_to_tensor(self.attached)


def with_mask(inputs, mask):
    """The inputs, the first with `mask` attached: the layer gets it as Keras hands it
    on, in `call(mask=...)` where `call` takes one, and to `compute_mask` (keras-hub's
    and Keras's layers that support masking take no `mask` argument)."""
    arrays = as_list(inputs)
    return like(inputs, [AttachMask(mask)(arrays[0]), *arrays[1:]])


class ReadMask(keras.layers.Layer):
    """Keeps the mask Keras hands it, as any layer after another gets it."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.received = None

    def call(self, x, mask=None):
        self.received = mask
        return x


def mask_of(output):
    """The mask a layer's output carries to the next layer, or None."""
    reader = ReadMask()
    reader(output)
    return reader.received


def assert_mask_is(carried, expected):
    if expected is None:
        assert carried is None, "the output carries a mask where none is declared"
    else:
        assert carried is not None, "the output carries no mask"
        np.testing.assert_array_equal(numpy(carried), numpy(expected))


def passed_through(layer, inputs, mask):
    """The mask the outputs of a layer that passes its input's mask on carry."""
    return mask


def assert_masking(example, mask, output_mask=passed_through):
    """A call on the inputs with `mask` attached to the first gives outputs of the
    shapes of a call without it, and they carry the mask `output_mask(layer, inputs,
    mask)` computes (None: no mask)."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    outputs = example.call(layer, with_mask(inputs, mask))
    unmasked = example.call(layer, inputs)
    masked_shapes = [tuple(o.shape) for o in outputs]
    shapes = [tuple(o.shape) for o in unmasked]
    message = f"with a mask the outputs have shapes {masked_shapes}, without {shapes}"
    assert masked_shapes == shapes, message
    # The mask Keras hands the next layer: from `compute_mask`, or none where the layer
    # does not support masking (as Keras's Embedding without `mask_zero`).
    assert_mask_is(mask_of(outputs[0]), output_mask(layer, inputs, mask))


def assert_masked_steps_do_not_change_the_output(example, mask):
    """With `mask` attached to the first input, changing the steps it hides changes no
    output at the steps it keeps (no output at all, where the outputs carry no mask)."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    changed = with_masked_steps_changed(inputs, mask, example.make_inputs(1))
    outputs = example.call(layer, with_mask(inputs, mask))
    again = example.call(layer, with_mask(changed, mask))
    kept = None if mask_of(outputs[0]) is None else mask
    assert_same_where_kept(outputs, again, kept)


# Central differences along a random direction, each tensor stepping by a fraction of
# its size, must match the gradient within a fraction of the loss's magnitude (the
# sum of its terms' sizes). In float64 both errors, rounding and truncation, stay
# under 1e-10. In float32 (a layer computing in it, or Keras computing parts of a
# float64 layer in it, as on JAX and torch) a step of 1e-3 keeps rounding (1e-7 / 1e-3)
# and the kinks it crosses (ReLU) under 1e-4: the examples measured at most 5e-5.
FINITE_DIFFERENCES = {"float64": (1e-5, 1e-7), "float32": (1e-3, 1e-3)}


def floats_as(inputs, dtype):
    arrays = [a.astype(dtype) if is_float(a) else a for a in as_list(inputs)]
    return like(inputs, arrays)


def gradients(fn, args):
    """Gradients of the scalar `fn(*args)` with respect to each arg, by the backend's
    own autodiff."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        tensors = [tf.convert_to_tensor(a) for a in args]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            total = fn(*tensors)
        return tape.gradient(total, tensors, unconnected_gradients="zero")
    if backend == "jax":
        import jax

        return jax.grad(fn, argnums=tuple(range(len(args))))(*args)
    if backend == "torch":
        import torch

        tensors = [
            ops.convert_to_tensor(a).detach().clone().requires_grad_(True) for a in args
        ]
        total = fn(*tensors)
        if total.requires_grad:  # else nothing reaches it: every gradient is zero
            total.backward()
        return [t.grad if t.grad is not None else torch.zeros_like(t) for t in tensors]
    pytest.skip(f"the {backend} backend has no autodiff")


def backend_gradients(fn, args, upstream):
    """Gradients of sum(fn(*args) * upstream), by the backend's own autodiff."""
    return gradients(lambda *a: ops.sum(fn(*a) * upstream), args)


def call_loss(layer, inputs, training=True, seed=0):
    """sum(outputs * upstream) over a call of `layer`, as a function of the values of
    its trainable weights and float inputs; the rest of its state stays as it is, and
    the global seed is set, so a random layer draws the same numbers in every call.
    Returns the function, those values, their names, and the magnitude of the sum's
    terms."""
    arrays = as_list(inputs)
    floats = [i for i, a in enumerate(arrays) if is_float(a)]
    fixed = [v.value for v in layer.non_trainable_variables]
    count = len(layer.trainable_variables)
    # `stateless_call` passes `training` on as it is, whether `call` takes it or not.
    takes_training = "training" in inspect.signature(layer.call).parameters
    flags = {"training": training} if takes_training else {}

    def outputs(*values):
        xs = list(arrays)
        for i, x in zip(floats, values[count:]):
            xs[i] = x
        called, _ = layer.stateless_call(
            list(values[:count]), fixed, *arguments(like(inputs, xs)), **flags
        )
        return [out for out in as_list(called) if is_float(out)]

    values = [v.value for v in layer.trainable_variables]
    values += [ops.convert_to_tensor(arrays[i]) for i in floats]
    rng = np.random.default_rng(seed)
    base = [numpy(out).astype("float64") for out in outputs(*values)]
    if not base:  # indices, a match: no gradient flows through integer outputs
        pytest.skip("the outputs are all integers: no gradient to check")
    upstream = [rng.standard_normal(out.shape) for out in base]

    def loss(*values):
        keras.utils.set_random_seed(seed)  # torch draws unseeded dropout from its own
        terms = [
            ops.sum(out * ops.cast(u, out.dtype))
            for out, u in zip(outputs(*values), upstream)
        ]
        return sum(terms[1:], terms[0])

    names = [v.path for v in layer.trainable_variables]
    names += [f"input {i}" for i in floats]
    magnitude = sum(float(np.sum(np.abs(out * u))) for out, u in zip(base, upstream))
    return loss, values, names, magnitude


def assert_gradients_match_finite_differences(
    example, precision="float64", training=True
):
    """The gradient of a training call (of an inference call, `training` False), with
    respect to every float input and trainable weight, by the backend's autodiff,
    matches central finite differences of the same call, along a random direction
    through all of them, at seeded weights. `precision`: the dtype the layer computes
    in. Float32 steps are taken on JAX (it keeps 32 bits unless switched, and Keras
    computes float64 ops in float32 there), on torch where Keras cannot run the layer in
    float64 (some ops come back in float32 and then mix), and where part of it computes
    in float32 (its rounding then shows in differences of a thousandth of the step). Of
    several inputs, each must reach the outputs."""
    inputs = example.make_inputs()
    if precision == "float64" and keras.backend.backend() != "jax":
        try:
            layer = example.make_layer(dtype="float64")
            cast = floats_as(inputs, "float64")
            layer(*arguments(cast))
            set_seeded_weights(layer)
            checked = call_loss(layer, cast, training)
        except Exception:  # the backend cannot compute this layer in float64
            checked = None
        if checked is not None:
            return _compare_with_finite_differences(*checked, precision)
    layer = example.make_layer()
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    _compare_with_finite_differences(*call_loss(layer, inputs, training), "float32")


def _compare_with_finite_differences(loss, values, names, magnitude, precision):
    if not values:
        pytest.skip("nothing to differentiate: no float input, no trainable weight")
    if keras.backend.backend() == "jax":  # one compilation for gradient and values
        import jax

        both = jax.jit(jax.value_and_grad(loss, argnums=tuple(range(len(values)))))
        grads = both(*values)[1]
        loss = lambda *moved: both(*moved)[0]  # noqa: E731
    else:
        grads = gradients(loss, values)
    grads = [numpy(g).astype("float64") for g in grads]
    of_inputs = [(n, g) for n, g in zip(names, grads) if n.startswith("input ")]
    unused = [n for n, g in of_inputs if not np.any(g)] if len(of_inputs) > 1 else []
    assert not unused, f"the outputs do not depend on {', '.join(unused)}"
    base = [numpy(v).astype("float64") for v in values]
    dtypes = [keras.backend.standardize_dtype(v.dtype) for v in values]
    rng = np.random.default_rng(1)

    def slope(direction, t):
        def at(t):
            moved = [b + t * d for b, d in zip(base, direction)]
            moved = [ops.convert_to_tensor(m.astype(d)) for m, d in zip(moved, dtypes)]
            return float(numpy(loss(*moved)))

        return (at(t) - at(-t)) / (2 * t)

    def sizes(only=None):
        return [
            (
                rng.standard_normal(b.shape) * (np.sqrt(np.mean(b * b)) or 1.0)
                if only in (None, k)
                else np.zeros(b.shape)
            )
            for k, b in enumerate(base)
        ]

    if precision == "float64":
        direction, step = sizes(), FINITE_DIFFERENCES["float64"][0]
        if (
            abs(slope(direction, step / 1000) - slope(direction, step))
            > 1e-4 * magnitude
        ):
            precision = "float32"
    step, rtol = FINITE_DIFFERENCES[precision]
    tolerance = rtol * magnitude
    for attempt in range(4):
        direction = sizes()
        numeric = slope(direction, step)
        if abs(slope(direction, step / 2) - numeric) > tolerance:
            continue  # a kink or a jump (a discrete choice) within the step: not here
        autodiff = sum(float(np.sum(g * d)) for g, d in zip(grads, direction))
        if abs(autodiff - numeric) <= tolerance:
            return
        wrong = [f"{autodiff:.6g} against {numeric:.6g}"]
        for k, name in enumerate(names):
            direction = sizes(only=k)
            numeric = slope(direction, step)
            autodiff = float(np.sum(grads[k] * direction[k]))
            if abs(autodiff - numeric) > tolerance:
                wrong.append(f"{name} ({autodiff:.6g} against {numeric:.6g})")
        message = "the gradient differs from finite differences"
        pytest.fail(f"{message} in {precision}: {'; '.join(wrong)}")
    pytest.skip("the output jumps within a step of finite differences, every way tried")


def replace_ops(layer, declared, names):
    """Put the ops as `declared` (a class whose methods take the layer as `self`) in
    place of the layer's own; returns the set of the names its calls reach."""
    reached = set()

    def bound(name):
        def op(*args):
            reached.add(name)
            return getattr(declared, name)(layer, *args)

        return op

    for name in names:
        object.__setattr__(layer, name, bound(name))
    return reached


def assert_gradients_come_from_the_declared_ops(example, declared, op_names, reached):
    """The gradients of a training call, at seeded weights, are those it has with the
    ops of `op_names` as `declared` (a class whose methods take the layer as `self`) in
    place of the layer's own, and that call reaches each op of `reached`."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    loss, values, names, _ = call_loss(layer, inputs)
    actual = gradients(loss, values)
    reached_now = replace_ops(layer, declared, op_names)
    expected = gradients(loss, values)
    missed = [name for name in reached if name not in reached_now]
    assert not missed, f"the layer's call never reaches its ops {missed}"
    for name, got, want in zip(names, actual, expected):
        np.testing.assert_allclose(
            numpy(got), numpy(want), rtol=1e-5, atol=1e-6, err_msg=name
        )


# Layers with declared layouts are tested under ModelParallel on this many host CPU
# devices. JAX fixes the device count when it starts: the conftest asks for them under
# KERAS_BACKEND=jax; a process without them starts a JAX process that has them.
HOST_DEVICES = 8

MODEL_PARALLEL_SKIP = (
    "keras.distribution.ModelParallel runs on JAX only (Keras's TensorFlow distribution"
    " backend is a prototype marked DO NOT USE, torch has none): run under"
    " KERAS_BACKEND=jax"
)

# Sharded and one-device numbers differ by the order of float32 sums across devices.
MODEL_PARALLEL_TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


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
    """What `model_parallel_report` saw of `test_file`'s layer: in this process when it
    has the host devices (the report seeds Keras's random generators), else in a fresh
    one that has them."""
    if keras.backend.backend() != "jax":
        pytest.skip(MODEL_PARALLEL_SKIP)
    if keras.distribution.list_devices() == [f"cpu:{i}" for i in range(HOST_DEVICES)]:
        # in the form the other process hands it over
        return json.loads(json.dumps(model_parallel_report(test_file)))
    flags = os.environ.get("XLA_FLAGS", "")
    flags = re.sub(r"--xla_force_host_platform_device_count=\S+", "", flags)
    count = f"--xla_force_host_platform_device_count={HOST_DEVICES}"
    env = {
        **{k: v for k, v in os.environ.items() if k != "JAX_NUM_CPU_DEVICES"},
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
    batch = len(inputs[0] if isinstance(inputs, (list, tuple)) else inputs)
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
    # Declared but not made (`when` false): not a weight, and None on the layer where
    # the path starts (a sublayer renamed by hand is there; its path is not).
    paths = {path_in_layer(weight, layer) for weight in layer.weights}
    report["absent"] = [
        p
        for p in module.LAYOUTS
        if p not in paths and getattr(layer, p.split("/")[0], None) is None
    ]
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
    batch = len(inputs[0] if isinstance(inputs, (list, tuple)) else inputs)
    targets = targets if len(targets) > 1 else targets[0]
    model.fit(inputs, targets, batch_size=batch, epochs=1, shuffle=False, verbose=0)
    return lists(model.weights)


def lists(arrays):
    return [numpy(a).tolist() for a in arrays]


def assert_layout_map_keys_the_declared_weights(example, get_layout_map, axes, layouts):
    """The layout map `get_layout_map` makes for a mesh over `axes` gives each weight of
    the layer, by its path and inside an outer model, its `layouts` axes (by path in the
    layer), and none to the weights of a layer named by hand."""
    devices = [f"cpu:{i}" for i in range(HOST_DEVICES)]
    mesh = keras.distribution.DeviceMesh(mesh_shape(axes), axes, devices)
    layout_map = get_layout_map(mesh)
    layer = example.make_layer()
    layer(*arguments(example.make_inputs()))
    for weight in layer.weights:
        declared = layouts.get(path_in_layer(weight, layer))
        for path in (weight.path, f"outer_model/{weight.path}"):
            layout = layout_map[path]
            got = None if layout is None else tuple(layout.axes)
            assert got == declared, (
                f"the layout map gives {path} the axes {got}, declared {declared}"
                " (see `layouts`)"
            )
    renamed = example.make_layer(name="named_by_hand")
    renamed(*arguments(example.make_inputs()))
    keyed = [w.path for w in renamed.weights if layout_map[w.path] is not None]
    assert not keyed, (
        f"the layout map keys {keyed} of a layer named by hand: its keys must name the"
        " layer (see `layouts`)"
    )


def assert_sharded_as_declared(report, layouts):
    """Under ModelParallel (`report`, from `run_model_parallel`) each weight of the
    layer is split over the mesh axes of its `layouts` entry, and the others over none.
    """
    shardings = report["shardings"]
    for path, axes in layouts.items():
        if path not in report["absent"]:
            got = shardings.get(path)
            message = f"{path} is sharded over {got}, declared {list(axes)}"
            assert got == list(axes), f"{message} (see `layouts`)"
    for path, axes in shardings.items():
        message = f"{path} is sharded: it declares no layout"
        assert path in layouts or axes == [None] * len(axes), message


def assert_sharded_outputs_match_one_device(report):
    """Under ModelParallel the layer computes what it computes on one device."""
    for got, want in zip(report["sharded_outputs"], report["outputs"]):
        np.testing.assert_allclose(got, want, **MODEL_PARALLEL_TOLERANCE)


def assert_sharded_fit_step_trains_like_one_device(report):
    """One fit step under ModelParallel leaves the weights one on one device does."""
    for got, want in zip(report["sharded_trained"], report["trained"]):
        np.testing.assert_allclose(got, want, **MODEL_PARALLEL_TOLERANCE)


def assert_sharded_model_saves_and_loads(report):
    """A model saved under ModelParallel loads sharded alike, computing the same."""
    assert report["loaded_shardings"] == report["shardings"], (
        f"the loaded model is sharded as {report['loaded_shardings']}, the saved one as"
        f" {report['shardings']}"
    )
    for got, want in zip(report["loaded_outputs"], report["trained_outputs"]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def assert_warns_of_a_layer_named_by_hand(report, layouts):
    """Keras warns of each declared weight (by path) of a layer whose name the layout
    map does not know, and of nothing for the layer it does."""
    assert not report["warnings"], f"Keras warned: {report['warnings']}"
    # Each declared weight, by path (a generated sublayer warns of its own weights too).
    warned = {message.split()[0] for message in report["renamed_warnings"]}
    absent = report["absent"]
    expected = {f"named_by_hand/{p}" for p in layouts if p not in absent}
    message = f"Keras warned of {sorted(warned)}, expected {sorted(expected)}"
    assert warned == expected, f"{message} (see `layouts`)"


def call_args(values, dtypes):
    """The example's value of each keyword argument of `call`: the tensors (those with
    a dtype in `dtypes`) as arrays."""
    return {
        name: np.array(value, dtype=dtypes[name]) if name in dtypes else value
        for name, value in values.items()
    }


def call_cases(example, given=None, cases=()):
    """Each call case as `(name, keywords, inputs)`: one per keyword argument in `given`
    (`call_args`) on the example inputs, then each of `cases` (`{name, args,
    input_shapes, input_dtypes, input_range}`) on inputs of its own."""
    inputs = example.make_inputs()
    made = [(name, {name: value}, inputs) for name, value in (given or {}).items()]
    for case in cases:
        dtypes = case["input_dtypes"]
        arrays = make_inputs(case["input_shapes"], dtypes, case["input_range"])
        made.append(
            (case["name"], call_args(case["args"], dtypes), like(inputs, arrays))
        )
    return made


def keyword_cases(example, values):
    """A call case (`call_cases`) for each keyword argument of `values` at its value, on
    the example inputs."""
    inputs = example.make_inputs()
    return [
        (f"{name}={value!r}", {name: value}, inputs) for name, value in values.items()
    ]


def assert_matches_numpy_reference(
    example, reference, atol, cases=(), weights=None, state_moves_first=False
):
    """The inference outputs of the default call and of each call case (`call_cases`),
    on a layer built by that call, are `reference(layer, inputs, **keywords)` within
    `atol`. `weights`: `{name: value}` the layer is given (else seeded weights);
    `state_moves_first`: a training call on other inputs moves the layer's state."""
    default = ("the default call", {}, example.make_inputs())
    for case, keywords, inputs in [default, *cases]:
        layer = example.make_layer()
        layer(*arguments(inputs), **keywords)
        if weights is not None:
            assign_stated_weights(layer, weights)
        else:
            set_seeded_weights(layer)
        if state_moves_first:
            layer(*arguments(example.make_inputs(1)), training=True)
        outputs = example.call(layer, inputs, training=False, **keywords)
        expected = example.outputs(reference(layer, inputs, **keywords))
        assert len(outputs) == len(expected), (
            f"{case}: the layer returns {len(outputs)} outputs, the reference"
            f" {len(expected)} (see `example.reference`)"
        )
        for got, want in zip(outputs, expected):
            np.testing.assert_allclose(
                numpy(got), want, rtol=1e-5, atol=atol, err_msg=case
            )


def assert_each_keyword_argument_runs(example, cases, symbolic_shapes=False):
    """Each call case (`call_cases`), on a layer built by a call with its arguments,
    gives finite float outputs; `symbolic_shapes`: the output shapes depend on the
    arguments, and the symbolic outputs with them are the eager ones."""
    for name, keywords, inputs in cases:
        # Built by a call with the argument, as a layer whose structure depends on it
        # must be (keras-hub's TransformerDecoder builds cross-attention for
        # `encoder_sequence`).
        layer = example.make_layer()
        outputs = example.call(layer, inputs, training=False, **keywords)
        for out in outputs:
            if is_float(out):
                message = f"outputs with {name}: not finite"
                assert np.all(np.isfinite(numpy(out))), message
        if symbolic_shapes:
            given = {
                key: symbolic(value) if isinstance(value, np.ndarray) else value
                for key, value in keywords.items()
            }
            specs = layer.compute_output_spec(*arguments(symbolic(inputs)), **given)
            eager = [tuple(out.shape) for out in outputs]
            computed = [tuple(spec.shape) for spec in example.outputs(specs)]
            assert computed == eager, (
                f"with {name}: Keras computes output shapes {computed}, a call returns"
                f" {eager} (see `output_shape`)"
            )


def assert_saves_and_loads_built_with_each_keyword_tensor(example, given, folder):
    """What `build` creates depends on the keyword tensors of `given` (`call_args`): a
    model of the layer built with each saves to `folder` and loads with the same
    outputs."""
    for name, value in given.items():
        if not isinstance(value, np.ndarray):
            continue
        layer = example.make_layer()
        model = make_model(
            layer,
            example.input_shapes,
            example.input_dtypes,
            {name: value},
            separate=example.separate,
        )
        arrays = [*as_list(example.make_inputs()), value]
        expected = example.outputs(predict(model, arrays))
        model.save(Path(folder) / f"{name}.keras")
        loaded = keras.saving.load_model(Path(folder) / f"{name}.keras")
        reloaded = example.outputs(predict(loaded, arrays))
        for got, want in zip(reloaded, expected):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)


def assert_hidden_steps_change_nothing(example, name, mask, index=0, keyword=None):
    """The steps that `mask` (the keyword argument `name` of `call`) hides change no
    output at the steps it keeps: steps of the tensor input at `index`, or, with
    `keyword` (`(name, value)` of a keyword tensor, an encoder's sequence), of that
    tensor, and then no output at all. Nor do they change the losses a training call
    adds, where the layer adds some (a load-balancing loss over the kept tokens)."""
    inputs = example.make_inputs()
    layer = example.make_layer()
    given = {name: mask} if keyword is None else {keyword[0]: keyword[1], name: mask}
    layer(*arguments(inputs), **given)  # built by a call with them, as a call case is
    set_seeded_weights(layer)
    kept = mask.astype(bool)
    if keyword is None:  # steps of a tensor input
        changed = with_masked_steps_changed(inputs, kept, example.make_inputs(1), index)
        changed_given = given
    else:  # steps of a keyword tensor
        key, value = keyword
        changed = inputs
        changed_given = {
            **given,
            key: with_masked_steps_changed(value, kept, value + 1),
        }
    outputs = example.call(layer, inputs, training=False, **given)
    again = example.call(layer, changed, training=False, **changed_given)
    assert_same_where_kept(outputs, again, kept if keyword is None else None)
    losses = training_losses(layer, inputs, **given)
    losses_again = training_losses(layer, changed, **changed_given)
    assert len(losses_again) == len(losses), "masked steps changed the number of losses"
    for i, (ours, theirs) in enumerate(zip(losses, losses_again)):
        message = f"loss {i} changed when only masked steps of the inputs did"
        np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-6, err_msg=message)


def training_losses(layer, inputs, **keywords):
    """The losses a training call on `inputs` adds, as arrays; each such call starts
    from the same state and the same random seed."""
    state = [numpy(variable) for variable in layer.variables]
    keras.utils.set_random_seed(0)
    layer(*arguments(inputs), training=True, **keywords)
    losses = [numpy(loss) for loss in layer.losses]
    for variable, value in zip(layer.variables, state):
        variable.assign(value)
    return losses


def assert_each_step_depends_on_earlier_steps_only(example, name, index=0):
    """Given `name=True`, changing the later half of the steps of the tensor input at
    `index` changes no output at the earlier ones."""
    inputs = example.make_inputs()
    layer = example.make_layer()
    layer(*arguments(inputs), **{name: True})
    set_seeded_weights(layer)
    batch, steps = list(example.input_shapes.values())[index][:2]
    earlier = np.arange(steps)[None, :].repeat(batch, axis=0) < (steps + 1) // 2
    changed = with_masked_steps_changed(inputs, earlier, example.make_inputs(1), index)
    outputs = example.call(layer, inputs, training=False, **{name: True})
    again = example.call(layer, changed, training=False, **{name: True})
    assert_same_where_kept(outputs, again, earlier)


def assert_cache_decodes_step_by_step(
    example, cache, index, empty, of, output, mask=None, mask_dtype="float32"
):
    """Decoding the tensor inputs `of` (names; steps counted along the first) one step
    at a time through the keyword cache `cache`, starting `empty` and written at the
    keyword `index`, gives what the whole sequence gives at each step; the whole
    sequence given `empty` at index 0 gives the same, and the cache left is the one
    that call returns (the output at position `output`). `mask`: the keyword of an
    attention mask (of `mask_dtype`) through which each step sees the steps up to it,
    as an attention layer is causal."""
    inputs = example.make_inputs()
    layer = example.make_layer()
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    names = list(example.input_shapes)
    batch, length = example.input_shapes[of[0]][:2]
    # Causal through its mask: each step sees the steps up to it.
    causal = np.tril(np.ones((batch, length, length), mask_dtype))

    def rows(which):
        """The causal mask's rows `which`, where the layer takes one."""
        return {} if mask is None else {mask: causal[:, which]}

    whole = example.call(layer, inputs, training=False, **rows(slice(None)))[0]
    keywords = {cache: empty, index: 0, **rows(slice(None))}
    once = example.call(layer, inputs, training=False, **keywords)
    written, steps = empty, []
    for step in range(length):
        given = inputs
        for name in of:
            given = step_of(given, names.index(name), step)
        keywords = {cache: written, index: step, **rows(slice(step, step + 1))}
        outputs = example.call(layer, given, training=False, **keywords)
        steps.append(numpy(outputs[0]))
        written = outputs[output]
    tolerance = {"rtol": 1e-5, "atol": 1e-5}
    np.testing.assert_allclose(np.concatenate(steps, axis=1), numpy(whole), **tolerance)
    np.testing.assert_allclose(numpy(once[0]), numpy(whole), **tolerance)
    np.testing.assert_allclose(numpy(written), numpy(once[output]), **tolerance)


def golden_runs(example, layer, cases=(), losses=False, mask=None, state=(), masks=()):
    """What a recorded golden holds, computed by the built `layer`: its inference
    outputs; those of each call case (`call_cases`) on a layer built by it with the same
    weights (and values for the ones it adds: `set_case_weights`); with `losses`, the
    losses of a training call (of each case's too); with `mask`, the outputs with it
    attached; with `state` (names), that state after two training calls and the outputs
    after them. `masks`: the keyword arguments declared
    to hide steps of the tensor inputs (`masks:`): the steps a case's mask keeps go
    with its outputs (`kept steps of ...`), and only those are compared."""
    inputs = example.make_inputs()
    runs = {"outputs": example.call(layer, inputs, training=False)}
    for name, keywords, case_inputs in cases:
        case = example.make_layer()
        case(*arguments(case_inputs), **keywords)
        set_case_weights(case, layer)
        outputs = example.call(case, case_inputs, training=False, **keywords)
        runs[f"outputs with {name}"] = outputs
        hiding = [np.asarray(keywords[k]) for k in masks if k in keywords]
        if hiding:
            kept = np.logical_and.reduce([m.astype(bool) for m in hiding])
            runs[f"kept steps of outputs with {name}"] = [kept.astype("float32")]
        if losses:
            case(*arguments(case_inputs), training=True, **keywords)
            runs[f"losses with {name}"] = list(case.losses)
    if losses:
        layer(*arguments(inputs), training=True)  # the losses of a training call
        runs["losses"] = list(layer.losses)
    if mask is not None:
        masked = with_mask(inputs, mask)
        runs["masked outputs"] = example.call(layer, masked, training=False)
        runs["kept steps of masked outputs"] = [np.asarray(mask).astype("float32")]
    if state:
        for seed in (1, 2):
            layer(*arguments(example.make_inputs(seed)), training=True)
        runs["state after training"] = [getattr(layer, name) for name in state]
        runs["outputs after training"] = example.call(layer, inputs, training=False)
    return runs


def step_of(inputs, index, step):
    """`inputs` with the one at `index` cut to its step `step` (a sequence of one)."""
    arrays = as_list(inputs)
    arrays[index] = arrays[index][:, step : step + 1]
    return like(inputs, arrays)


def with_masked_steps_changed(inputs, mask, other, index=0):
    """The inputs, the steps of input `index` that `mask` hides taken from `other` (ten
    times larger, for floats)."""
    arrays, taken = as_list(inputs), as_list(other)[index]
    if is_float(taken):
        taken = (10 * taken).astype(taken.dtype)
    hidden = ~mask.reshape(mask.shape + (1,) * (taken.ndim - mask.ndim))
    arrays = list(arrays)
    arrays[index] = np.where(hidden, taken, arrays[index])
    return like(inputs, arrays)


def kept_steps(output, mask):
    """The elements of `output` at the steps `mask` (bool) keeps, and where they sit:
    where it fits its first axes, or its first axis holds the steps flattened (a
    router's `(batch * steps, experts)` logits); else all of it (and None)."""
    output = np.asarray(output)
    if mask is not None and output.shape[:1] == (mask.size,) and mask.ndim > 1:
        return output[mask.ravel()], np.argwhere(mask.ravel())
    if mask is not None and output.shape[: mask.ndim] == mask.shape:
        return output[mask], np.argwhere(mask)
    return output, None


def assert_same_where_kept(outputs, again, mask):
    """Outputs agree at the steps `mask` keeps (see `kept_steps`), and everywhere when
    `mask` is None."""
    for index, (ours, theirs) in enumerate(zip(outputs, again)):
        ours, _ = kept_steps(numpy(ours), mask)
        theirs, _ = kept_steps(numpy(theirs), mask)
        message = f"output {index} changed when only masked steps of the inputs did"
        np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-6, err_msg=message)


def set_case_weights(case, layer):
    """Give a call case's layer the weights of the example's built `layer`: each by its
    path inside the layer (a sublayer's automatic name, `dense_3`, read as `dense`; the
    ones of one path in order), all in order where the shapes are the same. The weights
    the case adds (a cross-attention built for an encoder's sequence) get a seeded draw
    from their shapes and order alone, never from their initial values, so the class a
    declaration twins and the generated one, recording or checking a golden, get the
    same numbers there too: uniform within +-1 over the square root of the fan-in (of 1
    for a vector)."""
    if same_weight_shapes(case, layer):
        case.set_weights(layer.get_weights())
        return
    given = {}
    for weight in layer.weights:
        given.setdefault(generic_path(weight, layer), []).append(weight)
    rng = np.random.default_rng(1)
    for weight in case.weights:
        same = given.get(generic_path(weight, case), [])
        if same and tuple(same[0].shape) == tuple(weight.shape):
            weight.assign(numpy(same.pop(0)))
        elif is_float(weight):
            shape = tuple(weight.shape)
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else 1
            value = rng.uniform(-1.0, 1.0, shape) / math.sqrt(fan_in or 1)
            weight.assign(value.astype(keras.backend.standardize_dtype(weight.dtype)))


def generic_path(weight, layer):
    """A weight's path inside `layer`, each automatic name's number dropped."""
    return re.sub(r"_\d+(?=/|$)", "", path_in_layer(weight, layer))


def same_weight_shapes(layer, other):
    shapes = [tuple(w.shape) for w in layer.weights]
    return shapes == [tuple(w.shape) for w in other.weights]


def golden_path(test_file):
    """Where a test module's recorded outputs live: beside it."""
    return Path(test_file).with_suffix(".golden.json")


def code_digest(layer):
    """A digest of the source of the layer's class: a golden recorded from other code
    says so when it no longer matches."""
    try:
        source = inspect.getsource(type(layer))
    except (OSError, TypeError):  # a class without source (built in a notebook)
        return None
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def record_golden(module):
    """Store the seeded weights of a test module's layer and what its `golden_run`
    computes with them."""
    layer = module.make_layer()
    layer(*arguments(module.make_inputs()))  # separate inputs as arguments of their own
    set_seeded_weights(layer)
    data = {
        "backend": keras.backend.backend(),
        "code": code_digest(layer),
        "weights": [numpy(w).tolist() for w in layer.weights],
        "runs": {
            name: [numpy(out).tolist() for out in outputs]
            for name, outputs in module.golden_run(layer).items()
        },
    }
    path = golden_path(module.__file__)
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    return path


# How far a golden may move, relative to the largest recorded value of each output (and
# to 1): on the backend that recorded it, float32 rounding; on another, its kernels sum
# in another order and approximate exp, erf and softmax otherwise, each op by a few
# float32 epsilons (1e-7): the project's 18 keras-hub layers recorded on TensorFlow
# moved less than 1e-6 on JAX and torch; 1e-4 leaves room for a deeper block.
GOLDEN_TOLERANCE = {"the recording backend": 1e-5, "another backend": 1e-4}


def assert_matches_golden(example, golden_run, test_file):
    """The example's layer, built and given the recorded weights, computes the recorded
    runs (`golden_run(layer)`), within `GOLDEN_TOLERANCE`; a run whose mask hides steps
    (`kept steps of ...`) at the steps it keeps."""
    layer = example.make_layer()
    layer(*arguments(example.make_inputs()))
    path = golden_path(test_file)
    data = json.loads(path.read_text(encoding="utf-8"))
    message = (
        f"the layer has {len(layer.weights)} weights, {path.name} holds"
        f" {len(data['weights'])}: re-record it (generate --record)"
    )
    assert len(layer.weights) == len(data["weights"]), message
    for weight, value in zip(layer.weights, data["weights"]):
        dtype = keras.backend.standardize_dtype(weight.dtype)
        weight.assign(np.asarray(value, dtype=dtype))
    runs = golden_run(layer)
    recorded = data.get("runs", {"outputs": data.get("outputs")})  # an older golden
    backend = data.get("backend", keras.backend.backend())
    where = "the recording backend"
    if backend != keras.backend.backend():
        where = "another backend"
    tolerance = GOLDEN_TOLERANCE[where]
    if "original" in data:
        since = f"recorded from the original {data['original']}"
    elif data.get("code") is None:
        since = "recorded before layergen kept a digest of the code"
    elif data["code"] != code_digest(layer):
        since = "recorded from other code: the declaration or the layer changed since"
    else:
        since = "recorded from this very code: the difference comes from elsewhere"
    for name, outputs in recorded.items():
        if name.startswith("kept steps of "):
            continue
        assert name in runs, f"the tests no longer compute the recorded {name}"
        message = f"the {name}: {len(runs[name])} now, {len(outputs)} recorded"
        assert len(runs[name]) == len(outputs), message
        kept = runs.get(f"kept steps of {name}")
        kept = None if kept is None else np.asarray(numpy(kept[0])).astype(bool)
        for index, (got, want) in enumerate(zip(runs[name], outputs)):
            got, at = kept_steps(numpy(got).astype("float64"), kept)
            want, _ = kept_steps(np.asarray(want, dtype="float64"), kept)
            assert got.shape == want.shape, (
                f"the {name}, output {index}: shape {got.shape} now, {want.shape}"
                f" recorded ({since})"
            )
            bound = tolerance * max(float(np.max(np.abs(want), initial=0.0)), 1.0)
            error = np.abs(got - want)
            wrong = np.argwhere(~(error <= bound + tolerance * np.abs(want)))
            if not len(wrong):
                continue
            shown = []
            for element in wrong[:3]:
                position = tuple(int(i) for i in element)
                place = position if at is None else (*at[position[0]], *position[1:])
                place = tuple(int(i) for i in place)  # in the whole output
                shown.append(
                    f"{place}: {got[position]:.6g} against {want[position]:.6g}"
                )
            hidden = "" if kept is None else " at the steps its mask keeps"
            raise AssertionError(
                f"the {name}, output {index}: {len(wrong)} of {want.size} elements"
                f"{hidden} differ from {path.name} by more than {tolerance:g} of the"
                f" largest value ({backend} recorded, {where}): {'; '.join(shown)}."
                f" {since[0].upper()}{since[1:]}; if the change is meant, re-record"
                " (generate --record)"
            )


def assert_declared_losses(example, inference_losses=0, expected=None, count=None):
    """On seeded weights, an inference call adds `inference_losses` losses, a training
    call the declared ones: `expected(layer, inputs)` computes their values after that
    call; where they read values `call` computes, only their `count` is known, and each
    must be finite."""
    layer = example.make_layer()
    inputs = example.make_inputs()
    layer(*arguments(inputs))
    set_seeded_weights(layer)
    layer(*arguments(inputs), training=False)
    assert len(layer.losses) == inference_losses, (
        f"an inference call adds {len(layer.losses)} losses, declared"
        f" {inference_losses} (see `losses`: `training_only`)"
    )
    layer(*arguments(inputs), training=True)
    if expected is None:
        assert len(layer.losses) == count, (
            f"a training call adds {len(layer.losses)} losses, declared {count}"
            " (see `losses`)"
        )
        for index, loss in enumerate(layer.losses):
            assert np.all(np.isfinite(numpy(loss))), f"loss {index} is not finite"
        return
    expected = expected(layer, inputs)
    assert len(layer.losses) == len(expected), (
        f"a training call adds {len(layer.losses)} losses, declared {len(expected)}"
        " (see `losses`)"
    )
    for actual, want in zip(layer.losses, expected):
        np.testing.assert_allclose(numpy(actual), numpy(want), rtol=1e-5, atol=1e-6)


def assert_state_updates(example, state, expected):
    """From seeded weights (the state away from its initial value), on each of three
    batches an inference call leaves the `state` weights (names) alone, and a training
    call moves them to `expected(layer, inputs, before)`: `{name: value}` computed from
    the inputs and the state `before` the call (`{name: array}`)."""
    layer = example.make_layer()
    layer(*arguments(example.make_inputs()))
    set_seeded_weights(layer)
    for inputs in [example.make_inputs(seed) for seed in (1, 2, 3)]:
        before = {name: numpy(getattr(layer, name)) for name in state}
        layer(*arguments(inputs), training=False)
        for name, value in before.items():
            message = f"an inference call changed {name}"
            np.testing.assert_array_equal(numpy(getattr(layer, name)), value, message)
        want = expected(layer, inputs, before)
        want = {name: numpy(value) for name, value in want.items()}
        layer(*arguments(inputs), training=True)
        for name, value in want.items():
            np.testing.assert_allclose(
                numpy(getattr(layer, name)), value, rtol=1e-6, err_msg=name
            )


if __name__ == "__main__":  # run by `run_model_parallel`, in a JAX process of its own
    result = model_parallel_report(sys.argv[1])
    Path(sys.argv[2]).write_text(json.dumps(result), encoding="utf-8")
