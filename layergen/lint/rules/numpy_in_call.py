"""`numpy-in-call`: NumPy on a tensor in `call`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, walk
from ..tensors import Tensors
from .base import Finding, Rule, Run, at
from .common import call_tensors

RULE = Rule(
    "numpy-in-call",
    "error",
    "NumPy on a tensor in `call`",
    "In `call` the inputs are symbolic or traced tensors (functional models, `jit_compile`, JAX, torch.compile):\n"
    "NumPy cannot read them, and `.numpy()` works only eagerly. Use `keras.ops`.",
    "def call(self, x):\n    return x / np.linalg.norm(x)",
    "def call(self, x):\n    return x / ops.norm(x)",
    default=False,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    call = cls.methods.get("call")
    if call is None:
        return
    tensors = call_tensors(source, cls, call)
    for node in walk(call):
        found = numpy_on_tensor(source, node, tensors) if isinstance(node, ast.Call) else None
        if found:
            yield at(source, node, "numpy-in-call", *found)


def numpy_on_tensor(source: SourceFile, node: ast.Call, tensors: Tensors) -> tuple[str, str] | None:
    """(message, hint) when the call is NumPy on a tensor: a `numpy` function, or `.numpy()`."""
    if (source.resolve(node.func) or "").split(".")[0] == "numpy" and tensors.depends_any(node):
        return (
            f"`{source.segment(node.func)}` on a tensor in `call`",
            "use the `keras.ops` function of the same name",
        )
    if (
        isinstance(node.func, ast.Attribute)
        and node.func.attr == "numpy"
        and tensors.depends(node.func.value)
    ):
        return (
            "`.numpy()` on a tensor in `call` (eager only)",
            "keep it a tensor and use `keras.ops`",
        )
    return None
