"""Turn an `Analysis` into plain data for the templates.

Every decision about what the generated code says is made here, in Python;
the templates only lay it out.
"""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from ..keras_names import IDENTIFIERS
from ..spec.analyze import KIND_METHOD, Analysis
from ..spec.code import Code, body, parse, resolve
from ..spec.model import BOUNDS, Param
from ..spec.yamlfile import Pos
from .docs import example_doc, input_doc, output_doc
from .render import block, literal

BASE_CLASSES = {
    "layer": "keras.layers.Layer",
    "loss": "keras.losses.Loss",
    "constraint": "keras.constraints.Constraint",
    "regularizer": "keras.regularizers.Regularizer",
    "initializer": "keras.initializers.Initializer",
}
KERAS_OBJECT_TYPES = tuple(IDENTIFIERS)
# The methods the templates write for each kind.
GENERATED_METHODS = {
    "layer": frozenset(
        [
            "__init__",
            "build",
            "call",
            "compute_mask",
            "compute_output_shape",
            "compute_output_spec",
            "get_config",
        ]
    ),
    **{
        kind: frozenset(["__init__", method, "get_config"])
        for kind, method in KIND_METHOD.items()
        if kind != "layer"
    },
}  # activation, initializer, regularizer, constraint


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
    """Docstring lines broken at spaces so that none passes `width` columns (issue 13).

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
            width - indent,
            initial_indent=lead,
            subsequent_indent=lead,
            break_long_words=False,
            break_on_hyphens=False,
        )
        out.extend(rest)
    return out


# -- params ------------------------------------------------------------------


def param_store(name: str, param: Param) -> str:
    if param.type in KERAS_OBJECT_TYPES:
        return f"keras.{param.type}s.get({name})"
    return name


def param_config(name: str, param: Param) -> str:
    if param.type in KERAS_OBJECT_TYPES:
        return f"keras.{param.type}s.serialize(self.{name})"
    return f"self.{name}"


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
    text = param.doc or {
        "activation": "activation function; `None` means linear",
        "initializer": "initializer",
        "regularizer": "regularizer, or `None`",
        "constraint": "constraint, or `None`",
    }.get(param.type, param.type)
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


def _expression(code: Code) -> cst.BaseExpression:
    return code.module.body[0].body[0].value


def shape_tuple(code: Code, rename: dict[str, str], inputs: set[str]) -> str:
    """A shape expression as Python code that builds a tuple."""
    node = _expression(code)
    text = code.render(rename)
    if isinstance(node, cst.Tuple):
        return text if node.lpar else f"({text})"
    if _is_input_shape(node, inputs):
        return f"tuple({text})"
    return f"({text},)"


def _is_input_shape(node: cst.BaseExpression, inputs: set[str]) -> bool:
    """An input's name alone (`x`) or sliced (`x[1:]`) stands for several dims."""
    if isinstance(node, cst.Name):
        return node.value in inputs
    return (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and node.value.value in inputs
        and any(isinstance(e.slice, cst.Slice) for e in node.slice)
    )


def shape_rank(code: Code, inputs: set[str]) -> int | None:
    """The number of dims, when it is known without the input shapes."""
    node = _expression(code)
    if isinstance(node, cst.Tuple):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return len(node.elements)
    return None if _is_input_shape(node, inputs) else 1


# -- the context -------------------------------------------------------------


def build_context(
    a: Analysis, *, package: str, source: str, line_length: int = 88
) -> dict[str, Any]:
    """`line_length`: black's, which the docstrings are wrapped to."""
    decl = a.decl
    members = _members(a)
    self_rename = {name: f"self.{name}" for name in members}
    params = [
        {
            "name": name,
            "signature": name if p.required else f"{name}={literal(p.default)}",
            "checks": param_checks(name, p),
            "store": param_store(name, p),
            "config": param_config(name, p),
            "doc": docstring_text(param_doc(name, p), " " * 12, 8, line_length),
        }
        for name, p in a.params.items()
    ]
    methods = [
        {
            "name": name,
            "args": m.args,
            "body": body(a.code("methods", name, "body"), _shadowed(self_rename, m.args)),
        }
        for name, m in decl.methods.items()
    ]
    ctx: dict[str, Any] = {
        "kind": decl.kind,
        "name": decl.name,
        "source": docstring_text(source),
        "package": package,
        "base": decl.base or BASE_CLASSES[decl.kind],
        "custom_base": decl.base is not None,
        "doc": docstring_text(decl.doc or f"{decl.name} {decl.kind}.", first=7, width=line_length),
        "line_length": line_length,
        "params": params,
        "imports": list(decl.imports),
        "random": decl.random,
        # Computed in float32 under any dtype policy: inputs and weights are not cast down.
        "float32_compute": decl.compute_dtype == "float32",
        "init": a.code("init").render() if decl.init else None,
        "ops": [_op(a, name, self_rename) for name in decl.ops],
        # A declared method with the name of a generated one replaces it, in its place.
        "methods": [m for m in methods if m["name"] not in GENERATED_METHODS[decl.kind]],
        "overrides": {m["name"]: m for m in methods if m["name"] in GENERATED_METHODS[decl.kind]},
        "inputs": a.inputs,
    }
    if decl.kind == "layer":
        ctx.update(_layer(a, self_rename, line_length))
    else:
        ctx["call_body"] = body(a.code("call"), _shadowed(self_rename, a.inputs))
    return ctx


