"""A NumPy `example.reference` reads a sublayer's weights by their paths inside it:
`attention.query.kernel`, `mlp.layers[0].kernel`. Without them a reference of a layer made
of Keras sublayers (an encoder block) could not be written, and its residuals and
activations went unchecked."""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import numpy as np
import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.render.render import render
from layergen.render.support import support_files
from layergen.render.tests_context import build_test_context

BLOCK = """\
layer: Block
params:
  units: {type: int, default: 4}
sublayers:
  attention: {class: keras.layers.MultiHeadAttention, args: {num_heads: 2, key_dim: 2}}
  _norm: {class: keras.layers.LayerNormalization}
  mlp:
    class: keras.Sequential
    layers:
      - class: keras.layers.Dense
        args: {units: units}
call: mlp(_norm(attention(x, x) + x))
output_shape: (*x[:-1], units)
example:
  input_shape: [2, 3, 4]
  reference: |
    q = x @ attention.query.kernel.reshape(4, 4)
    return REFERENCE
"""


def declared(reference: str) -> str:
    return BLOCK.replace("REFERENCE", reference)


def test_module(text: str) -> str:
    ir = parse_declaration("layers/block.layer.yaml", text.encode()).ir
    context = build_test_context(ir, module="layers.block", source="block.layer.yaml")
    return render("layer_test.py.j2", context)


test_module.__test__ = False  # a helper, not a test


def test_a_sublayer_name_in_the_reference_reads_its_weights():
    tests = test_module(declared("q + _norm.gamma + mlp.layers[0].bias"))
    assert "def numpy_reference(x, *, attention, _norm, mlp):" in tests
    assert "attention=support.sublayer_weights(layer.attention)" in tests
    assert "_norm=support.sublayer_weights(layer._norm)" in tests
    assert "mlp=support.sublayer_weights(layer.mlp)" in tests


def test_an_unknown_name_in_the_reference_is_still_located():
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("layers/block.layer.yaml", declared("q + atention.value.kernel").encode())
    (found,) = info.value.diagnostics
    assert (found.line, found.col, found.code) == (18, 16, "unknown-name")
    assert "`atention`" in found.message
    assert "attention" in found.hint


@pytest.fixture(scope="module")
def support(tmp_path_factory):
    """The generated support module, imported."""
    folder = tmp_path_factory.mktemp("tests")
    ((path, text),) = support_files(folder).items()
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("layergen_support_for_references", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_sublayer_weights_follow_the_paths_inside_the_sublayer(support):
    import keras

    attention = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, name="renamed")
    x = np.ones((1, 2, 4), "float32")
    attention(x, x)
    tree = support.sublayer_weights(attention)
    np.testing.assert_array_equal(
        tree.query.kernel, keras.ops.convert_to_numpy(attention.query_dense.kernel)
    )
    assert tree.attention_output.bias.shape == (4,)
    with pytest.raises(AttributeError, match="there are: query, key, value, attention_output"):
        tree.queries  # noqa: B018
    with pytest.raises(AttributeError, match="read-only"):
        tree.query = None
    with pytest.raises(ValueError, match="read-only"):
        tree.query.kernel[0] = 1.0
    assert support.sublayer_weights(None) is None


def test_a_sequential_sublayer_indexes_its_layers(support):
    import keras

    mlp = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(2, use_bias=False)])
    mlp.build((None, 4))
    tree = support.sublayer_weights(mlp)
    assert [sorted(dir(layer)) for layer in tree.layers] == [["bias", "kernel"], ["kernel"]]
    np.testing.assert_array_equal(
        tree.layers[1].kernel, keras.ops.convert_to_numpy(mlp.layers[1].kernel)
    )


def test_the_reference_of_sublayers_runs_against_the_layer(support):
    """The rendered reference, fed the sublayer's weights, computes what the layer does."""
    import keras

    text = textwrap.dedent("""\
        layer: Projected
        sublayers:
          dense: {class: keras.layers.Dense, args: {units: 3, activation: "'tanh'"}}
        call: dense(x) + x[..., :3]
        output_shape: (*x[:-1], 3)
        example:
          input_shape: [2, 4]
          reference: np.tanh(x @ dense.kernel + dense.bias) + x[..., :3]
        """)
    tests = test_module(text)
    source = tests.split("def numpy_reference(")[1].split("\n\n\n")[0]
    namespace = {"np": np}
    exec("def numpy_reference(" + source, namespace)
    dense = keras.layers.Dense(3, activation="tanh")
    dense.build((None, 4))
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    got = namespace["numpy_reference"](x, dense=support.sublayer_weights(dense))
    want = keras.ops.convert_to_numpy(dense(x)) + x[..., :3]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_layer_param_in_the_reference_reads_the_layers_own_objects_weights():
    """MaskedLMHead's tied `token_embedding` (a `layer` param) read in its
    reference was a fresh, unbuilt object made from the example; it is the layer's own."""
    text = textwrap.dedent("""\
        layer: Tied
        params:
          embedding: {type: layer}
        call: ops.matmul(x, ops.transpose(embedding.embeddings))
        output_shape: (*x[:-1], 10)
        example:
          params: {embedding: "keras.layers.Embedding(10, 4)"}
          input_shape: [2, 4]
          reference: x @ embedding.embeddings.T
        """)
    tests = test_module(text)
    assert "embedding=support.sublayer_weights(layer.embedding)" in tests
    assert "def numpy_reference(x, *, embedding):" in tests


def test_a_sublayer_under_a_when_may_be_unset_in_the_reference():
    """keras-hub's TransformerDecoder sets its cross-attention's attributes only
    when built with an encoder: its reference read `layer._cross_attention_layer_norm`
    (AttributeError on the original); one under a `when` reads as None when unset."""
    text = BLOCK.replace(
        "  _norm: {class: keras.layers.LayerNormalization}\n",
        "  _norm: {class: keras.layers.LayerNormalization, when: units > 2}\n",
    )
    tests = test_module(text.replace("REFERENCE", "q + _norm.gamma"))
    assert '_norm=support.sublayer_weights(getattr(layer, "_norm", None))' in tests
    assert "attention=support.sublayer_weights(layer.attention)" in tests
