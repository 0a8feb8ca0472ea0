"""Plain data for the generated test module of a declaration."""

from __future__ import annotations

from typing import Any

from ..spec.analyze import Analysis
from ..spec.model import Param
from ..spec.code import body
from .context import docstring_text, shape_tuple
from .render import literal

SIGNATURES = {"loss": "y_true, y_pred", "constraint": "w", "regularizer": "x", "initializer": "shape, dtype"}
DEFAULT_SHAPES = {"loss": (4, 10), "constraint": (3, 3), "regularizer": (3, 3), "initializer": (3, 3)}

# Built-in layers whose output depends on `training`.
TRAINING_SENSITIVE = {
    "keras.layers.Dropout", "keras.layers.SpatialDropout1D", "keras.layers.SpatialDropout2D",
    "keras.layers.SpatialDropout3D", "keras.layers.GaussianNoise", "keras.layers.GaussianDropout",
    "keras.layers.AlphaDropout", "keras.layers.BatchNormalization",
}


def example_value(param: Param) -> Any:
    """A sensible value for a required param the example does not give."""
    if param.choices:
        return param.choices[0]
    low, high = param.min, param.max
    if param.type == "int":
        value = 4 if low is None else max(int(low), 4)
        return value if high is None else min(value, int(high))
    if param.type == "float":
        value = 0.5
        value = value if low is None else max(float(low), value)
        return value if high is None else min(float(high), value)
    return {
        "bool": True, "str": "a", "list[int]": [4, 4], "list[float]": [0.5, 0.5], "list[str]": ["a"],
        "activation": "relu", "initializer": "glorot_uniform", "regularizer": "l2",
        "constraint": "non_neg", "dtype": "float32",
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
    "output_shapes": None, "weights": [], "exact_weight_count": False, "has_trainable": False, "losses": [],
    "updates": [], "training_sensitive": False, "deterministic_inference": True, "masking": None, "ops": [],
}


def layer_test_context(*, name: str, module: str, source: str, args: dict[str, Any], inputs: dict[str, Any],
                       **facts: Any) -> dict[str, Any]:
    """Every key of the layer test template, for declared and hand-written layers alike.

    `inputs`: from `inputs_context`; `facts`: what is known of `UNKNOWN_LAYER_FACTS`.
    """
    unknown = set(facts) - set(UNKNOWN_LAYER_FACTS)
    if unknown:
        raise TypeError(f"not keys of the layer test template: {sorted(unknown)}")
    return {"name": name, "module": module, "source": docstring_text(source), "args": args, **inputs,
            **UNKNOWN_LAYER_FACTS, **facts}


def inputs_context(shapes: dict[str, tuple[int, ...]], dtypes: dict[str, str], value_range=(0, 10)) -> dict[str, Any]:
    """The test template's keys about the example inputs, for declared and hand-written layers alike."""
    inputs = list(shapes)
    several = len(inputs) > 1
    return {
        "inputs": inputs,
        "several_inputs": several,
        "input_targets": ", ".join(inputs) if several else f"({inputs[0]},)",  # unpacks a list of the inputs
        "input_shapes": shapes,
        "input_dtypes": dtypes,
        "input_range": value_range,
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
                value = f"numpy({owner}.{arg})"
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
                a.code("ops", name, "gradient", arg).render(rename) if arg in op.gradient else f"ops.zeros_like({arg})"
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
        "shape": tuple(shape) if isinstance(shape, list) else DEFAULT_SHAPES[decl.kind],
        "signature": SIGNATURES[decl.kind],
        "declared": body(a.code("call"), {m: f"obj.{m}" for m in members if m not in a.inputs}),
        "ops": op_tests(a, "object", "SHAPE"),
    }


def build_test_context(a: Analysis, *, module: str, source: str) -> dict[str, Any]:
    """`source`: the declaration's path as shown in the docstring."""
    decl = a.decl
    if decl.kind != "layer":
        return build_object_test_context(a, module=module, source=source)
    args = example_args(a)
    arg_rename = {p: f"ARGS[{literal(p)}]" for p in a.params}
    members = [*a.params, *decl.weights, *decl.sublayers, *decl.ops, *decl.methods]
    layer_rename = {m: f"layer.{m}" for m in members} | {"training": "True"}
    inputs = set(a.inputs)

    output_shapes = None
    if decl.output_shape is not None:
        output_shapes = [shape_tuple(a.code("output_shape"), arg_rename, inputs)]
    elif decl.outputs is not None:
        output_shapes = [shape_tuple(a.code("outputs", n), arg_rename, inputs) for n in decl.outputs]
    elif decl.base is None:
        output_shapes = [f"tuple({a.inputs[0]})"]

    weights = []
    for name, w in decl.weights.items():
        when = None
        if isinstance(w.when, str):
            when = a.code("weights", name, "when").render(arg_rename)
        elif w.when is False:
            when = "False"
        shape = shape_tuple(a.code("weights", name, "shape"), arg_rename, inputs)
        weights.append({"name": name, "shape": shape, "trainable": w.trainable, "when": when})

    updated = {n: f"before[{literal(n)}]" for n in decl.updates}
    sensitive = (
        not isinstance(decl.call, (str, type(None)))
        or any((s.class_ or "") in TRAINING_SENSITIVE for s in decl.sublayers.values())
        or any(l.class_ in TRAINING_SENSITIVE for s in decl.sublayers.values() for l in (s.layers or []))
    )
    has_trainable = decl.base is not None or any(w.trainable and w.when is None for w in decl.weights.values())
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
        inputs=inputs_context(input_shapes(a), input_dtypes(a), tuple(decl.example.input_range or (0, 10))),
        output_shapes=output_shapes,
        weights=weights,
        exact_weight_count=not decl.sublayers and decl.base is None,
        has_trainable=has_trainable,
        losses=[a.code("losses", i).render(layer_rename) for i in range(len(decl.losses))],
        updates=[{"name": n, "expected": a.code("updates", n).render(layer_rename | updated)} for n in decl.updates],
        training_sensitive=sensitive,
        deterministic_inference=not (decl.random and isinstance(decl.call, str)),
        masking=masking,
        ops=op_tests(a, "layer", f"INPUT_SHAPES[{literal(a.inputs[0])}]"),
    )
