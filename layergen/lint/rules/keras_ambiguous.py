"""`keras-ambiguous`: the file's Keras cannot be told from its imports (lint/which_keras.py)."""

from __future__ import annotations

from collections.abc import Iterator

from ..source import ClassInfo, SourceFile
from .base import Finding, Rule, Run, at

RULE = Rule(
    "keras-ambiguous",
    "info",
    "which Keras the file uses depends on what is installed",
    "The file's `keras` comes, through its imports, from `tf_keras` (Keras 2) or `keras` (Keras 3),\n"
    "whichever imports first. Its classes are checked as Keras 2: the rules for Keras 3 only are not run.\n"
    "Said once per file.",
    "try:\n    import tf_keras as keras\nexcept ImportError:\n    import keras",
    "import keras  # or: import tf_keras as keras",
    default=False,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if source.ambiguous is None or cls is not next(c for c in source.classes if c.kind):
        return  # once per file: on its first Keras class
    yield at(
        source,
        source.ambiguous,
        "keras-ambiguous",
        "this import is Keras 2 or Keras 3, whichever is installed: the file is checked as Keras 2",
        "import one Keras, or refuse the other (`if keras.__version__ ...: raise`)",
    )
