"""Turn a declaration's IR (`declaration/ir.py`) into plain data for the templates.

Every decision about what the generated code says is made here, in Python;
the templates only lay it out.
"""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from ..declaration.code import Code, body, expression_node, is_input_shape, shape_rank
from ..declaration.ir import (
    BOUNDS,
    OBJECT_TYPES,
    Branches,
    Construction,
    Declared,
    KerasObject,
    Op,
    Param,
    Sublayer,
)
from ..declaration.param_types import BY_NAME, PARAM_TYPES
from ..declaration.sections import SECTIONS
from .docs import call_args_doc, example_doc, input_doc, output_doc
from .render import block, literal

# activation, initializer, regularizer, constraint: got and saved by a Keras module
KERAS_OBJECT_TYPES = tuple(row.name for row in PARAM_TYPES if row.keras_module)


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def docstring_text(
    text: str, indent: str = "    ", first: int | None = None, width: int = 88
) -> str:
    """Text that reads back exactly as written inside a triple-quoted docstring.

    Nothing in it can end the string or start an escape: backslashes and quotes
    next to quotes are escaped, and so is every character that black or Python
    would change (tabs, control characters, leading and trailing spaces). Lines
    after the first get `indent`, so `inspect.getdoc` gives the text back.
    `first`: the column the text starts at; then long lines are wrapped.
    """
    text = text.replace("\\", "\\\\")
    text = re.sub(r'^"|"$|"(?=")|(?<=")"', r'\\"', text)
    text = "".join(
        c if c.isprintable() or c == "\n" else c.encode("unicode_escape").decode("ascii")
        for c in text
    )
    lines = text.split("\n")
    lines[0] = re.sub(r"^ ", r"\\x20", lines[0])
    lines = [re.sub(r" $", r"\\x20", line) for line in lines]
    if first is not None:
        lines = _wrapped(lines, first, len(indent), width)
    return "\n".join([lines[0]] + [indent + line if line else "" for line in lines[1:]])


def _wrapped(lines: list[str], first: int, indent: int, width: int = 88) -> list[str]:
    """Docstring lines broken at spaces so that none passes `width` columns (black leaves a
    docstring's text as it is).

    `first`: the column the first line starts at; `indent`: that of the others.
    """
    import textwrap

    out: list[str] = []
    for number, line in enumerate(lines):
        start = first if number == 0 else indent
        if start + len(line) <= width:
            out.append(line)
            continue
        lead = line[: len(line) - len(line.lstrip(" "))]
        words = line.split(" ")[len(lead) :]
        head = lead
        while words and (head == lead or len(head) + 1 + len(words[0]) <= width - start):
            head = f"{head} {words.pop(0)}" if head != lead else head + words.pop(0)
        out.append(head)
        rest = textwrap.wrap(
            " ".join(words),
            max(width - indent, len(lead) + 1),  # a line length below the indent: a word a line
            initial_indent=lead,
            subsequent_indent=lead,
            break_long_words=False,
            break_on_hyphens=False,
        )
        out.extend(rest)
    return out


# -- params ------------------------------------------------------------------


def param_store(name: str, param: Param) -> str:
    if param.cast:  # `int(units)`: an int-like value (a NumPy int) stored as the int
        return f"{param.type}({name})"
    return BY_NAME[param.type].stored(name)


def param_config(name: str, param: Param) -> str:
    return BY_NAME[param.type].saved(name)


# The comparison that fails a bound: `units < 1` for `min: 1`, `rate >= 1.0` for `lt: 1.0`.
_FAILS = {"min": "<", "gt": "<=", "max": ">", "lt": ">="}


def param_checks(name: str, param: Param) -> list[str]:
    """`__init__` validation, raising the way Keras's own layers do."""
    checks = []
    optional = "" if param.required or param.default is not None else f"{name} is not None and "
    bounds = param.bounds
    if bounds:
        expected = " and ".join(f"{BOUNDS[k][1]} {v!r}" for k, v in bounds)
        if len(bounds) == 2:  # a lower and an upper bound: `not 0.0 <= rate < 1.0`
            (low_key, low), (high_key, high) = bounds
            low_op = "<=" if low_key == "min" else "<"
            high_op = "<=" if high_key == "max" else "<"
            condition = f"not {low!r} {low_op} {name} {high_op} {high!r}"
        else:
            ((key, value),) = bounds
            condition = f"{name} {_FAILS[key]} {value!r}"
        checks.append(_raise(optional + condition, name, expected))
    if param.choices is not None:
        choices = tuple(param.choices)
        checks.append(
            _raise(f"{optional}{name} not in {literal(choices)}", name, f"one of {choices!r}")
        )
    return checks


