"""What the generated test module of a declaration checks, read from its context and text
(`layergen/render/tests_context.py`). The e2e tests run such modules; these are fast."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from layergen.declaration.load import parse_declaration
from layergen.render.render import render
from layergen.render.tests_context import build_test_context

from helpers import module_code, repro


def context(text: str, golden: bool = False) -> dict:
    ir = parse_declaration("layers/real.layer.yaml", textwrap.dedent(text).encode()).ir
    return build_test_context(ir, module="layers.real", source="real.layer.yaml", golden=golden)


def test_module(text: str) -> str:
    return render("layer_test.py.j2", context(text))


test_module.__test__ = False  # a helper, not a test


def undefined_names(code: str) -> list[str]:
    """ruff's undefined-name findings (F821) in `code`, one line each."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F821"]
        + ["--output-format", "concise", "--stdin-filename", "test_real.py", "-"],
        input=code,
        capture_output=True,
        text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    return [line for line in result.stdout.splitlines() if "F821" in line]


SELF_IN_SHAPES = """\
layer: Heads
params:
  heads: {type: int, default: 2}
init: |
  self.head_dim = 4
weights:
  kernel:
    shape: (x[-1], self.head_dim * heads)
call: ops.matmul(x, kernel)
output_shape: (*x[:-1], self.head_dim * heads)
noise: {shape: "(x[0], self.head_dim // 4)"}
example:
  input_shape: [2, 3]
"""


def test_self_in_a_weight_output_or_noise_shape_reads_the_layer_in_the_tests():
    """`self.x` in a shape was accepted, then the tests read an undefined `self`."""
    code = test_module(SELF_IN_SHAPES)
    assert undefined_names(code) == []
    assert "layer.head_dim" in code
    assert "self." not in code


POWER_ITERATION = """\
layer: PowerNorm
params:
  units: {type: int, default: 3}
weights:
  kernel:
    shape: (x[-1], units)
  u:
    shape: (1, units)
    initializer: ones
    trainable: false
call: |
  w = kernel
  if training:
      v = ops.matmul(u, ops.transpose(w))
      new_u = ops.matmul(v / ops.norm(v), w)
      u.assign(new_u / ops.norm(new_u))
      w = w / ops.norm(new_u)
  return ops.matmul(x, w)
output_shape: (*x[:-1], units)
example:
  input_shape: [2, 4]
"""


def test_a_weight_read_only_under_if_training_is_not_read_by_inference():
    """A power-iteration vector assigned under `if training:` was reported as
    "the output ignores weight u"."""
    assert context(POWER_ITERATION)["facts"].weights_read == ["kernel"]
    for inference_reads_u in (
        "if not training:\n      w = w * u\n  ",
        "w = w * (1.0 if training else u)\n  ",
        "if training and units > 1:\n      pass\n  else:\n      w = w * u\n  ",
    ):
        text = POWER_ITERATION.replace("return ops", inference_reads_u + "return ops")
        assert context(text)["facts"].weights_read == ["kernel", "u"], inference_reads_u


ZERO_DROPOUT = repro("drop_block")


def test_a_dropout_the_example_leaves_at_rate_zero_skips_the_training_test_and_says_why():
    """keras-hub's TransformerDecoder keeps dropout 0 by default, and training
    changed nothing, so `test_training_changes_the_output` failed."""
    code = test_module(ZERO_DROPOUT)
    mark = code.split("def test_training_changes_the_output")[0].rsplit("\n\n\n", 1)[1]
    assert mark.startswith("@pytest.mark.skip(")
    assert "`dropout` is 0" in mark
    for given in ("params: {dropout: 0.1}", "params: {units: 2}\n  call_args: {}"):
        text = ZERO_DROPOUT.replace("example:\n", f"example:\n  {given}\n")
        code = test_module(text)
        skipped = "@pytest.mark.skip(" in code.split("def test_training_changes")[0][-300:]
        assert skipped == ("0.1" not in given), given
    literal = ZERO_DROPOUT.replace("{rate: dropout}", "{rate: 0.0}")
    assert "rate 0" in test_module(literal).split("def test_training_changes")[0][-300:]


JITTER_ROUTER = repro("jitter_router")


