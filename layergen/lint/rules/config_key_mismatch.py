"""`config-key-mismatch`: `from_config` reads a key `get_config` never writes. The reading of the class is in reload.py."""

from __future__ import annotations

from collections.abc import Iterator

from ..reload import missing_keys
from ..source import ClassInfo, SourceFile
from .base import Finding, Rule, Run, at

RULE = Rule(
    "config-key-mismatch",
    "error",
    "`from_config` reads a key `get_config` never writes",
    'A key read without a default (`config["k"]`, `config.pop("k")`) that no `get_config` of the class\n'
    "(nor the `super().get_config()` it reaches) writes raises KeyError on every reload.",
    'def get_config(self):\n    return {**super().get_config(), "hashing_config": ...}\n\n'
    '@classmethod\ndef from_config(cls, config):\n    hashing = Hashing.from_config(config.pop("hash_config"))',
    '    hashing = Hashing.from_config(config.pop("hashing_config"))',
    default=False,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    for node, message, hint in missing_keys(source, cls):
        yield at(source, node, RULE.code, message, hint)
