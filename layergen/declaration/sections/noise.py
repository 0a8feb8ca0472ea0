"""`noise:` what a layer random in training promises of its noise (spec-format.md `noise`):
the inference output is the mean of training outputs (`unbiased`), one draw per cell of a
shape over the input shapes (`shape`). Its generated tests: `test_builders.noise`, calling
the helpers of `_support_noise.j2`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ir, model
from ..code import Code
from .section import Built, Scope, Section


def build(raw: model.Noise | None, scope: Scope) -> Built[ir.Noise]:
    if raw is None:
        return None, ()
    if raw.shape is None:
        return ir.Noise(raw.unbiased, None), ()
    shape, problems = scope.shape(("noise", "shape"), raw.shape, scope.inputs, scope.params)
    return (None if problems else ir.Noise(raw.unbiased, shape)), problems


def context(noise: ir.Noise | None, shape: Callable[[Code], str]) -> dict[str, Any]:
    return {
        "unbiased": noise is not None and noise.unbiased,
        "noise_shape": (
            shape(noise.shape.code) if noise is not None and noise.shape is not None else None
        ),
    }


SECTION = Section(
    key="noise", build=build, context=context, tests=("noise",), partial="_support_noise.j2"
)