def test_a_random_layer_whose_example_draws_nothing_is_told_which_param_to_set():
    """An MoE router with `router_jitter_noise: 0.0` failed with "a different seed
    gave the same outputs", not saying that the example never draws."""
    code = test_module(JITTER_ROUTER)
    test = code.split("def test_the_seed_decides_the_random_draws")[1].split("\ndef ")[0]
    assert "support.assert_the_seed_decides_the_random_draws(" in test  # skips, with the hint
    assert "router_jitter_noise" in test


MASK_ZERO = """\
layer: Tokens
params:
  dim: {type: int, default: 4}
  mask_zero: {type: bool, default: false}
  activation: {type: activation, default: relu}
inputs:
  x: {dtype: int32}
weights:
  table:
    shape: (10, dim)
masking: "ops.not_equal(x, 0) if mask_zero else None"
call: activation(ops.take(table, x, axis=0))
losses: [ops.mean(activation(table)) * dim]
output_shape: (*x, dim)
"""


def test_declared_formulas_read_params_from_the_example_not_from_the_layer():
    """keras-hub's TokenAndPositionEmbedding keeps no `mask_zero` attribute, so
    the mask formula read as `layer.mask_zero` failed against the original class."""
    facts = context(MASK_ZERO)["facts"]
    assert facts.masking == 'ops.not_equal(x, 0) if ARGS["mask_zero"] else None'
    loss = 'ops.mean(keras.activations.get(ARGS["activation"])(layer.table)) * ARGS["dim"]'
    assert facts.losses == [loss]


def test_each_call_case_builds_its_own_layer_with_its_argument():
    """A structural argument (`encoder_sequence`) passed after a build without it
    raises, as keras-hub's original does: each call case builds a layer by that call."""
    text = POWER_ITERATION.replace(
        "example:\n", "inputs:\n  x: {}\n  context: {default: null}\nexample:\n"
    ).replace("  input_shape: [2, 4]\n", "  input_shape: [2, 4]\n  call_args: {context: [1.0]}\n")
    code = test_module(text)
    test = code.split("def test_each_keyword_argument_of_call():")[1].split("\ndef ")[0]
    # Each case on a layer of its own: `assert_each_keyword_argument_runs` (unit-tested).
    assert "support.assert_each_keyword_argument_runs(EXAMPLE, make_call_cases())" in test
    cases = code.split("def make_call_cases():")[1].split("\ndef ")[0]
    assert "support.call_cases(EXAMPLE, make_call_args())" in cases


PADDED_POOL = repro("padded_pool")


def test_a_mask_argument_gets_a_test_that_what_it_hides_changes_nothing_it_keeps():
    """A decoder that ignored `decoder_padding_mask` passed every generated test;
    a keyword input that `masks` an input now has the property checked."""
    code = test_module(PADDED_POOL)
    name = "def test_steps_padding_mask_hides_do_not_change_the_output():"
    test = code.split(name)[1].split("\ndef ")[0]
    call = 'support.assert_hidden_steps_change_nothing(EXAMPLE, "padding_mask", mask, index=0)'
    assert call in test
    # Left padding: a causal decoder ignoring its mask differs only after a hidden step.
    assert "mask = support.make_mask(shape)[:, ::-1]" in test
    assert undefined_names(code) == []
    given = PADDED_POOL.replace(
        "  input_shape: [2, 4, 3]\n",
        "  input_shape: [2, 4, 3]\n  call_args:\n"
        "    padding_mask: [[true, true, false, false], [true, true, true, false]]\n",
    )
    assert 'make_call_args()["padding_mask"]' in test_module(given)
    assert "test_steps_" not in test_module(PADDED_POOL.replace(", masks: x", ""))


def test_a_mask_of_a_keyword_tensor_changes_the_steps_it_hides_of_that_tensor():
    """A decoder that ignored `encoder_padding_mask` passed every generated test;
    `masks:` may name a keyword tensor (the encoder's sequence), whose example value the
    test changes where the mask hides, and then no output may change."""
    text = PADDED_POOL.replace(
        "masks: x}\n",
        "masks: x}\n  context: {default: null}\n"
        "  context_mask: {default: null, dtype: bool, masks: context}\n",
    ).replace(
        "  input_shape: [2, 4, 3]\n",
        "  input_shape: [2, 4, 3]\n  call_args: {context: [[[1.0], [2.0]], [[3.0], [4.0]]]}\n",
    )
    code = test_module(text)
    name = "def test_steps_context_mask_hides_do_not_change_the_output():"
    test = code.split(name)[1].split("\ndef ")[0]
    assert 'masked = make_call_args()["context"]' in test
    assert 'EXAMPLE, "context_mask", mask, keyword=("context", masked)' in test
    assert undefined_names(code) == []


