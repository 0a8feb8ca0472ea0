"""A declared `when` the generated tests cannot reach the other side of is said when
generating, at its `when:` key, with the params to set: a warning (exit status as it was,
files written), decided once in the IR (`Declared.unreached`), which the generated tests'
skip reads too."""

from __future__ import annotations

import re

from helpers import layergen_in_process as layergen
from helpers import project

DENSE = """\
layer: ScaledDense
params:
  units: {type: int, min: 1}
  use_bias: {type: bool, default: true}
  heads: {type: int, default: 1}
inputs:
  x: {min_rank: 2}
weights:
  kernel: {shape: "(x[-1], units)"}
  bias: {shape: units, when: use_bias and units > 8}
  mix: {shape: "(heads, heads)", when: heads > 1}
  scale: {shape: units, when: use_bias}
call: ops.matmul(x, kernel)
output_shape: (*x[:-1], units)
example:
  params: {units: 4}
  input_shape: [2, 3]
"""
LINES = DENSE.splitlines()
BIAS = next(i for i, line in enumerate(LINES, 1) if line.startswith("  bias:"))
MIX = next(i for i, line in enumerate(LINES, 1) if line.startswith("  mix:"))
WARNING = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): warning: (?P<message>.*) \[(?P<code>[\w-]+)\]$"
)


def test_the_ir_holds_each_when_no_bool_flip_reaches_with_the_params_to_set():
    """`use_bias and units > 8` with `units: 4`: no flip of `use_bias` makes it true;
    `heads > 1` reads an int; `use_bias` alone is flipped, so it is reached."""
    from layergen.declaration.load import parse_declaration

    ir = parse_declaration("a.layer.yaml", DENSE.encode()).ir
    found = {u.key: (u.when, u.value, u.params, u.pos.line) for u in ir.unreached}
    assert found == {
        "weights.bias": ("use_bias and units > 8", False, ("use_bias", "units"), BIAS),
        "weights.mix": ("heads > 1", False, ("heads",), MIX),
    }
    assert [side.args for side in ir.sides] == [{"use_bias": False}]


def test_generate_says_an_unreached_branch_at_its_when_key_and_still_writes(tmp_path):
    root = project(tmp_path, {"layers/scaled_dense.layer.yaml": DENSE})
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stderr
    assert (root / "layers" / "scaled_dense.py").is_file()
    assert (root / "tests" / "test_scaled_dense.py").is_file()
    said = _warnings(result.stderr)
    assert [(line, code) for line, _, code, _, _ in said] == [
        (BIAS, "unreached-branch"),
        (MIX, "unreached-branch"),
    ]
    _, col, _, message, hint = said[0]
    assert col == LINES[BIAS - 1].index("when:") + 1
    assert "use_bias and units > 8" in message and "False" in message, message
    assert "`use_bias`" in hint and "`units`" in hint and "example.params" in hint, hint
    # A run that takes every file from the lock says it again; so does `--check`.
    again = layergen("generate", "layers", cwd=root)
    assert again.returncode == 0 and _warnings(again.stderr) == said, again.stderr
    check = layergen("generate", "--check", "layers", cwd=root)
    assert check.returncode == 0 and _warnings(check.stderr) == said, check.stderr


def test_a_declaration_whose_branches_are_all_reached_says_nothing(tmp_path):
    text = DENSE.replace("  bias: {shape: units, when: use_bias and units > 8}\n", "")
    text = text.replace('  mix: {shape: "(heads, heads)", when: heads > 1}\n', "")
    root = project(tmp_path, {"layers/scaled_dense.layer.yaml": text})
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr


def _warnings(stderr: str) -> list[tuple[int, int, str, str, str]]:
    """(line, col, code, message, hint) of each located warning printed."""
    lines = stderr.splitlines()
    found = []
    for index, line in enumerate(lines):
        m = WARNING.match(line)
        if m:
            hint = lines[index + 1] if index + 1 < len(lines) else ""
            assert hint.startswith("  hint: "), stderr
            found.append(
                (int(m["line"]), int(m["col"]), m["code"], m["message"], hint[len("  hint: ") :])
            )
    return found


SCORED = """\
layer: Scored
params:
  return_scores: {type: bool, default: true}
  heads: {type: int, default: 1}
inputs:
  x: {min_rank: 2}
call: |
  scores = ops.softmax(x)
  if heads > 1:
      return (x * scores, scores, scores) if return_scores else (x * scores, scores)
  return (x * scores, scores) if return_scores else x * scores
outputs:
  out: x
  scores: {shape: x, when: return_scores}
  mix: {shape: x, when: heads > 1}
example:
  input_shape: [2, 3]
"""
SCORED_LINES = SCORED.splitlines()


def test_an_outputs_when_over_a_bool_param_is_a_side_the_tests_build():
    """`scores: {when: return_scores}`: the tests make the layer with `return_scores=False`
    and check that it returns `out` alone; `mix: {when: heads > 1}` no flip reaches."""
    from layergen.declaration.ir import Side
    from layergen.declaration.load import parse_declaration

    ir = parse_declaration("a.layer.yaml", SCORED.encode()).ir
    assert ir.sides == (
        Side({"return_scores": False}, {}, {"scores": "outputs.scores.when"}, ("out",)),
    )
    mix = next(i for i, line in enumerate(SCORED_LINES, 1) if line.startswith("  mix:"))
    assert [(u.key, u.value, u.params, u.pos.line) for u in ir.unreached] == [
        ("outputs.mix", False, ("heads",), mix)
    ]


