"""A whole model from declarations: keras-hub 0.32's `LlamaBackbone` (tiny, random
weights) built with the generated `LlamaTransformerDecoder`, `LlamaAttention` and
`LlamaLayerNorm` in place of keras-hub's gives the same logits and the same cached greedy
generation from `LlamaCausalLM.generate` as the shipped one, on TensorFlow, JAX and torch
(`tests/fixtures/llama/check_backbone.py`, one process per backend); and the generated
layout map shards the generated layers as keras-hub's `LlamaBackbone.get_layout_map()` shards
its own, on an 8-device JAX host mesh (`check_layout_map.py`). About a minute and a half."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from helpers import FIXTURES

pytestmark = pytest.mark.e2e

BACKENDS = ["tensorflow", "jax", "torch"]


@pytest.fixture(scope="module")
def project(llama_project):
    pytest.importorskip("keras_hub")
    root = llama_project
    for script in ("check_backbone.py", "check_layout_map.py"):
        shutil.copy(FIXTURES / "llama" / script, root)
    return root


def run(project, script: str, **env: str) -> dict:
    """The script's report, from a fresh process with `env` (and none of this run's JAX
    settings)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    result = subprocess.run(
        [sys.executable, script],
        cwd=project,
        env={**clean, "TF_CPP_MIN_LOG_LEVEL": "3", **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_llama_with_the_generated_layers_computes_and_generates_as_keras_hubs(project, backend):
    report = run(project, "check_backbone.py", KERAS_BACKEND=backend)
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


def test_the_generated_layout_map_shards_as_keras_hubs(project):
    """Item 4: each decoder weight is split over the mesh axes keras-hub's regexes give it
    (the kernels over `model` and `batch`, the norms whole), from keys of the generated map
    alone; no layer warns of a declared weight left whole; the outputs are the same."""
    report = run(
        project,
        "check_layout_map.py",
        KERAS_BACKEND="jax",
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=8",
    )
    assert report["decoders"] == ["llama_transformer_decoder", "llama_transformer_decoder_1"]
    theirs, ours = report["theirs"], report["ours"]
    assert len(theirs) == 2 * 9 and sorted(ours) == sorted(theirs)
    assert ours == theirs
    split = [path for path, axes in ours.items() if any(axes)]
    assert len(split) == 2 * 7, split  # every kernel; the layer norms' scales are whole
    assert not report["warnings"], report["warnings"]
    assert report["outputs_max_difference"] < 1e-5, report
