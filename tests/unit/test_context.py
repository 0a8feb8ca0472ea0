"""The code `layergen/render/context.py` makes the templates write."""

from __future__ import annotations

import ast
import textwrap

import pytest

from layergen.declaration.load import parse_declaration
from layergen.render.context import build_context, docstring_text
from layergen.render.render import format_code, render, render_source
from layergen.render.tests_context import build_test_context

from helpers import repro


def module_source(text: str) -> str:
    a = parse_declaration("layers/a.layer.yaml", textwrap.dedent(text).encode())
    context = build_context(a.ir, package="demo", source="a.layer.yaml")
    return format_code(render_source("layer.py.j2", context))


def method(source: str, name: str) -> str:
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    (found,) = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return ast.get_source_segment(source, found)


# -- names real layers use ---------------------------------------------------------------


def test_an_input_named_inputs_is_calls_argument():
    """keras-hub's `call(self, inputs)` and its mask."""
    source = module_source("""\
        layer: A
        inputs:
          inputs: {min_rank: 2}
        masking: mask
        call: inputs * 2
        """)
    assert "def call(self, inputs, mask=None):" in source
    assert "return inputs * 2" in method(source, "call")
    assert "def compute_mask(self, inputs, mask=None):" in source


def test_a_weights_keras_name_is_its_add_weight_name_and_its_attribute_stays():
    """The attribute is the key, the variable path ends in `name`."""
    source = module_source("""\
        layer: A
        weights:
          rel_embeddings: {shape: "(4, 3)", name: rel_embedding, layout: [null, model]}
          _bias: {shape: "(3,)"}
        call: x + rel_embeddings[0] + _bias
        """)
    build = method(source, "build")
    assert 'self.rel_embeddings = self.add_weight(\n            name="rel_embedding",' in build
    assert 'self._bias = self.add_weight(\n            name="bias",' in build
    assert "self.rel_embeddings[0]" in method(source, "call")
    assert 'path in ("rel_embedding",)' in build  # the layout's path


# -- params that hold a layer or a callable -----------------------------------------------

WRAPPER = repro("wrap")


def test_object_params_are_serialized_and_deserialized_as_keras_wrappers_do():
    """As keras.layers.Wrapper, with keras.saving's public functions."""
    source = module_source(WRAPPER)
    init, config = method(source, "__init__"), method(source, "get_config")
    assert "self.layer = layer\n" in init and init.endswith("self.fn = fn")
    assert '"layer": keras.saving.serialize_keras_object(self.layer),' in config
    assert '"fn": keras.saving.serialize_keras_object(self.fn),' in config
    from_config = method(source, "from_config")
    assert "    @classmethod\n    def from_config(cls, config):" in source
    assert '"layer": keras.saving.deserialize_keras_object(config["layer"]),' in from_config
    assert "return super().from_config(config)" in from_config
    # The wrapped layer is built where `build` traces `call`, so that its weights load.
    assert "self.call(" in method(source, "build")
    # The docstring's example makes the layer.
    assert "layer = Wrap(layer=keras.layers.Dense(3), fn=keras.activations.relu)" in source


def test_generated_tests_make_object_params_anew_for_each_layer():
    """Two layers never share a wrapped layer (mixed precision, clones)."""
    a = parse_declaration("layers/wrap.layer.yaml", WRAPPER.encode())
    context = build_test_context(a.ir, module="layers.wrap", source="wrap.layer.yaml")
    tests = render("layer_test.py.j2", context)
    assert "ARGS = {}\n" in tests
    assert '"layer": keras.layers.Dense(3),' in tests
    assert '**ARGS, **make_objects(overrides.get("dtype")), **overrides' in tests
    assert "support.assert_config_round_trip(EXAMPLE, [*ARGS, *make_objects()])" in tests
    compile(tests, "<generated>", "exec")


def test_object_params_render_as_black_writes_them():
    """The new members need no work from black (it formats twice)."""
    a = parse_declaration("layers/wrap.layer.yaml", WRAPPER.encode())
    rendered = [
        render_source("layer.py.j2", build_context(a.ir, package="p", source="s")),
        render_source("layer_test.py.j2", build_test_context(a.ir, module="p.m", source="s")),
    ]
    for source in rendered:
        assert format_code(source) == source


def test_names_the_objects_are_made_with_come_from_the_layer_module():
    """`MaskedLMHead(token_embedding=ReversibleEmbedding(...))`, imported
    relatively by the layer's module: the test module imports it from there."""
    text = WRAPPER.replace('"keras.layers.Dense(3)"', '"ReversibleEmbedding(5, 3)"').replace(
        "layer: Wrap\n", "layer: Wrap\nimports: [from .reversible import ReversibleEmbedding]\n"
    )
    a = parse_declaration("layers/wrap.layer.yaml", text.encode())
    tests = render("layer_test.py.j2", build_test_context(a.ir, module="layers.wrap", source="s"))
    assert "\nfrom layers.wrap import ReversibleEmbedding, Wrap\n" in tests
    assert '"layer": ReversibleEmbedding(5, 3),' in tests