def _raise(condition: str, name: str, expected: str) -> str:
    expected = expected.replace("{", "{{").replace(
        "}", "}}"
    )  # the message is an f-string: braces are text
    message = (
        f"Invalid value for argument `{name}`: expected {expected}. Received: {name}={{{name}}}"
    )
    if len(message) + 19 <= 88:  # it fits at its indent in `__init__`
        return f"if {condition}:\n    raise ValueError(\n        f{literal(message)}\n    )"
    expected = expected.replace("{{", "{").replace("}}", "}")  # only the last piece is an f-string
    pieces = [
        literal(f"Invalid value for argument `{name}`: "),
        literal(f"expected {expected}. "),
        "f" + literal(f"Received: {name}={{{name}}}"),
    ]
    return (
        f"if {condition}:\n    raise ValueError(\n"
        + "".join(f"        {p}\n" for p in pieces)
        + "    )"
    )


def param_doc(name: str, param: Param) -> str:
    text = param.doc or BY_NAME[param.type].said
    text = text.rstrip(".")
    limits = [f"{BOUNDS[k][1]} {v!r}" for k, v in param.bounds]
    if param.choices is not None:
        limits.append("one of " + ", ".join(f"`{c!r}`" for c in param.choices))
    if limits:
        text += ", " + ", ".join(limits)
    if not param.required:
        text += f". Defaults to `{param.default!r}`"
    return f"{name}: {text}."


# -- shapes ------------------------------------------------------------------


def shape_tuple(code: Code, rename: dict[str, str], inputs: set[str]) -> str:
    """A shape expression as Python code that builds a tuple."""
    node = expression_node(code)
    text = code.render(rename)
    if isinstance(node, cst.Tuple):
        return text if node.lpar else f"({text})"
    if is_input_shape(node, inputs):
        return f"tuple({text})"
    return f"({text},)"


# -- the context -------------------------------------------------------------


def build_context(
    ir: Declared, *, package: str, source: str, line_length: int = 88
) -> dict[str, Any]:
    """`line_length`: black's, which the docstrings are wrapped to."""
    self_rename = {name: f"self.{name}" for name in ir.members}
    params = [
        {
            "name": name,
            "signature": name if p.required else f"{name}={literal(p.default)}",
            "checks": param_checks(name, p),
            "store": param_store(name, p),
            "config": param_config(name, p),
            "doc": docstring_text(param_doc(name, p), " " * 12, 8, line_length),
        }
        for name, p in ir.params.items()
    ]
    methods = [
        {
            "name": m.name,
            "args": list(m.args),
            "body": body(m.body, _shadowed(self_rename, m.arg_names)),
        }
        for m in ir.methods
    ]
    generated = ir.kind.generated_methods
    ctx: dict[str, Any] = {
        "kind": ir.kind.name,
        "method": ir.kind.method,
        "signature": ir.kind.signature,
        "base_kwargs": ir.kind.base_kwargs,
        "name": ir.name,
        "source": docstring_text(source),
        "package": package,
        "base": ir.base or ir.kind.base,
        "custom_base": ir.base is not None,
        "doc": docstring_text(ir.doc or f"{ir.name} {ir.kind.name}.", first=7, width=line_length),
        "line_length": line_length,
        "params": params,
        "imports": list(ir.imports),
        "random": ir.random,
        # Computed in float32 under any dtype policy: inputs and weights are not cast down.
        "float32_compute": ir.float32_compute,
        "init": ir.init.render() if ir.init is not None else None,
        # The partials of the sections that write lines of `__init__`, and what they read.
        "init_partials": [
            s.partial
            for s in SECTIONS.values()
            if s.partial_in == "__init__" and ir.sections.get(s.key) is not None
        ],
        **{
            name: value
            for s in SECTIONS.values()
            if s.layer is not None and ir.sections.get(s.key) is not None
            for name, value in s.layer(ir.sections[s.key]).items()
        },
        "ops": [op_context(op, self_rename) for op in ir.ops],
        # A declared method with the name of a generated one replaces it, in its place.
        "methods": [m for m in methods if m["name"] not in generated],
        "overrides": {m["name"]: m for m in methods if m["name"] in generated},
        "inputs": ir.input_names,
        # Params holding objects: `from_config` deserializes what `get_config` serialized.
        "deserialized": [n for n, p in ir.params.items() if p.type in OBJECT_TYPES],
    }
    if ir.kind.name == "layer":
        ctx.update(_layer(ir, self_rename, line_length))
    else:
        ctx["call_body"] = body(ir.call, _shadowed(self_rename, ir.input_names))
    return ctx


