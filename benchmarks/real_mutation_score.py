"""Mutation score of the generated tests on the real layers (issue 39): the machinery of
`mutation_score.py` on the declarations of `tests/fixtures/real/` and the bugs a person
makes in such code (a mask ignored, a residual or an activation dropped, a wrong scale or
sign, a term of the wrong part), with behaviour-preserving rewrites that must pass.

    python benchmarks/real_mutation_score.py [--backends jax ...] [--goldens off on]

Each run generates the real layers into a fresh project (goldens recorded on TensorFlow
when on), plants one bug per copy of a module, and counts the copies whose tests fail.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import mutation_score as ms

REAL = ms.REPO / "tests/fixtures/real"
M = ms.Mutant
MUTANTS = [
    M(
        "padding_mask_ignored",
        "transformer_encoder",
        "keep = padding_mask if padding_mask is not None else mask",
        "keep = mask",
        "the padding mask ignored",
    ),
    M(
        "attention_residual_dropped",
        "transformer_encoder",
        "x = self._self_attention_dropout(x, training=training) + residual",
        "x = self._self_attention_dropout(x, training=training)",
        "the attention residual dropped",
    ),
    M(
        "feedforward_residual_dropped",
        "transformer_encoder",
        "x = self._feedforward_dropout(x, training=training) + residual",
        "x = self._feedforward_dropout(x, training=training)",
        "the feedforward residual dropped",
    ),
    M(
        "activation_dropped",
        "transformer_encoder",
        "activation=self.activation,",
        "",
        "the feedforward activation dropped",
    ),
    M(
        "start_index_ignored",
        "position_embedding",
        "(start_index, 0)",
        "(0, 0)",
        "start_index ignored",
    ),
    M(
        "frequencies_not_paired",
        "sine_position_encoding",
        "ops.cast(2 * (ops.arange(hidden_size) // 2), self.compute_dtype)",
        "ops.cast(ops.arange(hidden_size), self.compute_dtype)",
        "each feature its own frequency",
    ),
    M(
        "rotation_sign",
        "rotary_embedding",
        "ops.stack((-x2, x1), axis=-2)",
        "ops.stack((x2, x1), axis=-2)",
        "rotate-half without its sign",
    ),
    M(
        "bias_subtracted",
        "alibi_bias",
        "ops.add(attention_scores, bias[None, :, None, :])",
        "ops.subtract(attention_scores, bias[None, :, None, :])",
        "the bias subtracted",
    ),
    M(
        "epsilon_outside_rsqrt",
        "group_normalization",
        "ops.rsqrt(variance + self.epsilon)",
        "ops.rsqrt(variance) + self.epsilon",
        "epsilon outside the square root",
    ),
    M(
        "beta_dropped",
        "group_normalization",
        "res = res + ops.reshape(self.beta, broadcast)",
        "res = res",
        "the offset never added",
    ),
    M(
        "fnet_residual_dropped",
        "f_net_encoder",
        "mixed + self._output_dropout(forward",
        "self._output_dropout(forward",
        "the feedforward residual dropped",
    ),
    M(
        "fft_imaginary_part",
        "f_net_encoder",
        "mixed, _ = ops.fft2(",
        "_, mixed = ops.fft2(",
        "the imaginary part of the FFT",
    ),
    M(
        "positions_dropped",
        "token_and_position_embedding",
        "return tokens + self.position_embedding(",
        "return tokens + 0 * self.position_embedding(",
        "the position embedding not added",
    ),
    M(
        "expert_activation_dropped",
        "mixtral_moe_experts",
        'self.activation_fn(ops.cast(gate, "float32"))',
        'ops.cast(gate, "float32")',
        "the gate activation dropped",
    ),
    M(
        "top_k_not_renormalized",
        "mixtral_sparse_moe_block",
        "top_p = top_p / ops.sum(top_p, axis=-1, keepdims=True)",
        "top_p = top_p",
        "routing weights not renormalized",
    ),
    M(
        "loss_mask_ignored",
        "mixtral_sparse_moe_block",
        "self.load_balancing_loss(router_logits, attention_mask)",
        "self.load_balancing_loss(router_logits)",
        "the padding mask ignored in the loss",
    ),
]
REWRITES = [
    M(
        "residual_first",
        "transformer_encoder",
        "x = self._self_attention_dropout(x, training=training) + residual",
        "x = residual + self._self_attention_dropout(x, training=training)",
        "addition commutes",
    ),
    M(
        "rsqrt_spelled",
        "group_normalization",
        "ops.rsqrt(variance + self.epsilon)",
        "1.0 / ops.sqrt(variance + self.epsilon)",
        "rsqrt spelled out",
    ),
    M(
        "bias_by_operator",
        "alibi_bias",
        "ops.add(attention_scores, bias[None, :, None, :])",
        "attention_scores + bias[None, :, None, :]",
        "the same sum",
    ),
]


def run(golden: bool, backends: list[str]) -> None:
    ms.SOURCES = {"real": REAL}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ms.project(root, golden=golden)
        originals = {f"test_{p.stem}" for p in (root / "tests").glob("test_*.py")}
        planted = {ms.plant(root, i, m): m for i, m in enumerate(MUTANTS + REWRITES)}
        for backend in backends:
            start = time.perf_counter()
            failed, count = ms.failed_modules(root, backend)
            caught = [m for stem, m in planted.items() if stem in failed and m in MUTANTS]
            alarms = sorted(failed & originals)
            alarms += [m.name for stem, m in planted.items() if stem in failed and m in REWRITES]
            missed = [m.name for m in MUTANTS if m not in caught]
            print(
                f"goldens {'recorded' if golden else 'off'}, {backend}:"
                f" {len(caught)}/{len(MUTANTS)} caught, false alarms {len(alarms)}"
                f" {alarms or ''} ({count} tests, {time.perf_counter() - start:.0f} s)"
            )
            if missed:
                print(f"    missed: {', '.join(missed)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", nargs="+", default=["tensorflow", "jax", "torch"])
    parser.add_argument("--goldens", nargs="+", choices=["off", "on"], default=["off", "on"])
    args = parser.parse_args()
    for goldens in args.goldens:
        run(goldens == "on", args.backends)


if __name__ == "__main__":
    main()
