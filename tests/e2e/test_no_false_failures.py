"""Generated tests do not fail on correct layers that our examples never tried: a
mixture-of-experts whose router logits have no batch axis and whose top-k routing flips under
float16; a random layer with weights; a layer without weights; and a test the declaration turns
off, whose reason shows in the run; and the false failures the real layers showed (`self.x` in
shapes, state moved under `if training:`, a dropout of rate 0, a random layer whose example
draws nothing, a structural call argument).

About 4 minutes: the generated tests of nine layers, once per backend."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from helpers import layergen, make_project, repro

pytestmark = pytest.mark.e2e

DECLARATIONS = {
    "tiny_moe.layer.yaml": """\
layer: TinyMoE
doc: Sends each token to its top-k experts and returns the mixture and the router logits.
params:
  experts: {type: int, default: 4, min: 1}
  top_k: {type: int, default: 2, min: 1}
inputs:
  x: {rank: 3}
weights:
  router:
    shape: (x[-1], experts)
  expert_kernels:
    shape: (experts, x[-1], x[-1])
call: |
  tokens = ops.reshape(x, (-1, x.shape[-1]))
  logits = ops.matmul(tokens, router)
  scores, chosen = ops.top_k(logits, k=top_k)
  gates = ops.one_hot(chosen, experts, dtype=scores.dtype) * ops.expand_dims(ops.softmax(scores), -1)
  mixed = ops.einsum("te,td,edf->tf", ops.sum(gates, axis=1), tokens, expert_kernels)
  return ops.reshape(mixed, ops.shape(x)), logits
outputs:
  mixture: x
  router_logits: (x[0] * x[1], experts)
methods:
  compute_output_shape:
    args: [input_shape]
    body: |
      batch, steps, _ = input_shape
      tokens = None if batch is None else batch * steps
      return tuple(input_shape), (tokens, self.experts)
example:  # 128 tokens: under float16 on JAX, rounding flips a choice of one of them
  params: {experts: 8}
  input_shape: [8, 16, 8]
""",
    "noisy_dense.layer.yaml": """\
layer: NoisyDense
doc: A dense projection with Gaussian noise added while training.
params:
  units: {type: int, default: 4, min: 1}
  stddev: {type: float, default: 0.1, min: 0.0}
random: true
weights:
  kernel:
    shape: (x[-1], units)
call:
  train: |
    y = ops.matmul(x, kernel)
    return y + keras.random.normal(ops.shape(y), stddev=stddev, dtype=y.dtype, seed=seed_generator)
  infer: ops.matmul(x, kernel)
output_shape: (*x[:-1], units)
noise: {unbiased: true}
example:
  input_shape: [8, 5]
""",
    # The false failures the real layers showed: `self.x` in shapes; state moved only under
    # `if training:` (a power iteration, as SpectralNormalization); a dropout the example keeps
    # at 0 (as keras-hub's TransformerDecoder does); a random layer whose example draws nothing.
    "heads.layer.yaml": """\
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
example:
  input_shape: [2, 3]
""",
    "power_norm.layer.yaml": """\
layer: PowerNorm
doc: A kernel divided by its largest singular value, estimated by power iteration in training.
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
  if training:  # as Keras's SpectralNormalization: no gradient through the iteration
      v = ops.matmul(u, ops.transpose(w))
      v = ops.stop_gradient(v / ops.norm(v))
      new_u = ops.matmul(v, w)
      new_u = ops.stop_gradient(new_u / ops.norm(new_u))
      sigma = ops.sum(ops.matmul(v, w) * new_u)
      u.assign(new_u)
      w = w / sigma
  return ops.matmul(x, w)
output_shape: (*x[:-1], units)
example:
  input_shape: [2, 4]
""",
    "drop_block.layer.yaml": repro("drop_block"),
    "jitter_router.layer.yaml": repro("jitter_router"),
    # A structural argument: the layer takes `context` only if its first call had one.
    "cross_mix.layer.yaml": """\
