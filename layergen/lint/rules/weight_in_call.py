"""`weight-in-call`: a weight created in `call`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, self_attribute, self_name, walk
from .base import Finding, Rule, Run, at
from .common import weight_calls

RULE = Rule(
    "weight-in-call",
    "error",
    "a weight is created in `call`",
    "`call` runs at every step and under tracing: a weight made there is made again each time (or fails in a\n"
    "compiled function) and never reaches the optimizer or the saved file. Create it in `build`.",
    "def call(self, x):\n    self.w = self.add_weight(shape=(x.shape[-1],))\n    return x * self.w",
    "def build(self, input_shape):\n    self.w = self.add_weight(shape=(input_shape[-1],))\n\ndef call(self, x):\n    return x * self.w",
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    call = cls.methods.get("call")
    if call is None:
        return
    once = set() if cls.keras3 else _made_once(call)  # Keras 3 traces `call`: never
    for node in weight_calls(call):
        if id(node) in once:
            continue
        yield at(
            source,
            node,
            "weight-in-call",
            "a weight is created in `call`",
            "create it in `build(input_shape)`",
        )


def _made_once(function: ast.FunctionDef) -> set[int]:
    """The weight calls under `if self.w is None:`: made at the first call only, which
    Keras 2 allows (its first call runs eagerly or in the first trace)."""
    me = self_name(function)
    once: set[int] = set()
    for node in walk(function):
        test = node.test if isinstance(node, ast.If) else None
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.ops[0], ast.Is)
            and self_attribute(test.left, me)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            once |= {id(n) for statement in node.body for n in walk(statement)}
    return once
