"""Plain data for the generated test module of a declaration."""

from __future__ import annotations

import ast
import re
from typing import Any

import libcst as cst

from ..declaration.code import (
    Code,
    body,
    expression_node,
    inference_reads,
    inference_uses,
    names_reached,
)
from ..declaration.ir import Branches, CallCase, Construction, Declared
from ..declaration.layouts import LAYOUT_MODULE
from ..declaration.sections import SECTIONS
from .context import KERAS_OBJECT_TYPES, docstring_text, op_context, shape_tuple
from .layer_facts import LayerFacts
from .other_sides import other_sides, other_values
from .render import literal
from .test_builders import build_tests, op_test
from .test_helpers import constants, from_imports, helpers, output_helpers

# Built-in layers whose output depends on `training`, with the argument that makes them
# leave it alone at 0 (a dropout of rate 0), where there is one.
TRAINING_SENSITIVE = {
    "keras.layers.Dropout": "rate",
    "keras.layers.SpatialDropout1D": "rate",
    "keras.layers.SpatialDropout2D": "rate",
    "keras.layers.SpatialDropout3D": "rate",
    "keras.layers.GaussianNoise": "stddev",
    "keras.layers.GaussianDropout": "rate",
    "keras.layers.AlphaDropout": "rate",
    "keras.layers.BatchNormalization": None,
}


# keras.ops whose output jumps where the input crosses a boundary: under mixed precision,
# rounding may flip such a choice.
DISCRETE_OPS = re.compile(r"\bops\.(top_k|argmax|argmin|argsort|round|floor|ceil|one_hot)\b")


def layer_test_context(
    *,
    name: str,
    module: str,
    source: str,
    args: dict[str, Any],
    inputs: dict[str, Any],
    **facts: Any,
) -> dict[str, Any]:
    """The layer test template's context, for a layer known by its code alone (`layergen
    tests`): `inputs` from `inputs_context`, `facts` what is known of `LayerFacts`."""
    return template_context(
        LayerFacts(**example_facts(name, module, source, args, inputs), **facts)
    )


def example_facts(
    name: str, module: str, source: str, args: dict[str, Any], inputs: dict[str, Any]
) -> dict[str, Any]:
    """The facts every layer has: its name, module, source, example arguments and inputs."""
    return {
        "name": name,
        "module": module,
        "source": docstring_text(source),
        # Plain values, and the code that makes each object param's anew for each layer.
        "args": {k: v for k, v in args.items() if not isinstance(v, Code)},
        "objects": {k: v.render() for k, v in args.items() if isinstance(v, Code)},
        **inputs,
    }


def template_context(facts: LayerFacts) -> dict[str, Any]:
    """What the layer test template writes: the module's constants, helpers and tests, all
    built from the `facts` (kept under "facts" for whoever reads them)."""
    return {
        "facts": facts,
        "name": facts.name,
        "source": facts.source,
        "op_methods": facts.op_methods,
        "constant_lines": constants(facts),
        "helpers": helpers(facts),
        "output_helpers": output_helpers(facts),
        "from_imports": from_imports(facts),
        "tests": build_tests(facts),
    }


