"""`untracked-variable`: state in a TensorFlow or NumPy variable instead of `add_weight`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, walk
from .base import Finding, Rule, Run, at

UNTRACKED = ("tensorflow.Variable", "keras.backend.variable", "tensorflow.keras.backend.variable")


RULE = Rule(
    "untracked-variable",
    "error",
    "state kept in a TensorFlow or NumPy variable instead of `add_weight`",
    "`tf.Variable`, `K.variable` and NumPy arrays are not Keras variables: they are not trained, not saved, and\n"
    "do not exist on JAX or torch. `self.add_weight(...)` makes a tracked, saved, backend-neutral weight.",
    "self.b = tf.Variable(tf.zeros([units]), trainable=True)",
    'self.b = self.add_weight(shape=(units,), initializer="zeros")',
    keras3_only=True,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if not cls.keras3:
        return
    for function in cls.methods.values():
        for node in walk(function):
            if isinstance(node, ast.Call) and (source.resolve(node.func) or "") in UNTRACKED:
                yield at(
                    source,
                    node,
                    "untracked-variable",
                    f"`{source.segment(node.func)}` "
                    "makes a variable Keras does not track, train on every backend, or save",
                    "use `self.add_weight(shape=..., initializer=...)`",
                )
