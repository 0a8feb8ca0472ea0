"""The parts of a layer's docstring that layergen writes in words, as keras-hub does.

Shapes read `N-D tensor with shape (batch_size, ..., units)`, not the declaration's
expression (`(*x[:-1], units)`), and the `Example:` section shows how to call the layer.
"""

from __future__ import annotations

import libcst as cst

from ..declaration.code import Code
from ..declaration.ir import Declared, Shape
from .render import literal

ELLIPSIS = "..."


# -- shapes ------------------------------------------------------------------------------------


def input_doc(ir: Declared) -> list[str]:
    """One line per input: `2D tensor with shape (batch_size, input_dim).`"""
    several = len(ir.inputs) > 1
    lines = []
    for spec in ir.inputs:
        name, rank = spec.name, spec.rank
        last = _dim_name(ir, name)
        if rank == 0:
            dims: list[str] = []
        elif rank == 1:
            dims = ["batch_size"]
        elif rank == 2:
            dims = ["batch_size", last]
        elif rank is not None:  # a declared rank: every dim named, as keras-hub writes them
            dims = ["batch_size", *(f"d{i}" for i in range(1, rank - 1)), last]
        else:
            dims = ["batch_size", ELLIPSIS, last]
        text = _tensor(dims, rank)
        if spec.min_rank is not None and rank is None:
            text = text.replace("N-D tensor", f"N-D tensor (N >= {spec.min_rank})")
        if spec.dtype:
            text += f", dtype `{spec.dtype}`"
        lines.append((f"`{name}`: " if several else "") + text + ".")
    return lines


def call_args_doc(ir: Declared) -> list[str]:
    """One line per keyword argument of `call`, as keras-hub's "Call arguments"."""
    lines = []
    for k in ir.keywords:
        text = (k.doc or ("a tensor, or None" if k.type == "tensor" else k.type)).rstrip(".")
        lines.append(f"{k.name}: {text}. Defaults to `{k.default!r}`.")
    return lines


def output_doc(ir: Declared) -> list[str]:
    if ir.output_shape is not None:
        return [_shape_words(ir, ir.output_shape) + "."]
    if ir.outputs is not None:
        lines = [
            f"`{n}`: " + _output_words(ir, shape) + "." + _returned_when(ir, n)
            for n, shape in ir.outputs.items()
        ]
        kind = "dict keyed by name" if ir.outputs_by_name else "tuple in this order"
        if ir.output_when:
            kind += " (the tensor alone when one is returned)"
        return [f"A {kind}:"] + lines
    if "compute_output_shape" in ir.method_names:
        return ["As `compute_output_shape` computes it."]
    if ir.base is not None:
        return ["As the base layer."]
    if len(ir.inputs) > 1:
        return [f"Same shape as `{ir.input_names[0]}`."]
    return ["Same shape as the input."]


def _output_words(ir: Declared, shape: Shape) -> str:
    """An output's shape in words: one a keyword tensor gives (a cache) is named after it."""
    text = shape.code.text.strip()
    if text in ir.tensor_keywords:
        return f"same shape as `{text}`"
    return _shape_words(ir, shape)


def _returned_when(ir: Declared, name: str) -> str:
    """For an output under a `when`: when `call` returns it."""
    when = ir.output_when.get(name)
    if when is None:
        return ""
    return " Never returned." if when is False else f" Returned when `{when.text.strip()}`."


def _tensor(dims: list[str], rank: int | None = None) -> str:
    if rank is None and ELLIPSIS not in dims:
        rank = len(dims)
    if rank == 0:
        return "A scalar tensor"
    size = f"{rank}D" if rank is not None and ELLIPSIS not in dims else "N-D"
    inside = ", ".join(dims) + ("," if len(dims) == 1 else "")
    return f"{size} tensor with shape `({inside})`"


def _dim_name(ir: Declared, name: str) -> str:
    """The last dim of an input: `input_dim` for the one input, as Keras's Dense says."""
    return "input_dim" if len(ir.inputs) == 1 else f"{name}_dim"


def _shape_words(a: Declared, shape: Shape) -> str:
    """A declared shape in words; an expression it cannot read stays as written."""
    if shape.dims is not None:
        dims = []
        for dim in shape.dims:
            if not isinstance(dim, Code):
                dims.append(str(dim))
                continue
            node = dim.module.body[0].body[0].value.elements[0].value
            dims.extend(_dims(a, node))
        return _tensor(dims)
    node = shape.code.module.body[0].body[0].value
    if isinstance(node, cst.Tuple):
        return _tensor([d for e in node.elements for d in _dims(a, e.value)])
    return _tensor(_dims(a, node))


