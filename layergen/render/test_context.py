"""Plain data for the generated test module of a declaration."""

from __future__ import annotations

import math
from typing import Any

from ..kinds import KINDS
from ..spec.analyze import Analysis
from ..spec.code import body
from ..spec.model import Param
from .context import docstring_text, shape_tuple
from .render import literal

# Built-in layers whose output depends on `training`.
TRAINING_SENSITIVE = {
    "keras.layers.Dropout",
    "keras.layers.SpatialDropout1D",
    "keras.layers.SpatialDropout2D",
    "keras.layers.SpatialDropout3D",
    "keras.layers.GaussianNoise",
    "keras.layers.GaussianDropout",
    "keras.layers.AlphaDropout",
    "keras.layers.BatchNormalization",
}


def example_value(param: Param) -> Any:
    """A sensible value for a required param the example does not give."""
    if param.choices:
        return param.choices[0]
    low, high = param.min, param.max
    if param.type == "int":  # exclusive bounds of ints: the next whole number inside
        if param.gt is not None:
            low = math.floor(param.gt) + 1
        if param.lt is not None:
            high = math.ceil(param.lt) - 1
        value = 4 if low is None else max(math.ceil(low), 4)
        return value if high is None else min(value, math.floor(high))
    if param.type == "float":
        value = 0.5
        value = value if low is None else max(float(low), value)
        value = value if high is None else min(float(high), value)
        low = param.gt if param.gt is not None else low
        high = param.lt if param.lt is not None else high
        if (param.gt is not None and value <= low) or (param.lt is not None and value >= high):
            if low is not None and high is not None:
                return (low + high) / 2
            return low + 1.0 if low is not None else high - 1.0
        return value
    return {
        "bool": True,
        "str": "a",
        "list[int]": [4, 4],
        "list[float]": [0.5, 0.5],
        "list[str]": ["a"],
        "activation": "relu",
        "initializer": "glorot_uniform",
        "regularizer": "l2",
        "constraint": "non_neg",
        "dtype": "float32",
    }[param.type]


def example_args(a: Analysis) -> dict[str, Any]:
    """Every param's value in the tests: the example's, else the default, else a sensible one."""
    given = a.decl.example.params
    args = {}
    for name, param in a.params.items():
        if name in given:
            args[name] = given[name]
        elif not param.required:
            args[name] = param.default
        else:
            args[name] = example_value(param)
    if a.decl.random and args.get("seed") is None:
        args["seed"] = 1337  # reproducible random tests
    args.update({k: v for k, v in given.items() if k not in a.params})  # base class arguments
    return args


def input_shapes(a: Analysis) -> dict[str, tuple[int, ...]]:
    shapes = a.decl.example.input_shape
    if isinstance(shapes, dict):
        return {n: tuple(shapes[n]) for n in a.inputs}
    if shapes is not None:
        return {a.inputs[0]: tuple(shapes)}
    out = {}
    for name in a.inputs:
        spec = (a.decl.inputs or {}).get(name)
        rank = (spec.rank or spec.min_rank or 2) if spec else 2
        out[name] = (2,) + (4,) * (max(rank, 1) - 1)
    return out


# What the layer test template checks beyond shapes, config, saving and fit; a layer
# whose code was only read (`layergen tests`) knows none of it, and these check nothing.
UNKNOWN_LAYER_FACTS = {
    "output_shapes": None,
    "weights": [],
    "exact_weight_count": False,
    "has_trainable": False,
    "losses": [],
    "updates": [],
    "training_sensitive": False,
    "deterministic_inference": True,
    "masking": None,
    "ops": [],
    "losses_read_inputs": False,
    "updates_read_inputs": False,
    "random": False,
    "statistics": [],
    "constants": {},
    "stated_outputs": [],
    "reference": None,
    "golden": False,
    "output_names": None,  # a layer that returns its outputs as a dict: their names
}


def layer_test_context(
    *,
    name: str,
    module: str,
    source: str,
    args: dict[str, Any],
    inputs: dict[str, Any],
    **facts: Any,
) -> dict[str, Any]:
    """Every key of the layer test template, for declared and hand-written layers alike.

    `inputs`: from `inputs_context`; `facts`: what is known of `UNKNOWN_LAYER_FACTS`.
    """
    unknown = set(facts) - set(UNKNOWN_LAYER_FACTS)
    if unknown:
        raise TypeError(f"not keys of the layer test template: {sorted(unknown)}")
    return {
        "name": name,
        "module": module,
        "source": docstring_text(source),
        "args": args,
        **inputs,
        **UNKNOWN_LAYER_FACTS,
        **facts,
    }