# -- `build` traces `call` on a concrete batch --------------------------------------------

CLASS_TOKEN = """\
layer: ClassTokenEmbedding
params:
  hidden_dim: {type: int, min: 1}
inputs:
  x: {rank: 3}
  y: {rank: 3}
weights:
  class_token: {shape: "(1, 1, hidden_dim)", initializer: random_normal}
sublayers:
  projection: {class: keras.layers.Dense, args: {units: hidden_dim}}
call: |
  tokens = ops.tile(class_token, (ops.shape(x)[0], 1, 1))
  return ops.concatenate([tokens, projection(x + y)], axis=1)
output_shape: (x[0], x[1] + 1, hidden_dim)
"""


def test_build_traces_call_with_a_batch_of_one_for_an_unknown_batch():
    """Under `keras.Input` the batch is None, and a call that uses it with
    a weight (`ops.tile` of a class token) cannot be traced on it."""
    build = method(module_source(CLASS_TOKEN), "build")
    assert (
        "self.call(\n            [\n"
        "                keras.KerasTensor((1, *x_shape[1:]), dtype=self.compute_dtype),\n"
        "                keras.KerasTensor((1, *y_shape[1:]), dtype=self.compute_dtype),\n"
    ) in build
    one = method(
        module_source(CLASS_TOKEN.replace("  y: {rank: 3}\n", "").replace(" + y", "")), "build"
    )
    assert "self.call(keras.KerasTensor((1, *input_shape[1:]), dtype=self.compute_dtype))" in one


# -- structure decided by the inputs ------------------------------------------------------

DECODER = """\
layer: Decoder
params:
  num_heads: {type: int, min: 1}
  use_ffn: {type: bool, default: true}
inputs:
  decoder_sequence: {rank: 3}
  encoder_sequence: {default: null, rank: 3}
  decoder_padding_mask: {default: null, dtype: int32}
sublayers:
  self_attention:
    class: keras.layers.MultiHeadAttention
    args: {num_heads: num_heads, key_dim: "decoder_sequence[-1] // num_heads"}
  cross_attention:
    class: keras.layers.MultiHeadAttention
    args: {num_heads: num_heads, key_dim: "encoder_sequence[-1] // num_heads"}
    when: encoder_sequence is not None
  ffn:
    class: keras.layers.Dense
    args: {units: 4}
    when: use_ffn
call: |
  x = decoder_sequence + self_attention(decoder_sequence, decoder_sequence)
  if cross_attention is not None and encoder_sequence is not None:
      x = x + cross_attention(x, encoder_sequence)
  return x if ffn is None else ffn(x)
"""


def test_build_gets_every_tensor_inputs_shape_and_creates_sublayers_under_when():
    """keras-hub's TransformerDecoder creates its cross-attention only when
    `build` gets an encoder shape; Keras passes `build` the shape of each tensor argument of
    `call` it names `<argument>_shape`."""
    source = module_source(DECODER)
    build = method(source, "build")
    assert (
        "def build(\n        self,\n        decoder_sequence_shape,\n"
        "        encoder_sequence_shape=None,\n        decoder_padding_mask_shape=None,\n    ):"
    ) in build
    assert "key_dim=decoder_sequence_shape[-1] // self.num_heads," in build
    assert (
        "        if encoder_sequence_shape is not None:\n"
        "            self.cross_attention = keras.layers.MultiHeadAttention(\n"
    ) in build
    assert "        else:\n            self.cross_attention = None\n" in build
    # In declared order, each where its args can be computed: the others in `__init__`.
    assert build.index("self.self_attention =") < build.index("self.cross_attention =")
    init = method(source, "__init__")
    assert "        if self.use_ffn:\n            self.ffn = keras.layers.Dense(" in init
    assert "        else:\n            self.ffn = None" in init
    # `call` is traced with the keyword tensors `build` was given.
    flat = "".join(build.split())
    assert (
        "encoder_sequence=(Noneifencoder_sequence_shapeisNone"
        "elsekeras.KerasTensor((1,*encoder_sequence_shape[1:]),dtype=self.compute_dtype))"
    ) in flat
    assert 'keras.KerasTensor((1,*decoder_padding_mask_shape[1:]),dtype="int32")' in flat
    # `compute_output_shape` keeps taking the first input's shape.
    assert "def compute_output_shape(self, input_shape):" in source