def _shadowed(rename: dict[str, str], local) -> dict[str, str]:
    return {k: v for k, v in rename.items() if k not in local}


def op_context(op: Op, self_rename: dict[str, str]) -> dict[str, Any]:
    """An op as its method renders it (the test module renders the declared one too)."""
    rename = _shadowed(self_rename, [*op.args, "upstream"])
    if op.gradient is not None:
        gradient = body(op.gradient, rename)
    else:
        grads = [
            code.render(rename) if code is not None else f"ops.zeros_like({arg})"
            for arg, code in op.gradients.items()
        ]
        gradient = (
            "return " + (grads[0] if len(grads) == 1 else "(" + ", ".join(grads) + ")") + "\n"
        )
    forward = body(op.forward, rename, returns=lambda e: [f"return {e}, grad"])
    return {"name": op.name, "args": list(op.args), "forward": forward, "gradient": gradient}


def _layer(ir: Declared, self_rename: dict[str, str], width: int) -> dict[str, Any]:
    example = example_doc(ir, width)
    inputs = ir.input_names
    # Several tensor inputs come as one list (`call(self, inputs)`), or, `separate_inputs`,
    # as arguments of their own (`call(self, query, value)`), as Keras's attention layers.
    separate = ir.separate_inputs and len(inputs) > 1
    several = len(inputs) > 1 and not separate
    input_set = set(inputs)
    # Keras gives `build` and `compute_output_shape` no shape of an argument named `mask`
    shaped_inputs = [n for n in inputs if not (separate and n == "mask")]
    shape_names = {
        n: (f"{n}_shape" if several or len(shaped_inputs) > 1 else "input_shape")
        for n in shaped_inputs
    }
    shape_rename = {**shape_names, **{p: f"self.{p}" for p in ir.params}}
    keywords = [k.name for k in ir.keywords]
    call_rename = _shadowed(self_rename, [*inputs, *keywords, "training", "mask"])
    param_rename = {p: f"self.{p}" for p in ir.params}

    # `build` takes the first input's shape, or, when what it creates reads a tensor keyword
    # input's shape, every tensor input's shape by name (`<input>_shape`), as Keras passes them.
    shaped = ir.tensor_keywords if ir.build_reads_keywords else []
    if separate and len(shaped_inputs) > 1:  # Keras passes each input's shape by its name
        build_names = {n: f"{n}_shape" for n in [*shaped_inputs, *shaped]}
        build_args = [*shape_names.values(), *(f"{k}_shape=None" for k in shaped)]
        build_unpack = None
    elif shaped:
        first = "inputs_shape" if several else f"{inputs[0]}_shape"
        build_names = {n: f"{n}_shape" for n in [*shaped_inputs, *shaped]}
        build_args = [first, *(f"{k}_shape=None" for k in shaped)]
        build_unpack = f"{', '.join(shape_names.values())} = {first}" if several else None
    else:
        build_names = shape_names
        build_args = ["input_shape"]
        build_unpack = ", ".join(shape_names.values()) + " = input_shape" if several else None
    build_rename = {**build_names, **{p: f"self.{p}" for p in ir.params}}
    build_set = set(build_names)

    weights = []
    for w in ir.weights:
        shape = shape_tuple(w.shape.code, build_rename, build_set)
        rank = shape_rank(w.shape.code, build_set)
        args = {"name": literal(w.keras_name), "shape": shape}
        prelude = None
        if w.initializer is not None:
            args["initializer"] = _keras_object(w.initializer, param_rename)
        elif rank is None:
            prelude = f"{w.name}_shape = {shape}"
            args["shape"] = f"{w.name}_shape"
            args["initializer"] = f'"glorot_uniform" if len({w.name}_shape) >= 2 else "zeros"'
        else:
            args["initializer"] = literal("glorot_uniform" if rank >= 2 else "zeros")
        for attr in ("regularizer", "constraint"):
            value = getattr(w, attr)
            if value is not None:
                args[attr] = _keras_object(value, param_rename)
        if not w.trainable:
            args["trainable"] = "False"
        if w.dtype:
            args["dtype"] = literal(w.dtype)
        if not w.autocast:  # as GroupNormalization: `self.autocast = False` alone is not enough
            args["autocast"] = "False"
        if w.aggregation:
            args["aggregation"] = literal(w.aggregation)
        when = _when(w.created, build_rename)
        weights.append({"name": w.name, "args": args, "when": when, "prelude": prelude})

    # What `build` traces `call` on: a batch of one, since the batch may be unknown (None,
    # under `keras.Input`) and `call` may use it with a weight (`ops.tile` of a class token);
    # no weight's shape depends on it.
    def symbolic(shape: str, dtype: str | None) -> str:
        dtype = literal(dtype) if dtype else "self.compute_dtype"
        return f"keras.KerasTensor((1, *{shape}[1:]), dtype={dtype})"

    traced = [symbolic(build_names[i.name], i.dtype) for i in ir.inputs if i.name in build_names]
    trace = ("[" + ", ".join(traced) + "]") if several else ", ".join(traced)
    for k in ir.keywords:  # given to `call` when `build` was given their shapes
        if k.name in shaped:
            shape = build_names[k.name]
            trace += f", {k.name}=(None if {shape} is None else {symbolic(shape, k.dtype)})"

    def spec(i, axes: bool) -> str:
        """`InputSpec` of an input; `axes`: with the dims fixed once built, as in `build`."""
        parts = []
        if i.rank is not None or i.min_rank is not None:
            parts.append(f"ndim={i.rank}" if i.rank is not None else f"min_ndim={i.min_rank}")
        if axes and i.axes:
            shape = build_names[i.name]
            axes = [f"self.{a}" if isinstance(a, str) else str(a) for a in i.axes]
            parts.append("axes={" + ", ".join(f"{a}: {shape}[{a}]" for a in axes) + "}")
        return f"keras.InputSpec({', '.join(parts)})" if parts else "None"

    def specs(axes: bool) -> str | None:
        found = [spec(i, axes) for i in ir.inputs]
        if all(s == "None" for s in found):
            return None
        return found[0] if not several else "[" + ", ".join(found) + "]"

    input_spec = specs(axes=False)
    built_input_spec = specs(axes=True) if any(i.axes for i in ir.inputs) else None

    return {
        "several_inputs": several,
        "call_arg": "inputs" if several else ", ".join(inputs),
        # What `compute_output_spec` passes `compute_output_shape` for the tensor inputs.
        "input_shapes_given": (
            "[t.shape for t in inputs]"
            if several
            else ", ".join(f"{n}.shape" for n in shaped_inputs)
        ),
        # What a custom base class's `build` is given.
        "base_build_args": list(shape_names.values()) if separate else build_args[:1],
        # Keyword arguments of `call` (and of `compute_output_spec`, which gets the same).
        "call_keywords": "".join(f", {k.name}={literal(k.default)}" for k in ir.keywords),
        "unpack": ", ".join(inputs) + " = inputs" if several else None,
        "unpack_shapes": ", ".join(shape_names.values()) + " = input_shape" if several else None,
        "build_args": build_args,
        "build_unpack": build_unpack,
        "weights": weights,
        "sublayers": [_sublayer(sub, build_rename, build_set, ir.params) for sub in ir.sublayers],
        # `build` traces `call` to build the sublayers, and the layers params hold.
        "traced": ir.build_traces_call,
        # Weights with a declared layout, by path in the layer: `build` warns when a
        # ModelParallel layout map misses one (a layer given a name `get_layout_map` misses).
        "layout_paths": tuple(ir.layouts),
        "trace": trace,
        "input_spec": input_spec,
        "built_input_spec": built_input_spec,  # with the axes `build` fixes
        "masking": ir.masking,
        "compute_mask": (
            ir.compute_mask.render(_shadowed(self_rename, [*inputs, "mask"]))
            if ir.compute_mask is not None
            else None
        ),
        # Added before the call's own code, or before each of its returns when a loss reads
        # a name the call binds.
        "losses_first": (
            None if ir.losses_read_call else "".join(f"{s}\n" for s in _losses(ir, call_rename))
        ),
        "call_body": _call_body(ir, call_rename),
        "takes_training": _takes_training(ir),
        **_output_shapes(
            ir, shape_rename, input_set, shape_names, separate and len(shaped_inputs) > 1
        ),
        # Outputs by name: the symbolic outputs are a dict of tensors too.
        "named_outputs": ir.outputs_by_name,
        "input_doc": [docstring_text(line, " " * 12, 8, width) for line in input_doc(ir)],
        "call_args_doc": [docstring_text(line, " " * 12, 8, width) for line in call_args_doc(ir)],
        "output_doc": [docstring_text(line, " " * 12, 8, width) for line in output_doc(ir)],
        "example_doc": (
            [docstring_text(line) for line in example] if example is not None else None
        ),
    }


