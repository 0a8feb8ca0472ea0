"""A keyword mask of `call` (`masks: x`) gets a test of what it does: the steps
it hides change none of the outputs at the steps it keeps. The test passes on a layer
that honours the mask and fails on the same layer ignoring it (a decoder that ignored
`decoder_padding_mask` passed every generated test before). Likewise a bool argument that
makes the layer causal (`causal: x`); a call case with inputs of its own
(`example.call_cases`: ReversibleEmbedding's `reverse`); and `generate --record` records
each call case; a cache decodes only the inputs its `of` lists; a keyword tensor the
layer needs though it defaults to None is passed in every call; an input named `mask`
is the layer's own. About 60 s, on JAX.
"""

from __future__ import annotations

import pytest

from helpers import FIXTURES, layergen, make_project, repro, run_pytest

pytestmark = pytest.mark.e2e

PADDED_POOL = repro("padded_pool")
IGNORING = PADDED_POOL.replace("PaddedPool", "PaddedPoolIgnoringMask").replace(
    "  if padding_mask is None:\n", "  if True:  # the mask ignored\n"
)
TEST = "test_steps_padding_mask_hides_do_not_change_the_output"
CAUSAL_POOL = repro("causal_pool")
NOT_CAUSAL = CAUSAL_POOL.replace("CausalPool", "CausalPoolMaskDropped").replace(
    "  if use_causal_mask:\n", "  if False:  # the causal mask dropped\n"
)
CAUSAL_TEST = "test_use_causal_mask_makes_each_step_depend_on_earlier_steps_only"
REVERSIBLE = (FIXTURES / "real" / "reversible_embedding.layer.yaml").read_text()
SOFT_CAP_INVERTED = REVERSIBLE.replace(
    "layer: ReversibleEmbedding", "layer: ReversibleEmbeddingSoftCapInverted"
).replace("ops.divide(logits, logit_soft_cap)", "ops.multiply(logits, logit_soft_cap)")
REFERENCE_TEST = "test_inference_outputs_match_the_numpy_reference"
CACHE_TEST = "test_decoding_step_by_step_through_cache_gives_the_whole_sequence"
DECLARATIONS = {
    "padded_pool": PADDED_POOL,
    "padded_pool_ignoring_mask": IGNORING,
    "causal_pool": CAUSAL_POOL,
    "causal_pool_mask_dropped": NOT_CAUSAL,
    "reversible_embedding": REVERSIBLE,
    "reversible_embedding_soft_cap_inverted": SOFT_CAP_INVERTED,
    "cached_context_sum": repro("cached_context_sum"),
    "masked_mix": repro("masked_mix"),
    "masked_rows": repro("masked_rows"),
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("call_args"), {})
    (root / "layers").mkdir()
    for name, text in DECLARATIONS.items():
        (root / "layers" / f"{name}.layer.yaml").write_text(text)
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    return run_pytest(root, "jax")


def test_the_mask_argument_test_passes_on_a_layer_that_honours_the_mask(outcomes):
    ours = {n: o for n, o in outcomes.items() if n.startswith("test_padded_pool::")}
    assert ours[f"test_padded_pool::{TEST}"] == "passed"
    assert len(ours) > 10 and all(o != "failed" for o in ours.values()), ours


def test_only_the_mask_argument_test_fails_on_a_layer_that_ignores_the_mask(outcomes):
    theirs = {n: o for n, o in outcomes.items() if n.startswith("test_padded_pool_ignoring")}
    failed = [n for n, o in theirs.items() if o == "failed"]
    assert failed == [f"test_padded_pool_ignoring_mask::{TEST}"]


def test_a_call_case_with_its_own_inputs_checks_the_reverse_projection(outcomes):
    """`reverse=True` takes float hidden states: only a call case with inputs of its own
    runs it, so a soft cap inverted there is caught by the reference."""
    ours = {n: o for n, o in outcomes.items() if n.startswith("test_reversible_embedding::")}
    assert ours[f"test_reversible_embedding::{REFERENCE_TEST}"] == "passed"
    assert all(o != "failed" for o in ours.values()), ours
    theirs = {n: o for n, o in outcomes.items() if "soft_cap_inverted::" in n}
    failed = [n for n, o in theirs.items() if o == "failed"]
    assert f"test_reversible_embedding_soft_cap_inverted::{REFERENCE_TEST}" in failed, theirs


def test_the_causal_argument_test_passes_on_a_causal_layer_and_fails_on_one_that_is_not(
    outcomes,
):
    """`causal: x`: with the argument true, later steps change no earlier output."""
    ours = {n: o for n, o in outcomes.items() if n.startswith("test_causal_pool::")}
    assert ours[f"test_causal_pool::{CAUSAL_TEST}"] == "passed"
    assert len(ours) > 10 and all(o != "failed" for o in ours.values()), ours
    theirs = {n: o for n, o in outcomes.items() if n.startswith("test_causal_pool_mask")}
    failed = [n for n, o in theirs.items() if o == "failed"]
    assert failed == [f"test_causal_pool_mask_dropped::{CAUSAL_TEST}"]


def test_recorded_outputs_hold_each_call_case(tmp_path):
    """With `generate --record`, the call case with the mask is recorded too: the layer
    that starts ignoring its mask no longer computes the recorded outputs."""
    given = PADDED_POOL.replace(
        "  input_shape: [2, 4, 3]\n",
        "  input_shape: [2, 4, 3]\n  call_args:\n"
        "    padding_mask: [[true, true, false, false], [true, true, true, false]]\n",
    )
    root = make_project(tmp_path, {})
    (root / "layers").mkdir()
    (root / "layers" / "padded_pool.layer.yaml").write_text(given)
    result = layergen("generate", "--record", "layers", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    golden = "tests/test_padded_pool.py::test_outputs_match_the_recorded_golden"
    assert run_pytest(root, "jax", golden) == {
        f"test_padded_pool::{golden.split('::')[1]}": "passed"
    }
    module = root / "layers" / "padded_pool.py"
    text = module.read_text()
    assert text.count("if padding_mask is None:") == 1
    module.write_text(text.replace("if padding_mask is None:", "if True:"))
    assert list(run_pytest(root, "jax", golden).values()) == ["failed"]


def test_a_cache_decodes_only_the_inputs_of_of(outcomes):
    """`context` has the decoded input's shape and each step reads all of it;
    the decoding test once cut it to the step too, and failed this correct layer."""
    ours = {n: o for n, o in outcomes.items() if n.startswith("test_cached_context_sum::")}
    assert ours[f"test_cached_context_sum::{CACHE_TEST}"] == "passed"
    assert all(o != "failed" for o in ours.values()), ours


def test_a_keyword_tensor_the_layer_needs_is_passed_in_every_call(outcomes):
    """`attention_mask=None` read unconditionally, shaped in `example.input_shape`: every
    generated test calls the layer with it (without, each would raise)."""
    ours = {n: o for n, o in outcomes.items() if n.startswith("test_masked_mix::")}
    assert len(ours) >= 10 and all(o == "passed" for o in ours.values()), ours


def test_an_input_named_mask_is_passed_as_the_layers_own(outcomes):
    """`call(self, x, mask)`: the tests pass it as the second input, and Keras's
    `build` and `compute_output_shape` take the shape of `x` alone."""
    ours = {n: o for n, o in outcomes.items() if n.startswith("test_masked_rows::")}
    assert len(ours) >= 10 and all(o == "passed" for o in ours.values()), ours
