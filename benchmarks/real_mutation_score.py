"""Mutation score of the generated tests on the real layers: the machinery of
`mutation_score.py` on the declarations of `tests/fixtures/real/` and the bugs a person
makes in such code (a mask ignored, a residual or an activation dropped, a wrong scale or
sign, a term of the wrong part), with behaviour-preserving rewrites that must pass.

    python benchmarks/real_mutation_score.py [--backends jax ...]
        [--goldens off on originals] [--references off]
        [--layers transformer_decoder ...] [--select 'reference or hides']

Each run generates the real layers into a fresh project, plants one bug per copy of a
module, and counts the copies whose tests fail. Goldens: `off`, none; `on`, the generated
layers' outputs recorded with `generate --record`; `originals`, the outputs of the classes
the declarations twin (`example.original`: keras-hub's and Keras's own), which `generate`
records by itself, no `--record`. All recorded on TensorFlow. `--references off` drops
the hand-written NumPy references (`example.reference`).
"""

from __future__ import annotations

import argparse
import re
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


# The decoder side: causal and padding masks, caches and their index,
# attention scaling, residuals, activations, a transposed or misplaced term.
DECODER_MUTANTS = [
    M(
        "decoder_causal_mask_dropped",
        "transformer_decoder",
        "mask = ops.minimum(mask, causal) if mask is not None else causal",
        "mask = mask",
        "the causal mask dropped",
    ),
    M(
        "decoder_padding_mask_ignored",
        "transformer_decoder",
        "decoder_sequence, decoder_padding_mask, decoder_attention_mask",
        "decoder_sequence, None, decoder_attention_mask",
        "the self-attention padding mask ignored",
    ),
    M(
        "encoder_padding_mask_ignored",
        "transformer_decoder",
        "encoder_sequence, encoder_padding_mask, encoder_attention_mask",
        "encoder_sequence, None, encoder_attention_mask",
        "the encoder padding mask ignored",
    ),
    M(
        "decoder_cache_index_not_passed",
        "transformer_decoder",
        "cache_update_index=self_attention_cache_update_index,",
        "cache_update_index=None,",
        "the cache passed without its index (read, never updated)",
    ),
    M(
        "decoder_causal_mask_at_0",
        "transformer_decoder",
        "compute_causal_mask(batch_size, input_length, output_length, index)",
        "compute_causal_mask(batch_size, input_length, output_length, 0)",
        "the causal mask of a cached step not at its index",
    ),
    M(
        "decoder_attention_residual_dropped",
        "transformer_decoder",
        "x = self._self_attention_dropout(x, training=training) + residual",
        "x = self._self_attention_dropout(x, training=training)",
        "the self-attention residual dropped",
    ),
    M(
        "decoder_cross_residual_dropped",
        "transformer_decoder",
        "x = self._cross_attention_dropout(x, training=training) + residual",
        "x = self._cross_attention_dropout(x, training=training)",
        "the cross-attention residual dropped",
    ),
    M(
        "decoder_feedforward_residual_dropped",
        "transformer_decoder",
        "x = self._feedforward_dropout(x, training=training) + residual",
        "x = self._feedforward_dropout(x, training=training)",
        "the feedforward residual dropped",
    ),
    M(
        "decoder_activation_dropped",
        "transformer_decoder",
        "activation=self.activation,",
        "",
        "the feedforward activation dropped",
    ),
    M(
        "cached_attention_cache_not_updated",
        "cached_multi_head_attention",
        "cache = ops.stack((key, value), axis=1)",
        "pass",
        "the cache returned as it came",
    ),
    M(
        "cached_attention_index_ignored",
        "cached_multi_head_attention",
        "start = [0, cache_update_index, 0, 0]",
        "start = [0, 0, 0, 0]",
        "a step's keys and values written at 0, not at its index",
    ),
    M(
        "cached_attention_mask_ignored",
        "cached_multi_head_attention",
        "attention_mask=attention_mask,\n            return_attention_scores",
        "attention_mask=None,\n            return_attention_scores",
        "the attention mask ignored",
    ),
    M(
        "llama_attention_scaled_by_head_size",
        "llama_attention",
        "inv_norm_factor = 1.0 / math.sqrt(query.shape[-1])",
        "inv_norm_factor = 1.0 / query.shape[-1]",
        "scores scaled by 1/d instead of 1/sqrt(d)",
    ),
    M(
        "llama_attention_index_ignored",
        "llama_attention",
        "start = [0, cache_update_index, 0, 0]",
        "start = [0, 0, 0, 0]",
        "a step's keys and values written at 0, not at its index",
    ),
    M(
        "llama_attention_cache_not_updated",
        "llama_attention",
        "cache = ops.stack((key, value), axis=1)",
        "pass",
        "the cache returned as it came",
    ),
    M(
        "llama_attention_rotary_at_0",
        "llama_attention",
        "start_index = 0 if cache_update_index is None else cache_update_index",
        "start_index = 0",
        "a cached step's rotary positions from 0, not from its index",
    ),
    M(
        "llama_attention_mask_ignored",
        "llama_attention",
        "outputs = self._compute_attention(query, key, value, attention_mask)",
        "outputs = self._compute_attention(query, key, value)",
        "the attention mask ignored",
    ),
    M(
        "llama_decoder_causal_mask_dropped",
        "llama_transformer_decoder",
        "mask = ops.minimum(mask, causal_mask) if mask is not None else causal_mask",
        "mask = mask",
        "the causal mask dropped",
    ),
    M(
        "llama_decoder_padding_mask_ignored",
        "llama_transformer_decoder",
        "decoder_sequence, decoder_padding_mask, decoder_attention_mask",
        "decoder_sequence, None, decoder_attention_mask",
        "the padding mask ignored",
    ),
    M(
        "llama_decoder_cache_index_not_passed",
        "llama_transformer_decoder",
        "cache_update_index=self_attention_cache_update_index,",
        "cache_update_index=None,",
        "the cache passed without its index (read, never updated)",
    ),
    M(
        "llama_decoder_causal_mask_at_0",
        "llama_transformer_decoder",
        "batch_size, input_length, output_length, index",
        "batch_size, input_length, output_length, 0",
        "the causal mask of a cached step not at its index",
    ),
    M(
        "llama_decoder_attention_residual_dropped",
        "llama_transformer_decoder",
        "x = self._self_attention_dropout(x, training=training) + residual",
        "x = self._self_attention_dropout(x, training=training)",
        "the attention residual dropped",
    ),
    M(
        "llama_decoder_feedforward_residual_dropped",
        "llama_transformer_decoder",
        "        x = x + residual\n",
        "",
        "the feedforward residual dropped",
    ),
    M(
        "llama_decoder_activation_dropped",
        "llama_transformer_decoder",
        'self.activation(ops.cast(self._feedforward_gate_dense(x), "float32"))',
        'ops.cast(self._feedforward_gate_dense(x), "float32")',
        "the gate activation dropped",
    ),
    M(
        "llama_decoder_norm_skipped",
        "llama_transformer_decoder",
        "hidden_states=self._self_attention_layernorm(decoder_sequence),",
        "hidden_states=decoder_sequence,",
        "attention on the unnormalized sequence",
    ),
    M(
        "llama_norm_epsilon_outside_rsqrt",
        "llama_layer_norm",
        "x * ops.rsqrt(var + self.epsilon)",
        "x * (ops.rsqrt(var) + self.epsilon)",
        "epsilon outside the square root",
    ),
    M(
        "rms_epsilon_outside_rsqrt",
        "rms_normalization",
        "ops.rsqrt(ops.mean(ops.square(x), axis=-1, keepdims=True) + 1e-6)",
        "(ops.rsqrt(ops.mean(ops.square(x), axis=-1, keepdims=True)) + 1e-6)",
        "epsilon outside the square root",
    ),
    M(
        "reverse_untied_uses_embeddings",
        "reversible_embedding",
        "            ops.transpose(self.embeddings)\n            if self.tie_weights\n            else self.reverse_embeddings",
        "            ops.transpose(self.embeddings)",
        "the untied reverse projection through the transposed embeddings",
    ),
    M(
        "reverse_soft_cap_inverted",
        "reversible_embedding",
        "ops.tanh(ops.divide(logits, self.logit_soft_cap))",
        "ops.tanh(ops.multiply(logits, self.logit_soft_cap))",
        "logits multiplied by the soft cap inside tanh",
    ),
    M(
        "lm_head_activation_dropped",
        "masked_lm_head",
        "return self.activation(outputs + self._bias)",
        "return outputs + self._bias",
        "the output activation dropped",
    ),
    M(
        "lm_head_intermediate_activation_dropped",
        "masked_lm_head",
        "activation=self.intermediate_activation,",
        "",
        "the intermediate activation dropped",
    ),
    M(
        "lm_head_norm_skipped",
        "masked_lm_head",
        "x = self._intermediate_layer_norm(self._intermediate_dense(x))",
        "x = self._intermediate_dense(x)",
        "the intermediate layer normalization skipped",
    ),
]
DECODER_REWRITES = [
    M(
        "decoder_residual_first",
        "transformer_decoder",
        "x = self._feedforward_dropout(x, training=training) + residual",
        "x = residual + self._feedforward_dropout(x, training=training)",
        "addition commutes",
    ),
    M(
        "decoder_causal_mask_first",
        "transformer_decoder",
        "ops.minimum(mask, causal)",
        "ops.minimum(causal, mask)",
        "the minimum commutes",
    ),
    M(
        "llama_scale_spelled",
        "llama_attention",
        "inv_norm_factor = 1.0 / math.sqrt(query.shape[-1])",
        "inv_norm_factor = query.shape[-1] ** -0.5",
        "the same scale",
    ),
    M(
        "llama_norm_power_as_square",
        "llama_layer_norm",
        "ops.power(x, 2)",
        "ops.square(x)",
        "the same square",
    ),
    M(
        "cached_attention_update_by_concatenation",
        "cached_multi_head_attention",
        "cache = ops.stack((key, value), axis=1)",
        "cache = ops.concatenate((key[:, None], value[:, None]), axis=1)",
        "the same stack",
    ),
]


