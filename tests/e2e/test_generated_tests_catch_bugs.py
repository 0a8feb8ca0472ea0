"""The generated tests can fail: break generated layers on purpose, one bug each,
and check that the test meant to catch that bug fails (and only then).

About 3 minutes: one recording of goldens on TensorFlow, then only the catching tests,
on the bugs and the unchanged layers, in one JAX process."""

from __future__ import annotations

import shutil

import pytest

from helpers import ACCEPTANCE, OWN_EXAMPLES, layergen, make_project, run_pytest

pytestmark = pytest.mark.e2e  # minutes: generated tests on backends, or many CLI runs

# name: (declaration, generated line, broken line, the generated test that must fail)
BUGS = {
    "config_key_dropped": (
        "scaled_dense",
        '"scale_l2": self.scale_l2,',
        "",
        "test_config_round_trip",
    ),
    "sublayer_without_dtype_policy": (
        "dropout_and_scale",
        'rate=self.rate, name="dropout", dtype=self.dtype_policy',  # keras.layers.Dropout's
        'rate=self.rate, name="dropout"',
        "test_mixed_precision_matches_float32[mixed_float16]",
    ),
    "training_ignored": (
        "bernoulli_mask",
        "if training:",
        "if False:",
        "test_training_changes_the_output",
    ),
    "weight_left_out": (
        "scaled_dense",
        "y = y + self.bias",
        "y = y",
        "test_compiled_fit_step_trains_every_weight",
    ),
    "gradient_sign_flipped": (
        "sign_ste",
        "return upstream * ops.cast",
        "return -upstream * ops.cast",
        "test_op_sign_ste_gradient_matches_its_formula",
    ),
    "update_not_applied": (
        "running_max_scale",
        "self.moving_max.assign(",
        "(",
        "test_state_updates_follow_their_formulas_from_a_moved_state",
    ),
    "loss_not_added": (
        "activity_l2",
        "self.add_loss(",
        "(",
        "test_declared_losses",
    ),
    # The checks of numbers.
    "output_differs_from_stated_values": (
        "rms_norm",
        "ops.rsqrt(",
        "0.999 * ops.rsqrt(",
        "test_inference_outputs_are_the_stated_values",
    ),
    "output_differs_from_numpy_reference": (
        "rms_norm",
        "ops.rsqrt(",
        "0.999 * ops.rsqrt(",
        "test_inference_outputs_match_the_numpy_reference",
    ),
    "float16_overflow": (  # squares of inputs near 300 pass float16's largest value, 65504
        "rms_norm",
        'x = ops.cast(x, "float32")',
        "x = ops.cast(x, self.compute_dtype)",
        "test_mixed_precision_matches_float32[mixed_float16]",
    ),
    "seed_ignored": (
        "bernoulli_mask",
        "keras.random.SeedGenerator(seed)",
        "keras.random.SeedGenerator(None)",
        "test_the_seed_decides_the_random_draws",
    ),
    "seed_fixed": (
        "gaussian_jitter",
        "keras.random.SeedGenerator(seed)",
        "keras.random.SeedGenerator(0)",
        "test_the_seed_decides_the_random_draws",
    ),
    "noise_twice_as_large": (
        "gaussian_jitter",
        "stddev=self.stddev",
        "stddev=2 * self.stddev",
        "test_random_draws_have_the_declared_statistics",
    ),
    # One bug of each kind the generated tests missed.
    # Symmetric bugs hide at the initializers' zeros and ones: the tests seed the weights.
    "gate_inputs_swapped": (
        "gated_blend",
        "g * a + (1.0 - g) * b",
        "g * b + (1.0 - g) * a",
        "test_outputs_match_the_recorded_golden",
    ),
    "gain_square_rooted": (
        "rms_norm",
        "* self.gain,",
        "* ops.sqrt(self.gain),",
        "test_inference_outputs_match_the_numpy_reference",
    ),
    # State: several updates from a moved state, and inference after it moved.
    "state_term_dropped": (
        "running_centering",
        "self.momentum * self.moving_mean\n                    + ",
        "",
        "test_state_updates_follow_their_formulas_from_a_moved_state",
    ),
    "state_ignored_in_inference": (
        "running_centering",
        "outputs = x - self.moving_mean",
        "outputs = x",
        "test_inference_follows_the_state_that_training_moved",
    ),
    # Training branches of random layers: the rescale, the keep rate, the granularity.
    "no_rescale": (
        "stochastic_depth",
        "return shortcut + branch * kept / keep",
        "return shortcut + branch * kept",
        "test_inference_is_the_mean_of_training",
    ),
    "keep_is_rate": (
        "stochastic_depth",
        "keep = 1.0 - self.rate",
        "keep = self.rate",
        "test_random_draws_have_the_declared_statistics",
    ),
    "per_element_drop": (
        "stochastic_depth",
        "shape = (ops.shape(branch)[0],) + (1,) * (len(branch.shape) - 1)",
        "shape = ops.shape(branch)",
        "test_noise_is_drawn_once_per_cell_of_its_declared_shape",
    ),
    # Gradients: through `call`, also of a layer without weights.
    "op_bypassed": (
        "uniform_quantizer",
        "return self.snap_to_grid(x)",
        "return ops.round(x * self.levels) / self.levels",
        "test_call_takes_its_gradients_from_the_declared_ops",
    ),
    "gradient_stopped": (
        "soft_shrink",
        "ops.maximum(ops.abs(x) - self.threshold, 0.0)",
        "ops.maximum(ops.abs(ops.stop_gradient(x)) - self.threshold, 0.0)",
        "test_gradients_match_finite_differences",
    ),
    # Masks: changed masked steps, and a golden recorded under a mask.
    "mask_ignored": (
        "masked_time_max",
        "ops.where(keep, x, ops.full_like(x, self.fill))",
        "x",
        "test_masked_steps_do_not_change_the_output",
    ),
    "masked_denominator": (
        "masked_average",
        "ops.sum(weights_, axis=1), 1.0",
        "float(x.shape[1]), 1.0",
        "test_outputs_match_the_recorded_golden",
    ),
    # Losses: data that runs every branch (delta 1.0: errors of one-hot targets never
    # pass it), and the reduction.
    "linear_branch_off": (
        "huber_at_one",
        "self.delta * (error - 0.5 * self.delta)",
        "self.delta * (error - self.delta)",
        "test_value_is_the_declared_formula_reduced_over_the_batch",
    ),
    "reduction_ignored": (
        "huber_at_one",
        "super().__init__(**kwargs)",
        "super().__init__()",
        "test_reduction[sum]",
    ),
    # bfloat16 compared element by element: a naive softplus loses the small outputs.
    "naive_softplus": (
        "soft_plus",
        "return ops.softplus(x)",
        "return ops.log(1.0 + ops.exp(x))",
        "test_mixed_precision_matches_float32[mixed_bfloat16]",
    ),
}