def test_layers_whose_build_reads_no_keyword_keep_their_build():
    """The declarations of before render as they did."""
    text = DECODER.replace("encoder_sequence[-1]", "decoder_sequence[-1]").replace(
        "    when: encoder_sequence is not None\n", ""
    )
    build = method(module_source(text), "build")
    assert build.startswith("def build(self, input_shape):")
    assert "self.call(keras.KerasTensor((1, *input_shape[1:]), dtype=self.compute_dtype))" in build


def test_generated_tests_build_a_layer_for_each_keyword_that_shapes_it():
    """The cross-attention exists only in a layer built with an encoder:
    the keyword test builds one per keyword, and the sublayers made under a `when` may be
    None in the others."""
    text = (
        DECODER
        + "example:\n  params: {num_heads: 2}\n  call_args:\n    encoder_sequence: [[[1.0]]]\n"
    )
    a = parse_declaration("layers/decoder.layer.yaml", text.encode())
    tests = render("layer_test.py.j2", build_test_context(a.ir, module="layers.d", source="s"))
    keyword_test = tests[tests.index("def test_each_keyword_argument_of_call") :]
    # A layer per call case: `assert_each_keyword_argument_runs` (test_support_properties.py).
    assert "support.assert_each_keyword_argument_runs(EXAMPLE, make_call_cases()" in keyword_test
    # Only the sublayers every structure has are checked for being built.
    assert 'sublayers=["self_attention"])' in tests
    # Each structure saves and loads: a model with the keyword tensor as an input.
    assert "def test_saves_and_loads_built_with_each_keyword_tensor(tmp_path):" in tests
    assert "support.assert_saves_and_loads_built_with_each_keyword_tensor(" in tests


# -- symbolic shapes that take call arguments ---------------------------------------------

SCORES = """\
layer: Attend
params:
  num_heads: {type: int, default: 2}
inputs:
  x: {rank: 3}
  cache: {default: null, rank: 3}
  return_attention_scores: {type: bool, default: false}
call: |
  scores = ops.ones((ops.shape(x)[0], num_heads, ops.shape(x)[1], ops.shape(x)[1]))
  outputs = x if cache is None else (x, cache + 1.0)
  if return_attention_scores:
      return (outputs, scores) if cache is None else (*outputs, scores)
  return outputs
outputs:
  outputs: x
  cache: {shape: cache, when: cache is not None}
  attention_scores:
    shape: (x[0], num_heads, x[1], x[1])
    when: return_attention_scores
"""


def test_output_shapes_take_the_call_arguments_they_read():
    """A functional model built with a cache or `return_attention_scores`
    gets its symbolic outputs from the declaration, as Keras's MultiHeadAttention does."""
    source = module_source(SCORES)
    shape = method(source, "compute_output_shape")
    assert shape.startswith(
        "def compute_output_shape(\n        self, input_shape, cache_shape=None,"
        " return_attention_scores=False\n    ):"
    )
    assert "shapes = [tuple(input_shape)]" in shape
    assert "if cache_shape is not None:\n            shapes.append(tuple(cache_shape))" in shape
    assert "if return_attention_scores:\n            shapes.append(\n" in shape
    assert "return shapes[0] if len(shapes) == 1 else tuple(shapes)" in shape
    spec = "".join(method(source, "compute_output_spec").split())
    assert spec.startswith(
        "defcompute_output_spec(self,x,cache=None,return_attention_scores=False):"
    )
    assert (
        "returnkeras.tree.map_shape_structure(lambdashape:keras.KerasTensor(shape,"
        "dtype=self.compute_dtype),self.compute_output_shape(x.shape,"
        "cache_shape=NoneifcacheisNoneelsecache.shape,"
        "return_attention_scores=return_attention_scores,),)"
    ) in spec


def test_output_shapes_that_read_no_call_argument_render_as_before():
    """Nothing changes for the declarations of before."""
    text = SCORES.replace("  cache: {shape: cache, when: cache is not None}\n", "").replace(
        "    shape: (x[0], num_heads, x[1], x[1])\n    when: return_attention_scores\n",
        "    shape: (x[0], num_heads, x[1], x[1])\n",
    )
    source = module_source(text)
    assert (
        "def compute_output_shape(self, input_shape):\n        return (\n"
        "            tuple(input_shape),\n"
    ) in source
    assert "def compute_output_spec" not in source


def test_the_docstring_says_when_an_output_is_returned():
    """Each optional output's docstring line names the argument that makes it returned."""
    source = module_source(SCORES)
    assert "`cache`: same shape as `cache`. Returned when `cache is not None`." in source
    assert "input_dim1)`. Returned when `return_attention_scores`." in source


# -- sublayers built from declared shapes, without tracing `call` -------------------------

