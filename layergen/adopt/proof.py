"""Members moved into the declaration only where the generated one is provably the code's:
the declaration is rendered with the member in it, and the generated method must have the
same syntax tree as the person's (formatting aside), or the member stays theirs."""

from __future__ import annotations

import ast
from collections.abc import Callable

import libcst as cst

from ..diagnostics import DiagnosticError
from ..update import members
from .reader import Found, code
from .sublayers import normalized, normalized_build


def body_text(function: cst.FunctionDef) -> str | None:
    """The statements of `function` as a code field (comments kept), or None when it has a
    docstring (a generated method has none: it would be lost)."""
    body = function.body.body
    if (
        body
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return None
    return "".join(code(statement) for statement in body)


def same_method(generated: str, name: str, found: Found) -> bool:
    """The class's method `name` in the generated module has the tree of the person's."""
    node = members.member(generated, f"{found.cls.name}.{name}")
    if node is None or name not in found.methods:
        return False
    return _tree(code(node)) == _tree(code(found.methods[name]))


def _tree(text: str) -> str:
    return ast.dump(ast.parse(text.strip()))


def same_output_shape(generated: str, found: Found) -> bool:
    """The generated `compute_output_shape` returns the shape the person's returns."""
    from .reader import output_shape

    node = members.member(generated, f"{found.cls.name}.compute_output_shape")
    if not isinstance(node, cst.FunctionDef):
        return False
    ours = output_shape(found.methods["compute_output_shape"], found)
    return ours is not None and output_shape(node, found) == ours


def same_init(generated: str, found: Found, plain: set[str]) -> bool:
    """The generated `__init__` creates the sublayers the person's does, as it does the rest
    (adopt/sublayers.py: the Keras layer calls compared with their arguments bound by name)."""
    node = members.member(generated, f"{found.cls.name}.__init__")
    if node is None or "__init__" not in found.methods:
        return False
    return normalized(code(node), plain) == normalized(code(found.methods["__init__"]), plain)


def same_build(generated: str, found: Found) -> bool:
    """The generated `build` creates and builds the sublayers the person's does, in its
    order, from the same shapes (adopt/sublayers.py), and nothing else."""
    node = members.member(generated, f"{found.cls.name}.build")
    if not isinstance(node, cst.FunctionDef) or len(node.params.params) != 2:
        return False
    parameter = node.params.params[1].name.value
    ours = normalized_build(code(node), parameter)
    return ours is not None and ours == normalized_build(code(found.methods["build"]), parameter)


def proves(render: Callable[[str], str | None], trial: str, name: str, found: Found) -> bool:
    """`trial` (a declaration's text) generates the method `name` as the class has it."""
    try:
        generated = render(trial)
    except DiagnosticError:
        return False
    if generated is None:
        return False
    if name == "compute_output_shape":
        return same_output_shape(generated, found)
    return same_method(generated, name, found)