def _when(created: bool | Code, rename: dict[str, str]) -> str | None:
    """The condition a weight or sublayer is created under; None: always."""
    if isinstance(created, Code):
        return created.render(rename)
    return None if created else "False"


def _keras_object(value: KerasObject, param_rename: dict[str, str]) -> str:
    if value.param is not None:
        return f"self.{value.param}"
    if value.name is not None:
        return literal(value.name)
    return value.code.render(param_rename)


def _sublayer(
    sub: Sublayer, shape_rename: dict[str, str], shaped: set[str], params
) -> dict[str, Any]:
    """A sublayer's construction. One whose arguments read an input's shape is created in
    `build` (params are attributes there); the others in `__init__`, as keras-hub does."""
    # In `__init__` the params are stored before the sublayers are created: their Keras
    # objects (`keras.activations.get(...)`), as in `build`.
    rename = shape_rename if sub.reads_input_shapes else {p: f"self.{p}" for p in params}
    if sub.sequence is None:
        construct = _construct(Construction(sub.class_, sub.args), rename, sub.name.lstrip("_"))
    else:
        items = [_construct(c, rename) for c in sub.sequence]
        named = "" if "name" in sub.args else f", name={literal(sub.name.lstrip('_'))}"
        construct = f"{sub.class_}([{', '.join(items)}]{named})"

    def shape(s) -> str:  # an input's shape as `build` got it; a tuple otherwise
        if is_input_shape(expression_node(s.code), shaped):
            return s.code.render(shape_rename)
        return shape_tuple(s.code, shape_rename, shaped)

    built = None  # the arguments of its `build`, in `build` (where shapes are known)
    if isinstance(sub.build, dict):
        built = ", ".join(f"{k}={shape(s)}" for k, s in sub.build.items())
    elif sub.build is not None:
        built = shape(sub.build)
    return {
        "name": sub.name,
        "construct": construct,
        "in_build": sub.reads_input_shapes,
        "when": _when(sub.created, rename),
        "build": built,
    }