def _members(a: Analysis) -> list[str]:
    decl = a.decl
    names = [*a.params, *decl.weights, *decl.sublayers, *decl.ops, *decl.methods]
    return names + (["seed_generator"] if decl.random else [])


def _shadowed(rename: dict[str, str], local: list[str]) -> dict[str, str]:
    return {k: v for k, v in rename.items() if k not in local}


def _op(a: Analysis, name: str, self_rename: dict[str, str]) -> dict[str, Any]:
    op = a.decl.ops[name]
    rename = _shadowed(self_rename, op.args + ["upstream"])
    if isinstance(op.gradient, str):
        gradient = body(a.code("ops", name, "gradient"), rename)
    else:
        grads = [
            (
                a.code("ops", name, "gradient", arg).render(rename)
                if arg in op.gradient
                else f"ops.zeros_like({arg})"
            )
            for arg in op.args
        ]
        gradient = (
            "return " + (grads[0] if len(grads) == 1 else "(" + ", ".join(grads) + ")") + "\n"
        )
    forward = body(a.code("ops", name, "forward"), rename, returns=lambda e: [f"return {e}, grad"])
    return {"name": name, "args": op.args, "forward": forward, "gradient": gradient}


def _layer(a: Analysis, self_rename: dict[str, str], width: int) -> dict[str, Any]:
    decl = a.decl
    example = example_doc(a, width)
    inputs = a.inputs
    several = len(inputs) > 1
    input_set = set(inputs)
    shape_names = {n: (f"{n}_shape" if several else "input_shape") for n in inputs}
    shape_rename = {**shape_names, **{p: f"self.{p}" for p in a.params}}
    call_rename = _shadowed(self_rename, inputs + ["training", "mask"])

    weights = []
    for name, w in decl.weights.items():
        code = a.code("weights", name, "shape")
        shape = shape_tuple(code, shape_rename, input_set)
        rank = shape_rank(code, input_set)
        args = {"name": literal(name), "shape": shape}
        prelude = None
        if w.initializer is not None:
            args["initializer"] = _keras_object(a, ("weights", name, "initializer"), w.initializer)
        elif rank is None:
            prelude = f"{name}_shape = {shape}"
            args["shape"] = f"{name}_shape"
            args["initializer"] = f'"glorot_uniform" if len({name}_shape) >= 2 else "zeros"'
        else:
            args["initializer"] = literal("glorot_uniform" if rank >= 2 else "zeros")
        for attr in ("regularizer", "constraint"):
            value = getattr(w, attr)
            if value is not None:
                args[attr] = _keras_object(a, ("weights", name, attr), value)
        if not w.trainable:
            args["trainable"] = "False"
        if w.dtype:
            args["dtype"] = literal(w.dtype)
        when = None
        if isinstance(w.when, str):
            when = a.code("weights", name, "when").render({p: f"self.{p}" for p in a.params})
        elif w.when is False:
            when = "False"
        weights.append({"name": name, "args": args, "when": when, "prelude": prelude})

    sublayers = [_sublayer(a, name, shape_rename) for name in decl.sublayers]

    declared = decl.inputs or {}
    symbolic = [
        (
            f"keras.KerasTensor({shape_names[n]}, dtype={literal(declared[n].dtype)})"
            if declared.get(n) and declared[n].dtype
            else f"keras.KerasTensor({shape_names[n]}, dtype=self.compute_dtype)"
        )
        for n in inputs
    ]
    specs = []
    for n in inputs:
        spec = (decl.inputs or {}).get(n)
        if spec and (spec.rank is not None or spec.min_rank is not None):
            specs.append(
                "keras.InputSpec("
                + (f"ndim={spec.rank}" if spec.rank is not None else f"min_ndim={spec.min_rank}")
                + ")"
            )
        else:
            specs.append("None")
    input_spec = None
    if any(s != "None" for s in specs):
        input_spec = specs[0] if not several else "[" + ", ".join(specs) + "]"

    return {
        "several_inputs": several,
        "call_arg": "inputs" if several else inputs[0],
        "unpack": ", ".join(inputs) + " = inputs" if several else None,
        "unpack_shapes": ", ".join(shape_names.values()) + " = input_shape" if several else None,
        "weights": weights,
        "sublayers": sublayers,
        "trace": ("[" + ", ".join(symbolic) + "]") if several else symbolic[0],
        "input_spec": input_spec,
        "masking": decl.masking not in (None, False),
        "compute_mask": (
            a.code("masking").render(_shadowed(self_rename, inputs + ["mask"]))
            if isinstance(decl.masking, str)
            else None
        ),
        "losses": [a.code("losses", i).render(call_rename) for i in range(len(decl.losses))],
        "call_body": _call_body(a, call_rename),
        "output_shape": _output_shape(a, shape_rename, input_set, shape_names),
        # Outputs by name: the symbolic outputs are a dict of tensors too.
        "named_outputs": decl.output_type == "dict",
        "input_doc": [docstring_text(line, " " * 12, 8, width) for line in input_doc(a)],
        "output_doc": [docstring_text(line, " " * 12, 8, width) for line in output_doc(a)],
        "example_doc": (
            [docstring_text(line) for line in example] if example is not None else None
        ),
    }