def test_recorded_goldens_hold_each_call_case():
    """`--record` recorded the default call only, so a padding mask ignored was
    missed with recorded outputs too."""
    given = PADDED_POOL.replace(
        "  input_shape: [2, 4, 3]\n",
        "  input_shape: [2, 4, 3]\n  call_args:\n"
        "    padding_mask: [[true, true, false, false], [true, true, true, false]]\n",
    )
    facts = context(given, golden=True)
    run = render("layer_test.py.j2", facts).split("def golden_run(layer):")[1].split("\ndef ")[0]
    # Its steps the declared mask hides are not compared: backends compute them apart.
    assert 'EXAMPLE, layer, make_call_cases(), masks=["padding_mask"]\n' in run
    assert "make_call_cases" not in test_module(PADDED_POOL).split("def golden_run")[1][:600]


def test_a_gradient_stopped_on_purpose_is_not_compared_with_finite_differences():
    """Keras's SpectralNormalization stops the gradient through its power
    iteration, in training: finite differences of a training call see the path autodiff
    leaves out on purpose. Its inference call is checked instead; a gradient stopped in
    inference too skips the test, saying why."""
    stopped = POWER_ITERATION.replace(
        "      new_u = ops.matmul(v / ops.norm(v), w)",
        "      new_u = ops.stop_gradient(ops.matmul(v / ops.norm(v), w))",
    )
    code = test_module(stopped)
    test = code.split("def test_gradients_match_finite_differences():")[1].split("\ndef ")[0]
    assert "training=False" in test
    assert (
        "training=False"
        not in test_module(POWER_ITERATION)
        .split("def test_gradients_match_finite_differences():")[1]
        .split("\ndef ")[0]
    )
    always = stopped.replace("return ops.matmul(x, w)", "return ops.stop_gradient(x) @ w")
    code = test_module(always)
    before = code.split("def test_gradients_match_finite_differences():")[0][-300:]
    assert "@pytest.mark.skip(" in before and "`ops.stop_gradient`" in before


CAUSAL_POOL = repro("causal_pool")


def test_a_causal_argument_gets_a_test_that_later_steps_change_no_earlier_output():
    """A decoder whose causal mask was dropped passed every generated test;
    a bool argument that makes the layer causal along an input (`causal: x`) is checked."""
    code = test_module(CAUSAL_POOL)
    name = "def test_use_causal_mask_makes_each_step_depend_on_earlier_steps_only():"
    test = code.split(name)[1].split("\ndef ")[0]
    call = 'support.assert_each_step_depends_on_earlier_steps_only(\n        EXAMPLE, "use_causal_mask", index=0\n    )'
    assert call in test
    assert undefined_names(code) == []
    assert "earlier_steps_only" not in test_module(CAUSAL_POOL.replace(", causal: x", ""))


def test_recorded_goldens_hold_the_losses_of_a_training_call():
    """The MoE block's load-balancing loss ignoring its padding mask was missed
    with recorded outputs too: they held no loss."""
    facts = context(MASK_ZERO, golden=True)
    run = render("layer_test.py.j2", facts).split("def golden_run(layer):")[1].split("\ndef ")[0]
    assert "losses=True" in run
    random = MASK_ZERO.replace("masking:", "random: true\nmasking:")
    facts = context(random, golden=True)
    run = render("layer_test.py.j2", facts).split("def golden_run(layer):")[1].split("\ndef ")[0]
    assert "losses" not in run  # random draws differ across backends


