"""`layergen tests` on a held-out set of simple hand-written layers (Dense-like,
elementwise, normalisation, ...; tests/fixtures/tests_heldout/): with no flag, the tests
it writes pass; after an edit, `layergen tests` alone regenerates them and they pass again.
About 3 minutes on 2 cores (17 CLI runs, then the generated tests on torch, the fastest
backend here, twice for the edited layer)."""

from __future__ import annotations

import pytest

from helpers import heldout_project, layergen, run_pytest

pytestmark = pytest.mark.e2e


def test_heldout_layers_pass_their_generated_tests_and_regenerate_after_an_edit(tmp_path):
    modules = heldout_project(tmp_path)
    for module in modules:
        result = layergen("tests", "-q", str(module.relative_to(tmp_path)), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    outcomes = run_pytest(tmp_path, "torch")
    failed = {name: outcome for name, outcome in outcomes.items() if outcome == "failed"}
    assert not failed and len(outcomes) >= 8 * len(modules), failed
    assert {name.split("::")[0] for name in outcomes} == {f"test_{m.stem}" for m in modules}

    dense = tmp_path / "heldout" / "plain_dense.py"
    dense.write_text(dense.read_text().replace("use_bias=True", "use_bias=False"))
    again = layergen("tests", cwd=tmp_path)  # every layer it wrote tests for, no flag
    assert again.returncode == 0, again.stderr
    test = tmp_path / "tests" / "test_plain_dense.py"
    assert '"use_bias": False' in test.read_text()
    outcomes = run_pytest(tmp_path, "torch", "tests/test_plain_dense.py")
    assert outcomes and "failed" not in outcomes.values(), outcomes