def _keras_object(a: Analysis, loc: tuple, value: str) -> str:
    if value.isidentifier():
        return f"self.{value}" if value in a.params else literal(value)
    return a.code(*loc).render({p: f"self.{p}" for p in a.params})


def _sublayer(a: Analysis, name: str, shape_rename: dict[str, str]) -> dict[str, Any]:
    """A sublayer's construction. One whose arguments read an input's shape is created in
    `build` (params are attributes there); the others in `__init__`, as keras-hub does."""
    sub = a.decl.sublayers[name]
    loc = ("sublayers", name)
    calls = [(loc, sub.class_, sub.args)] if sub.layers is None else []
    calls += [
        (loc + ("layers", i), item.class_, item.args) for i, item in enumerate(sub.layers or [])
    ]
    in_build = any(
        f.name in a.inputs
        for where, _, args in calls
        for key, value in args.items()
        if isinstance(value, str)
        for f in a.code(*where, "args", key).free
    )
    rename = shape_rename if in_build else {}
    if sub.layers is None:
        construct = _construct(a, loc, sub.class_, sub.args, rename, name)
    else:
        items = [_construct(a, where, class_, args, rename) for where, class_, args in calls]
        named = "" if "name" in sub.args else f", name={literal(name)}"
        construct = f"{sub.class_ or 'keras.Sequential'}([{', '.join(items)}]{named})"
    return {"name": name, "construct": construct, "in_build": in_build}


def _construct(
    a: Analysis,
    loc: tuple,
    class_path: str,
    args: dict[str, Any],
    rename: dict[str, str],
    name: str | None = None,
) -> str:
    """`name`: the sublayer's key, its name unless the args give one (keras-hub names every sublayer)."""
    parts = []
    for key, value in args.items():
        parts.append(
            f"{key}={a.code(*loc, 'args', key).render(rename) if isinstance(value, str) else literal(value)}"
        )
    if name is not None and "name" not in args:
        parts.append(f"name={literal(name)}")
    if "dtype" not in args:
        parts.append("dtype=self.dtype_policy")
    return f"{class_path}({', '.join(parts)})"


