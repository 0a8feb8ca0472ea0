"""`unused-weight`: a trainable weight never read, so it gets no gradient."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, walk
from .base import Finding, Rule, Run, at
from .common import weights_of

RULE = Rule(
    "unused-weight",
    "error",
    "a trainable weight is never read, so it gets no gradient",
    "A weight the forward pass never reads stays at its initial value: the optimizer gets no gradient for it\n"
    "(and some backends warn or fail on it). Use it in `call`, or create it with `trainable=False`.",
    "def build(self, input_shape):\n    self.kernel = self.add_weight(shape=(input_shape[-1], self.units))\n    self.bias = self.add_weight(shape=(self.units,))\n\ndef call(self, x):\n    return ops.matmul(x, self.kernel)",
    "def call(self, x):\n    return ops.matmul(x, self.kernel) + self.bias",
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if cls.parent_opaque:
        return  # a parent we cannot read may read the weight
    own = {
        name: call
        for name, call in weights_of(ClassInfo(cls.name, cls.node, [], [], cls.methods)).items()
    }
    if not own:
        return
    loaded, reflective = _attribute_reads(source)
    if reflective or loaded & {
        "weights",
        "trainable_weights",
        "trainable_variables",
        "variables",
        "__dict__",
    }:
        return
    for name, call in own.items():
        trainable = next((k.value for k in call.keywords if k.arg == "trainable"), None)
        if trainable is not None or name in loaded:
            continue  # trainable=False, or decided at run time
        yield at(
            source,
            call,
            "unused-weight",
            f"weight `{name}` is never read: it gets no gradient",
            "use it in `call`, or create it with `trainable=False`",
        )


def _attribute_reads(source: SourceFile) -> tuple[set[str], bool]:
    """Every attribute name the file reads, and whether it reaches attributes by name (getattr)."""
    cached = source.tree.__dict__.get("_reads")
    if cached is None:
        loaded = {
            n.attr
            for n in walk(source.tree)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
        }
        reflective = any(
            isinstance(n, ast.Name) and n.id in ("getattr", "vars", "setattr")
            for n in walk(source.tree)
        )
        cached = source.tree._reads = (loaded, reflective)
    return cached
