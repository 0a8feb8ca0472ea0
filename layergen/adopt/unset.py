"""Attributes a class's `get_config` reads on `self` that nothing ever sets: not the class
(an assignment `self.x = ...` in any method, a name of its body), not its Keras base (the
same, in the source of every class of the base's MRO). keras-hub's `LlamaAttention` reads
`self.rope_scaling_factor`, which its `__init__` never sets: every config round trip of the
code as written raises AttributeError, a defect of the code, which adopt states."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import textwrap

from .reader import Found, code


def unset_reads(found: Found) -> list[tuple[str, str]]:
    """(attribute, method reading it) for each attribute `get_config`, or a method of the
    class it calls, reads on `self` that neither the class nor its Keras base sets."""
    if "get_config" not in found.methods:
        return []
    tree = ast.parse(textwrap.dedent(code(found.node)))
    cls = tree.body[0]
    if not isinstance(cls, ast.ClassDef) or _sets_by_name(cls):
        return []  # `setattr(self, name, ...)`: what it sets is not known here
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
    known = _assigned(cls) | {n for node in cls.body for n in _defined(node)}
    read: dict[str, str] = {}
    pending, seen = ["get_config"], set()
    while pending:
        name = pending.pop()
        seen.add(name)
        for node in ast.walk(methods[name]):
            if not (_on_self(node) and isinstance(node.ctx, ast.Load)):
                continue
            if node.attr in methods and node.attr not in seen:
                pending.append(node.attr)
            elif node.attr not in known:
                read.setdefault(node.attr, name)
    if read:
        base = _keras_sets(found.base or "keras.layers.Layer")
        read = {k: v for k, v in read.items() if base is not None and k not in base}
    return sorted(read.items())


@functools.cache
def _keras_sets(base: str) -> frozenset[str] | None:
    """What instances of the Keras class `base` have: its class's names, and the attributes
    any method of a class of its MRO sets on `self`; None where it cannot be imported."""
    module, _, name = base.rpartition(".")
    try:
        klass = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        return None
    names = set(dir(klass))
    for each in klass.__mro__:
        try:
            names |= _assigned(ast.parse(textwrap.dedent(inspect.getsource(each))))
        except (OSError, TypeError, SyntaxError):
            continue
    return frozenset(names)


def _on_self(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _assigned(tree: ast.AST) -> set[str]:
    """The attributes set on `self` anywhere in `tree` (`self.x = `, `self.x += `,
    `self.a, self.b = `, `for self.i in`, `del` aside)."""
    return {
        node.attr
        for node in ast.walk(tree)
        if _on_self(node) and isinstance(node.ctx, (ast.Store, ast.Del))
    }


def _defined(node: ast.stmt) -> list[str]:
    """The names a statement of a class body defines (a method, a property, `x = 1`)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return []


def _sets_by_name(cls: ast.ClassDef) -> bool:
    """The class sets attributes by computed names (`setattr(self, ...)`, `__dict__`)."""
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "setattr"
            and node.args
            and ast.unparse(node.args[0]) == "self"
        ):
            return True
        if _on_self(node) and node.attr == "__dict__":
            return True
    return False