def inputs_context(
    shapes: dict[str, tuple[int, ...]], dtypes: dict[str, str], value_range=None
) -> dict[str, Any]:
    """The test template's keys about the example inputs, for declared and hand-written layers alike.

    `value_range`: `[low, high]` of the inputs' values; None: integers in [0, 10), normal floats.
    """
    inputs = list(shapes)
    several = len(inputs) > 1
    shape_names = [f"{name}_shape" for name in inputs]
    return {
        "inputs": inputs,
        "several_inputs": several,
        "input_targets": ", ".join(inputs) if several else inputs[0],  # `... = inputs` names them
        "shape_names": shape_names,
        "shape_targets": ", ".join(shape_names) if several else f"({shape_names[0]},)",
        "input_shapes": shapes,
        "input_dtypes": dtypes,
        "input_range": tuple(value_range) if value_range is not None else None,
    }


def input_dtypes(a: Analysis) -> dict[str, str]:
    given = a.decl.example.input_dtype
    out = {}
    for name in a.inputs:
        spec = (a.decl.inputs or {}).get(name)
        if isinstance(given, dict) and name in given:
            out[name] = given[name]
        elif isinstance(given, str):
            out[name] = given
        else:
            out[name] = (spec.dtype if spec and spec.dtype else None) or "float32"
    return out


def op_tests(a: Analysis, owner: str, sample: str) -> list[dict[str, Any]]:
    """Each op's args (sample values) and its declared gradient, as test code."""
    decl = a.decl
    members = [*a.params, *decl.weights, *decl.sublayers, *decl.ops, *decl.methods]
    ops = []
    for name, op in decl.ops.items():
        rename = {m: f"{owner}.{m}" for m in members if m not in op.args and m != "upstream"}
        args = []
        for arg in op.args:
            if arg in decl.weights:
                value = f"support.numpy({owner}.{arg})"
            elif owner == "layer" and arg in a.inputs:
                value = f"make_inputs(){'' if len(a.inputs) == 1 else f'[{a.inputs.index(arg)}]'}"
            else:
                value = f'(rng.standard_normal({sample}) * 1.5).astype("float32")'
            args.append({"name": arg, "value": value})
        if isinstance(op.gradient, str):
            expected = a.code("ops", name, "gradient").render(rename)
            expected = f"[{expected}]" if len(op.args) == 1 else f"list({expected})"
        else:
            grads = [
                (
                    a.code("ops", name, "gradient", arg).render(rename)
                    if arg in op.gradient
                    else f"ops.zeros_like({arg})"
                )
                for arg in op.args
            ]
            expected = "[" + ", ".join(grads) + "]"
        ops.append({"name": name, "args": args, "expected": expected})
    return ops


def build_object_test_context(a: Analysis, *, module: str, source: str) -> dict[str, Any]:
    decl = a.decl
    members = [*a.params, *decl.ops, *decl.methods]
    shape = decl.example.input_shape
    return {
        "kind": decl.kind,
        "name": decl.name,
        "module": module,
        "source": docstring_text(source),
        "args": example_args(a),
        "shape": tuple(shape) if isinstance(shape, list) else KINDS[decl.kind].test_shape,
        "signature": ", ".join(KINDS[decl.kind].arguments),
        "declared": body(a.code("call"), {m: f"obj.{m}" for m in members if m not in a.inputs}),
        "ops": op_tests(a, "object", "SHAPE"),
    }


