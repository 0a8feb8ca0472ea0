"""Several tensor inputs as arguments of their own: keras-hub's
`CachedMultiHeadAttention.call(self, query, value, key=None, ...)` and
`MaskedLMHead.call(self, inputs, mask_positions)` keep their signatures, and an input may be
named `value`. Checked on the generated code, without a backend; the generated tests of the
whole layers run in `tests/e2e/test_keras_hub_layers.py`."""

from __future__ import annotations

import textwrap
import warnings

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.render.context import build_context
from layergen.render.render import render
from layergen.render.tests_context import build_test_context

from helpers import codes_of, repro

ATTEND = """\
layer: Attend
separate_inputs: true
params:
  units: {type: int, default: 4}
inputs:
  query: {rank: 3}
  value: {rank: 3}
  key: {default: null}
weights:
  kernel: {shape: "(value[-1], units)"}
call: |
  key = value if key is None else key
  scores = ops.softmax(ops.einsum("btd,bsd->bts", query, key))
  return ops.einsum("bts,bsd->btd", scores, ops.matmul(value, kernel))
output_shape: (*query[:-1], units)
example:
  input_shape: {query: [2, 3, 4], value: [2, 5, 4]}
"""


def analysis(text: str):
    return parse_declaration("layers/attend.layer.yaml", textwrap.dedent(text).encode())


def module(text: str) -> str:
    ir = analysis(text).ir
    return render("layer.py.j2", build_context(ir, package="p", source="attend.layer.yaml"))


def generated_tests(text: str) -> str:
    ir = analysis(text).ir
    context = build_test_context(ir, module="layers.attend", source="attend.layer.yaml")
    return render("layer_test.py.j2", context)


def test_separate_inputs_are_arguments_of_call_build_and_output_shape():
    code = module(ATTEND)
    assert "def call(self, query, value, key=None):" in code
    # Keras passes each input's shape by its name (`query_shape`, `value_shape`).
    assert "def build(self, query_shape, value_shape):" in code
    assert "shape=(value_shape[-1], self.units)" in code
    assert "def compute_output_shape(self, query_shape, value_shape):" in code
    assert "return (*query_shape[:-1], self.units)" in code
    assert "= inputs" not in code  # nothing unpacks a list
    compile(code, "<generated>", "exec")


def test_the_generated_tests_call_the_layer_on_separate_arguments():
    tests = generated_tests(ATTEND)
    assert "return tuple(arrays)" in tests
    assert "layer(*inputs, training=False)" in tests
    assert "layer(inputs" not in tests
    example = tests.split("EXAMPLE = ")[1].split("\n\n")[0]
    assert "separate=True" in example  # the models it makes call the layer so too
    compile(tests, "<generated>", "exec")


def test_without_the_key_several_inputs_stay_one_list():
    """The v1 meaning is kept: `call(self, inputs)` on their list."""
    code = module(ATTEND.replace("separate_inputs: true\n", ""))
    assert "def call(self, inputs, key=None):" in code
    assert "query, value = inputs" in code


def test_a_layer_built_by_a_base_class_passes_it_every_input_shape():
    code = module(ATTEND.replace("layer: Attend\n", "layer: Attend\nbase: keras.layers.Layer\n"))
    assert "super().build(query_shape, value_shape)" in code


MASKED_LM = """\
layer: Head
separate_inputs: true
inputs:
  inputs: {rank: 3}
  mask_positions: {dtype: int32}
call: ops.take_along_axis(inputs, ops.expand_dims(mask_positions, -1), axis=1)
output_shape: (*mask_positions, inputs[-1])
example:
  input_shape: {inputs: [2, 10, 4], mask_positions: [2, 3]}
"""


def test_inputs_may_name_one_of_separate_inputs_as_keras_hub_does():
    code = module(MASKED_LM)
    assert "def call(self, inputs, mask_positions):" in code
    assert "def compute_output_shape(self, inputs_shape, mask_positions_shape):" in code


