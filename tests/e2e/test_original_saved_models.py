"""Saved models of an original load into its declared twin: a `.keras` file keras-hub
0.32's TransformerDecoder wrote (its config holds `decoder_sequence_shape` and
`encoder_sequence_shape`, its `build_config` the shapes by `build`'s argument names) loads
into `tests/fixtures/real/transformer_decoder.layer.yaml`'s class, on each backend
(`tests/fixtures/real/load_original_saves.py`, one process per backend)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from helpers import FIXTURES, layergen, make_project

pytestmark = pytest.mark.e2e

REAL = FIXTURES / "real"
CHECK = REAL / "load_original_saves.py"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The twin and its attention generated in `real/` (a project that replaced keras-hub's
    class), run from the project: beside the fixtures, `keras_hub/` would shadow keras-hub."""
    root = make_project(tmp_path_factory.mktemp("saved_models"), {})
    (root / "real").mkdir()
    for name in ("transformer_decoder", "cached_multi_head_attention"):
        shutil.copy(REAL / f"{name}.layer.yaml", root / "real")
    result = layergen("generate", "real", cwd=root)
    assert result.returncode == 0, result.stderr
    shutil.copy(CHECK, root / CHECK.name)
    return root


@pytest.mark.parametrize("backend", ["tensorflow", "jax", "torch"])
def test_a_keras_file_the_original_saved_loads_into_the_twin(project, backend):
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    env["KERAS_HOME"] = str(project / ".keras")
    result = subprocess.run(
        [sys.executable, CHECK.name],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert result.stdout.startswith(f"ok {backend}"), result.stdout
