"""`forwarded-value`: an argument passed on to `super().__init__` under another value. The reading of the class is in reload.py."""

from __future__ import annotations

from collections.abc import Iterator

from ..reload import forwarded_values
from ..source import ClassInfo, SourceFile
from .base import Finding, Rule, Run, at

RULE = Rule(
    "forwarded-value",
    "error",
    "an argument is passed on to `super().__init__` under another value",
    "The parent's `get_config` saves the value it was given, not the argument: `from_config` then builds\n"
    "the object with that value in the argument's place, and a reloaded layer behaves differently (a\n"
    '`padding="symmetric"` passed on as `"valid"` comes back as `"valid"`).',
    'def __init__(self, filters, padding="symmetric", **kwargs):\n    super().__init__(filters, 3, padding="valid", **kwargs)\n    self.mode = padding',
    'def get_config(self):\n    return {**super().get_config(), "padding": self.mode}',
    default=False,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    for node, message, hint in forwarded_values(source, cls):
        yield at(source, node, RULE.code, message, hint)
