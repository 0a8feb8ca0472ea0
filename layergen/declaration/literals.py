"""Which param types hold a literal value: the one answer the declaration's checks, `sync`,
`adopt`, `tests` and `new` share (spec-format.md, `params`).

A value is a YAML value of a declaration or a Python literal of a hand-written class (a tuple
reads as a list). `float` holds an int and `list[float]` a list of ints, as Keras's own float
arguments take `1` for `1.0`; no type holds a bool as a number.
"""

from __future__ import annotations

from typing import Any

from .param_types import PARAM_TYPES

# The param types whose value is a literal, stored as given (`self.x = x`).
PLAIN_TYPES = tuple(row.name for row in PARAM_TYPES if row.literal)
# A type and the wider one that also holds each of its values.
_WIDER = {"int": "float", "list[int]": "list[float]"}


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    return None


def _with_wider(kind: str | None) -> tuple[str, ...]:
    if kind is None:
        return ()
    return (kind, _WIDER[kind]) if kind in _WIDER else (kind,)


def holding_types(value: Any) -> tuple[str, ...]:
    """The plain param types that hold `value`, narrowest first: `(1, 2)` -> list[int] and
    list[float]; `[1, 0.5]` -> list[float]; `[]` -> every list type; `[True, 1]` -> none."""
    if not isinstance(value, (list, tuple)):
        return _with_wider(_scalar(value))
    kinds = {_scalar(item) for item in value}
    if not kinds:
        return ("list[int]", "list[float]", "list[str]")
    if kinds <= {"int", "float"}:
        return _with_wider("list[int]" if kinds == {"int"} else "list[float]")
    if kinds == {"str"}:
        return ("list[str]",)
    return ()


def literal_type(value: Any) -> str | None:
    """The param type a literal states: the narrowest that holds it (`[1, 2]` is list[int],
    `[1, 0.5]` list[float]); None when none holds it, or when it does not say which (an empty
    list is a value of each list type)."""
    kinds = holding_types(value)
    if len(kinds) == 1 or (len(kinds) == 2 and _WIDER.get(kinds[0]) == kinds[1]):
        return kinds[0]
    return None
