"""keras-hub's GPT-2 with the generated layers: a tiny `GPT2Backbone` built with the
`TransformerDecoder` and `CachedMultiHeadAttention` generated from `tests/fixtures/real/` in
place of keras-hub's gives the same logits and the same greedy cached generation as the
one keras-hub ships, on TensorFlow, JAX and torch (`tests/fixtures/gpt2_backbone_check.py`,
one process per backend). About a minute per backend on 2 cores."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from helpers import FIXTURES

pytestmark = pytest.mark.e2e

CHECK = FIXTURES / "gpt2_backbone_check.py"


@pytest.fixture(scope="module")
def project(real_project):
    root = real_project
    # Run from the project: beside the fixtures, their `keras_hub/` copies would shadow
    # the installed keras-hub.
    shutil.copy(CHECK, root / CHECK.name)
    return root


@pytest.mark.parametrize("backend", ["tensorflow", "jax", "torch"])
def test_gpt2_with_generated_layers_gives_keras_hubs_logits_and_generation(project, backend):
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run(
        [sys.executable, CHECK.name],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"ok {backend} "), result.stdout
