"""`layergen new`'s declarations (`layergen/scaffold.py`)."""

from __future__ import annotations

import pytest

from layergen.declaration.load import parse_declaration
from layergen.scaffold import declaration


@pytest.mark.parametrize("inputs", [["inputs"], ["tokens"], ["x"], ["a", "b"]])
def test_a_scaffolded_declaration_names_its_inputs(inputs):
    """`new --inputs inputs` (keras-hub's `call(self, inputs)`), or any one
    input not named `x`, declares it."""
    text = declaration("Scaled", ["scale"], {}, inputs)
    assert parse_declaration("scaled.layer.yaml", text.encode()).ir.input_names == inputs


@pytest.mark.parametrize(
    "name, stem",
    [
        ("ScaledDense", "scaled_dense"),  # the names layergen always gave stay
        ("Scaler", "scaler"),
        ("GPT2Block", "gpt2_block"),
        ("HTMLParser", "html_parser"),
        ("DenseV2", "dense_v2"),
        ("LoRADense", "lora_dense"),  # a mixed-case acronym stays one word
        ("MoEBlock", "moe_block"),
        ("ReLUGate", "relu_gate"),
        ("Conv2DLoRA", "conv2d_lora"),
    ],
)
def test_a_new_declaration_is_named_with_its_acronyms_kept_together(name, stem):
    from layergen.scaffold import file_name

    assert file_name(name) == f"{stem}.layer.yaml"