def unused_imports(code: str) -> list[str]:
    """ruff's unused-import findings (F401) in `code`, one line each."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F401"]
        + ["--output-format", "concise", "--stdin-filename", "test_real.py", "-"],
        input=code,
        capture_output=True,
        text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    return [line for line in result.stdout.splitlines() if "F401" in line]


def test_ops_named_only_in_a_skip_reason_or_a_docstring_is_not_imported():
    """With Keras's SpectralNormalization declared, the gradient test's skip reason
    names `ops.stop_gradient`, and the test module imported `ops` for it, unused (ruff F401);
    a layer's docstring naming `ops.` did the same to the layer module."""
    stopped = POWER_ITERATION.replace(
        "return ops.matmul(x, w)", "return ops.stop_gradient(x) @ w"
    ).replace("layer: PowerNorm\n", "layer: PowerNorm\ndoc: Uses ops.matmul.\n")
    code = test_module(stopped)
    assert "`ops.stop_gradient`" in code  # the skip reason
    assert unused_imports(code) == []
    assert "from keras import ops" not in code
    assert unused_imports(module_code(stopped.replace("ops.", "keras.ops."))) == []
    assert "from keras import ops" in module_code(stopped)


POWER_ITERATION_METHOD = """\
layer: PowerNorm
weights:
  kernel:
    shape: (x[-1], 3)
  u:
    shape: (1, 3)
    initializer: ones
    trainable: false
call: |
  if training:
      u.assign(normalized_u())
  return ops.matmul(x, kernel)
methods:
  normalized_u:
    args: []
    body: |
      v = ops.matmul(self.u, ops.transpose(self.kernel))
      return ops.stop_gradient(ops.normalize(ops.matmul(v, self.kernel), axis=None))
output_shape: (*x[:-1], 3)
example:
  input_shape: [2, 4]
"""


def test_a_gradient_stopped_in_a_method_called_in_training_only_checks_inference():
    """Keras's SpectralNormalization stops the gradient in `normalized_weights`,
    a method its `call` reaches under `if training:` only; the gradient test was skipped
    ("`ops.stop_gradient` in an inference call") instead of checking an inference call."""
    code = test_module(POWER_ITERATION_METHOD)
    test = code.split("def test_gradients_match_finite_differences():")[1].split("\ndef ")[0]
    before = code.split("def test_gradients_match_finite_differences():")[0][-300:]
    assert "training=False" in test and "@pytest.mark.skip(" not in before
    training_only = "  if training:\n      u.assign(normalized_u())\n"
    # Reached by an inference call too, by name or as `self.normalized_u`: skipped, saying why.
    for inference in ("  u.assign(self.normalized_u())\n", "  w = normalized_u()\n"):
        code = test_module(POWER_ITERATION_METHOD.replace(training_only, inference))
        before = code.split("def test_gradients_match_finite_differences():")[0][-300:]
        assert "@pytest.mark.skip(" in before and "`ops.stop_gradient`" in before, inference


def test_the_config_round_trip_allows_from_config_to_take_from_the_config_it_is_given():
    """Keras's own `Wrapper.from_config` pops `layer` from the config it is given
    (SpectralNormalization inherits it), so the generated test, which compared the clone's
    config with that very dict, failed on Keras's class. Keras's own layer tests keep the
    config apart first; so do the generated ones."""
    import ast
    import copy
    from pathlib import Path

    from layergen.render.support import support_files

    (text,) = support_files(Path("tests")).values()
    (function,) = [
        node
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef) and node.name == "from_config"
    ]
    scope = {"copy": copy}
    exec(compile(ast.Module([function], []), "layergen_support.py", "exec"), scope)

    class Wrapper:  # as keras.layers.Wrapper
        def __init__(self, layer, **kwargs):
            self.config = {"layer": layer, **kwargs}

        @classmethod
        def from_config(cls, config):
            return cls(config.pop("layer"), **config)

    config = {"layer": {"class_name": "Dense"}, "name": "w"}
    clone = scope["from_config"](Wrapper, config)
    assert clone.config == config == {"layer": {"class_name": "Dense"}, "name": "w"}
    check = text.split("def assert_config_round_trip(")[1].split("\ndef ")[0]
    assert "clone = from_config(type(layer), config)" in check
    assert "again = clone.get_config()" in check and "assert again == config" in check
    code = test_module(repro("wrap"))
    test = code.split("def test_config_round_trip():")[1].split("\ndef ")[0]
    assert "support.assert_config_round_trip(EXAMPLE, [*ARGS, *make_objects()])" in test


