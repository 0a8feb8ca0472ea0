"""`config-missing-initializer`: `get_config` leaves out an argument that only sets a
weight's starting value (opt-in)."""

from __future__ import annotations

from collections.abc import Iterator

from ..source import ClassInfo, SourceFile
from .base import Finding, Rule, Run
from .config_missing import unsaved

RULE = Rule(
    "config-missing-initializer",
    "warning",
    "`get_config` leaves out an argument that only sets a weight's starting value",
    "An argument the code uses only as a weight's initializer (`add_weight(initializer=...)`, a sublayer's\n"
    "`kernel_initializer=`, directly or through `initializers.Constant(...)`), or reads only on the first\n"
    "call until a saved weight says the layer is initialized (`if not self.initialized:`), never shows\n"
    "after `load_model`: the weights come from the file. A layer rebuilt from its config alone\n"
    "(`clone_model`, a model built from a saved config) starts from the default instead.\n"
    "`config-missing` reports it when another argument is missing too.",
    "def __init__(self, init_value=1e-6, **kwargs):\n    ...\n    self.gamma_init = keras.initializers.Constant(init_value)\n\n"
    "def get_config(self):\n    return super().get_config()",
    'def get_config(self):\n    return {**super().get_config(), "init_value": self.init_value}',
    fixable=True,
    default=False,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    # Only a layer rebuilt from its config alone (clone_model) shows it: a loaded model
    # takes its weights, and so their starting values, from the file.
    found = unsaved(source, cls, run)
    if found is None or not found.initializers_only:
        return  # nothing left out, or config-missing reports it with the rest
    if found.has_get_config:
        sets = "sets" if len(found.names) == 1 else "set"
        message = (
            f"`get_config` leaves out {found.listed()}, which only {sets} a weight's starting "
            "value: a layer rebuilt from its config alone (`clone_model`) starts from the default"
        )
    else:
        message = found.no_get_config(cls)
    yield found.finding(source, cls, RULE.code, message)
