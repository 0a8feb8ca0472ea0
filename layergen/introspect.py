"""Read a Keras layer class as written (libcst, never imported): its constructor
arguments, weights, sublayers and call signature."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from .declaration.literals import PLAIN_TYPES, literal_type
from .textfiles import parse_python

REQUIRED = object()


# How docstrings name types (`units: Integer, ...`, `rate (float): ...`), Keras's style first.
DOC_TYPES = {
    "int": "int",
    "integer": "int",
    "positive integer": "int",
    "float": "float",
    "bool": "bool",
    "boolean": "bool",
    "str": "str",
    "string": "str",
}


@dataclass
class Arg:
    name: str
    default: Any = REQUIRED  # a Python literal, or REQUIRED
    default_code: str | None = None
    literal: bool = True  # False: the default is an expression (`DEFAULT_ALPHA`), read as None
    annotation: str | None = None
    doc_type: str | None = None  # from the class or `__init__` docstring's Args
    line: int = 1
    column: int = 1

    @property
    def known_type(self) -> str | None:
        """The type the code states (annotation, docstring or default), or None."""
        if self.annotation in PLAIN_TYPES:
            return self.annotation
        if self.doc_type:
            return self.doc_type
        return self.type if self.default is not REQUIRED and self.default is not None else None

    @property
    def type(self) -> str:
        """The declaration type: from the annotation, else from the default."""
        if self.annotation in PLAIN_TYPES:
            return self.annotation
        if self.doc_type and self.default is REQUIRED:
            return self.doc_type
        if isinstance(self.default, str) and "activation" in self.name:
            return "activation"
        return literal_type(self.default) or "float"


@dataclass
class LayerClass:
    name: str
    bases: list[str]
    args: list[Arg] = field(default_factory=list)
    has_kwargs: bool = False
    call_args: list[str] = field(default_factory=list)
    weights: list[str] = field(default_factory=list)
    sublayers: list[str] = field(default_factory=list)
    uses_random: bool = False
    line: int = 1
    rank: int | None = None  # the input's rank, where the code says it exactly
    min_rank: int | None = None  # the least rank the code's indexing of the input shape needs


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def read_classes(path: str, source: str) -> list[LayerClass]:
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = parse_python(Path(path), source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    classes = []
    for node in module.body:
        if isinstance(node, cst.ClassDef):
            classes.append(_read_class(node, positions))
    return classes


def _read_class(node: cst.ClassDef, positions) -> LayerClass:
    info = LayerClass(
        node.name.value, [_code(b.value) for b in node.bases], line=positions[node].start.line
    )
    doc_types = _doc_types(node)
    _read_rank(node, info)
    for member in node.body.body:
        if not isinstance(member, cst.FunctionDef):
            continue
        name = member.name.value
        if name == "__init__":
            params = member.params
            doc_types.update(_doc_types(member))
            for p in [*params.posonly_params, *params.params, *params.kwonly_params][1:]:
                start = positions[p].start
                arg = Arg(
                    p.name.value,
                    annotation=_code(p.annotation.annotation) if p.annotation else None,
                    doc_type=doc_types.get(p.name.value),
                    line=start.line,
                    column=start.column + 1,
                )
                if p.default is not None:
                    arg.default_code = _code(p.default)
                    try:
                        arg.default = ast.literal_eval(arg.default_code)
                    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                        arg.default, arg.literal = None, False  # optional, shown as None
                info.args.append(arg)
            info.has_kwargs = isinstance(params.star_kwarg, cst.Param)
            info.sublayers = _assigned(
                member, lambda value: "layers." in value or "Sequential" in value
            )
        elif name == "build":
            info.weights = _assigned(member, lambda value: "add_weight" in value)
        elif name == "call":
            info.call_args = [p.name.value for p in member.params.params[1:]]
            info.uses_random = "random" in _code(member) or "dropout" in _code(member).lower()
    sizes = _sizes(node)
    for arg in info.args:
        if arg.doc_type is None and arg.name in sizes:
            arg.doc_type = "int"
    return info


# Layers whose first argument is a size (units, filters, output_dim).
SIZED = ("Dense", "Embedding", "Conv1D", "Conv2D", "Conv3D", "EinsumDense")


def _sizes(node: cst.ClassDef) -> set[str]:
    """Constructor arguments the code uses as sizes, so they are positive integers: in a
    weight's `shape`, or as the first argument of `Dense(...)` and the like, directly or
    through the attribute `__init__` stores them in (`self.units = units`)."""
    stored: dict[str, str] = {}  # attribute -> argument
    used: set[str] = set()
    attributes: set[str] = set()  # `self.X` read in a size
    for child in walk(node.body):
        if (
            isinstance(child, cst.Assign)
            and len(child.targets) == 1
            and isinstance(child.targets[0].target, cst.Attribute)
            and _code(child.targets[0].target.value) == "self"
            and isinstance(child.value, cst.Name)
        ):
            stored[child.targets[0].target.attr.value] = child.value.value
        elif isinstance(child, cst.Call):
            callee = _code(child.func)
            sizes = [a.value for a in child.args if a.keyword and a.keyword.value == "shape"]
            if callee.endswith(SIZED) and child.args and child.args[0].keyword is None:
                sizes.append(child.args[0].value)
            for size in sizes:
                for part in walk(size):
                    if isinstance(part, cst.Name):
                        used.add(part.value)
                    elif isinstance(part, cst.Attribute) and _code(part.value) == "self":
                        attributes.add(part.attr.value)
    return used | {stored[a] for a in attributes if a in stored}


def _assigned(function: cst.FunctionDef, wanted) -> list[str]:
    """Names of `self.NAME = <value>` in a method whose value the predicate accepts."""
    names = []
    for statement in function.body.body:
        for node in walk(statement):
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                target = node.targets[0].target
                if (
                    isinstance(target, cst.Attribute)
                    and _code(target.value) == "self"
                    and wanted(_code(node.value))
                ):
                    names.append(target.attr.value)
    return names


def walk(node: cst.CSTNode):
    """`node` and every node below it, depth first."""
    yield node
    for child in node.children:
        yield from walk(child)


def _doc_types(node: cst.ClassDef | cst.FunctionDef) -> dict[str, str]:
    """Types named in a docstring's Args: `units: Integer, ...` or `rate (float): ...`."""
    import re

    doc = node.get_docstring() or ""
    found = {}
    for match in re.finditer(
        r"^\s*(\w+)(?: \((\w[\w ]*)\))?: ([\w ]+?)[.,:]", doc, flags=re.MULTILINE
    ):
        name, in_brackets, first = match.groups()
        word = (in_brackets or first).strip().lower()
        if word in DOC_TYPES:
            found[name] = DOC_TYPES[word]
    return found


