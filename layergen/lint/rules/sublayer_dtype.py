"""`sublayer-dtype`: a sublayer created without `dtype=self.dtype_policy`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..edits import AddKeywords
from ..source import ClassInfo, SourceFile, self_name, walk
from .base import Finding, Rule, Run, at
from .common import layer_class, preprocessing, super_init

RULE = Rule(
    "sublayer-dtype",
    "warning",
    "a sublayer is created without `dtype=self.dtype_policy`",
    "Without the outer layer's dtype policy a sublayer computes in float32 under mixed precision: outputs stay\n"
    "float32 and ops that mix dtypes (attention, residual adds) fail.",
    "self.dense = keras.layers.Dense(units)",
    "self.dense = keras.layers.Dense(units, dtype=self.dtype_policy)",
    fixable=True,
    default=False,
    keras3_only=True,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if not cls.keras3:
        return
    for method, function in cls.methods.items():
        me = self_name(function)
        if (
            method in ("get_config", "from_config", "call")
            or me is None
            or any(
                isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                for d in function.decorator_list
            )
        ):
            continue
        # Before `super().__init__()` there is no `self.dtype_policy` to pass (keras's RNN
        # makes its cell there): not a finding a fix could settle.
        ready = super_init(function) if method == "__init__" else None
        for node in walk(function):
            found = layer_class(source, node.func, run) if isinstance(node, ast.Call) else None
            if (
                found
                and not any(k.arg in ("dtype", None) for k in node.keywords)
                and not preprocessing(*found)
                and (ready is None or node.lineno > ready.end_lineno)
            ):
                short = found[0]
                yield at(
                    source,
                    node,
                    "sublayer-dtype",
                    f"sublayer `{short}` is created without the layer's dtype policy",
                    f"pass `dtype={me}.dtype_policy`",
                    fix=AddKeywords(
                        (node.lineno, source.column(node)), (("dtype", f"{me}.dtype_policy"),)
                    ),
                )
