"""The `Example:` of a generated docstring runs as written: it calls the layer the way the
layer takes its inputs (one list, or, `separate_inputs`, an argument each)."""

from __future__ import annotations

import inspect
import re
import textwrap

import pytest

from layergen.declaration.load import parse_declaration
from layergen.render.context import build_context
from layergen.render.render import render

SEPARATE = """\
layer: Attend
separate_inputs: true
inputs:
  query: {rank: 3}
  value: {rank: 3}
call: query + ops.mean(value, axis=1, keepdims=True)
example:
  input_shape: {query: [2, 3, 4], value: [2, 5, 4]}
"""
AS_A_LIST = SEPARATE.replace("separate_inputs: true\n", "").replace("Attend", "Joined")


@pytest.mark.parametrize(
    "text, call", [(SEPARATE, "layer(query, value)"), (AS_A_LIST, "layer([query, value])")]
)
def test_the_docstring_example_calls_the_layer_as_it_takes_its_inputs(text, call):
    import keras

    ir = parse_declaration("layers/attend.layer.yaml", text.encode()).ir
    namespace: dict = {}
    exec(render("layer.py.j2", build_context(ir, package="docs", source="a.layer.yaml")), namespace)
    doc = inspect.getdoc(namespace[ir.name])
    example = textwrap.dedent(re.search(r"```python\n(.*?)```", doc, re.S)[1])
    assert f"outputs = {call}" in example
    exec(example, namespace)  # as a person pastes it
    assert tuple(namespace["outputs"].shape) == (2, 3, 4)
    assert isinstance(namespace["layer"], keras.layers.Layer)
