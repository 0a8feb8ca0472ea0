"""`example.weights`, checked at generate time against the declared weights: a stated value
of another shape than the weight has under the example's params and inputs, or of a weight
the example leaves out (`when`), is a located error, not a failure inside Keras's
`assign` when the generated test runs."""

from __future__ import annotations

import textwrap

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError

SCALED = """\
    layer: Scaled
    params:
      units: {type: int, default: 4}
      use_bias: {type: bool, default: true}
    inputs:
      x: {min_rank: 2}
    weights:
      kernel: {shape: "(x[-1], units)"}
      scale: {shape: ()}
      bias: {shape: units, when: use_bias}
    call: ops.matmul(x, kernel) * scale + (bias if bias is not None else 0.0)
    output_shape: (*x[:-1], units)
    example:
      params: {units: 2, use_bias: true}
      input_shape: [1, 3]
      inputs: [[1.0, 2.0, 3.0]]
      expected: [[1.0, 2.0]]
"""


def errors(weights: str, params: str = "{units: 2, use_bias: true}"):
    text = textwrap.dedent(SCALED).replace("{units: 2, use_bias: true}", params)
    text += f"  weights: {weights}\n"
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("layers/scaled.layer.yaml", text.encode())
    return [(d.line, d.col, d.code, d.message, d.hint) for d in info.value.diagnostics]


def test_stated_weights_of_the_declared_shapes_are_accepted():
    text = textwrap.dedent(SCALED)
    text += "  weights: {kernel: [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], scale: 1.0, bias: [0, 0]}\n"
    parse_declaration("layers/scaled.layer.yaml", text.encode())


def test_a_stated_weight_of_another_shape_is_a_located_error():
    ((line, col, code, message, hint),) = errors("{scale: [1.0, 2.0, 3.0, 4.0]}")
    assert (line, col, code) == (18, 20, "bad-example")
    assert "`scale` has shape (4,)" in message and "declared `()`: ()" in message, message
    assert "weights.scale.shape" in hint, hint


def test_the_shape_is_the_one_under_the_examples_params_and_inputs():
    ((_, _, _, message, _),) = errors("{kernel: [[1.0, 0.0, 0.0]]}")
    assert "(1, 3)" in message and "(3, 2)" in message, message


def test_a_stated_weight_the_example_leaves_out_is_a_located_error():
    ((_, _, code, message, hint),) = errors(
        "{bias: [1.0, 2.0]}", params="{units: 2, use_bias: false}"
    )
    assert code == "bad-example" and "`when: use_bias`" in message, message
    assert "when" in hint, hint
