"""Read a Keras layer class as written (libcst, never imported): its constructor
arguments, weights, sublayers and call signature."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from .diagnostics import Diagnostic, DiagnosticError

REQUIRED = object()


@dataclass
class Arg:
    name: str
    default: Any = REQUIRED  # a Python literal, or REQUIRED
    default_code: str | None = None
    annotation: str | None = None

    @property
    def type(self) -> str:
        """The declaration type: from the annotation, else from the default."""
        if self.annotation in ("int", "float", "bool", "str", "list[int]", "list[float]", "list[str]"):
            return self.annotation
        value = self.default
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, int):
            return "int"
        if isinstance(value, float):
            return "float"
        if isinstance(value, str):
            return "activation" if "activation" in self.name else "str"
        if isinstance(value, list) and value:
            return {int: "list[int]", float: "list[float]", str: "list[str]"}.get(type(value[0]), "list[float]")
        return "float"


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


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def read_classes(path: str, source: str) -> list[LayerClass]:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise DiagnosticError([Diagnostic(path, exc.raw_line, exc.raw_column + 1, "python-syntax", f"invalid Python: {exc.message}")]) from None
    classes = []
    for node in module.body:
        if isinstance(node, cst.ClassDef):
            classes.append(_read_class(node))
    return classes


def _read_class(node: cst.ClassDef) -> LayerClass:
    info = LayerClass(node.name.value, [_code(b.value) for b in node.bases])
    for member in node.body.body:
        if not isinstance(member, cst.FunctionDef):
            continue
        name = member.name.value
        if name == "__init__":
            params = member.params
            for p in [*params.posonly_params, *params.params, *params.kwonly_params][1:]:
                arg = Arg(p.name.value, annotation=_code(p.annotation.annotation) if p.annotation else None)
                if p.default is not None:
                    arg.default_code = _code(p.default)
                    try:
                        arg.default = ast.literal_eval(arg.default_code)
                    except (ValueError, SyntaxError):
                        arg.default = None  # not a literal: optional, shown as None
                info.args.append(arg)
            info.has_kwargs = isinstance(params.star_kwarg, cst.Param)
            info.sublayers = _assigned(member, lambda value: "layers." in value or "Sequential" in value)
        elif name == "build":
            info.weights = _assigned(member, lambda value: "add_weight" in value)
        elif name == "call":
            info.call_args = [p.name.value for p in member.params.params[1:]]
            info.uses_random = "random" in _code(member) or "dropout" in _code(member).lower()
    return info


def _assigned(function: cst.FunctionDef, wanted) -> list[str]:
    """Names of `self.NAME = <value>` in a method whose value the predicate accepts."""
    names = []
    for statement in function.body.body:
        for node in _walk(statement):
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                target = node.targets[0].target
                if isinstance(target, cst.Attribute) and _code(target.value) == "self" and wanted(_code(node.value)):
                    names.append(target.attr.value)
    return names


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
