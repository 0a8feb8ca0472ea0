"""The generated tests of every real layer pass when run against its original class
(issue 39): keras-hub's (the copies in `tests/fixtures/keras_hub/`) or Keras's own,
imported in place of the generated class. A generated test that fails there is a false
failure, whatever it found. About a minute per backend on 2 cores."""

from __future__ import annotations

import re
import shutil

import pytest

from helpers import FIXTURES, layergen, make_project, pytest_runs

pytestmark = pytest.mark.e2e

REAL = FIXTURES / "real"
BACKENDS = ["jax", "tensorflow", "torch"]
IMPORT = re.compile(r"^from real\.\w+ import (\w+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The real layers generated, their test modules moved to `originals_tests/` with
    the class imported from `originals.py`, and nothing of the generated modules left
    to import by mistake."""
    root = make_project(tmp_path_factory.mktemp("originals"), {"real": REAL})
    result = layergen("generate", "real", cwd=root)
    assert result.returncode == 0, result.stderr
    shutil.copytree(FIXTURES / "keras_hub", root / "keras_hub_refs")
    shutil.copy(REAL / "originals.py", root / "originals.py")
    shutil.rmtree(root / "real")
    tests = root / "tests"
    for path in sorted(tests.glob("test_*.py")):
        text, count = IMPORT.subn(r"from originals import \1", path.read_text())
        assert count == 1, path.name
        path.write_text(text)
    return root


@pytest.fixture(scope="module")
def outcomes(project):
    return pytest_runs(project)


@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_tests_pass_against_the_original_classes(project, outcomes, backend):
    results = outcomes(backend)
    declared = len(list(REAL.glob("*.layer.yaml")))
    assert len({name.split("::")[0] for name in results}) == declared
    failed = sorted(name for name, outcome in results.items() if outcome == "failed")
    assert not failed, failed
    assert sum(outcome == "passed" for outcome in results.values()) > 10 * declared