def _construct(c: Construction, rename: dict[str, str], name: str | None = None) -> str:
    """`name`: the sublayer's key, its name unless the args give one (keras-hub names every sublayer)."""
    parts = [
        f"{key}={value.render(rename) if isinstance(value, Code) else literal(value)}"
        for key, value in c.args.items()
    ]
    if name is not None and "name" not in c.args:
        parts.append(f"name={literal(name)}")
    if "dtype" not in c.args:
        parts.append("dtype=self.dtype_policy")
    return f"{c.class_}({', '.join(parts)})"


def _losses(ir: Declared, rename: dict[str, str]) -> list[str]:
    """The `add_loss` statements; training-only ones under `if training:`; with sublayers,
    under one `if` that skips the symbolic call `build` makes."""
    lines = []
    for i, loss in enumerate(ir.losses):
        add = f"self.add_loss({loss.render(rename)})"
        lines.append(f"if training:\n    {add}" if i in ir.training_only_losses else add)
    if not lines or not ir.build_traces_call:
        return lines
    return [
        "# `build` traces `call` symbolically; losses are only added on real calls.\n"
        f"if not keras.backend.is_keras_tensor({ir.input_names[0]}):\n"
        + "\n".join("    " + line.replace("\n", "\n    ") for line in lines)
    ]


