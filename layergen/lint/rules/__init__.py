"""The rules of `layergen check`, one module each (as ruff's `rules/*/rules/*.rs`): its
`RULE` (code, severity, summary, the example `--explain` shows, whether it is on by
default, fixable, for Keras 3 or layers only) and its `check(source, cls, run)`, which
yields `Finding`s, each with a typed fix (`lint/edits.py`) or None.

Adding a rule: a module here, a line in `MODULES`, and a fixture folder
`tests/fixtures/lint_rules/<code>/`, its tests as data (README, "Developing layergen").
`check_class` runs every selected rule on a class; nothing else names a rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

from ..source import ClassInfo, SourceFile
from . import (
    backend_op_in_call,
    config_key_mismatch,
    config_missing,
    config_missing_initializer,
    forwarded_value,
    init_kwargs,
    keras_ambiguous,
    numpy_in_call,
    python_if_on_tensor,
    python_syntax,
    state_rebound,
    sublayer_dtype,
    training_not_passed,
    unbuilt_sublayer,
    unregistered,
    untracked_variable,
    unused_weight,
    weight_in_call,
    weight_in_init,
)
from .base import Finding, Rule, Run
from .common import keras_internal

# In the order `--explain` lists them.
MODULES: tuple[ModuleType, ...] = (
    init_kwargs,
    config_missing,
    config_missing_initializer,
    sublayer_dtype,
    weight_in_call,
    weight_in_init,
    untracked_variable,
    unregistered,
    numpy_in_call,
    backend_op_in_call,
    unused_weight,
    training_not_passed,
    python_if_on_tensor,
    state_rebound,
    unbuilt_sublayer,
    forwarded_value,
    config_key_mismatch,
    keras_ambiguous,
    python_syntax,
)
RULES: dict[str, Rule] = {module.RULE.code: module.RULE for module in MODULES}
CHECKS = {module.RULE.code: module.check for module in MODULES}
DEFAULT_RULES = frozenset(code for code, rule in RULES.items() if rule.default)
KERAS3_ONLY = frozenset(code for code, rule in RULES.items() if rule.keras3_only)

__all__ = ["DEFAULT_RULES", "KERAS3_ONLY", "RULES", "Finding", "Rule", "Run", "check_class"]


def not_run(source: SourceFile, cls: ClassInfo, run: Run) -> frozenset[str]:
    """The selected rules `check_class` does not run on a class, which it checks: those for
    Keras 3 only, on a Keras 2 class."""
    if cls.kind is None or cls.keras3 or keras_internal(source, cls):
        return frozenset()
    return run.select & KERAS3_ONLY


def check_class(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    """The findings of every selected rule on the class (Keras's own internal classes and
    what is no Keras class at all are not checked)."""
    if cls.kind is None or keras_internal(source, cls):
        return
    on = run.select - not_run(source, cls, run)
    for code, check in CHECKS.items():
        if code in on and (cls.kind == "layer" or not RULES[code].layers_only):
            yield from check(source, cls, run)
