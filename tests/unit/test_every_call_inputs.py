"""A keyword tensor the layer needs in every call though it defaults to None (keras-hub's
Bloom, Gemma and GPT-NeoX attentions take `attention_mask=None` and read it
unconditionally) gets a shape in `example.input_shape`: the generated tests pass it in
every call, by position after the tensor inputs, as the layer's callers do. Checked on
the generated code, without a backend; the generated suite runs in
`tests/e2e/test_call_arguments.py`."""

from __future__ import annotations

import textwrap

import pytest

from layergen.declaration.load import parse_declaration
from layergen.render.docs import example_doc
from layergen.render.render import render
from layergen.render.tests_context import build_test_context

from helpers import codes_of, repro

MASKED_MIX = repro("masked_mix")


def generated_tests(text: str) -> str:
    ir = parse_declaration("layers/masked_mix.layer.yaml", text.encode()).ir
    context = build_test_context(ir, module="layers.masked_mix", source="masked_mix.layer.yaml")
    return render("layer_test.py.j2", context)


def test_a_keyword_tensor_the_example_shapes_is_passed_in_every_call():
    analysis = parse_declaration("masked_mix.layer.yaml", MASKED_MIX.encode())
    example = analysis.ir.example
    assert example.every_call == ("attention_mask",)
    assert example.input_shapes == {"x": (2, 4, 3), "attention_mask": (2, 4, 4)}
    assert example.input_dtypes["attention_mask"] == "int32"  # its declared dtype
    tests = generated_tests(MASKED_MIX)
    assert 'INPUT_SHAPES = {"x": (2, 4, 3), "attention_mask": (2, 4, 4)}' in tests
    assert "return tuple(arrays)" in tests  # the layer is called on `*inputs`
    assert "separate=True" in tests.split("EXAMPLE = ")[1].split("\n\n")[0]
    # the declared output shape reads the inputs the tests pass, the mask among them
    assert "def declared_output_shapes(x_shape, attention_mask_shape):" in tests
    # it is given in every call: no test tries it at its default, no warning says so
    assert "test_each_call_input_with_a_value_other_than_its_default" not in tests
    assert not analysis.ir.unvaried  # what `untested-input` warns of
    compile(tests, "<generated>", "exec")


def test_the_docstring_example_passes_it_by_name():
    ir = parse_declaration("masked_mix.layer.yaml", MASKED_MIX.encode()).ir
    lines = example_doc(ir, 88)
    assert lines[-1] == "outputs = layer(x, attention_mask=attention_mask)"
    assert 'attention_mask = keras.random.randint((2, 4, 4), 0, 2, dtype="int32")' in lines


def test_a_reference_takes_it_after_the_inputs():
    text = MASKED_MIX.replace(
        "  input_range: [0, 2]\n",
        "  input_range: [0, 2]\n"
        "  reference: x @ kernel if attention_mask is not None else None\n",
    )
    tests = generated_tests(text)
    assert "def numpy_reference(x, attention_mask, *, kernel):" in tests
    assert "numpy_reference(*inputs, kernel=" in tests


