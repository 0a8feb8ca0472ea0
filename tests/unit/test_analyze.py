"""What `layergen/declaration/analyze.py` accepts and refuses (issue 35 onward): each case
parsed from YAML, each refusal a located error."""

from __future__ import annotations

import textwrap

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError


def analysis(text: str):
    return parse_declaration("layers/a.layer.yaml", textwrap.dedent(text).encode())


def errors(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    return [(d.line, d.col, d.code) for d in info.value.diagnostics]


# -- item 5: names real layers use -------------------------------------------------------


def test_inputs_may_name_the_only_tensor_input():
    """Issue 35, item 5: keras-hub's `call(self, inputs)` is kept."""
    a = analysis(
        """\
        layer: A
        inputs:
          inputs: {min_rank: 2}
          start_index: {type: int, default: 0}
        call: inputs * start_index
        """
    )
    assert a.ir.input_names == ["inputs"]


@pytest.mark.parametrize(
    "inputs, where",
    [
        ("  inputs:\n  other:\n", (3, 3)),  # several: `call(self, inputs)` takes their list
        ("  other:\n  inputs:\n", (4, 3)),
        ("  x:\n  inputs: {default: null}\n", (4, 3)),  # a keyword beside the tensor input
    ],
)
def test_inputs_beside_another_input_stays_reserved(inputs, where):
    """Issue 35, item 5: only the sole tensor input may be `inputs`."""
    text = "layer: A\ninputs:\n" + inputs + "call: x\n"
    assert (*where, "reserved-name") in errors(text)


WEIGHT_NAMED = """\
layer: RelativeEmbedding
params:
  hidden_dim: int
weights:
  rel_embeddings: {shape: "(4, hidden_dim)", name: rel_embedding}
call: x + rel_embeddings[0]
"""


def test_a_weight_may_have_a_keras_name_other_than_its_attribute():
    """Issue 35, item 5: DeBERTa's `self.rel_embeddings`, named `rel_embedding` by Keras."""
    (weight,) = analysis(WEIGHT_NAMED).ir.weights
    assert (weight.name, weight.keras_name) == ("rel_embeddings", "rel_embedding")


@pytest.mark.parametrize(
    "name, where, code",
    [
        ("a/b", (5, 52), "bad-name"),  # a path's separator
        ("'a b'", (5, 52), "bad-name"),
        ("''", (5, 52), "bad-name"),
        ("bias", (5, 52), "duplicate-name"),  # another weight's Keras name
    ],
)
def test_a_weights_keras_name_is_checked(name, where, code):
    """Issue 35, item 5: a name Keras cannot take, or two weights of one path, are located."""
    text = WEIGHT_NAMED.replace("name: rel_embedding", f"name: {name}").replace(
        "call:", "  bias: '(hidden_dim,)'\ncall:"
    )
    assert (*where, code) in errors(text)