def build_test_context(
    a: Analysis, *, module: str, source: str, golden: bool = False
) -> dict[str, Any]:
    """`source`: the declaration's path as shown in the docstring; `golden`: outputs were recorded."""
    decl = a.decl
    if decl.kind != "layer":
        return build_object_test_context(a, module=module, source=source)
    args = example_args(a)
    arg_rename = {p: f"ARGS[{literal(p)}]" for p in a.params}
    shape_rename = arg_rename | {n: f"{n}_shape" for n in a.inputs}
    members = [*a.params, *decl.weights, *decl.sublayers, *decl.ops, *decl.methods]
    layer_rename = {m: f"layer.{m}" for m in members} | {"training": "True"}
    inputs = set(a.inputs)

    output_shapes = None
    if "compute_output_shape" in decl.methods:
        pass  # the declared method says what it says: the tests trace `call` to check it
    elif decl.output_shape is not None:
        output_shapes = [shape_tuple(a.code("output_shape"), shape_rename, inputs)]
    elif decl.outputs is not None:
        output_shapes = [
            shape_tuple(a.code("outputs", n), shape_rename, inputs) for n in decl.outputs
        ]
    elif decl.base is None:
        output_shapes = [f"tuple({a.inputs[0]}_shape)"]

    weights = []
    for name, w in decl.weights.items():
        when = None
        if isinstance(w.when, str):
            when = a.code("weights", name, "when").render(arg_rename)
        elif w.when is False:
            when = "False"
        shape = shape_tuple(a.code("weights", name, "shape"), shape_rename, inputs)
        weights.append({"name": name, "shape": shape, "trainable": w.trainable, "when": when})

    updated = {n: f"ops.convert_to_tensor(before[{literal(n)}])" for n in decl.updates}
    sensitive = (
        not isinstance(decl.call, (str, type(None)))
        or any((s.class_ or "") in TRAINING_SENSITIVE for s in decl.sublayers.values())
        or any(
            sub.class_ in TRAINING_SENSITIVE
            for s in decl.sublayers.values()
            for sub in (s.layers or [])
        )
    )
    has_trainable = decl.base is not None or any(
        w.trainable and (w.when is None or w.when is True) for w in decl.weights.values()
    )
    masking = None
    if decl.masking is True:
        masking = "mask"
    elif isinstance(decl.masking, str):
        masking = a.code("masking").render(layer_rename)
    return layer_test_context(
        name=decl.name,
        module=module,
        source=source,
        args=args,
        inputs=inputs_context(input_shapes(a), input_dtypes(a), decl.example.input_range),
        output_shapes=output_shapes,
        weights=weights,
        exact_weight_count=not decl.sublayers and decl.base is None,
        has_trainable=has_trainable,
        losses=[a.code("losses", i).render(layer_rename) for i in range(len(decl.losses))],
        updates=[
            {"name": n, "expected": a.code("updates", n).render(layer_rename | updated)}
            for n in decl.updates
        ],
        training_sensitive=sensitive,
        deterministic_inference=not (decl.random and isinstance(decl.call, str)),
        masking=masking,
        ops=op_tests(a, "layer", f"INPUT_SHAPES[{literal(a.inputs[0])}]"),
        losses_read_inputs=_reads(a, inputs, *[("losses", i) for i in range(len(decl.losses))]),
        updates_read_inputs=_reads(a, inputs, *[("updates", n) for n in decl.updates]),
        random=decl.random,
        statistics=[
            {
                "of": a.code("example", "statistics", i, "of").render(arg_rename),
                "mean": s.mean,
                "what": s.of,
            }
            for i, s in enumerate(decl.example.statistics)
        ],
        golden=golden,
        output_names=list(decl.outputs or {}) if decl.output_type == "dict" else None,
        **stated_numbers(a),
    )


def _reads(a: Analysis, names: set[str], *locs: tuple) -> bool:
    """Whether the snippets at `locs` read any of `names`."""
    return any(f.name in names for loc in locs for f in a.code(*loc).free)


def stated_numbers(a: Analysis) -> dict[str, Any]:
    """The test constants and checks of the numbers a declaration states (issue 13)."""
    example, decl = a.decl.example, a.decl
    outputs = list(decl.outputs) if decl.outputs and len(decl.outputs) > 1 else None

    def per_output(value):
        return [value[n] for n in outputs] if outputs else [value]

    constants: dict[str, Any] = {}
    stated = []
    if example.inputs is not None:
        several = len(a.inputs) > 1
        constants["INPUTS"] = example.inputs if several else {a.inputs[0]: example.inputs}
        if example.weights:
            constants["WEIGHTS"] = dict(example.weights)
        for key, constant, training in (
            ("expected", "EXPECTED", False),
            ("expected_training", "EXPECTED_IN_TRAINING", True),
        ):
            if getattr(example, key) is not None:
                constants[constant] = per_output(getattr(example, key))
                stated.append((training, constant))
    reference = None
    if example.reference is not None:
        code = a.code("example", "reference")
        used = {f.name for f in code.free}
        members = [n for n in [*a.params, *decl.weights] if n in used]
        values = {
            n: f"ARGS[{literal(n)}]" if n in a.params else f"support.numpy(layer.{n})"
            for n in members
        }
        reference = {
            "signature": ", ".join([*a.inputs, *(["*"] if members else []), *members]),
            "body": body(code),
            "call": ", ".join(
                [
                    "*inputs" if len(a.inputs) > 1 else "inputs",
                    *(f"{n}={v}" for n, v in values.items()),
                ]
            ),
        }
    if stated or reference:
        constants["ATOL"] = example.atol
    return {"constants": constants, "stated_outputs": stated, "reference": reference}