def _call_body(ir: Declared, rename: dict[str, str]) -> str | None:
    updates = list(ir.updates.items())
    cast = _returned(ir)
    # Losses that read a name the call binds are added before each of its returns.
    losses = _losses(ir, rename) if ir.losses_read_call else []

    def with_updates(guarded: bool):
        if not updates:
            if not (cast or losses):
                return None
            return lambda e: [*losses, f"return {cast(e) if cast else e}"]
        assigns = []
        if len(updates) == 1:
            name, code = updates[0]
            value = code.render(rename)
            assigns.append(f"self.{name}.assign(ops.cast({value}, self.{name}.dtype))")
        else:  # compute every new value from the old state before assigning any
            for name, code in updates:
                assigns.append(f"new_{name} = {code.render(rename)}")
            for name, _ in updates:
                assigns.append(f"self.{name}.assign(ops.cast(new_{name}, self.{name}.dtype))")
        if guarded:  # one `if training:` statement holding them all
            assigns = ["if training:\n" + "\n".join(f"    {line}" for line in assigns)]
        return lambda e: [
            f"outputs = {cast(e) if cast else e}",
            *assigns,
            *losses,
            "return outputs",
        ]

    if ir.call is None:
        return None  # the base class's call is used as it is
    if isinstance(ir.call, Code):
        return _float32_inputs(ir) + body(ir.call, rename, with_updates(True))
    train = body(ir.call.train, rename, with_updates(False))
    infer = body(ir.call.infer, rename, with_updates(False) if cast else None)
    return _float32_inputs(ir) + "if training:\n" + block(train, 4) + "\n" + infer


def _takes_training(ir: Declared) -> bool:
    """`call` takes `training` only when it reads it, as Keras's own `Dense` does not; Keras
    still passes the outer `training` on to sublayers. A base class's `call` may read it."""
    if ir.base is not None or isinstance(ir.call, Branches) or ir.updates:
        return True
    if ir.training_only_losses:  # added under `if training:`
        return True
    codes = [ir.call, *ir.losses] if isinstance(ir.call, Code) else list(ir.losses)
    return any(f.name == "training" for code in codes for f in code.free)


def _float32_inputs(ir: Declared) -> str:
    """`compute_dtype: float32`: float inputs cast up first, as LayerNormalization does."""
    if not ir.float32_compute:
        return ""
    floats = [i.name for i in ir.inputs if not (i.dtype and "float" not in i.dtype)]
    return "".join(f'{n} = ops.cast({n}, "float32")\n' for n in floats)


def _returned(ir: Declared):
    """What the layer returns of the value `call` returns, when that is not the value itself:
    `output_type: dict` builds the dict of the named outputs, from the tuple in their order;
    `compute_dtype: float32` casts the outputs back to the layer's compute dtype."""
    cast = ir.float32_compute
    if ir.outputs_by_name:
        names = list(ir.outputs or {})
        return lambda e: _named_outputs(e, names, cast)
    if not cast:
        return None
    if ir.outputs is not None and len(ir.outputs) > 1:
        return lambda e: f"tuple(ops.cast(out, self.compute_dtype) for out in ({e}))"
    return lambda e: f"ops.cast({e}, self.compute_dtype)"