ORIGINAL = re.compile(r"^  original: .*\n", re.MULTILINE)
# `example.reference`: its key and the lines indented below it (blank ones too).
REFERENCE = re.compile(r"^  reference:.*\n(?:(?: {4}.*)?\n)*", re.MULTILINE)


def declarations(folder: Path, originals: bool, references: bool) -> Path:
    """The real declarations copied into `folder`, without `example.original` unless
    `originals`, without `example.reference` unless `references`."""
    folder.mkdir()
    for path in sorted(REAL.glob("*.yaml")):
        text = path.read_text()
        text = text if originals else ORIGINAL.sub("", text)
        text = text if references else REFERENCE.sub("", text)
        (folder / path.name).write_text(text)
    return folder


def run(
    goldens: str,
    backends: list[str],
    layers: list[str] | None = None,
    select: str | None = None,
    references: bool = True,
) -> None:
    """Plants every mutant and rewrite, or those of `layers` alone (their tests alone run);
    `select` runs only the tests it chooses (pytest -k): a quicker lower bound."""
    chosen = lambda ms_: [m for m in ms_ if not layers or m.module in layers]  # noqa: E731
    mutants = chosen(MUTANTS + DECODER_MUTANTS)
    rewrites = chosen(REWRITES + DECODER_REWRITES)
    with tempfile.TemporaryDirectory() as tmp:
        source = declarations(Path(tmp) / "declarations", goldens == "originals", references)
        ms.SOURCES = {"real": source}
        root = Path(tmp) / "project"
        root.mkdir()
        ms.project(root, golden=goldens == "on")
        for path in (root / "tests").glob("test_*.py"):
            if layers and path.stem.removeprefix("test_") not in layers:
                path.unlink()  # its module stays: the chosen layers may import it
        originals = {f"test_{p.stem}" for p in (root / "tests").glob("test_*.py")}
        planted = {ms.plant(root, i, m): m for i, m in enumerate(mutants + rewrites)}
        for backend in backends:
            start = time.perf_counter()
            failed, count = ms.failed_modules(root, backend, select)
            caught = [m for stem, m in planted.items() if stem in failed and m in mutants]
            alarms = sorted(failed & originals)
            alarms += [m.name for stem, m in planted.items() if stem in failed and m in rewrites]
            missed = [m.name for m in mutants if m not in caught]
            print(
                f"goldens {GOLDENS[goldens]}, references {'on' if references else 'off'},"
                f" {backend}:"
                f" {len(caught)}/{len(mutants)} caught, false alarms {len(alarms)}"
                f" {alarms or ''} ({count} tests, {time.perf_counter() - start:.0f} s)"
            )
            if missed:
                print(f"    missed: {', '.join(missed)}")


GOLDENS = {"off": "off", "on": "recorded", "originals": "of the originals"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", nargs="+", default=["tensorflow", "jax", "torch"])
    parser.add_argument("--goldens", nargs="+", choices=list(GOLDENS), default=["off", "on"])
    parser.add_argument("--references", choices=["on", "off"], default="on")
    parser.add_argument("--layers", nargs="+", help="the declarations' stems (default: all)")
    parser.add_argument("--select", help="run only the tests this pytest -k expression chooses")
    args = parser.parse_args()
    for goldens in args.goldens:
        run(goldens, args.backends, args.layers, args.select, args.references == "on")


if __name__ == "__main__":
    main()