REVERSIBLE = """\
layer: Reversible
params:
  vocab: {type: int, default: 6}
  width: {type: int, default: 3}
inputs:
  x: {dtype: int32}
  reverse: {type: bool, default: false}
weights:
  table:
    shape: (vocab, width)
call: |
  if reverse:
      return ops.matmul(x, ops.transpose(table))
  return ops.take(table, x, axis=0)
output_shape: (*x, width)
example:
  input_shape: [2, 5]
  input_range: [0, 6]
  call_cases:
    - {args: {reverse: true}, input_shape: [2, 5, 3], input_dtype: float32}
  reference: |
    return x @ table.T if reverse else table[x]
"""


def test_a_call_case_brings_its_own_inputs():
    """`reverse=True` takes float hidden states, not the example's token ids;
    a call case with inputs of its own is run by the reference, keyword and golden tests."""
    (case,) = context(REVERSIBLE)["facts"].call_cases
    assert case == {
        "name": "reverse=True",
        "args": {"reverse": True},
        "input_shapes": {"x": (2, 5, 3)},
        "input_dtypes": {"x": "float32"},
        "input_range": (0, 6),  # what the case leaves out is the example's
    }
    code = test_module(REVERSIBLE)
    assert undefined_names(code) == []
    reference = code.split("def test_inference_outputs_match_the_numpy_reference")[1]
    assert "support.assert_matches_numpy_reference(EXAMPLE, expected, ATOL, make_call_cases())" in (
        reference
    )
    keywords = code.split("def test_each_keyword_argument_of_call")[1]
    assert "support.assert_each_keyword_argument_runs(EXAMPLE, make_call_cases())" in keywords
    golden = code.split("def golden_run")[1].split("\ndef ")[0]
    assert "support.golden_runs(EXAMPLE, layer, make_call_cases())" in golden
    # A weight that only the reverse call reads is checked through it.
    weights = code.split("def test_each_weight_the_inference_reads_changes_its_output")[1]
    assert "make_call_cases()" in weights.split("\ndef ")[0]


SCALED_DENSE = """\
layer: ScaledDense
params:
  units: {type: int, min: 1}
  use_bias: {type: bool, default: true}
  heads: {type: int, default: 1}
inputs:
  x: {min_rank: 2}
weights:
  kernel: {shape: "(x[-1], units)"}
  bias: {shape: units, when: use_bias}
  mix: {shape: "(heads, heads)", when: heads > 1}
call: ops.matmul(x, kernel) + bias
output_shape: (*x[:-1], units)
example:
  params: {units: 4}
  input_shape: [2, 3]
"""


def test_each_when_a_bool_param_flips_is_built_and_called_on_its_other_side():
    """`bias: {when: use_bias}`: the example makes it; the tests also make the layer with
    `use_bias=False`, where a call that adds `bias` unconditionally fails."""
    ctx = context(SCALED_DENSE)["facts"]
    assert ctx.other_sides == [
        {
            "args": {"use_bias": False},
            "made": {"bias": False},
            "keys": {"bias": "weights.bias.when"},
        }
    ]
    code = test_module(SCALED_DENSE)
    assert "support.assert_other_sides_call_and_round_trip(EXAMPLE, sides)" in code


def test_a_when_no_bool_param_flips_is_said_with_the_params_to_set():
    parts = context(SCALED_DENSE)["facts"].unreached_sides
    reason = "".join(parts)
    assert "`weights.mix.when: heads > 1` is False" in reason and "`heads`" in reason, reason
    code = test_module(SCALED_DENSE)
    assert "def test_every_declared_branch_is_reached():" in code
    assert '@pytest.mark.skip(\n    reason="`weights.mix.when' in code


START_INDEX = """\
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


def test_each_call_input_is_passed_once_with_a_value_other_than_its_default():
    """`start_index: {type: int, default: 0}`: a `call` that does not take it failed no
    test; now one passes `start_index=1` (and `scaled=True`)."""
    ctx = context(START_INDEX)["facts"]
    assert ctx.other_values == {"start_index": 1, "scaled": True}
    code = test_module(START_INDEX)
    assert "support.keyword_cases(EXAMPLE, values)" in code


def test_a_call_input_the_tests_cannot_make_a_value_of_is_said():
    reason = "".join(context(START_INDEX)["facts"].unreached_sides)
    assert "call input `context` (a tensor)" in reason and "`example.call_args`" in reason
