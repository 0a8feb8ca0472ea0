"""The generated tests can fail: break generated layers on purpose, one bug each,
and check that the test meant to catch that bug fails (and only then)."""

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
        "test_state_updates_only_in_training",
    ),
    "loss_not_added": (
        "activity_l2",
        "self.add_loss(",
        "(",
        "test_declared_losses",
    ),
    # Issue 13: the checks of numbers.
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
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("bugs"), {"layers": ACCEPTANCE})
    for declaration in OWN_EXAMPLES.glob("*.layer.yaml"):
        shutil.copy(declaration, root / "layers" / declaration.name)
    assert layergen("generate", "layers", cwd=root).returncode == 0
    paths = []
    for bug, (name, good, bad, _) in BUGS.items():
        package = root / f"bug_{bug}"
        shutil.copytree(root / "layers", package)
        module = package / f"{name}.py"
        code = module.read_text()
        assert good in code, f"{bug}: the generated code changed; update this test"
        # Registered under its own package, so it does not replace the good class.
        code = code.replace('package="layers"', f'package="bug_{bug}"')
        module.write_text(code.replace(good, bad, 1))
        test = (root / "tests" / f"test_{name}.py").read_text()
        test_path = root / "tests" / f"test_bug_{bug}.py"
        test_path.write_text(
            test.replace(f"from layers.{name} import", f"from bug_{bug}.{name} import")
        )
        paths.append(f"tests/test_bug_{bug}.py")
        paths.append(f"tests/test_{name}.py")
    return run_pytest(root, "jax", *sorted(set(paths)))


@pytest.mark.parametrize("bug", BUGS)
def test_the_bug_is_caught(outcomes, bug):
    name, _, _, catcher = BUGS[bug]
    assert outcomes[f"test_{name}::{catcher}"] == "passed"
    assert outcomes[f"test_bug_{bug}::{catcher}"] == "failed"
