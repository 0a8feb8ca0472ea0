"""The code `layergen/render/context.py` makes the templates write (issue 35 onward)."""

from __future__ import annotations

import ast
import textwrap

from layergen.declaration.load import parse_declaration
from layergen.render.context import build_context
from layergen.render.render import format_code, render_source


def module_source(text: str) -> str:
    a = parse_declaration("layers/a.layer.yaml", textwrap.dedent(text).encode())
    context = build_context(a.ir, package="demo", source="a.layer.yaml")
    return format_code(render_source("layer.py.j2", context))


def method(source: str, name: str) -> str:
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    (found,) = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return ast.get_source_segment(source, found)


# -- item 5: names real layers use -------------------------------------------------------


def test_an_input_named_inputs_is_calls_argument():
    """Issue 35, item 5: keras-hub's `call(self, inputs)` and its mask."""
    source = module_source(
        """\
        layer: A
        inputs:
          inputs: {min_rank: 2}
        masking: mask
        call: inputs * 2
        """
    )
    assert "def call(self, inputs, mask=None):" in source
    assert "return inputs * 2" in method(source, "call")
    assert "def compute_mask(self, inputs, mask=None):" in source


def test_a_weights_keras_name_is_its_add_weight_name_and_its_attribute_stays():
    """Issue 35, item 5: the attribute is the key, the variable path ends in `name`."""
    source = module_source(
        """\
        layer: A
        weights:
          rel_embeddings: {shape: "(4, 3)", name: rel_embedding, layout: [null, model]}
          _bias: {shape: "(3,)"}
        call: x + rel_embeddings[0] + _bias
        """
    )
    build = method(source, "build")
    assert 'self.rel_embeddings = self.add_weight(\n            name="rel_embedding",' in build
    assert 'self._bias = self.add_weight(\n            name="bias",' in build
    assert "self.rel_embeddings[0]" in method(source, "call")
    assert 'path in ("rel_embedding",)' in build  # the layout's path