def _named_outputs(value: str, names: list[str], cast: bool) -> str:
    """The dict of the outputs `names` from `value`, their tuple: `{"mean": mean, ...}` when
    `value` is a tuple written out, else zipped."""

    def out(element: str) -> str:
        return f"ops.cast({element}, self.compute_dtype)" if cast else element

    node = cst.parse_expression(value)
    if isinstance(node, cst.Dict):  # keyed by the declared names: checked when analysed
        if not cast:
            return value
        items = [(cst.Module([]).code_for_node(e.key), e.value) for e in node.elements]
        return (
            "{" + ", ".join(f"{k}: {out(cst.Module([]).code_for_node(v))}" for k, v in items) + "}"
        )
    elements = list(node.elements) if isinstance(node, cst.Tuple) else []
    if len(elements) == len(names) and not any(isinstance(e, cst.StarredElement) for e in elements):
        values = [cst.Module([]).code_for_node(e.value) for e in elements]
        return "{" + ", ".join(f"{literal(n)}: {out(v)}" for n, v in zip(names, values)) + "}"
    keys = literal(tuple(names))
    if len(names) == 1:  # one output: the value itself, not a tuple of one
        return "{" + f"{literal(names[0])}: {out(value)}" + "}"
    return f"{{name: {out('named_output')} for name, named_output in zip({keys}, {value})}}"


def _output_shapes(
    ir: Declared,
    rename: dict[str, str],
    inputs: set[str],
    shape_names: dict[str, str],
    separate: bool,
) -> dict[str, Any]:
    """`compute_output_shape`, and the `compute_output_spec` that passes it the keyword
    arguments of `call` when the output shapes (or which outputs there are) depend on them:
    a value as it is, a tensor as its shape, None when not given (as Keras's
    MultiHeadAttention takes `return_attention_scores`)."""
    # Separate inputs: Keras passes `compute_output_shape` each input's shape by its name.
    first_args = list(shape_names.values()) if separate else ["input_shape"]
    if not ir.output_shapes_read_keywords:
        shape = _output_shape(ir, rename, inputs, shape_names)
        return {
            "output_shape": shape,
            "output_shape_args": first_args,
            "output_shape_body": f"return {shape}",
            "output_spec_keywords": None,
        }
    taken = ir.output_keywords  # what the shapes read: a value, or a tensor's shape
    rename = {**rename, **{k.name: k.name for k in taken}}
    rename |= {k.name: f"{k.name}_shape" for k in taken if k.type == "tensor"}
    inputs = inputs | {k.name for k in taken if k.type == "tensor"}
    args = list(first_args)
    passed = []  # what compute_output_spec passes on
    for k in taken:
        if k.type == "tensor":
            args.append(f"{k.name}_shape=None")
            passed.append(f"{k.name}_shape=None if {k.name} is None else {k.name}.shape")
        else:
            args.append(f"{k.name}={literal(k.default)}")
            passed.append(f"{k.name}={k.name}")
    shape = _output_shape(ir, rename, inputs, shape_names)
    body = f"return {shape}\n"
    if ir.output_when:
        shapes = [(n, shape_tuple(s.code, rename, inputs)) for n, s in (ir.outputs or {}).items()]
        first = []
        while shapes and shapes[0][0] not in ir.output_when:
            first.append(shapes.pop(0)[1])
        lines = [f"shapes = [{', '.join(first)}]"]
        for name, shape_code in shapes:
            when = ir.output_when.get(name)
            if when is None:
                lines.append(f"shapes.append({shape_code})")
            elif isinstance(when, Code):
                lines.append(f"if {when.render(rename)}:\n    shapes.append({shape_code})")
        lines.append("return shapes[0] if len(shapes) == 1 else tuple(shapes)")
        body = "\n".join(lines) + "\n"
    return {
        "output_shape": shape,
        "output_shape_args": args,
        "output_shape_body": body,
        "output_spec_keywords": passed,
    }


def _output_shape(
    ir: Declared, rename: dict[str, str], inputs: set[str], shape_names: dict[str, str]
) -> str | None:
    if ir.output_shape is not None:
        return shape_tuple(ir.output_shape.code, rename, inputs)
    if ir.outputs is not None:
        shapes = {n: shape_tuple(s.code, rename, inputs) for n, s in ir.outputs.items()}
        if ir.outputs_by_name:
            return "{" + ", ".join(f"{literal(n)}: {s}" for n, s in shapes.items()) + "}"
        return "(" + ", ".join(shapes.values()) + ("," if len(shapes) == 1 else "") + ")"
    if ir.base is not None:
        return None
    return shape_names[ir.input_names[0]]
