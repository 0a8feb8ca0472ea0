"""End to end, at scale: generated layers train the same with data parallelism on two devices
as on one, and the two-device model saves and reloads (issue 11, "Scale").

JAX: `keras.distribution.DataParallel` over two host CPU devices
(XLA_FLAGS=--xla_force_host_platform_device_count=2). TensorFlow: `MirroredStrategy` over
two logical CPUs. Each backend runs once, in a fresh process (tests/data_parallel_check.py),
over every generated layer; Keras's own BatchNormalization is the control for the one known
limit: on TensorFlow, non-trainable state assigned in `call` (`updates`) is per replica and
never synchronised (docs/spec-format.md, "Data parallelism").

Run them alone with `pytest -m e2e tests/test_data_parallel.py`; `-m "not e2e"` leaves them out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ACCEPTANCE, layergen, make_project

pytestmark = pytest.mark.e2e

SOURCE = ACCEPTANCE
SCRIPT = Path(__file__).parent / "data_parallel_check.py"
LAYERS = sorted(p for p in SOURCE.glob("*.layer.yaml"))
TF_LIMIT = (
    "TensorFlow MirroredStrategy: non-trainable state assigned in `call` (`updates`) stays per replica "
    "and is never synchronised; Keras's BatchNormalization has the same limit"
)


def has_updates(declaration: Path) -> bool:
    from layergen.declaration.load import load_declaration

    return bool(load_declaration(declaration).decl.updates)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("parallel"), {"examples": SOURCE})
    result = layergen("generate", "examples", cwd=root)
    assert result.returncode == 0, result.stderr
    return root


_runs: dict[str, dict[str, str]] = {}


@pytest.fixture(scope="module")
def results(project):
    def run(backend: str) -> dict[str, str]:
        if backend not in _runs:
            env = {
                **os.environ,
                "KERAS_BACKEND": backend,
                "KERAS_HOME": str(project / ".keras"),
                "TF_CPP_MIN_LOG_LEVEL": "3",
                "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
                "CUDA_VISIBLE_DEVICES": "",
            }
            done = subprocess.run(
                [sys.executable, str(SCRIPT)],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
            )
            lines = [line for line in done.stdout.splitlines() if line.startswith("RESULTS ")]
            assert lines, done.stderr[-3000:]
            _runs[backend] = json.loads(lines[-1][len("RESULTS ") :])
        return _runs[backend]

    return run


def cases():
    for backend in ("jax", "tensorflow"):
        for declaration in LAYERS:
            module = "test_" + declaration.name[: -len(".layer.yaml")]
            marks = []
            if backend == "tensorflow" and has_updates(declaration):
                marks = [pytest.mark.xfail(strict=True, reason=TF_LIMIT)]
            yield pytest.param(backend, module, marks=marks, id=f"{backend}-{declaration.name}")


@pytest.mark.parametrize("backend, module", list(cases()))
def test_two_devices_train_like_one_and_reload(results, backend, module):
    assert results(backend)[module] == "ok"


@pytest.mark.parametrize(
    "backend",
    [
        "jax",
        pytest.param("tensorflow", marks=pytest.mark.xfail(strict=True, reason=TF_LIMIT)),
    ],
)
def test_keras_batch_normalization_shares_the_limit(results, backend):
    """The control: Keras's own layer with state updates behaves as generated layers do."""
    assert results(backend)["keras_batch_normalization"] == "ok"


def test_the_examples_hold_a_layer_with_updates():
    """Otherwise the TensorFlow limit would be tested by nothing but the control."""
    assert any(has_updates(d) for d in LAYERS)
