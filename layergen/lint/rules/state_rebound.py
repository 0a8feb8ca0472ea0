"""`state-rebound`: a weight replaced with `=` in `call` instead of updated with `assign`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, self_attribute, self_name, walk
from .base import Finding, Rule, Run, at
from .common import weight_calls, weights_of

RULE = Rule(
    "state-rebound",
    "error",
    "a weight is replaced with `=` in `call` instead of updated with `assign`",
    "`self.w = ...` in `call` replaces the variable with a tensor: the weight is no longer tracked or saved, and\n"
    "under tracing the tensor leaks out of the function. Update state with `self.w.assign(...)`.",
    "def call(self, x, training=None):\n    if training:\n        self.count = self.count + 1\n    return x",
    "def call(self, x, training=None):\n    if training:\n        self.count.assign(self.count + 1)\n    return x",
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    call = cls.methods.get("call")
    if call is None:
        return
    me, weights = self_name(call), weights_of(cls)
    made_here = set(weight_calls(call))
    for node in walk(call):
        if not isinstance(node, (ast.Assign, ast.AugAssign)) or node.value in made_here:
            # `self.w = self.add_weight(...)` in `call` creates the weight (weight-in-call),
            # it does not replace one.
            continue
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            attr = self_attribute(target, me)
            if attr in weights:
                yield at(
                    source,
                    target,
                    "state-rebound",
                    f"weight `{attr}` is replaced in `call`",
                    f"update it with `{me}.{attr}.assign(...)`",
                )
