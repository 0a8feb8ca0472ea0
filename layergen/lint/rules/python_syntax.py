"""`python-syntax`: a file that is not valid Python (found by the engine, which parses)."""

from __future__ import annotations

from collections.abc import Iterator

from ..source import ClassInfo, SourceFile
from .base import Finding, Rule, Run

RULE = Rule(
    "python-syntax",
    "error",
    "the file is not valid Python",
    "A file that mentions Keras must parse for its classes to be checked. The other files are checked all\n"
    "the same; this finding is reported whatever `--select` says.",
    "class Scale(keras.layers.Layer:\n    ...",
    "class Scale(keras.layers.Layer):\n    ...",
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    return iter(())  # the engine reports it when the file does not parse
