"""`layergen mv` (layergen/move.py): a rename the person states.

Regression tests of issue 21 (everyday workflows that lost an edit or left stale code behind a
green `--check`).
"""

from __future__ import annotations

from helpers import add_bias, add_method, declaration_path, edit, module_path, snapshot
from helpers import cli as run


def test_a_file_and_class_rename_with_a_new_param_is_followed_when_the_person_says_so(
    scaler_project,
):
    """Issue 34: file, class and params changed at once leave no evidence of a rename. A plain
    run keeps the old edited module as an orphan; `layergen mv OLD NEW` follows it."""
    add_method(module_path(scaler_project))
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    add_bias(declaration_path(scaler_project))
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    before = snapshot(scaler_project)
    result = run("generate", "--check", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output
    assert snapshot(scaler_project) == before
    assert run("mv", "layers/scaler.layer.yaml", "layers/gainer.layer.yaml").exit_code == 0
    moved = (scaler_project / "layers" / "gainer.py").read_text()
    assert "class Gainer(" in moved and "    def mine(self):" in moved
    assert "self.bias = bias" in moved
    assert not module_path(scaler_project).exists()
    assert run("generate", "--check", "layers").exit_code == 0