WITH_LATER = MASKED_MIX.replace(
    "weights:\n", "  positions: {default: null, dtype: int32}\n  bias: {default: null}\nweights:\n"
)
WITH_TWO = MASKED_MIX.replace(
    "  attention_mask:\n",
    "  positions: {default: null, dtype: int32}\n  attention_mask:\n",
)


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param(  # passed by position: it must be the first keyword input
            WITH_TWO,
            [(21, 31, "bad-example")],
            id="after-another-keyword",
        ),
        pytest.param(  # Keras hands `call` no mask where it is called on two tensors
            MASKED_MIX.replace("weights:\n", "masking: true\nweights:\n"),
            [(21, 31, "conflicting-keys")],
            id="with-keras-masking",
        ),
        pytest.param(  # only the one after the keyword left out is out of place
            WITH_LATER.replace(
                "attention_mask: [2, 4, 4]}", "attention_mask: [2, 4, 4], bias: [2, 4]}"
            ),
            [(22, 58, "bad-example")],
            id="one-keyword-left-out",
        ),
        pytest.param(
            WITH_LATER
            + "  call_cases:\n    - {args: {positions: [[1]]}, input_shape: {x: [2, 5, 3], positions: [2]}}\n",
            [(25, 47, "missing-example"), (25, 62, "bad-example")],
            id="a-call-case-shaping-another-keyword",
        ),
        pytest.param(
            MASKED_MIX.replace(
                "  x: {rank: 3}\n", "  x: {rank: 3}\n  start: {type: int, default: 0}\n"
            ).replace("attention_mask: [2, 4, 4]}", "start: [2], attention_mask: [2, 4, 4]}"),
            [(21, 31, "bad-example")],
            id="a-python-int",
        ),
        pytest.param(
            MASKED_MIX + "  call_args: {attention_mask: [[[1]]]}\n",
            [(20, 31, "conflicting-keys")],
            id="also-in-call-args",
        ),
        pytest.param(
            MASKED_MIX.replace("dtype: int32\n", "dtype: int32\n    masks: x\n"),
            [(21, 31, "conflicting-keys")],
            id="a-padding-mask-with-a-test-of-its-own",
        ),
        pytest.param(
            MASKED_MIX + "  call_cases:\n    - {args: {}, input_shape: {x: [2, 5, 3]}}\n",
            [(23, 7, "bad-example"), (23, 31, "missing-example")],
            id="a-call-case-without-its-shape",
        ),
        pytest.param(
            MASKED_MIX.replace("  x: {rank: 3}\n", "  x: {rank: 3}\n  y: {rank: 3}\n").replace(
                "{x: [2, 4, 3], attention_mask", "{x: [2, 4, 3], y: [2, 4, 3], attention_mask"
            ),
            [(21, 45, "bad-example")],
            id="inputs-called-as-one-list",
        ),
    ],
)
def test_a_keyword_tensor_the_tests_cannot_pass_in_every_call_is_a_located_error(text, expected):
    assert codes_of(text) == expected


def test_an_unknown_name_in_input_shape_is_still_unknown():
    text = MASKED_MIX.replace("attention_mask: [2, 4, 4]}", "attention_mask: [2, 4, 4], z: [1]}")
    assert codes_of(textwrap.dedent(text)) == [(20, 58, "unknown-input")]


def test_stated_inputs_and_weights_read_it_as_every_call_passes_it():
    """`example.inputs` states it beside the tensor inputs; a weight whose shape reads it
    is checked on the shape the tests pass."""
    text = MASKED_MIX.replace(
        "  input_range: [0, 2]\n",
        "  input_range: [0, 2]\n  inputs: {x: [[[1.0, 2.0, 3.0]]], attention_mask: [[[1]]]}\n",
    ).replace(
        '  kernel: {shape: "(x[-1], units)"}\n',
        '  kernel: {shape: "(x[-1], units)"}\n'
        '  bias: {shape: "(attention_mask[-1],)", when: attention_mask is not None}\n',
    )
    ir = parse_declaration("masked_mix.layer.yaml", text.encode()).ir
    assert ir.example.inputs == {"x": [[[1.0, 2.0, 3.0]]], "attention_mask": [[[1]]]}
    tests = " ".join(generated_tests(text).split())
    assert (
        '"bias": ( ((attention_mask_shape[-1],), True)'
        " if attention_mask_shape is not None else None" in tests
    ), tests


def test_an_integer_keyword_passed_in_every_call_is_ones():
    """Random 0/1 values would hide whole rows of an attention mask (a softmax over none):
    the tests pass one that hides nothing."""
    assert 'seed, ones=("attention_mask",)' in generated_tests(MASKED_MIX)
