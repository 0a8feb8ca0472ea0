"""`backend-op-in-call`: a TensorFlow op in a Keras 3 layer's `call`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, walk
from ..tensors import backend_op
from .base import Finding, Rule, Run, at
from .common import call_tensors, preprocessing
from .numpy_in_call import numpy_on_tensor

RULE = Rule(
    "backend-op-in-call",
    "error",
    "a TensorFlow op (or a TensorFlow-only `keras.backend` function) in a Keras 3 layer's `call`",
    "Keras 3 layers run on TensorFlow, JAX and torch: `tf.*` and the legacy `keras.backend` functions (`K.dot`,\n"
    "`K.random_binomial`, ...) work on TensorFlow only. Use `keras.ops` and `keras.random`.",
    "def call(self, x):\n    return tf.matmul(x, self.kernel)",
    "def call(self, x):\n    return ops.matmul(x, self.kernel)",
    default=False,
    keras3_only=True,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    call = cls.methods.get("call")
    if call is None or not cls.keras3 or preprocessing(cls.name, cls):
        return
    tensors = call_tensors(source, cls, call)
    for node in walk(call):
        if (
            isinstance(node, ast.Call)
            and backend_op(source.resolve(node.func) or "")
            and not numpy_on_tensor(source, node, tensors)  # said once, as NumPy
        ):
            yield at(
                source,
                node,
                "backend-op-in-call",
                f"`{source.segment(node.func)}` works on TensorFlow only",
                "use `keras.ops` (or `keras.random`)",
            )