def inputs_context(
    shapes: dict[str, tuple[int, ...]],
    dtypes: dict[str, str],
    value_range=None,
    separate: bool = False,
    every_call: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The test template's keys about the example inputs, for declared and hand-written layers alike.

    `value_range`: `[low, high]` of the inputs' values; None: integers in [0, 10), normal floats.
    `separate`: the layer takes several tensor inputs as arguments of their own; the tests
    keep them in a tuple and call the layer on `*inputs` (a list for a layer called on one).
    """
    inputs = list(shapes)
    several = len(inputs) > 1
    shape_names = [f"{name}_shape" for name in inputs]
    separate = separate and several
    return {
        "inputs": inputs,
        "several_inputs": several,
        "separate_inputs": separate,
        "star": "*" if separate else "",  # before the inputs a layer is called on
        "input_targets": ", ".join(inputs) if several else inputs[0],  # `... = inputs` names them
        "shape_names": shape_names,
        "shape_targets": ", ".join(shape_names) if several else f"({shape_names[0]},)",
        "input_shapes": shapes,
        "input_dtypes": dtypes,
        "input_range": tuple(value_range) if value_range is not None else None,
        "ones": every_call,
    }


def op_tests(ir: Declared, owner: str, sample: str) -> list[dict[str, Any]]:
    """Each op's args (sample values) and its declared gradient, as test code."""
    weights = set(ir.weight_names)
    inputs = ir.input_names
    ops = []
    for op in ir.ops:
        rename = {m: f"{owner}.{m}" for m in ir.members if m not in op.args and m != "upstream"}
        rename.pop("seed_generator", None)
        args = []
        for arg in op.args:
            if arg in weights:
                value = f"support.numpy({owner}.{arg})"
            elif owner == "layer" and arg in inputs:
                value = f"make_inputs(){'' if len(inputs) == 1 else f'[{inputs.index(arg)}]'}"
            else:
                value = f'(rng.standard_normal({sample}) * 1.5).astype("float32")'
            args.append({"name": arg, "value": value})
        if op.gradient is not None:
            expected = op.gradient.render(rename)
            expected = f"[{expected}]" if len(op.args) == 1 else f"list({expected})"
        else:
            grads = [
                code.render(rename) if code is not None else f"ops.zeros_like({arg})"
                for arg, code in op.gradients.items()
            ]
            expected = "[" + ", ".join(grads) + "]"
        ops.append({"name": op.name, "args": args, "expected": expected})
    return ops


def build_object_test_context(ir: Declared, *, module: str, source: str) -> dict[str, Any]:
    members = [*ir.params, *(op.name for op in ir.ops), *ir.method_names]
    return {
        "kind": ir.kind.name,
        "name": ir.name,
        "module": module,
        "source": docstring_text(source),
        "args": ir.example.args,
        "shape": ir.example.input_shape or ir.kind.test_shape,
        "signature": ", ".join(ir.kind.arguments),
        "declared": body(ir.call, {m: f"obj.{m}" for m in members if m not in ir.input_names}),
        "op_tests": [op_test(op, "object") for op in op_tests(ir, "object", "SHAPE")],
        "skipping": bool(ir.skips),  # the skip marks need pytest
    }


def build_test_context(
    ir: Declared, *, module: str, source: str, golden: bool = False
) -> dict[str, Any]:
    """`source`: the declaration's path as shown in the docstring; `golden`: outputs were recorded."""
    if ir.kind.name != "layer":
        return build_object_test_context(ir, module=module, source=source)
    example = ir.example
    arg_rename = {p: _arg(p, example.args) for p in ir.params}
    # `self.x` in a shape is the tested layer's attribute.
    shape_rename = arg_rename | {n: f"{n}_shape" for n in ir.input_names} | {"self": "layer"}
    # The tests build the layer on its tensor inputs alone: a keyword input's shape is None.
    shape_rename |= {k: "None" for k in ir.tensor_keywords}
    # ...but one passed in every call, by position: its shape is the example's
    shape_rename |= {k: f"{k}_shape" for k in example.every_call}
    layer_rename = {m: f"layer.{m}" for m in ir.members if m != "seed_generator"}
    # A param is the example's value (the Keras object for an activation and the like), not
    # an attribute: keras-hub's TokenAndPositionEmbedding keeps no `mask_zero`.
    layer_rename |= {
        p: (
            f"keras.{param.type}s.get({arg_rename[p]})"
            if param.type in KERAS_OBJECT_TYPES
            else arg_rename[p]
        )
        for p, param in ir.params.items()
    }
    layer_rename["training"] = "True"
    inputs = set(ir.input_names)

    # The outputs of a call with the keyword inputs' defaults: a tensor's shape is None.
    out_rename = shape_rename | {
        k.name: literal(k.default) for k in ir.keywords if k.type != "tensor"
    }
    out_inputs = inputs | set(ir.tensor_keywords)
    # A tensor keyword's shape is an argument of `declared_output_shapes`, None by default:
    # a literal `None[2]` in the module would be a SyntaxWarning (an error under `-W error`).
    shaped_keywords = [
        k.name
        for k in ir.output_keywords
        if k.type == "tensor" and k.name not in example.every_call  # those are inputs there
    ]
    out_rename |= {k: f"{k}_shape" for k in [*shaped_keywords, *example.every_call]}
    output_shapes = None
    if "compute_output_shape" in ir.method_names:
        pass  # the declared method says what it says: the tests trace `call` to check it
    elif ir.output_shape is not None:
        output_shapes = [shape_tuple(ir.output_shape.code, out_rename, out_inputs)]
    elif ir.outputs is not None:
        output_shapes = []
        for name, s in ir.outputs.items():
            shape = shape_tuple(s.code, out_rename, out_inputs)
            when = ir.output_when.get(name)
            if isinstance(when, Code):  # returned only when its condition holds
                shape = f"*([{shape}] if {when.render(out_rename)} else [])"
            if when is not False:
                output_shapes.append(shape)
    elif ir.base is None:
        output_shapes = [f"tuple({ir.input_names[0]}_shape)"]

    weights = []
    for w in ir.weights:
        when = None
        if isinstance(w.created, Code):
            when = w.created.render(shape_rename)  # a keyword tensor: given or None
        elif w.created is False:
            when = "False"
        shape = shape_tuple(w.shape.code, shape_rename, inputs | set(example.every_call))
        weights.append(
            {
                "name": w.name,
                "shape": shape,
                "trainable": w.trainable,
                "when": when,
                "aggregation": w.aggregation,
            }
        )

    updated = {n: f"ops.convert_to_tensor(before[{literal(n)}])" for n in ir.updates}
    sensitive = isinstance(ir.call, Branches)
    inert = []  # why the example's training-sensitive sublayers leave `training` alone
    for sublayer in ir.sublayers:
        for construction in _constructions(sublayer):
            if construction.class_ in TRAINING_SENSITIVE:
                reason = _inert_in_training(ir, sublayer.name, construction)
                sensitive = sensitive or reason is None
                inert += [reason] if reason else []
    has_trainable = ir.base is not None or any(
        w.trainable and w.created is True for w in ir.weights
    )
    forwards = [ir.call] if not isinstance(ir.call, Branches) else [ir.call.train, ir.call.infer]
    inference = ir.call.infer if isinstance(ir.call, Branches) else ir.call
    code = [c for c in forwards if c is not None] + [m.body for m in ir.methods]
    code += [op.forward for op in ir.ops]
    discrete = next((m.group(0) for c in code for m in [DISCRETE_OPS.search(c.text)] if m), None)
    gradient_check = None
    if not ir.ops:
        gradient_check = "float32" if ir.float32_compute else "float64"
    stopped = _stopped_gradient(ir)
    inferred = inference_reads(inference) if inference is not None else set()
    self_rename = {m: f"self.{m}" for m in ir.members}
    sides, unreached = other_sides(ir)
    values, unmade = other_values(ir)
    unreached += [*(["; "] if unreached and unmade else []), *unmade]
    masking = None
    if ir.compute_mask is not None:
        masking = ir.compute_mask.render(layer_rename)
    elif ir.masking:
        masking = "mask"
    facts = LayerFacts(
        **example_facts(
            ir.name,
            module,
            source,
            example.args,
            inputs_context(
                example.input_shapes,
                example.input_dtypes,
                example.input_range,
                # keyword tensors passed in every call follow the inputs as arguments
                ir.separate_inputs or bool(example.every_call),
                example.every_call,
            ),
        ),
        output_shapes=output_shapes,
        output_shape_keywords=[f"{k}_shape=None" for k in shaped_keywords],
        weights=weights,
        exact_weight_count=not ir.sublayers
        and ir.base is None
        and not any(p.type == "layer" for p in ir.params.values()),
        has_trainable=has_trainable,
        losses=[loss.render(layer_rename) for loss in ir.losses],
        updates=[
            {"name": n, "expected": code.render(layer_rename | updated)}
            for n, code in ir.updates.items()
        ],
        training_sensitive=sensitive,
        training_inert=None if sensitive or not inert else inert[0],
        deterministic_inference=not (
            ir.random and isinstance(ir.call, Code) and not ir.call_written_by_layergen
        ),
        masking=masking,
        ops=op_tests(ir, "layer", f"INPUT_SHAPES[{literal(ir.input_names[0])}]"),
        losses_read_inputs=_reads(inputs, *ir.losses),
        losses_read_call=ir.losses_read_call,
        inference_losses=len(ir.losses) - len(ir.training_only_losses),
        updates_read_inputs=_reads(inputs, *ir.updates.values()),
        random=ir.random,
        draws_hint=_draws_hint(ir, forwards) if ir.random else [],
        statistics=[
            {"of": s.of.render(arg_rename), "mean": s.mean, "what": s.what}
            for s in example.statistics
        ],
        golden=golden,
        output_names=list(ir.outputs or {}) if ir.outputs_by_name else None,
        call_args=example.call_args,
        call_cases=[_call_case(case) for case in example.call_cases],
        mask_args=[
            {
                "name": k.name,
                # A tensor input's position, or a keyword tensor's name (an encoder's).
                "index": ir.input_names.index(k.masks) if k.masks in ir.input_names else None,
                "keyword": None if k.masks in ir.input_names else k.masks,
                "given": k.name in example.call_args,
                "dtype": example.input_dtypes.get(k.name, "bool"),
            }
            for k in ir.keywords
            if k.masks is not None
        ],
        causal_args=[
            {"name": k.name, "index": ir.input_names.index(k.causal)}
            for k in ir.keywords
            if k.causal is not None
        ],
        cache_args=[
            {
                "name": k.name,
                "of": list(k.cache.of),  # cut to the step together, counted along the first
                "index": k.cache.index,
                "shape": shape_tuple(k.cache.shape.code, shape_rename, inputs),
                "output": _output_position(ir, k.name),
                "mask": k.cache.mask,
                "mask_dtype": next(
                    (m.dtype or "float32" for m in ir.keywords if m.name == k.cache.mask), None
                ),
            }
            for k in ir.keywords
            if k.cache is not None
        ],
        gradient_check=gradient_check,
        gradient_training=stopped != "training",
        gradient_stopped=(
            [
                "`ops.stop_gradient` in an inference call: its gradient is not the",
                " derivative of its outputs, on purpose",
            ]
            if stopped == "inference"
            else None
        ),
        op_methods=[op_context(op, self_rename) for op in ir.ops],
        reached_ops=sorted({op.name for op in ir.ops} & {f.name for c in code for f in c.free}),
        discrete=discrete,
        golden_state=bool(ir.updates) and not ir.random,
        # A training call's losses, where they do not depend on random draws.
        golden_losses=bool(ir.losses) and not ir.random and not sensitive,
        state_read_in_inference=bool(set(ir.updates) & inferred),
        # Those made under a `when` may be None: the keyword test makes them.
        sublayers=[s.name for s in ir.sublayers if s.created is True],
        policy_sublayers=[
            s.name
            for s in ir.sublayers
            if s.sequence is None and "dtype" not in s.args and s.created is True
        ],
        keywords_build=ir.build_reads_keywords,
        keywords_shape_outputs=ir.output_shapes_read_keywords,
        weights_read=[w for w in ir.weight_names if w in inferred],
        # Keras's mask, not an input of that name (`call(self, x, mask)`)
        call_reads_mask="mask" not in ir.input_names
        and any(_reads({"mask"}, c) for c in forwards if c is not None),
        masking_reads_inputs=ir.compute_mask is not None and _reads(inputs, ir.compute_mask),
        **{
            name: value
            for s in SECTIONS.values()
            for name, value in s.context(
                ir.sections.get(s.key), lambda code: shape_tuple(code, shape_rename, inputs)
            ).items()
        },
        shapes_read_layer=_reads(
            {"self"},
            *[s.code for s in [ir.output_shape, *(ir.outputs or {}).values()] if s is not None],
            *([ir.noise.shape.code] if ir.noise is not None and ir.noise.shape is not None else []),
            *[k.cache.shape.code for k in ir.keywords if k.cache is not None],
        ),
        other_sides=sides,
        unreached_sides=unreached,
        other_values=values,
        layouts=ir.layouts,
        layout_module=".".join([*module.split(".")[:-1], LAYOUT_MODULE]),
        from_module=_imported_by_objects(ir),
        **stated_numbers(ir),
    )
    return template_context(facts)


def _imported_by_objects(ir: Declared) -> list[str]:
    """Names of the layer module's `imports` that its example's object params are made with
    (`ReversibleEmbedding(...)`): the test module imports them from the layer module, which
    has them, whatever package or relative path it imported them from."""
    imported = {
        (alias.asname or alias.name).split(".")[0]
        for line in ir.imports
        for statement in ast.parse(line).body
        for alias in statement.names
    }
    read = {f.name for v in ir.example.args.values() if isinstance(v, Code) for f in v.free}
    return sorted(imported & read)


def _arg(name: str, args: dict[str, Any]) -> str:
    """A param's example value in the test module: in ARGS, or made (an object param)."""
    if isinstance(args.get(name), Code):
        return f"make_objects()[{literal(name)}]"
    return f"ARGS[{literal(name)}]"


def _sublayer(ir: Declared, name: str) -> str:
    """The layer's sublayer `name`; one under a `when` may be unset (keras-hub's
    TransformerDecoder sets its cross-attention's attributes only with an encoder)."""
    when = any(s.name == name and s.created is not True for s in ir.sublayers)
    return f"getattr(layer, {literal(name)}, None)" if when else f"layer.{name}"


def _stopped_gradient(ir: Declared) -> str | None:
    """Where the layer stops a gradient on purpose (`ops.stop_gradient`, as Keras's
    SpectralNormalization in its power iteration): "inference" when an inference
    call may, "training" when only training calls do, else None. A method or op counts
    where `call` reaches it: Keras's `normalized_weights`, called under `if training:`, is
    training's."""
    if isinstance(ir.call, Branches):
        train, infer = ir.call.train, ir.call.infer
        found = ["training" if train is not None and _stops(train) else None]
        found.append("inference" if infer is not None and _stops(infer) else None)
    else:
        train = infer = ir.call
        found = [_stops(ir.call) if ir.call is not None else None]
    helpers = {m.name: m.body for m in ir.methods} | {op.name: op.forward for op in ir.ops}
    in_inference = _reached(helpers, [infer], inference=True)
    anywhere = _reached(helpers, [train, infer], inference=False)
    for name, code in helpers.items():
        if _stops(code):  # a helper `call` does not reach by name may be reached otherwise
            found.append("training" if name in anywhere - in_inference else "inference")
    return "inference" if "inference" in found else "training" if "training" in found else None


def _stops(code: Code) -> str | None:
    return inference_uses(code, "stop_gradient")


def _reached(helpers: dict[str, Code], start: list[Code | None], inference: bool) -> set[str]:
    """The helpers (methods, ops) that the `start` code reaches, through one another; an
    inference call's only, with `inference` (a helper's own code runs whole once reached)."""
    names = set(helpers)
    todo = [n for code in start if code is not None for n in names_reached(code, names, inference)]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += names_reached(helpers[name], names, inference=False)
    return reached


def _constructions(sublayer) -> list[Construction]:
    """The layer a sublayer creates, or each of its sequence's."""
    if sublayer.sequence is not None:
        return list(sublayer.sequence)
    return [Construction(sublayer.class_, sublayer.args)]


def _inert_in_training(ir: Declared, name: str, construction: Construction) -> list[str] | None:
    """Why (in parts of a line each) the example's training-sensitive sublayer leaves `training` alone (a dropout of
    rate 0, as keras-hub's TransformerDecoder keeps by default); None if it may not."""
    arg = TRAINING_SENSITIVE[construction.class_]
    value = construction.args.get(arg) if arg else None
    if isinstance(value, Code) and value.is_expression:
        node = expression_node(value)
        param = node.value if isinstance(node, cst.Name) else None
        if param in ir.example.args and ir.example.args[param] == 0:
            return [
                f"training changes nothing in the example: `{param}` is 0, the {arg} of `{name}`;",
                f" give the example a `{param}` above 0 to check it",
            ]
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
        return [f"training changes nothing: `{name}` has {arg} 0"]
    return None


def _draws_hint(ir: Declared, forwards: list[Code | None]) -> list[str]:
    """What to set when the example of a random layer draws nothing: the params
    `call` reads that the example leaves at 0 or false, such as `router_jitter_noise`."""
    read = {f.name for code in forwards if code is not None for f in code.free}
    zeros = [
        f"`{name}`"
        for name, value in ir.example.args.items()
        if name in read and name != "seed" and value in (0, False) and value is not None
    ]
    what = [f" ({', '.join(zeros)} {'is' if len(zeros) == 1 else 'are'} 0 or false)"]
    return ["give the example params that make it draw", *(what if zeros else [])]


def _output_position(ir: Declared, name: str) -> int:
    """Where the output `name` comes in a call given only its keyword: after the outputs
    that are always returned, the others (under a `when`) left out at their defaults."""
    before = list(ir.outputs or {})[: list(ir.outputs or {}).index(name)]
    return sum(1 for n in before if n not in ir.output_when)


def _reads(names: set[str], *codes: Code) -> bool:
    """Whether any of the snippets reads any of `names`."""
    return any(f.name in names for code in codes for f in code.free)


def stated_numbers(ir: Declared) -> dict[str, Any]:
    """The test constants and checks of the numbers a declaration states."""
    example = ir.example
    # Stated numbers are of the outputs every call returns (not those under a `when`).
    always = [n for n in ir.outputs or {} if n not in ir.output_when]
    outputs = always if len(always) > 1 else None

    def per_output(value):
        return [value[n] for n in outputs] if outputs else [value]

    constants: dict[str, Any] = {}
    stated = []
    if example.inputs is not None:
        constants["INPUTS"] = example.inputs
        if example.weights:
            constants["WEIGHTS"] = dict(example.weights)
        for value, constant, training in (
            (example.expected, "EXPECTED", False),
            (example.expected_training, "EXPECTED_IN_TRAINING", True),
        ):
            if value is not None:
                constants[constant] = per_output(value)
                stated.append((training, constant))
    reference = None
    if example.reference is not None:
        code = example.reference
        used = {f.name for f in code.free}
        # A `layer` param (a tied token embedding) reads as the layer's own object's weights.
        sublayers = [s.name for s in ir.sublayers]
        sublayers += [n for n, p in ir.params.items() if p.type == "layer"]
        members = [
            n for n in dict.fromkeys([*ir.params, *ir.weight_names, *sublayers]) if n in used
        ]
        # A param as the example gives it, a weight as an array, a sublayer as its weights.
        values = {
            n: _arg(n, example.args) if n in ir.params else f"support.numpy(layer.{n})"
            for n in members
        } | {n: f"support.sublayer_weights({_sublayer(ir, n)})" for n in members if n in sublayers}
        # the inputs as every call passes them: the tensor inputs, then keyword tensors
        inputs = list(example.input_shapes)
        keywords = [f"{k.name}={literal(k.default)}" for k in ir.keywords if k.name not in inputs]
        named = keywords + members
        # Without stated inputs, the stated weights are of the layer the reference checks.
        if example.weights and example.inputs is None:
            constants["WEIGHTS"] = dict(example.weights)
        reference = {
            "signature": ", ".join([*inputs, *(["*"] if named else []), *named]),
            "body": body(code),
            "call": ", ".join(
                [
                    "*inputs" if len(inputs) > 1 else "inputs",
                    *(f"{n}={v}" for n, v in values.items()),
                ]
            ),
        }
    if stated or reference:
        constants["ATOL"] = example.atol
    return {"constants": constants, "stated_outputs": stated, "reference": reference}


def _call_case(case: CallCase) -> dict[str, Any]:
    """A call case as the generated tests take it, named by its arguments (a tensor's
    by its name alone)."""
    named = [k if isinstance(v, list) else f"{k}={v!r}" for k, v in case.args.items()]
    return {
        "name": ", ".join(named),
        "args": case.args,
        "input_shapes": case.input_shapes,
        "input_dtypes": case.input_dtypes,
        "input_range": case.input_range,
    }