BUILT = """\
layer: Block
params:
  num_heads: {type: int, default: 2}
inputs:
  decoder_sequence: {rank: 3}
  encoder_sequence: {default: null, rank: 3}
sublayers:
  _self_attention_layer:
    class: keras.layers.MultiHeadAttention
    args: {num_heads: num_heads, key_dim: "decoder_sequence[-1] // num_heads"}
    build: {query_shape: decoder_sequence, value_shape: decoder_sequence}
  _self_attention_layer_norm:
    class: keras.layers.LayerNormalization
    create: build
    build: decoder_sequence
  _cross_attention_layer:
    class: keras.layers.MultiHeadAttention
    args: {num_heads: num_heads, key_dim: "decoder_sequence[-1] // num_heads"}
    when: encoder_sequence is not None
    build: {query_shape: decoder_sequence, value_shape: encoder_sequence}
  _output_dense:
    class: keras.layers.Dense
    args: {units: 4}
    build: (*decoder_sequence[:-1], decoder_sequence[-1])
call: |
  length = ops.shape(decoder_sequence)[1]
  mask = ops.tril(ops.ones((length, length), "bool"))
  x = _self_attention_layer(decoder_sequence, decoder_sequence, attention_mask=mask)
  x = _self_attention_layer_norm(x + decoder_sequence)
  if encoder_sequence is not None:
      x = x + _cross_attention_layer(x, encoder_sequence)
  return _output_dense(x)
"""


def test_sublayers_with_a_build_shape_are_built_from_it_in_declared_order():
    """A causal mask over a sequence of unknown length cannot be traced
    (keras-hub's TransformerDecoder under `keras.Input(shape=(None, 4))`); a sublayer that
    states the shapes its `build` takes is created and built in declared order, as keras-hub's
    hand-written `build` does, and `call` is not traced when every sublayer states them."""
    build = method(module_source(BUILT), "build")
    order = [
        "self._self_attention_layer = ",
        "self._self_attention_layer.build(\n"
        "            query_shape=decoder_sequence_shape, value_shape=decoder_sequence_shape\n"
        "        )",
        "self._self_attention_layer_norm = ",
        "self._self_attention_layer_norm.build(decoder_sequence_shape)",
        "self._cross_attention_layer = ",
        "self._cross_attention_layer.build(",
        "self._output_dense.build(\n            (*decoder_sequence_shape[:-1], decoder_sequence_shape[-1])\n",
    ]
    places = [build.index(piece) for piece in order]
    assert places == sorted(places), places
    # Under its `when`, the cross-attention is built only when it is made.
    assert (
        "        if encoder_sequence_shape is not None:\n"
        "            self._cross_attention_layer = keras.layers.MultiHeadAttention("
    ) in build
    assert (
        "            self._cross_attention_layer.build(\n"
        "                query_shape=decoder_sequence_shape, value_shape=encoder_sequence_shape\n"
        "            )\n"
        "        else:\n            self._cross_attention_layer = None\n"
    ) in build
    assert "self.call(" not in build


def test_a_sublayer_without_a_build_shape_is_still_built_by_tracing_call():
    """The others are built by the trace, after those that state shapes."""
    build = method(module_source(BUILT.replace("    build: decoder_sequence\n", "")), "build")
    assert build.index("self._output_dense.build(") < build.index("self.call(")


def test_a_sublayer_made_in_init_under_when_is_built_when_it_exists():
    """Made in `__init__` (its `when` over the params), built in `build`."""
    text = BUILT.replace("params:\n", "params:\n  use_ffn: {type: bool, default: true}\n")
    text = text.replace(
        "  _output_dense:\n    class: keras.layers.Dense\n",
        "  _output_dense:\n    class: keras.layers.Dense\n    when: use_ffn\n",
    )
    text = text.replace(
        "return _output_dense(x)", "return x if _output_dense is None else _output_dense(x)"
    )
    source = module_source(text)
    assert "if self.use_ffn:\n            self._output_dense = keras.layers.Dense(" in source
    assert (
        "        if self._output_dense is not None:\n            self._output_dense.build("
        in method(source, "build")
    )


# -- strings come out exactly as written ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        '"""',
        '"',
        'a"',
        '""',
        '"""x"""',
        "\\",
        "a\\",
        "\\n",
        "tab\there",
        "trail  ",
        "  lead",
        "\x00\x07\x1b",
        "line\nbreak",
        "a\r\nb",
        "\u2028",
        "é ü 中",
        "{{ x }} {% if %}",
        "'''",
        "x\n\n  indented\n",
        'back\\slash"""',
    ],
)
def test_docstring_text_reads_back_exactly_after_black(text):
    source = f'class A:\n    """{docstring_text(text)}\n\n    Args:\n        x: y.\n    """\n'
    formatted = format_code(source)
    doc = ast.get_docstring(ast.parse(formatted).body[0], clean=False)
    lines = text.split("\n")
    expected = "\n".join([lines[0]] + ["    " + line if line else "" for line in lines[1:]])
    assert doc.startswith(expected + "\n"), (formatted, doc)