layer: CrossMix
doc: Adds the mean of an optional context, taken only when the first call had one.
params:
  units: {type: int, default: 4}
inputs:
  x: {rank: 3}
  context: {default: null, doc: "A second sequence, shape (batch_size, length, units)."}
weights:
  kernel:
    shape: (x[-1], units)
methods:
  build:
    args: [x_shape, context_shape=None]
    body: |
      self.kernel = self.add_weight(name="kernel", shape=(x_shape[-1], units))
      self.takes_context = context_shape is not None
call: |
  y = ops.matmul(x, kernel)
  if context is not None:
      if not self.takes_context:
          raise ValueError("`context` was not given when the layer was built")
      y = y + ops.mean(context, axis=1, keepdims=True)
  return y
output_shape: (*x[:-1], units)
example:
  input_shape: [2, 5, 3]
  call_args:
    context: [[[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5]], [[0.0, 1.0, 0.0, 1.0], [2.0, 2.0, 2.0, 2.0]]]
""",
    "shrink.layer.yaml": """\
layer: Shrink
call: ops.sign(x) * ops.maximum(ops.abs(x) - 0.5, 0.0)
tests:
  skip:
    test_config_round_trip: nothing to configure
""",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("odd"), {})
    (root / "layers").mkdir()
    for name, text in DECLARATIONS.items():
        (root / "layers" / name).write_text(text)
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    return root


def outcomes(root, backend):
    """{module::test: (outcome, skip reason)} of the generated tests on `backend`."""
    report = root / f"report-{backend}.xml"
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-W", "ignore::DeprecationWarning", f"--junitxml={report}", "tests"]
    subprocess.run(command, cwd=root, env=env, capture_output=True, timeout=1200)
    results = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname').split('.')[-1]}::{case.get('name')}"
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped")
        outcome = "failed" if failed else "skipped" if skipped is not None else "passed"
        results[name] = (outcome, skipped.get("message", "") if skipped is not None else "")
    return results


@pytest.mark.parametrize("backend", ["tensorflow", "jax", "torch"])
def test_generated_tests_pass_on_layers_the_examples_never_tried(project, backend):
    results = outcomes(project, backend)
    failed = [name for name, (outcome, _) in results.items() if outcome == "failed"]
    assert not failed, failed
    assert len(results) > 30
    skipped = {name: reason for name, (outcome, reason) in results.items() if outcome == "skipped"}
    assert set(skipped) == {
        "test_shrink::test_compiled_fit_step_trains_every_weight",
        "test_shrink::test_config_round_trip",
        "test_drop_block::test_training_changes_the_output",
        "test_jitter_router::test_the_seed_decides_the_random_draws",
    }
    assert "`dropout` is 0" in skipped["test_drop_block::test_training_changes_the_output"]
    reason = skipped["test_jitter_router::test_the_seed_decides_the_random_draws"]
    assert "draws nothing" in reason and "`router_jitter_noise`" in reason
    assert "nothing to configure" in skipped["test_shrink::test_config_round_trip"]
    assert (
        "no trainable weights" in skipped["test_shrink::test_compiled_fit_step_trains_every_weight"]
    )
    ran = {name for name, (outcome, _) in results.items() if outcome == "passed"}
    assert {
        "test_tiny_moe::test_compiled_fit_step_trains_every_weight",
        "test_tiny_moe::test_mixed_precision_matches_float32[mixed_float16]",
        "test_noisy_dense::test_the_seed_decides_the_random_draws",
        "test_noisy_dense::test_inference_is_the_mean_of_training",
        "test_heads::test_output_shapes_eager_symbolic_and_computed",
        "test_heads::test_weights_match_declaration",
        "test_power_norm::test_each_weight_the_inference_reads_changes_its_output",
        "test_cross_mix::test_each_keyword_argument_of_call",
    } <= ran
