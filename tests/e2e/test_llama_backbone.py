"""A whole model from declarations (issue 35): keras-hub 0.32's `LlamaBackbone` (tiny, random
weights) built with the generated `LlamaTransformerDecoder`, `LlamaAttention` and
`LlamaLayerNorm` in place of keras-hub's gives the same logits and the same cached greedy
generation from `LlamaCausalLM.generate` as the shipped one, on TensorFlow, JAX and torch
(`tests/fixtures/llama/check_backbone.py`, one process per backend). About a minute."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from helpers import FIXTURES, layergen, make_project

pytestmark = pytest.mark.e2e

LLAMA = ["llama_layer_norm", "llama_attention", "llama_transformer_decoder"]
BACKENDS = ["tensorflow", "jax", "torch"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    pytest.importorskip("keras_hub")
    root = make_project(tmp_path_factory.mktemp("llama_backbone"), {})
    (root / "real").mkdir()
    for name in LLAMA:
        shutil.copy(FIXTURES / "real" / f"{name}.layer.yaml", root / "real")
    result = layergen("generate", "real", cwd=root)
    assert result.returncode == 0, result.stderr
    shutil.copy(FIXTURES / "llama" / "check_backbone.py", root)
    return root


@pytest.mark.parametrize("backend", BACKENDS)
def test_llama_with_the_generated_layers_computes_and_generates_as_keras_hubs(project, backend):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    result = subprocess.run(
        [sys.executable, "check_backbone.py"],
        cwd=project,
        env={**clean, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["backend"] == backend
    # The generated classes were built, and through them the generated attention.
    layers = report["layers"]
    assert layers["decoders"] == ["real.llama_transformer_decoder"] * 2, layers
    assert layers["attention"] == ["real.llama_attention"] * 2, layers
    assert layers["norm"] == "real.llama_layer_norm", layers
    assert set(layers["shipped_decoders"]) == {"keras_hub.src.models.llama.llama_decoder"}
    assert report["same_paths"]
    assert report["logits_max_difference"] <= 1e-5 * report["logits_scale"], report
    theirs, ours = report["generated_theirs"], report["generated_ours"]
    assert ours == theirs
    # The prompts stay, and what follows is not one token repeated.
    assert theirs[0][:3] == [5, 17, 42] and theirs[1][:5] == [7, 1, 30, 12, 49]
    assert len(set(theirs[0][3:] + theirs[1][5:])) > 1, theirs