def _call_body(a: Analysis, rename: dict[str, str]) -> str | None:
    decl = a.decl
    updates = list(decl.updates.items())

    cast = _float32_output(a)

    def with_updates(guarded: bool):
        if not updates:
            return cast and (lambda e: [f"return {cast(e)}"])
        assigns = []
        if len(updates) == 1:
            name, _ = updates[0]
            value = a.code("updates", name).render(rename)
            assigns.append(f"self.{name}.assign(ops.cast({value}, self.{name}.dtype))")
        else:  # compute every new value from the old state before assigning any
            for name, _ in updates:
                assigns.append(f"new_{name} = {a.code('updates', name).render(rename)}")
            for name, _ in updates:
                assigns.append(f"self.{name}.assign(ops.cast(new_{name}, self.{name}.dtype))")
        if guarded:  # one `if training:` statement holding them all
            assigns = ["if training:\n" + "\n".join(f"    {line}" for line in assigns)]
        return lambda e: [f"outputs = {cast(e) if cast else e}", *assigns, "return outputs"]

    if decl.call is None:
        if decl.base is not None and not (updates or decl.losses):
            return None  # the base class's call is used as it is
        arg = "inputs" if len(a.inputs) > 1 else a.inputs[0]
        forward = f"super().call({arg})" if decl.base is not None else arg
        return _float32_inputs(a) + body(_synthetic(a, forward), rename, with_updates(True))
    if isinstance(decl.call, str):
        return _float32_inputs(a) + body(a.code("call"), rename, with_updates(True))
    train = body(a.code("call", "train"), rename, with_updates(False))
    infer = body(a.code("call", "infer"), rename, with_updates(False) if cast else None)
    return _float32_inputs(a) + "if training:\n" + block(train, 4) + "\n" + infer


def _float32_inputs(a: Analysis) -> str:
    """`compute_dtype: float32`: float inputs cast up first, as LayerNormalization does."""
    if a.decl.compute_dtype != "float32":
        return ""
    declared = a.decl.inputs or {}
    floats = [
        n
        for n in a.inputs
        if not (declared.get(n) and declared[n].dtype and "float" not in declared[n].dtype)
    ]
    return "".join(f'{n} = ops.cast({n}, "float32")\n' for n in floats)


def _float32_output(a: Analysis):
    """What the layer returns of the value `call` returns, when that is not the value itself:
    `output_type: dict` builds the dict of the named outputs, from the tuple in their order;
    `compute_dtype: float32` casts the outputs back to the layer's compute dtype."""
    decl = a.decl
    cast = decl.compute_dtype == "float32"
    if decl.output_type == "dict":
        names = list(decl.outputs or {})
        return lambda e: _named_outputs(e, names, cast)
    if not cast:
        return None
    if decl.outputs is not None and len(decl.outputs) > 1:
        return lambda e: f"tuple(ops.cast(out, self.compute_dtype) for out in ({e}))"
    return lambda e: f"ops.cast({e}, self.compute_dtype)"


def _named_outputs(value: str, names: list[str], cast: bool) -> str:
    """The dict of the outputs `names` from `value`, their tuple: `{"mean": mean, ...}` when
    `value` is a tuple written out, else zipped."""

    def out(element: str) -> str:
        return f"ops.cast({element}, self.compute_dtype)" if cast else element

    node = cst.parse_expression(value)
    elements = list(node.elements) if isinstance(node, cst.Tuple) else []
    if len(elements) == len(names) and not any(isinstance(e, cst.StarredElement) for e in elements):
        values = [cst.Module([]).code_for_node(e.value) for e in elements]
        return "{" + ", ".join(f"{literal(n)}: {out(v)}" for n, v in zip(names, values)) + "}"
    keys = literal(tuple(names))
    if len(names) == 1:  # one output: the value itself, not a tuple of one
        return "{" + f"{literal(names[0])}: {out(value)}" + "}"
    return f"{{name: {out('value')} for name, value in zip({keys}, {value})}}"


def _synthetic(a: Analysis, text: str) -> Code:
    """Code layergen writes itself (the identity, or the base class's call)."""
    code = parse(text, Pos(1, 1), a.path, expression=True)
    resolve([code])
    return code


def _output_shape(
    a: Analysis, rename: dict[str, str], inputs: set[str], shape_names: dict[str, str]
) -> str | None:
    decl = a.decl
    if decl.output_shape is not None:
        return shape_tuple(a.code("output_shape"), rename, inputs)
    if decl.outputs is not None:
        shapes = [shape_tuple(a.code("outputs", n), rename, inputs) for n in decl.outputs]
        if decl.output_type == "dict":
            return "{" + ", ".join(f"{literal(n)}: {s}" for n, s in zip(decl.outputs, shapes)) + "}"
        return "(" + ", ".join(shapes) + ("," if len(shapes) == 1 else "") + ")"
    if decl.base is not None:
        return None
    return shape_names[a.inputs[0]]
