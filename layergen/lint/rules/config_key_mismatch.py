"""`config-key-mismatch`: `from_config` reads a key `get_config` never writes."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..configs import chained_keys, string_value
from ..source import ClassInfo, SourceFile, walk
from .base import Finding, Rule, Run, at

# What Keras's own base classes write into every config (Layer: name, trainable, dtype;
# Loss: name, reduction), which `super().get_config()` reaching them adds.
BASE_KEYS = {"layer": {"name", "trainable", "dtype"}, "loss": {"name", "reduction"}}

RULE = Rule(
    "config-key-mismatch",
    "error",
    "`from_config` reads a key `get_config` never writes",
    'A key read without a default (`config["k"]`, `config.pop("k")`) that no `get_config` of the class\n'
    "(nor the `super().get_config()` it reaches) writes raises KeyError on every reload.",
    'def get_config(self):\n    return {**super().get_config(), "hashing_config": ...}\n\n'
    '@classmethod\ndef from_config(cls, config):\n    hashing = Hashing.from_config(config.pop("hash_config"))',
    '    hashing = Hashing.from_config(config.pop("hashing_config"))',
    default=False,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    """`config.pop("hash_config")` or `config["hash_config"]` in the class's own
    `from_config` where no `get_config` of the class writes that key: a KeyError on every
    reload. Keys read with a default (`get`, `pop(k, d)`, `in`) or written first are fine."""
    method = cls.methods.get("from_config")
    args = [*method.args.posonlyargs, *method.args.args] if method else []
    if len(args) < 2:
        return
    config = args[1].arg
    written = _written_keys(cls)
    if written is None:
        return
    assigned = {
        key
        for n in walk(method)
        if isinstance(n, (ast.Assign, ast.AugAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if (key := _subscript_key(t, config)) is not None
    }
    for node in walk(method):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = _subscript_key(node, config)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "pop"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == config
            and len(node.args) == 1
            and not node.keywords
        ):
            key = string_value(node.args[0])
        if key is None or key in written or key in assigned:
            continue
        yield at(
            source,
            node,
            RULE.code,
            f'`from_config` reads `"{key}"`, which `get_config` never writes: every reload '
            "raises KeyError",
            f'write `"{key}"` in `get_config`, or read the key it writes',
        )


def _written_keys(cls: ClassInfo) -> set[str] | None:
    """Every key the class's config holds: its `get_config` and those its `super()` calls
    reach, down to Keras's base; None when one of them cannot be read, or a parent is a
    class of Keras (other than the base) or one this run cannot read."""
    keys, goes_on = chained_keys([cls, *cls.parents])
    if keys is None or not goes_on:
        return keys
    if cls.parent_opaque or cls.kind not in BASE_KEYS:
        return None  # the rest comes from a parent we cannot read
    return keys | BASE_KEYS[cls.kind]


def _subscript_key(node: ast.AST, config: str) -> str | None:
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == config
    ):
        return string_value(node.slice)
    return None