POSITIONS = """\
layer: Positions
params:
  width: {type: int, default: 4}
inputs:
  x: {min_rank: 3}
  start_index: {type: int, default: 0}
  scaled: {type: bool, default: false}
  context: {default: null}
call: x + ops.cast(start_index, x.dtype) * (2.0 if scaled else 1.0)
example:
  input_shape: [2, 3, 4]
"""
POSITIONS_LINES = POSITIONS.splitlines()
CONTEXT = next(i for i, line in enumerate(POSITIONS_LINES, 1) if line.startswith("  context:"))


def test_the_ir_holds_the_value_each_call_input_is_passed_and_those_no_test_can_make():
    """An int and a bool keyword get `default + 1` and `not default`; a tensor keyword the
    example passes nowhere is in `Declared.unvaried`, at its key."""
    from layergen.declaration.load import parse_declaration

    ir = parse_declaration("a.layer.yaml", POSITIONS.encode()).ir
    assert ir.other_values == {"start_index": 1, "scaled": True}
    assert [(u.name, u.type, u.pos.line) for u in ir.unvaried] == [("context", "tensor", CONTEXT)]
    given = POSITIONS.replace(
        "  input_shape: [2, 3, 4]\n",
        "  input_shape: [2, 3, 4]\n  call_args: {context: [[[1.0]]], start_index: 2}\n",
    )
    ir = parse_declaration("a.layer.yaml", given.encode()).ir
    assert ir.other_values == {"scaled": True} and ir.unvaried == ()


def test_generate_says_a_call_input_no_test_passes_at_its_key(tmp_path):
    root = project(tmp_path, {"layers/positions.layer.yaml": POSITIONS})
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stderr
    assert (root / "tests" / "test_positions.py").is_file()
    ((line, col, code, message, hint),) = _warnings(result.stderr)
    assert (line, col, code) == (CONTEXT, 3, "untested-input")
    assert "`context`" in message and "default" in message, message
    assert "example.call_args" in hint and "example.call_cases" in hint, hint


def test_the_generated_tests_fail_a_call_that_returns_an_output_its_when_leaves_out(tmp_path):
    """The flip test makes `Scored(return_scores=False)`: a call that returns the scores
    anyway fails it; the declared one passes."""
    from helpers import run_pytest

    right = "  return (x * scores, scores) if return_scores else x * scores\n"
    assert right in SCORED
    always = SCORED.replace(right, "  return x * scores, scores\n")
    root = project(
        tmp_path,
        {
            "layers/scored.layer.yaml": SCORED,
            "layers/scored_always.layer.yaml": always.replace("Scored", "ScoredAlways"),
        },
    )
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stderr
    test = "test_the_other_side_of_each_when_calls_and_round_trips"
    # on TensorFlow: the test saves a model, which imports it on any backend, so it starts quickest
    outcomes = run_pytest(root, "tensorflow", "tests", "-k", test)
    assert outcomes == {
        f"test_scored::{test}": "passed",
        f"test_scored_always::{test}": "failed",
    }, outcomes


OTHER_VALUES_TEST = "test_each_call_input_with_a_value_other_than_its_default"
FIXED = POSITIONS + (
    "tests:\n  skip:\n"
    f"    {OTHER_VALUES_TEST}[start_index]: a position, valid only up to the input's length\n"
)


def test_a_call_input_the_declaration_skips_is_left_at_its_default_and_the_others_vary(
    tmp_path,
):
    """A skip of the other-values test named for one input (`[start_index]`, an int that
    is a position) leaves that input at its default, with the reason in the skipped branch
    test, and said by no warning (the declaration states it); the bool is still tried."""
    from layergen.declaration.load import parse_declaration

    ir = parse_declaration("a.layer.yaml", FIXED.encode()).ir
    assert ir.other_values == {"scaled": True}
    assert [u.name for u in ir.unvaried] == ["start_index", "context"]
    root = project(tmp_path, {"layers/positions.layer.yaml": FIXED})
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stderr
    assert [code for _, _, code, _, _ in _warnings(result.stderr)] == ["untested-input"]
    text = (root / "tests" / "test_positions.py").read_text()
    assert 'values = {"scaled": True}' in text, text
    test = text.split(f"def {OTHER_VALUES_TEST}")[0].rsplit("\n\n\n", 1)[1]
    assert "skip" not in test, test
    assert "a position, valid only up to the input's length" in text, text


def test_a_skip_naming_an_input_that_is_not_a_call_input_is_an_unknown_test(tmp_path):
    root = project(
        tmp_path, {"layers/positions.layer.yaml": FIXED.replace("[start_index]", "[width]")}
    )
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 2, result.stderr
    assert "[unknown-test]" in result.stderr and "width" in result.stderr, result.stderr
    assert not (root / "tests" / "test_positions.py").exists()
