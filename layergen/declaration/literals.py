"""Which param types hold a literal value: the one answer the declaration's checks, `sync`,
`adopt`, `tests` and `new` share (spec-format.md, `params`).

A value is a YAML value of a declaration or a Python literal of a hand-written class (a tuple
reads as a list). `float` holds an int and `list[float]` a list of ints, as Keras's own float
arguments take `1` for `1.0`; no type holds a bool as a number.
"""

from __future__ import annotations

from typing import Any

from .param_types import BY_NAME, PARAM_TYPES

# The param types whose value is a literal, stored as given (`self.x = x`).
PLAIN_TYPES = tuple(row.name for row in PARAM_TYPES if row.literal)


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)) and all(_scalar(item) for item in value):
        return "list"  # an item of a list that is itself a list of such values
    return None


def holding_types(value: Any) -> tuple[str, ...]:
    """The literal param types that hold `value`, in the table's order: `(1, 2)` -> list[int]
    and list[float]; `[1, 0.5]` -> list[float]; `[]` -> every list type; `[True, 1]` -> none."""
    listed = isinstance(value, (list, tuple))
    kinds = {_scalar(item) for item in value} if listed else {_scalar(value)}
    return tuple(
        row.name
        for row in PARAM_TYPES
        if row.literal and row.items == listed and kinds <= row.holds
    )


def literal_type(value: Any) -> str | None:
    """The param type a literal states: the narrowest that holds it when each other type that
    does holds more (`[1, 2]` is list[int], `[1, 0.5]` list[float]); None when none holds it,
    or when it does not say which (an empty list is a value of each list type)."""
    kinds = [BY_NAME[name] for name in holding_types(value)]
    narrowest = [k.name for k in kinds if all(k.holds <= other.holds for other in kinds)]
    return narrowest[0] if len(narrowest) == 1 else None