def _whole(a: Declared, node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value in a.input_names


def _dims(a: Declared, node: cst.BaseExpression) -> list[str]:
    """The dims an expression stands for: several for an input or a slice of one."""
    if _whole(a, node):
        return ["batch_size", ELLIPSIS, _dim_name(a, node.value)]
    if (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and node.value.value in a.input_names
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Slice)
    ):
        cut = node.slice[0].slice
        start, stop = _int(cut.lower), _int(cut.upper)
        if cut.step is None and start in (None, 0) and stop is not None and stop < 0:
            return ["batch_size", ELLIPSIS]  # x[:-1]: all but the last dims
        if cut.step is None and start == 1 and stop is None:
            return [ELLIPSIS]  # x[1:]: all but the batch dim
        return [_text(a, node)]
    return [_text(a, node)]


def _int(node: cst.BaseExpression | None) -> int | None:
    if node is None:
        return None
    text = cst.Module([]).code_for_node(node).replace(" ", "")
    try:
        return int(text)
    except ValueError:
        return None


class _Words(cst.CSTTransformer):
    """`x[0]` -> `batch_size`, `x[-1]` -> `input_dim`, `x[2]` -> `input_dim2`."""

    def __init__(self, a: Declared):
        self.a = a

    def leave_Subscript(self, original, updated):
        if not (
            isinstance(updated.value, cst.Name)
            and updated.value.value in self.a.input_names
            and len(updated.slice) == 1
            and isinstance(updated.slice[0].slice, cst.Index)
        ):
            return updated
        name = updated.value.value
        index = _int(updated.slice[0].slice.value)
        last = _dim_name(self.a, name)
        spec = self.a.input(name)
        if spec.rank is not None and index == spec.rank - 1:
            index = -1  # the last dim of an input of known rank
        if index == 0:
            return cst.Name("batch_size")
        if index == -1:
            return cst.Name(last)
        if index is not None and index > 0:
            return cst.Name(f"{last}{index}")
        return updated


def _text(a: Declared, node: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(node.visit(_Words(a)))


# -- the example -------------------------------------------------------------------------------


def example_doc(ir: Declared, width: int) -> list[str] | None:
    """The code of the `Example:` section, from the declaration's `example`; None without one."""
    example = ir.example
    if not example.given:
        return None
    given = example.params
    args = {
        name: example.args[name]  # as given; an object param's, the code that makes it
        for name, param in ir.params.items()
        if name in given or param.required
    }
    args.update({k: v for k, v in given.items() if k not in ir.params})  # base class arguments
    call = f"layer = {ir.name}(" + ", ".join(f"{k}={literal(v)}" for k, v in args.items()) + ")"
    lines = [call]
    if len(call) + 4 > width:  # one argument a line, as black would write it
        lines = [f"layer = {ir.name}("] + [f"    {k}={literal(v)}," for k, v in args.items()]
        lines.append(")")
    low_high = example.input_range
    for name in example.input_shapes:  # the tensor inputs, and keyword tensors every call passes
        shape = literal(tuple(example.input_shapes[name]))
        dtype = example.input_dtypes[name]
        if dtype == "bool":
            value = f'keras.ops.ones({shape}, dtype="bool")'
        elif "int" in dtype:
            low, high = low_high or (0, 10)
            value = f"keras.random.randint({shape}, {low!r}, {high!r}, dtype={literal(dtype)})"
        elif low_high is not None:
            low, high = low_high
            value = f"keras.random.uniform({shape}, minval={low!r}, maxval={high!r})"
        else:
            value = f"keras.random.normal({shape})"
        if "float" in dtype and dtype != "float32":
            value = value[:-1] + f", dtype={literal(dtype)})"
        lines.append(f"{name} = {value}")
    inputs = ", ".join(ir.input_names)
    several = len(ir.input_names) > 1 and not ir.separate_inputs  # one list, as Keras's own
    named = "".join(f", {name}={name}" for name in example.every_call)
    lines.append(f"outputs = layer({f'[{inputs}]' if several else inputs}{named})")
    return lines
