"""`layergen mv` (layergen/move.py): a rename the person states.

Regression tests: everyday workflows that lost an edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

from helpers import (
    add_bias,
    add_method,
    declaration_path,
    edit,
    module_path,
    python_in,
    snapshot,
)
from helpers import cli as run


def test_a_file_and_class_rename_with_a_new_param_is_followed_when_the_person_says_so(
    scaler_project,
):
    """File, class and params changed at once leave no evidence of a rename. A plain
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


# `mv` is a refactoring, as an IDE's move: every import of the module follows it.

MINE = '"""My layers."""\n\n# the scaler, for the models\nfrom .scaler import Scaler  # keep me\n\n__all__ = ["Scaler"]\n'
USES = """\
from .scaler import Scaler
from . import scaler
import layers.scaler as sc
import layers.scaler


def make():
    return Scaler(), scaler.Scaler(), sc.Scaler(), layers.scaler.Scaler()
"""


def test_mv_into_a_subfolder_rewrites_every_import_and_keeps_the_persons_init_lines(
    scaler_project,
):
    layers = scaler_project / "layers"
    (layers / "__init__.py").write_text(MINE)
    (layers / "uses.py").write_text(USES)
    (scaler_project / "app.py").write_text("from layers.scaler import Scaler as S\n")
    assert run("mv", "layers/scaler.layer.yaml", "layers/norms/scaler.layer.yaml").exit_code == 0
    assert (layers / "__init__.py").read_text() == MINE.replace(".scaler", ".norms.scaler")
    assert (layers / "uses.py").read_text() == (
        USES.replace(".scaler import", ".norms.scaler import")
        .replace("from . import", "from .norms import")
        .replace("layers.scaler", "layers.norms.scaler")
    )
    assert (
        scaler_project / "app.py"
    ).read_text() == "from layers.norms.scaler import Scaler as S\n"
    assert run("generate", "--check", "layers").exit_code == 0
    code = "import layers, layers.uses, app; print(len(layers.uses.make()))"
    imported = python_in(scaler_project, code)
    assert imported.stdout.strip() == "4", imported.stderr[-2000:]


def test_mv_with_a_new_class_name_renames_it_where_it_is_imported(scaler_project):
    layers = scaler_project / "layers"
    (layers / "__init__.py").write_text(MINE)
    (layers / "uses.py").write_text(USES)
    assert (
        run("mv", "layers/scaler.layer.yaml", "layers/amp.layer.yaml", "--class", "Amp").exit_code
        == 0
    )
    assert (layers / "__init__.py").read_text() == MINE.replace(
        ".scaler import Scaler", ".amp import Amp"
    ).replace('"Scaler"', '"Amp"')
    assert (layers / "uses.py").read_text() == (
        USES.replace("scaler", "amp").replace("Scaler", "Amp")
    )


HELPER = "\n\nclass Booster:\n    '''A helper of mine.'''\n"


def test_mv_onto_the_name_of_a_helper_class_in_the_module_is_refused_where_the_person_wrote(
    scaler_project,
):
    with module_path(scaler_project).open("a") as module:
        module.write(HELPER)
    before = snapshot(scaler_project)
    result = run(
        "mv", "layers/scaler.layer.yaml", "layers/booster.layer.yaml", "--class", "Booster"
    )
    assert result.exit_code == 2 and "[name-taken]" in result.output, result.output
    assert result.output.startswith("layers/scaler.layer.yaml:1:1: error:"), result.output
    assert snapshot(scaler_project) == before


def test_a_file_and_class_rename_onto_a_helper_class_name_is_refused(scaler_project):
    with module_path(scaler_project).open("a") as module:
        module.write(HELPER)
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Booster")
    declaration_path(scaler_project).rename(scaler_project / "layers" / "booster.layer.yaml")
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "[name-taken]" in result.output, result.output
    assert snapshot(scaler_project) == before


def test_mv_to_a_folder_outside_the_configured_paths_is_refused(scaler_project):
    (scaler_project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    (scaler_project / "elsewhere").mkdir()
    before = snapshot(scaler_project)
    result = run("mv", "layers/scaler.layer.yaml", "elsewhere/scaler.layer.yaml")
    assert result.exit_code == 2 and "[outside-paths]" in result.output, result.output
    assert "Traceback" not in result.output
    assert snapshot(scaler_project) == before
    assert run("mv", "layers/scaler.layer.yaml", "layers/deep/scaler.layer.yaml").exit_code == 0


SHARDED = """\
layer: Experts
params:
  num_experts: {type: int, min: 1}
weights:
  expert_kernel:
    shape: (num_experts, x[-1], x[-1])
    layout: [model, null, null]
call: ops.einsum("...d,edf->...f", x, expert_kernel)
example:
  params: {num_experts: 4}
  input_shape: [4, 8]
"""


def test_mv_of_a_sharded_layer_into_a_subfolder_rewrites_both_folders_layout_maps(
    scaler_project,
):
    layers = scaler_project / "layers"
    (layers / "experts.layer.yaml").write_text(SHARDED)
    assert run("generate", "layers").exit_code == 0
    assert "Experts" in (layers / "layout_map.py").read_text()
    result = run("mv", "layers/experts.layer.yaml", "layers/moe/experts.layer.yaml")
    assert result.exit_code == 0, result.output
    assert "Experts" not in (layers / "layout_map.py").read_text()
    assert "Experts" in (layers / "moe" / "layout_map.py").read_text()
    assert run("generate", "--check", "layers").exit_code == 0


def test_mv_after_a_rename_by_hand_rewrites_the_imports_too(scaler_project):
    layers = scaler_project / "layers"
    (layers / "uses.py").write_text(USES)
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Amp")
    add_bias(declaration_path(scaler_project))  # no evidence of a rename: the person says it
    declaration_path(scaler_project).rename(layers / "amp.layer.yaml")
    assert run("mv", "layers/scaler.layer.yaml", "layers/amp.layer.yaml").exit_code == 0
    assert (layers / "uses.py").read_text() == USES.replace("scaler", "amp").replace(
        "Scaler", "Amp"
    )
