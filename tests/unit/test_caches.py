"""Generated tests that prove caches: a keyword tensor declared a `cache` gets a
test that decodes its input a step at a time through it and compares each step, and the
cache left, with one call over the whole sequence. Checked here on the generated code and
the located errors; the test runs on keras-hub's TransformerDecoder's declaration in
`tests/e2e/test_keras_hub_layers.py` (and on keras-hub's own class, which passes it, in
`tests/e2e/test_original_classes.py`)."""

from __future__ import annotations

import textwrap

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.render.render import render
from layergen.render.tests_context import build_test_context

# A causal running sum whose cache holds the inputs seen so far.
RUNNING_SUM = """\
layer: RunningSum
params:
  scale: {type: float, default: 1.0}
inputs:
  x: {rank: 3}
  return_count: {type: bool, default: false}
  cache:
    default: null
    cache:
      of: x
      index: cache_index
      shape: (x[0], x[1], x[2])
  cache_index: {default: null}
call: |
  if cache is None:
      out = ops.cumsum(x, axis=1) * scale
  else:
      start = [0, cache_index, 0]
      cache = ops.slice_update(cache, start, x)
      out = ops.cumsum(cache, axis=1)[:, cache_index : cache_index + ops.shape(x)[1]] * scale
  count = ops.shape(x)[1]
  if return_count and cache is not None:
      return out, count, cache
  if cache is not None:
      return out, cache
  return out
outputs:
  outputs: x
  count: {shape: "()", when: return_count}
  cache: {shape: cache, when: cache is not None}
example:
  input_shape: [2, 4, 3]
"""


def analysis(text: str):
    return parse_declaration("layers/running_sum.layer.yaml", textwrap.dedent(text).encode())


def generated_tests(text: str) -> str:
    ir = analysis(text).ir
    context = build_test_context(ir, module="layers.running_sum", source="running_sum.layer.yaml")
    return render("layer_test.py.j2", context)


def errors(text: str) -> list[tuple[int, str]]:
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    return [(d.line, d.code) for d in info.value.diagnostics]


def test_a_declared_cache_gets_a_step_by_step_decoding_test():
    tests = generated_tests(RUNNING_SUM)
    name = "def test_decoding_step_by_step_through_cache_gives_the_whole_sequence():"
    assert name in tests
    test = tests[tests.index(name) :].split("\ndef ")[0]
    # The empty cache of the declared shape, over the example's input shapes.
    assert "(x_shape,) = INPUT_SHAPES.values()" in test
    assert 'np.zeros((x_shape[0], x_shape[1], x_shape[2]), "float32")' in test
    # Decoded by `assert_cache_decodes_step_by_step` (tests/unit/test_support_properties.py).
    assert 'cache="cache",\n        index="cache_index",\n        empty=empty,' in test
    assert 'of=["x"],' in test
    # `count` comes before the cache only when asked for: the cache is output 1.
    assert "output=1," in test
    compile(tests, "<generated>", "exec")


# Two tensor inputs of the same shape, each an argument of its own.
TWO_INPUTS = (
    RUNNING_SUM.replace("  x: {rank: 3}\n", "  x: {rank: 3}\n  y: {rank: 3}\n")
    .replace("layer: RunningSum\n", "layer: RunningSum\nseparate_inputs: true\n")
    .replace("  input_shape: [2, 4, 3]\n", "  input_shape: {x: [2, 4, 3], y: [2, 4, 3]}\n")
)


def test_an_attention_cache_decodes_through_a_causal_mask_and_steps_query_and_value():
    """An attention layer is causal only through its mask, so its cache's wrong
    index or missing update slipped through; `mask:` names the mask the test passes, and
    the inputs `of` lists (self-attention's query and value) are stepped together."""
    attention = (
        TWO_INPUTS.replace("of: x", "of: [x, y]")
        .replace(
            "      shape: (x[0], x[1], x[2])\n",
            "      shape: (x[0], x[1], x[2])\n      mask: keep\n",
        )
        .replace(
            "  cache_index: {default: null}\n",
            "  cache_index: {default: null}\n  keep: {default: null, dtype: bool}\n",
        )
        .replace("call: |\n", "call: |\n  x = x + y\n")
    )
    tests = generated_tests(attention)
    test = tests[tests.index("def test_decoding_step_by_step") :].split("\ndef ")[0]
    assert 'mask="keep",\n        mask_dtype="bool",' in test
    assert 'of=["x", "y"],' in test
    compile(tests, "<generated>", "exec")
    assert errors(attention.replace("mask: keep", "mask: kept")) == [(15, "unknown-input")]


def test_an_input_of_the_same_shape_left_out_of_of_is_not_stepped():
    """The tests cut every input of `of`'s example shape to the step, a guess
    that is wrong for an encoder's sequence that happens to have the decoder's shape;
    the declaration says which inputs are decoded."""
    one = TWO_INPUTS.replace("call: |\n", "call: |\n  x = x + ops.mean(y, axis=1, keepdims=True)\n")
    assert analysis(one).ir.keywords[1].cache.of == ("x",)
    test = generated_tests(one)
    assert 'of=["x"],' in test.split("def test_decoding_step_by_step")[1]
    both = one.replace("of: x", "of: [x, y]")
    assert analysis(both).ir.keywords[1].cache.of == ("x", "y")
    assert 'of=["x", "y"],' in generated_tests(both).split("def test_decoding_step_by_step")[1]
    reversed_order = generated_tests(one.replace("of: x", "of: [y, x]"))
    assert 'of=["y", "x"],' in reversed_order  # the steps counted along `y`


@pytest.mark.parametrize(
    "of, expected",
    [
        ("[x, z]", [(12, 15, "unknown-input")]),
        ("[x, x]", [(12, 15, "duplicate-name")]),
        ("[]", [(12, 11, "unknown-input")]),
        ("[w, x, v]", [(12, 12, "unknown-input"), (12, 18, "unknown-input")]),
    ],
)
def test_each_name_of_of_that_is_unknown_or_repeated_is_a_located_error(of, expected):
    text = TWO_INPUTS.replace("of: x", f"of: {of}")
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    found = [(d.line, d.col, d.code) for d in info.value.diagnostics]
    assert found == expected, found


def test_without_a_cache_there_is_no_decoding_test():
    plain = RUNNING_SUM.replace(
        "    cache:\n      of: x\n      index: cache_index\n      shape: (x[0], x[1], x[2])\n", ""
    )
    assert "test_decoding_step_by_step" not in generated_tests(plain)


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("of: x", "of: y", [(10, "unknown-input")]),
        ("index: cache_index", "index: cache_idx", [(11, "unknown-input")]),
        ("  cache: {shape: cache, when: cache is not None}\n", "", [(9, "conflicting-keys")]),
        (
            "  cache:\n    default: null\n",
            "  cache:\n",
            [(7, "param-order"), (8, "conflicting-keys")],
        ),
        ("shape: (x[0], x[1], x[2])", "shape: (x[0], units)", [(12, "unknown-name")]),
    ],
)
def test_a_cache_that_cannot_be_tested_is_a_located_error(old, new, expected):
    assert old in RUNNING_SUM
    found = errors(RUNNING_SUM.replace(old, new))
    assert found[: len(expected)] == expected, found
