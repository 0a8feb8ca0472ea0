"""`no_jit:` why the layer cannot be compiled by XLA (spec-format.md `no_jit`): a call over
strings, host callbacks, shapes that change from call to call. The generated `__init__`
says why and sets `self.supports_jit = False`, as Keras's `StringLookup` and `Hashing` do,
so that `model.compile(jit_compile="auto")` leaves a model holding the layer uncompiled.
Its partial: `_init_no_jit.j2`; its generated test: `test_builders.no_jit`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..code import Code
from .section import Built, Scope, Section


def build(raw: str | None, scope: Scope) -> Built[str]:
    if raw is not None and not raw.strip():
        message = "`no_jit` is why the layer cannot be compiled, got an empty string"
        hint = 'say why: no_jit: "looks its inputs up in a Python dict"'
        return None, (scope.doc.error(("no_jit",), "wrong-type", message, hint),)
    return raw, ()


def context(reason: str | None, shape: Callable[[Code], str]) -> dict[str, Any]:
    return {"supports_jit": reason is None}


SECTION = Section(
    key="no_jit",
    build=build,
    context=context,
    tests=("no_jit",),
    partial="_init_no_jit.j2",
    partial_in="__init__",
    layer=lambda reason: {"no_jit": reason},
)