def test_inputs_stays_reserved_where_a_generated_test_binds_the_inputs_by_name():
    text = MASKED_LM.replace("call:", "losses: [ops.sum(inputs)]\ncall:")
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    [d] = info.value.diagnostics
    assert (d.line, d.code) == (4, "reserved-name")
    with pytest.raises(DiagnosticError):
        analysis(MASKED_LM.replace("separate_inputs: true\n", ""))


def test_an_input_may_be_named_value():
    """keras-hub's attention layers name their second input `value`."""
    code = module(ATTEND)
    assert "ops.matmul(value, self.kernel)" in code


def test_generated_tests_compile_without_warnings_when_a_shape_reads_a_tensor_keyword():
    """`cache[2]` in an output shape: the tests' declared shapes take the cache's shape as
    an argument, None by default, not a literal `None[2]` (a SyntaxWarning, an error under
    `-W error`)."""
    text = ATTEND.replace(
        "  key: {default: null}\n", "  key: {default: null}\n  cache: {default: null}\n"
    ).replace(
        "output_shape: (*query[:-1], units)",
        "outputs:\n  out: (*query[:-1], value[1] if cache is None else cache[2])\n"
        "  cache: {shape: cache, when: cache is not None}",
    )
    tests = generated_tests(text)
    assert "def declared_output_shapes(query_shape, value_shape, cache_shape=None):" in tests
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(tests, "<generated>", "exec")


MASKED_ROWS = repro("masked_rows")


def test_an_input_named_mask_is_an_argument_keras_gives_no_shape_of():
    """keras-hub's audio encoders take `call(self, x, mask)`. Keras leaves an argument named
    `mask` out of the shapes it gives `build` and `compute_output_shape`: theirs take the
    other inputs' shapes, and no test expects Keras's masking of it."""
    code = module(MASKED_ROWS)
    assert "def call(self, x, mask):" in code
    assert "def build(self, input_shape):" in code
    assert "def compute_output_shape(self, input_shape):" in code
    tests = generated_tests(MASKED_ROWS)
    assert 'INPUT_SHAPES = {"x": (2, 4, 3), "mask": (2, 4)}' in tests
    assert "make_mask" not in tests  # Keras's mask: none here
    compile(tests, "<generated>", "exec")


@pytest.mark.parametrize(
    "change, expected",
    [
        pytest.param(  # Keras's masking passes its own `mask`
            ("separate_inputs: true\n", "separate_inputs: true\nmasking: true\n"),
            [(9, 3, "reserved-name")],
            id="with-keras-masking",
        ),
        pytest.param(
            ("separate_inputs: true\n", ""), [(7, 3, "reserved-name")], id="inputs-in-a-list"
        ),
        pytest.param(  # Keras masks the first input: `mask` comes after it
            (
                "  x: {rank: 3}\n  mask: {rank: 2, dtype: bool}",
                "  mask: {rank: 2, dtype: bool}\n  x: {rank: 3}",
            ),
            [(7, 3, "reserved-name")],
            id="mask-first",
        ),
        pytest.param(
            ("dtype: bool}", "dtype: bool, axes: [-1]}"),
            [(8, 32, "conflicting-keys")],
            id="axes-of-the-mask",
        ),
        pytest.param(
            (
                "call: |\n",
                "sublayers:\n  dense: {class: keras.layers.Dense, args: {units: 2},"
                ' build: x, when: "mask[-1] > 1"}\ncall: |\n',
            ),
            [(8, 3, "conflicting-keys")],
            id="a-when-reads-it",
        ),
        pytest.param(
            ('"(x[-1], units)"', '"(mask[-1], units)"'),
            [(8, 3, "conflicting-keys")],
            id="a-shape-reads-it",
        ),
        pytest.param(
            (
                "call: |\n",
                "sublayers:\n  dense: {class: keras.layers.Dense, args: {units: 2}}\ncall: |\n",
            ),
            [(8, 3, "conflicting-keys")],
            id="build-traces-call",
        ),
    ],
)
def test_an_input_named_mask_where_keras_would_take_it_for_its_own_is_an_error(change, expected):
    text = MASKED_ROWS.replace(', doc: "`(batch, steps)`: true where a step is valid."}', "}")
    text = text.replace(*change)
    assert codes_of(text) == expected