# Declarations the bugs above need beside the examples and acceptance layers.
VARIANTS = {
    "huber_at_one.loss.yaml": (OWN_EXAMPLES / "smooth_l1_error.loss.yaml")
    .read_text()
    .replace("loss: SmoothL1Error", "loss: HuberAtOne")
    .replace("params: {delta: 0.3}", "params: {delta: 1.0}"),
    "soft_plus.layer.yaml": (
        "layer: SoftPlus\ncall: ops.softplus(x)\n"
        "example:\n  input_shape: [4, 16]\n  input_range: [-12.0, 2.0]\n"
    ),
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("bugs"), {"layers": ACCEPTANCE})
    names = {name for name, *_ in BUGS.values()}
    for declaration in [*ACCEPTANCE.glob("*.yaml"), *OWN_EXAMPLES.glob("*.yaml")]:
        stem = declaration.name.split(".")[0]
        if stem in names or stem == "clip":  # binary_conv2d imports clip
            shutil.copy(declaration, root / "layers" / declaration.name)
        else:
            (root / "layers" / declaration.name).unlink(missing_ok=True)
    for file, text in VARIANTS.items():
        (root / "layers" / file).write_text(text)
    result = layergen("generate", "--record", "layers", cwd=root)
    assert result.returncode == 0, result.stderr
    tests = root / "tests"
    nodes = []
    for bug, (name, good, bad, catcher) in BUGS.items():
        package = root / f"bug_{bug}"
        shutil.copytree(root / "layers", package)
        for module in package.glob("*.py"):  # registered under its own package
            code = module.read_text().replace('package="layers"', f'package="bug_{bug}"')
            if module.stem == name:
                assert good in code, f"{bug}: the generated code changed; update this test"
                code = code.replace(good, bad, 1)
            module.write_text(code)
        test = (tests / f"test_{name}.py").read_text()
        (tests / f"test_bug_{bug}.py").write_text(
            test.replace(f"from layers.{name} import", f"from bug_{bug}.{name} import")
        )
        golden = tests / f"test_{name}.golden.json"
        if golden.is_file():
            shutil.copy(golden, tests / f"test_bug_{bug}.golden.json")
        nodes += [f"tests/test_bug_{bug}.py::{catcher}", f"tests/test_{name}.py::{catcher}"]
    return run_pytest(root, "jax", *sorted(set(nodes)))


@pytest.mark.parametrize("bug", BUGS)
def test_the_bug_is_caught(outcomes, bug):
    name, _, _, catcher = BUGS[bug]
    assert outcomes[f"test_{name}::{catcher}"] == "passed"
    assert outcomes[f"test_bug_{bug}::{catcher}"] == "failed"
