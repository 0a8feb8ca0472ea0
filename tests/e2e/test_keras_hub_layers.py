"""Real layers in the format: keras-hub's and Keras's own layers, declared
with their whole public API in `tests/fixtures/real/`, generate; their generated tests pass on
TensorFlow, JAX and torch with nothing deleted; and each loads its reference's weights
and computes its outputs (`tests/fixtures/real/match_reference.py`, against the copies in
`tests/fixtures/keras_hub/` and the installed Keras; `match_installed.py`, against the
installed keras-hub 0.32's attention, decoder, head and norm, caches included). About 6
minutes on 2 cores."""

from __future__ import annotations

import shutil

import pytest

from helpers import FIXTURES, pytest_runs

pytestmark = pytest.mark.e2e

REAL = FIXTURES / "real"
BACKENDS = ["tensorflow", "jax", "torch"]
MATCHES = ("test_match_reference::", "test_match_installed::")  # the comparisons' modules


@pytest.fixture(scope="module")
def project(real_project):
    root = real_project
    shutil.copytree(FIXTURES / "keras_hub", root / "keras_hub_refs")
    shutil.copy(REAL / "match_reference.py", root / "tests" / "test_match_reference.py")
    shutil.copy(REAL / "match_installed.py", root / "tests" / "test_match_installed.py")
    return root


@pytest.fixture(scope="module")
def outcomes(project):
    return pytest_runs(project)


@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_tests_of_real_layers_pass(project, outcomes, backend):
    results = {n: o for n, o in outcomes(backend).items() if not n.startswith(MATCHES)}
    declared = len(list((project / "real").glob("*.layer.yaml")))
    assert len({n.split("::")[0] for n in results}) == declared
    failed = sorted(name for name, outcome in results.items() if outcome == "failed")
    assert not failed, failed


@pytest.mark.parametrize("backend", BACKENDS)
def test_real_layers_load_their_reference_weights_and_match_its_outputs(project, outcomes, backend):
    results = {n: o for n, o in outcomes(backend).items() if n.startswith(MATCHES)}
    assert len(results) >= 3 * len(list((project / "real").glob("*.layer.yaml")))
    failed = [name for name, outcome in results.items() if outcome != "passed"]
    assert not failed, failed