def _read_rank(node: cst.ClassDef, info: LayerClass) -> None:
    """What the code says of the input's rank: `InputSpec(ndim=3)`, `InputSpec(min_ndim=2)`,
    `batch, length, dim = input_shape`, `input_shape[2]` (at least 3), where `input_shape` is
    whatever `build` and `compute_output_shape` call their shape parameter, or `x.shape`."""
    least = 0
    names = _shape_parameters(node)
    for child in walk(node.body):
        if isinstance(child, cst.Call) and _code(child.func).endswith("InputSpec"):
            for arg in child.args:
                if arg.keyword and isinstance(arg.value, cst.Integer):
                    if arg.keyword.value == "ndim":
                        info.rank = int(arg.value.value)
                    elif arg.keyword.value == "min_ndim":
                        least = max(least, int(arg.value.value))
        elif (
            isinstance(child, cst.Assign)
            and _is_shape(child.value, names)
            and isinstance(child.targets[0].target, cst.Tuple)
        ):
            elements = child.targets[0].target.elements
            if not any(isinstance(e, cst.StarredElement) for e in elements):
                info.rank = info.rank or len(elements)
        elif (
            isinstance(child, cst.Subscript)
            and _is_shape(child.value, names)
            and len(child.slice) == 1
        ):
            index = child.slice[0].slice
            if isinstance(index, cst.Index):
                value = _int(index.value)
                if value is not None:
                    least = max(least, value + 1 if value >= 0 else 1 - value)
    info.min_rank = least if least >= 2 else None  # the batch dim alone says nothing


def _shape_parameters(node: cst.ClassDef) -> set[str]:
    """The names `build` and `compute_output_shape` give their shape parameter (`s`,
    `input_shape`, `shape`, ...)."""
    names = {"input_shape"}
    for member in node.body.body:
        if isinstance(member, cst.FunctionDef) and member.name.value in (
            "build",
            "compute_output_shape",
        ):
            params = member.params.params
            if len(params) > 1:
                names.add(params[1].name.value)
    return names


def _is_shape(node: cst.BaseExpression, names: set[str]) -> bool:
    text = _code(node)
    return (
        text in names
        or text.endswith(".shape")
        or text.startswith(("ops.shape(", "keras.ops.shape("))
    )


def _int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.value)
    return None
