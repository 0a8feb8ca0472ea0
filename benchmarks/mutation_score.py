"""Mutation score of the generated tests: plant bugs in generated modules, one at a time,
and count the ones their generated tests catch.

    python benchmarks/mutation_score.py [--backends tensorflow jax torch] [--no-golden]
        [--only NAME ...] [--catalogue]

The examples and the acceptance declarations are generated into a fresh project (with
their goldens recorded on TensorFlow, `layergen generate --record`, unless --no-golden).
Each mutant below is one edit of one generated module: a copy of the module's package
gets the edit (and registers under its own package name), a copy of the module's test
module imports it, and pytest runs every copy on each backend in one process. A mutant
is caught when at least one of its tests fails. Behaviour-preserving rewrites are
planted the same way and must pass every test; so must the unchanged modules.
`--catalogue` prints the catalogue as a Markdown table (the README's).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
SOURCES = {"examples": REPO / "examples", "acceptance": REPO / "tests/fixtures/acceptance"}


class Mutant(NamedTuple):
    name: str
    module: str  # the generated module (its declaration's stem)
    original: str  # text in the generated module
    replacement: str
    what: str


# Bugs a person could write, in the generated code of the examples and acceptance layers.
MUTANTS = [
    Mutant(
        "l1_without_abs",
        "activation_budget",
        "ops.mean(ops.abs(x))",
        "ops.mean(x)",
        "an L1 activity loss without the absolute value",
    ),
    Mutant(
        "leaky_instead_of_relu",
        "activation_budget",
        "return ops.relu(x)",
        "return ops.maximum(x, 0.01 * x)",
        "a leaky ReLU where the ReLU is declared",
    ),
    Mutant(
        "target_sign_flipped",
        "activation_budget",
        "ops.mean(x) - self.target_level",
        "ops.mean(x) + self.target_level",
        "the sign of a loss's target flipped",
    ),
    Mutant(
        "lower_cap_wrong",
        "capped_dense",
        "-self.cap, self.cap",
        "0.0, self.cap",
        "the lower clip bound 0 instead of -cap",
    ),
    Mutant(
        "norm_axis_wrong",
        "column_max_norm",
        "axis=self.axis, keepdims=True",
        "axis=-1, keepdims=True",
        "a max-norm over the wrong axis",
    ),
    Mutant(
        "always_rescales",
        "column_max_norm",
        "w * ops.minimum(1.0, self.max_norm / (norms + 1.0e-7))",
        "w * self.max_norm / (norms + 1.0e-7)",
        "small columns scaled up to max_norm too",
    ),
    Mutant(
        "residual_lost",
        "dropout_residual",
        "return x + self.drop(x, training=training)",
        "return self.drop(x, training=training)",
        "the residual connection left out",
    ),
    Mutant(
        "dropout_in_inference",
        "dropout_residual",
        "self.drop(x, training=training)",
        "self.drop(x, training=True)",
        "dropout also at inference",
    ),
    Mutant(
        "frozen_offset_dropped",
        "frozen_offset_linear",
        "+ self.bias + self.offset",
        "+ self.bias",
        "a non-trainable offset never added",
    ),
    Mutant(
        "frozen_offset_trains",
        "frozen_offset_linear",
        "initializer=keras.initializers.Constant(self.offset_value),\n            trainable=False,",
        "initializer=keras.initializers.Constant(self.offset_value),\n            trainable=True,",
        "a frozen weight made trainable",
    ),
    Mutant(
        "gain_dropped",
        "gain_dense",
        "ops.matmul(x, self.kernel) * self.gain",
        "ops.matmul(x, self.kernel)",
        "a learnable gain never applied",
    ),
    Mutant(
        "l1_penalty_squared",
        "gain_dense",
        "ops.sum(ops.abs(self.kernel))",
        "ops.sum(ops.square(self.kernel))",
        "an L2 penalty where L1 is declared",
    ),
    Mutant(
        "activation_dropped",
        "gain_dense",
        "return self.activation(y)",
        "return y",
        "the activation left out",
    ),
    Mutant(
        "gate_inputs_swapped",
        "gated_blend",
        "g * a + (1.0 - g) * b",
        "g * b + (1.0 - g) * a",
        "a gate's two inputs swapped (invisible at zero logits)",
    ),
    Mutant(
        "distance_squared",
        "gated_blend",
        "ops.sum(ops.abs(a - b)",
        "ops.sum(ops.square(a - b)",
        "a squared distance where L1 is declared",
    ),
    Mutant(
        "log_var_bias_dropped",
        "gaussian_head",
        "ops.matmul(x, self.log_var_kernel) + self.log_var_bias",
        "ops.matmul(x, self.log_var_kernel)",
        "a bias never added",
    ),
    Mutant(
        "mean_from_wrong_kernel",
        "gaussian_head",
        "mean = ops.matmul(x, self.mean_kernel)",
        "mean = ops.matmul(x, self.log_var_kernel)",
        "one head computed with the other's kernel",
    ),
    Mutant(
        "variance_as_stddev",
        "gaussian_jitter",
        "stddev=self.stddev,",
        "stddev=self.stddev**2,",
        "the noise's variance used as its standard deviation",
    ),
    Mutant(
        "noise_not_centred",
        "gaussian_jitter",
        "return x + noise",
        "return x + ops.abs(noise)",
        "noise with a non-zero mean",
    ),
    Mutant(
        "mask_ignored",
        "masked_time_max",
        "ops.where(keep, x, ops.full_like(x, self.fill))",
        "x",
        "the mask ignored (a masked step set to 50 shows)",
    ),
    Mutant(
        "mask_inverted",
        "masked_time_max",
        "ops.where(keep, x,",
        "ops.where(ops.logical_not(keep), x,",
        "the mask inverted",
    ),
    Mutant(
        "merged_transposed",
        "merge_last_dims",
        "ops.reshape(x, (-1,",
        "ops.reshape(ops.swapaxes(x, -1, -2), (-1,",
        "the last two axes merged in the wrong order",
    ),
    Mutant(
        "norm_skipped",
        "pre_norm_mlp",
        "self.mlp(self.norm(x), training=training)",
        "self.mlp(x, training=training)",
        "a pre-norm block that never normalizes",
    ),
    Mutant(
        "shortcut_normalized",
        "pre_norm_mlp",
        "self.shortcut(x) +",
        "self.shortcut(self.norm(x)) +",
        "the shortcut taken from the normalized input",
    ),
    Mutant(
        "concat_order",
        "query_context_concat",
        "ops.concatenate([q, c], axis=-1)",
        "ops.concatenate([c, q], axis=-1)",
        "two projections joined in the wrong order",
    ),
    Mutant(
        "bias_after_activation",
        "query_context_concat",
        "self.activation(ops.concatenate([q, c], axis=-1) + self.joint_bias)",
        "self.activation(ops.concatenate([q, c], axis=-1)) + self.joint_bias",
        "the bias added after the activation",
    ),
    Mutant(
        "epsilon_outside_sqrt",
        "rms_norm",
        "ops.rsqrt(ops.mean(ops.square(x), axis=-1, keepdims=True) + self.epsilon)",
        "(ops.rsqrt(ops.mean(ops.square(x), axis=-1, keepdims=True)) + self.epsilon)",
        "epsilon outside the square root",
    ),
    Mutant(
        "constant_off_by_0.2%",
        "rms_norm",
        "* self.gain,",
        "* self.gain * 1.002,",
        "a constant off by 0.2%",
    ),
    Mutant(
        "computed_in_float16",
        "rms_norm",
        'x = ops.cast(x, "float32")',
        "x = ops.cast(x, self.compute_dtype)",
        "squares of inputs near 300 in float16",
    ),
    Mutant(
        "smoothness_abs",
        "row_smoothness",
        "ops.sum(ops.square(x[1:] - x[:-1]))",
        "ops.sum(ops.abs(x[1:] - x[:-1]))",
        "an absolute difference where a square is declared",
    ),
    Mutant(
        "smoothness_columns",
        "row_smoothness",
        "x[1:] - x[:-1]",
        "x[:, 1:] - x[:, :-1]",
        "differences between columns instead of rows",
    ),
    Mutant(
        "momentum_swapped",
        "running_centering",
        "self.momentum * self.moving_mean\n                    + (1.0 - self.momentum)",
        "(1.0 - self.momentum) * self.moving_mean\n                    + self.momentum",
        "momentum and 1 - momentum swapped",
    ),
    Mutant(
        "state_term_dropped",
        "running_centering",
        "self.momentum * self.moving_mean\n                    + ",
        "",
        "the moving average forgets its state (invisible from the zero state)",
    ),
    Mutant(
        "state_ignored_in_inference",
        "running_centering",
        "outputs = x - self.moving_mean",
        "outputs = x",
        "the moving mean never subtracted",
    ),
    Mutant(
        "global_mean",
        "running_centering",
        "ops.mean(x, axis=0)",
        "ops.mean(x)",
        "one mean over every feature instead of one per feature",
    ),
    Mutant(
        "linear_branch_off",
        "smooth_l1_error",
        "self.delta * (error - 0.5 * self.delta)",
        "self.delta * (error - self.delta)",
        "the linear branch of a Huber loss off by delta / 2",
    ),
    Mutant(
        "loss_axis_wrong",
        "smooth_l1_error",
        "linear), axis=-1)",
        "linear), axis=0)",
        "a loss averaged over the batch instead of the features",
    ),
    Mutant(
        "reduction_ignored",
        "smooth_l1_error",
        "super().__init__(**kwargs)",
        "super().__init__()",
        "`reduction` and `name` never reach the base class",
    ),
    Mutant(
        "shrink_without_abs",
        "soft_shrink",
        "ops.maximum(ops.abs(x) - self.threshold, 0.0)",
        "ops.maximum(x - self.threshold, 0.0)",
        "soft thresholding of positive values only",
    ),
    Mutant(
        "pool_includes_channels",
        "squeeze_excite",
        "range(1, len(x.shape) - 1)",
        "range(1, len(x.shape))",
        "pooling over the channels too",
    ),
    Mutant(
        "gate_added",
        "squeeze_excite",
        "return x * self.excite(",
        "return x + self.excite(",
        "the gate added instead of multiplied",
    ),
    Mutant(
        "sublayer_without_dtype_policy",
        "squeeze_excite",
        'name="squeeze",\n            dtype=self.dtype_policy,',
        'name="squeeze",',
        "a sublayer created without the dtype policy",
    ),
    Mutant(
        "per_element_drop",
        "stochastic_depth",
        "shape = (ops.shape(branch)[0],) + (1,) * (len(branch.shape) - 1)",
        "shape = ops.shape(branch)",
        "drops per element instead of per example",
    ),
    Mutant(
        "no_rescale",
        "stochastic_depth",
        "return shortcut + branch * kept / keep",
        "return shortcut + branch * kept",
        "kept branches not scaled by 1 / (1 - rate)",
    ),
    Mutant(
        "keep_is_rate",
        "stochastic_depth",
        "keep = 1.0 - self.rate",
        "keep = self.rate",
        "keeps with probability rate",
    ),
    Mutant(
        "inference_scaled",
        "stochastic_depth",
        "        return shortcut + branch\n",
        "        return shortcut + branch * (1.0 - self.rate)\n",
        "the inference branch scaled as in old-style dropout",
    ),
    Mutant(
        "op_bypassed",
        "uniform_quantizer",
        "return self.snap_to_grid(x)",
        "return ops.round(x * self.levels) / self.levels",
        "call rounds by itself, bypassing the custom-gradient op",
    ),
    Mutant(
        "gradient_window_wrong",
        "uniform_quantizer",
        "ops.abs(v) <= self.limit",
        "ops.abs(v) <= 1.0",
        "the straight-through window at 1 instead of limit",
    ),
    Mutant(
        "floor_instead_of_round",
        "uniform_quantizer",
        "ops.round(v * self.levels)",
        "ops.floor(v * self.levels)",
        "floor where round is declared",
    ),
    Mutant(
        "gain_not_applied",
        "noisy_identity",
        "return self.gain * eye + jitter",
        "return eye + jitter",
        "an initializer ignoring its gain",
    ),
    Mutant(
        "noise_one_sided",
        "noisy_identity",
        "minval=-self.noise",
        "minval=0.0",
        "an initializer's noise drawn from [0, noise]",
    ),
    Mutant(
        "activity_abs",
        "activity_l2",
        "ops.mean(ops.square(x))",
        "ops.mean(ops.abs(x))",
        "an L1 activity loss where L2 is declared",
    ),
    Mutant(
        "dropout_not_rescaled",
        "bernoulli_mask",
        "x / (1.0 - self.rate)",
        "x",
        "kept values not scaled by 1 / (1 - rate)",
    ),
    Mutant(
        "binarize_bypassed",
        "binary_conv2d",
        "super().convolution_op(inputs, self.binarize(kernel))",
        "super().convolution_op(inputs, kernel)",
        "the kernel never binarized",
    ),
    Mutant(
        "binarize_window_wrong",
        "binary_conv2d",
        "ops.abs(w) <= self.H",
        "ops.abs(w) <= 2 * self.H",
        "the straight-through window twice as wide",
    ),
    Mutant(
        "lower_bound_dropped",
        "clip",
        "ops.clip(w, self.min_value, self.max_value)",
        "ops.minimum(w, self.max_value)",
        "a clip without its lower bound",
    ),
    Mutant(
        "max_over_batch",
        "cross_entropy_plus_max",
        "ops.max(y_pred, axis=-1)",
        "ops.max(y_pred)",
        "a per-sample term taken over the whole batch",
    ),
    Mutant(
        "scale_dropped",
        "dropout_and_scale",
        "self.dropout(x, training=training) * self.scale",
        "self.dropout(x, training=training)",
        "a constant scale never applied",
    ),
    Mutant(
        "fused_wrong",
        "dual_branch_fusion",
        "return out1, out2, out1 + out2",
        "return out1, out2, out1 + out1",
        "a fused output from one branch twice",
    ),
    Mutant(
        "attention_residual_dropped",
        "encoder_block",
        "x = self.norm1(x + attended)",
        "x = self.norm1(attended)",
        "a residual connection left out",
    ),
    Mutant(
        "second_norm_reused",
        "encoder_block",
        "return self.norm2(",
        "return self.norm1(",
        "the first normalization reused for the second",
    ),
    Mutant(
        "masked_steps_averaged",
        "masked_average",
        "ops.sum(x * weights_, axis=1)",
        "ops.sum(x, axis=1)",
        "masked steps summed in",
    ),
    Mutant(
        "denominator_counts_all",
        "masked_average",
        "ops.sum(weights_, axis=1), 1.0",
        "float(x.shape[1]), 1.0",
        "the mean divided by every step, masked or not",
    ),
    Mutant(
        "bias_dropped",
        "my_dense",
        "ops.matmul(x, self.w) + self.b",
        "ops.matmul(x, self.w)",
        "a bias never added",
    ),
    Mutant(
        "offset_sign",
        "offset_swish",
        "ops.sigmoid(x + self.offset)",
        "ops.sigmoid(x - self.offset)",
        "the offset's sign flipped",
    ),
    Mutant(
        "running_max_without_abs",
        "running_max_scale",
        "ops.max(ops.abs(x))",
        "ops.max(x)",
        "the running maximum of x instead of |x|",
    ),
    Mutant(
        "running_max_forgets",
        "running_max_scale",
        "ops.maximum(self.moving_max, ops.max(ops.abs(x)))",
        "ops.max(ops.abs(x))",
        "the running maximum forgets the past",
    ),
    Mutant(
        "penalty_not_squared",
        "scaled_dense",
        "ops.sum(ops.square(self.scale))",
        "ops.sum(self.scale)",
        "a penalty without its square",
    ),
    Mutant(
        "config_key_dropped",
        "scaled_dense",
        '"scale_l2": self.scale_l2,',
        "",
        "a constructor argument missing from get_config",
    ),
    Mutant(
        "ste_bypassed",
        "sign_ste",
        "return self.sign_ste(x)",
        "return ops.sign(x)",
        "call bypasses the straight-through op",
    ),
    Mutant(
        "inputs_mixed_up",
        "two_way_projection",
        "ops.matmul(x2, self.w2)",
        "ops.matmul(x1, self.w2)",
        "the second input never used",
    ),
]

# Rewrites that keep the behaviour: the generated tests must all still pass.
REWRITES = [
    Mutant(
        "training_passed_by_keras",
        "dropout_residual",
        "self.drop(x, training=training)",
        "self.drop(x)",
        "Keras passes `training` to sublayers itself",
    ),
    Mutant(
        "strict_comparison",
        "smooth_l1_error",
        "error <= self.delta",
        "error < self.delta",
        "the two branches meet at delta",
    ),
    Mutant(
        "mean_as_sum",
        "rms_norm",
        "ops.mean(ops.square(x), axis=-1, keepdims=True)",
        "ops.sum(ops.square(x), axis=-1, keepdims=True) / x.shape[-1]",
        "a mean as sum / n",
    ),
    Mutant(
        "blend_as_lerp",
        "gated_blend",
        "g * a + (1.0 - g) * b",
        "b + g * (a - b)",
        "the same interpolation",
    ),
    Mutant(
        "shrink_as_clip",
        "soft_shrink",
        "ops.sign(x) * ops.maximum(ops.abs(x) - self.threshold, 0.0)",
        "x - ops.clip(x, -self.threshold, self.threshold)",
        "soft thresholding through a clip",
    ),
    Mutant(
        "moving_average_as_step",
        "running_centering",
        "self.momentum * self.moving_mean\n                    + (1.0 - self.momentum) * ops.mean(x, axis=0)",
        "self.moving_mean\n                    + (1.0 - self.momentum) * (ops.mean(x, axis=0) - self.moving_mean)",
        "the same moving average, as a step towards the mean",
    ),
    Mutant(
        "pooling_axes_spelled",
        "squeeze_excite",
        "axis=tuple(range(1, len(x.shape) - 1))",
        "axis=(1, 2)",
        "the spatial axes of the example's rank-4 input",
    ),
    Mutant(
        "relu_as_maximum",
        "activation_budget",
        "return ops.relu(x)",
        "return ops.maximum(x, 0.0)",
        "ReLU spelled out",
    ),
    Mutant(
        "norm_op",
        "column_max_norm",
        "ops.sqrt(ops.sum(ops.square(w), axis=self.axis, keepdims=True))",
        "ops.norm(w, axis=self.axis, keepdims=True)",
        "the L2 norm by its op",
    ),
    Mutant(
        "fill_as_ones",
        "masked_time_max",
        "ops.full_like(x, self.fill)",
        "self.fill * ops.ones_like(x)",
        "the fill value another way",
    ),
    Mutant(
        "biases_grouped",
        "frozen_offset_linear",
        "+ self.bias + self.offset",
        "+ (self.bias + self.offset)",
        "the two vectors added first",
    ),
    Mutant(
        "matmul_as_einsum",
        "my_dense",
        "ops.matmul(x, self.w)",
        'ops.einsum("bi,io->bo", x, self.w)',
        "a matmul as an einsum",
    ),
    Mutant(
        "division_as_product",
        "stochastic_depth",
        "branch * kept / keep",
        "branch * kept * (1.0 / keep)",
        "the same rescale",
    ),
    Mutant(
        "noise_first",
        "gaussian_jitter",
        "return x + noise",
        "return noise + x",
        "addition commutes",
    ),
    Mutant(
        "step_as_product",
        "uniform_quantizer",
        "ops.round(v * self.levels) / self.levels",
        "ops.round(v * self.levels) * (1.0 / self.levels)",
        "1 / levels is exact for 8",
    ),
]


def project(root: Path, golden: bool) -> None:
    """The examples and acceptance declarations, generated (goldens recorded: TensorFlow)."""
    (root / "pyproject.toml").write_text("[project]\nname = 'mutants'\n")
    for package, source in SOURCES.items():
        (root / package).mkdir()
        for path in source.glob("*.yaml"):
            shutil.copy(path, root / package / path.name)
    env = {**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = [sys.executable, "-m", "layergen", "generate", "-q"]
    command += ["--record"] if golden else []
    subprocess.run([*command, *SOURCES], cwd=root, env=env, check=True)


def plant(root: Path, index: int, mutant: Mutant) -> str:
    """The mutant's package and test module (its golden too); returns the test's stem."""
    package = next(p for p in SOURCES if (root / p / f"{mutant.module}.py").is_file())
    copy = f"m{index:02d}"
    shutil.copytree(root / package, root / copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in (root / copy).glob("*.py"):  # registered under its own package name
        # (whatever the package registered under: the project's name, by default)
        text = re.sub(r'\bpackage="[^"]*"', f'package="{copy}"', path.read_text())
        if path.stem == mutant.module:
            assert mutant.original in text, f"{mutant.name}: the generated code changed"
            text = text.replace(mutant.original, mutant.replacement, 1)
        path.write_text(text)
    tests = root / "tests"
    stem = f"test_{copy}_{mutant.module}"
    test = (tests / f"test_{mutant.module}.py").read_text()
    old = f"from {package}.{mutant.module} import"
    (tests / f"{stem}.py").write_text(test.replace(old, f"from {copy}.{mutant.module} import"))
    golden = tests / f"test_{mutant.module}.golden.json"
    if golden.is_file():
        shutil.copy(golden, tests / f"{stem}.golden.json")
    return stem


def failed_modules(root: Path, backend: str, select: str | None = None) -> tuple[set[str], int]:
    """The test modules with a failing test, and the number of tests run (those `select`
    chooses, as pytest's -k, when given)."""
    report = root / f"report-{backend}.xml"
    env = {
        **os.environ,
        "KERAS_BACKEND": backend,
        "KERAS_HOME": str(root / ".keras"),
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONPATH": str(REPO),
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-W", "ignore::DeprecationWarning", f"--junitxml={report}", "tests"]
    command += ["-k", select] if select else []
    subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    failed, count = set(), 0
    for case in ET.parse(report).getroot().iter("testcase"):
        count += 1
        if case.find("failure") is not None or case.find("error") is not None:
            failed.add(case.get("classname").split(".")[-1])
    return failed, count


def catalogue() -> str:
    lines = ["| mutant | module | bug |", "|---|---|---|"]
    lines += [f"| `{m.name}` | {m.module} | {m.what} |" for m in MUTANTS]
    lines += ["", "| rewrite (must pass) | module | why it keeps the behaviour |", "|---|---|---|"]
    lines += [f"| `{m.name}` | {m.module} | {m.what} |" for m in REWRITES]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", nargs="+", default=["tensorflow", "jax", "torch"])
    parser.add_argument("--no-golden", action="store_true", help="record no goldens")
    parser.add_argument("--only", nargs="+", help="mutant and rewrite names to plant")
    parser.add_argument("--catalogue", action="store_true", help="print the catalogue")
    args = parser.parse_args()
    if args.catalogue:
        print(catalogue())
        return
    chosen = lambda ms: [m for m in ms if not args.only or m.name in args.only]  # noqa: E731
    mutants, rewrites = chosen(MUTANTS), chosen(REWRITES)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project(root, golden=not args.no_golden)
        originals = {f"test_{p.stem}" for p in (root / "tests").glob("test_*.py")}
        planted = {plant(root, i, m): m for i, m in enumerate(mutants + rewrites)}
        print(
            f"{len(mutants)} mutants, {len(rewrites)} behaviour-preserving rewrites,"
            f" goldens {'off' if args.no_golden else 'recorded'}"
        )
        for backend in args.backends:
            start = time.perf_counter()
            failed, count = failed_modules(root, backend)
            caught = [m for stem, m in planted.items() if stem in failed and m in mutants]
            missed = [m.name for m in mutants if m not in caught]
            alarms = sorted(failed & originals)
            alarms += [m.name for stem, m in planted.items() if stem in failed and m in rewrites]
            share = len(caught) / len(mutants) if mutants else 0.0
            print(
                f"{backend:>10}: {len(caught)}/{len(mutants)} caught ({share:.0%}),"
                f" false alarms {len(alarms)} {alarms or ''}"
                f" ({count} tests, {time.perf_counter() - start:.0f} s)"
            )
            if missed:
                print(f"{'':>12}missed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
