"""keras-hub's Llama layers in the format: `LlamaLayerNorm`, `LlamaAttention` and
`LlamaTransformerDecoder`, declared in `tests/fixtures/real/`, load the weights of the
installed keras-hub 0.32.0's own classes and compute their outputs for every call argument
(masks, a cache read, a cache updated), on TensorFlow, JAX and torch; unlike the originals,
they save and reload (`tests/fixtures/real/match_llama.py`). Their generated tests run with
the other real layers' (tests/e2e/test_keras_hub_layers.py). About a minute."""

from __future__ import annotations

import shutil

import pytest

from helpers import FIXTURES, run_pytest

pytestmark = pytest.mark.e2e

REAL = FIXTURES / "real"
LLAMA = ["llama_layer_norm", "llama_attention", "llama_transformer_decoder"]
BACKENDS = ["tensorflow", "jax", "torch"]


@pytest.fixture(scope="module")
def project(llama_project):
    pytest.importorskip("keras_hub")
    root = llama_project
    shutil.copy(REAL / "match_llama.py", root / "tests" / "test_match_llama.py")
    return root


@pytest.mark.parametrize("backend", BACKENDS)
def test_llama_layers_load_the_originals_weights_and_compute_their_outputs(project, backend):
    outcomes = run_pytest(project, backend, "tests/test_match_llama.py")
    assert len(outcomes) >= 3 * len(LLAMA), outcomes
    failed = sorted(name for name, outcome in outcomes.items() if outcome != "passed")
    assert not failed, failed
