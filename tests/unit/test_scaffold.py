"""`layergen new`'s declarations (`layergen/scaffold.py`)."""

from __future__ import annotations

import pytest

from layergen.declaration.load import parse_declaration
from layergen.scaffold import declaration


@pytest.mark.parametrize("inputs", [["inputs"], ["tokens"], ["x"], ["a", "b"]])
def test_a_scaffolded_declaration_names_its_inputs(inputs):
    """Issue 35, item 5: `new --inputs inputs` (keras-hub's `call(self, inputs)`), or any one
    input not named `x`, declares it."""
    text = declaration("Scaled", ["scale"], {}, inputs)
    assert parse_declaration("scaled.layer.yaml", text.encode()).ir.input_names == inputs
