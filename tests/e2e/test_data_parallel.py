"""End to end, at scale: generated layers train the same with data parallelism on two devices
as on one, and the two-device model saves and reloads.

JAX: `keras.distribution.DataParallel` over two host CPU devices
(XLA_FLAGS=--xla_force_host_platform_device_count=2). TensorFlow: `MirroredStrategy` over
two logical CPUs. Each backend runs once, in a fresh process (tests/data_parallel_check.py),
over every generated layer; Keras's own BatchNormalization is the control for the one known
limit: on TensorFlow, non-trainable state assigned in `call` (`updates`) is per replica and
never synchronised (docs/spec-format.md, "Data parallelism").

Layers whose state declares `aggregation: mean` (tests/fixtures/aggregation/) show
what Keras's aggregation does for it on TensorFlow: a moving mean agrees with one device, a
running maximum does not (no Keras aggregation is a maximum).

Run them alone with `pytest -m e2e tests/test_data_parallel.py` (about 4 minutes on two
cores); `-m "not e2e"` leaves them out.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import ACCEPTANCE, FIXTURES, layergen, make_project

pytestmark = pytest.mark.e2e

SOURCE = ACCEPTANCE
# State declared with `aggregation`, in a package of its own.
AGGREGATED = FIXTURES / "aggregation"
SCRIPT = Path(__file__).parent / "data_parallel_check.py"
LAYERS = sorted([*SOURCE.glob("*.layer.yaml"), *AGGREGATED.glob("*.layer.yaml")])
TF_LIMIT = (
    "TensorFlow MirroredStrategy: non-trainable state assigned in `call` (`updates`) stays per replica "
    "and is never synchronised; Keras's BatchNormalization has the same limit"
)
TF_MAX_LIMIT = (
    "TensorFlow MirroredStrategy, `aggregation: mean`: the replicas agree on the mean of their "
    "running maxima, not the maximum one device keeps; no Keras aggregation is a maximum"
)
# On TensorFlow, what declared aggregation does for each of those layers: a moving mean of
# batch means is linear in them, so averaging the replicas' updates keeps one device's.
TF_AGGREGATED = {"running_mean.layer.yaml": None, "running_max_mean.layer.yaml": TF_MAX_LIMIT}


def has_updates(declaration: Path) -> bool:
    from layergen.declaration.load import load_declaration

    return bool(load_declaration(declaration).decl.updates)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = make_project(
        tmp_path_factory.mktemp("parallel"), {"examples": SOURCE, "aggregated": AGGREGATED}
    )
    result = layergen("generate", "examples", "aggregated", cwd=root)
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
                if declaration.parent == AGGREGATED:
                    reason = TF_AGGREGATED[declaration.name]
                else:
                    reason = TF_LIMIT
                if reason is not None:
                    marks = [pytest.mark.xfail(strict=True, reason=reason)]
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


def test_aggregated_state_agrees_across_replicas_and_keeps_a_mean_of_their_maxima(results):
    """`aggregation: mean` on TensorFlow: the replicas keep one value (undeclared state keeps
    one per replica), a moving mean as one device keeps it, and a running maximum as the
    mean of the replicas' values after each step, not the maximum: measured here against
    that arithmetic on the data data_parallel_check.py trains on (3 steps, 4 rows each)."""
    outcomes = results("tensorflow")
    assert outcomes["test_running_mean"] == "ok"
    outcome = outcomes["test_running_max_mean"]
    assert "replicas differ" not in outcome, outcome
    found = re.search(r"moving_max: max diff \S+ \(one device (\S+), two (\S+)\)", outcome)
    assert found, outcome
    maxima = [np.abs(np.random.default_rng(seed).standard_normal((4, 4))).max() for seed in (0, 1)]
    state = 1.0  # the initializer
    for _ in range(3):  # each replica assigns its maximum; the mean is kept
        state = float(np.mean([max(state, m) for m in maxima]))
    assert float(found[1]) == pytest.approx(max(maxima), abs=1e-4)
    assert float(found[2]) == pytest.approx(state, abs=1e-4)
    assert state < max(maxima) - 0.1
