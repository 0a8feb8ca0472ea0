"""`weight-in-init`: a weight created in `__init__` with a hard-coded size."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, walk
from .base import Finding, Rule, Run, at
from .common import weight_calls

RULE = Rule(
    "weight-in-init",
    "warning",
    "a weight is created in `__init__` with a shape that does not come from the arguments",
    "In `__init__` the input is not known yet, so a hard-coded size is a guess that breaks on other inputs.\n"
    "Create the weight in `build(input_shape)` from `input_shape[-1]`.",
    "def __init__(self, units, **kwargs):\n    super().__init__(**kwargs)\n    self.w = self.add_weight(shape=(784, units))",
    "def build(self, input_shape):\n    self.w = self.add_weight(shape=(input_shape[-1], self.units))",
    default=False,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    init = cls.methods.get("__init__")
    if init is None:
        return
    for node in weight_calls(init):
        shape = next(
            (k.value for k in node.keywords if k.arg == "shape"),
            node.args[0] if node.args else None,
        )
        guessed = shape is not None and any(
            isinstance(n, ast.Constant) and type(n.value) is int and n.value > 1
            for n in walk(shape)
        )
        if guessed:
            yield at(
                source,
                node,
                "weight-in-init",
                "a weight is created in `__init__` with a hard-coded size",
                "create it in `build(input_shape)` from `input_shape[-1]`",
            )
