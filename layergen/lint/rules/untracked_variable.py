"""`untracked-variable`: state in a TensorFlow or NumPy variable instead of `add_weight`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, self_name, walk
from .base import Finding, Rule, Run, at

UNTRACKED = ("tensorflow.Variable", "keras.backend.variable", "tensorflow.keras.backend.variable")


RULE = Rule(
    "untracked-variable",
    "error",
    "state kept in a TensorFlow or NumPy variable instead of `add_weight`",
    "`tf.Variable`, `K.variable` and NumPy arrays are not Keras variables: they are not trained, not saved, and\n"
    "do not exist on JAX or torch. `self.add_weight(...)` makes a tracked, saved, backend-neutral weight.",
    "self.b = tf.Variable(tf.zeros([units]), trainable=True)",
    'self.b = self.add_weight(shape=(units,), initializer="zeros")',
    keras3_only=True,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if not cls.keras3:
        return
    for function in cls.methods.values():
        kept = _kept(function)
        for node in walk(function):
            if (
                isinstance(node, ast.Call)
                and (source.resolve(node.func) or "") in UNTRACKED
                and id(node) in kept
            ):
                yield at(
                    source,
                    node,
                    "untracked-variable",
                    f"`{source.segment(node.func)}` "
                    "makes a variable Keras does not track, train on every backend, or save",
                    "use `self.add_weight(shape=..., initializer=...)`",
                )


def _kept(function: ast.FunctionDef) -> set[int]:
    """The ids of the nodes whose value reaches the layer's state: stored on `self`
    (`self.v = ...`, `self.vs.append(...)`, `setattr(self, ...)`), directly or through a
    local, or returned (a helper's result may be stored). A scratch variable that stays
    in its method (a `@staticmethod`'s counter) is none of the layer's state."""
    me = None if _static(function) else self_name(function)
    values: list[ast.AST] = []
    local_values: dict[str, list[ast.AST]] = {}
    for node in walk(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_on_self(t, me) for t in targets):
                values.append(node.value)
            for target in targets:
                if isinstance(target, ast.Name):
                    local_values.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Attribute) and _on_self(node.func.value, me))
            or (
                isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and node.args
                and _on_self(node.args[0], me)
            )
        ):
            values.extend([*node.args, *(k.value for k in node.keywords)])
        elif isinstance(node, ast.Return) and node.value is not None:
            values.append(node.value)
    held = [n for v in values for n in _itself(v)]
    for name in {n.id for n in held if isinstance(n, ast.Name)} & local_values.keys():
        held += [n for v in local_values[name] for n in _itself(v)]
    return {id(n) for n in held}


def _itself(value: ast.AST) -> list[ast.AST]:
    """What an expression holds as it is (in a tuple, list or dict, either branch of an
    `if`), not what it makes of it: `v` and `[v]` hold the variable, `v.value()` does not."""
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return [n for e in value.elts for n in _itself(e)]
    if isinstance(value, ast.Dict):
        return [n for e in value.values for n in _itself(e)]
    if isinstance(value, ast.Starred):
        return _itself(value.value)
    if isinstance(value, ast.IfExp):
        return [*_itself(value.body), *_itself(value.orelse)]
    return [value]


def _on_self(node: ast.AST, me: str | None) -> bool:
    """`self.x`, `self.x[i]`, `self.x.y`: the layer's own state."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return me is not None and isinstance(node, ast.Name) and node.id == me


def _static(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
        for d in function.decorator_list
    )
