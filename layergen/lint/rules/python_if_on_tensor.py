"""`python-if-on-tensor`: a Python `if` or `while` on a tensor in `call`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, walk
from .base import Finding, Rule, Run, at
from .common import call_tensors

RULE = Rule(
    "python-if-on-tensor",
    "error",
    "Python `if`/`while` on a tensor in `call`",
    "A Python condition needs a concrete boolean: on a symbolic or traced tensor it fails (functional models,\n"
    "`jit_compile`, JAX) or is decided once at trace time. Use `ops.where` or `ops.cond`; conditions on\n"
    "shapes, `training` or `is None` are fine.",
    "def call(self, x):\n    if ops.max(x) > 1.0:\n        x = x / ops.max(x)\n    return x",
    "def call(self, x):\n    return ops.where(ops.max(x) > 1.0, x / ops.max(x), x)",
    default=False,
    keras3_only=True,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    call = cls.methods.get("call")
    if (
        call is None or not cls.keras3
    ):  # Keras 2 runs `call` through AutoGraph, which converts these
        return
    tensors = call_tensors(source, cls, call)
    for node in walk(call):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and tensors.depends(node.test):
            word = "while" if isinstance(node, ast.While) else "if"
            yield at(
                source,
                node.test,
                "python-if-on-tensor",
                f"Python `{word}` on a tensor",
                "use `ops.where` or `ops.cond`",
            )
