"""Rename following (layergen/renames.py, `layergen mv`): a rename is followed on evidence that
cannot pair two different layers, refused where the paths cannot tell, and never guessed.
The tests of a swap, a delete-and-add, a rename onto a helper's name and an IDE rename failed
on the code of commit 2811b3d; the last section tests renames.py's decisions without the CLI.

Regression tests: no conflict passes unnoticed, no edit is lost; everyday workflows that lost an
edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import (
    DECLARATION,
    HAND_CALL,
    add_method,
    cli,
    declaration_path,
    edit,
    generated_tests,
    module,
    module_path,
    package_imports,
    snapshot,
)
from helpers import cli as run

PROJECTION = """\
layer: Projection
params:
  units: {type: int, min: 1}
weights:
  kernel: {shape: '(x[-1], units)'}
call: ops.matmul(x, kernel)
example: {params: {units: 3}, input_shape: [2, 4]}
"""

ROUTER = """\
layer: Router
params:
  units: {type: int, min: 1}
  temperature: {type: float, default: 1.0}
weights:
  kernel: {shape: '(x[-1], units)'}
call: ops.softmax(ops.matmul(x, kernel) / temperature)
example: {params: {units: 3}, input_shape: [2, 4]}
"""


def add_test(test_file: Path, name: str = "test_by_hand") -> None:
    test_file.write_text(test_file.read_text() + f"\n\ndef {name}():\n    assert make_layer()\n")


def test_two_declarations_swapped_are_a_located_error(scaler_project):
    """`scale.layer.yaml` and `shift.layer.yaml` swapped: each class was
    renamed in place and got the other's hand-written methods and tests, exit 0."""
    layers = scaler_project / "layers"
    for stem, name in (("scale", "Scale"), ("shift", "Shift")):
        (layers / f"{stem}.layer.yaml").write_text(DECLARATION.replace("Scaler", name))
    assert cli("generate", "layers").exit_code == 0
    add_method(layers / "scale.py", "only_scale")
    add_test(scaler_project / "tests" / "test_shift.py", "test_only_shift")
    texts = {stem: (layers / f"{stem}.layer.yaml").read_text() for stem in ("scale", "shift")}
    (layers / "scale.layer.yaml").write_text(texts["shift"])
    (layers / "shift.layer.yaml").write_text(texts["scale"])
    before = snapshot(scaler_project)
    for args in (("generate", "layers"), ("generate", "layers/scale.layer.yaml")):
        result = cli(*args)
        assert result.exit_code == 2 and "[taken-module]" in result.output, result.output
        assert "layers/scale.layer.yaml:1:1: error: it now declares Shift" in result.output
        assert "layergen mv" in result.output  # how to proceed
        assert snapshot(scaler_project) == before


def test_an_unrelated_layer_added_as_another_is_deleted_takes_nothing(scaler_project):
    """Projection (units, kernel) deleted and Router (units, temperature,
    kernel) added: "half the names" paired them, and Projection's hand-written method and
    hand-added test moved into the router, exit 0."""
    layers = scaler_project / "layers"
    (layers / "projection.layer.yaml").write_text(PROJECTION)
    assert cli("generate", "layers").exit_code == 0
    add_method(layers / "projection.py")
    add_test(scaler_project / "tests" / "test_projection.py")
    (layers / "projection.layer.yaml").unlink()
    (layers / "router.layer.yaml").write_text(ROUTER)
    result = cli("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "    def mine(self):" in (layers / "projection.py").read_text()
    assert "def test_by_hand" in (scaler_project / "tests" / "test_projection.py").read_text()
    assert "def mine(" not in (layers / "router.py").read_text()
    assert "def test_by_hand" not in (scaler_project / "tests" / "test_router.py").read_text()


def test_a_file_and_class_renamed_with_nothing_else_changed_are_followed(scaler_project):
    """The declaration's text but its class name is the evidence (as git pairs a rename)."""
    layers = scaler_project / "layers"
    add_method(layers / "scaler.py")
    add_test(scaler_project / "tests" / "test_scaler.py")
    text = (layers / "scaler.layer.yaml").read_text()
    (layers / "scaler.layer.yaml").unlink()
    (layers / "gainer.layer.yaml").write_text(text.replace("layer: Scaler", "layer: Gainer"))
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    moved = (layers / "gainer.py").read_text()
    assert "class Gainer(" in moved and "    def mine(self):" in moved
    assert "def test_by_hand" in (scaler_project / "tests" / "test_gainer.py").read_text()
    assert not (layers / "scaler.py").exists()
    assert cli("generate", "--check", "layers").exit_code == 0


def test_two_new_declarations_of_one_text_pair_with_neither(scaler_project):
    """Two candidates: no evidence says which; the gone one's edits stay where they are."""
    layers = scaler_project / "layers"
    add_method(layers / "scaler.py")
    text = (layers / "scaler.layer.yaml").read_text()
    (layers / "scaler.layer.yaml").unlink()
    for stem, name in (("one", "One"), ("two", "Two")):
        (layers / f"{stem}.layer.yaml").write_text(text.replace("Scaler", name))
    result = cli("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output
    assert "    def mine(self):" in (layers / "scaler.py").read_text()


def test_mv_moves_a_declaration_its_class_and_its_files(scaler_project):
    layers = scaler_project / "layers"
    add_method(layers / "scaler.py")
    add_test(scaler_project / "tests" / "test_scaler.py")
    (scaler_project / "nn").mkdir()
    result = cli("mv", "layers/scaler.layer.yaml", "nn/amp.layer.yaml", "--class", "Amp")
    assert result.exit_code == 0, result.output
    assert "removed    layers/scaler.layer.yaml" in result.output
    assert "layer: Amp\n" in (scaler_project / "nn" / "amp.layer.yaml").read_text()
    moved = (scaler_project / "nn" / "amp.py").read_text()
    assert "class Amp(" in moved and "    def mine(self):" in moved
    assert 'package="demo"' in moved  # the registration stays: saved models still load
    assert "def test_by_hand" in (scaler_project / "tests" / "test_amp.py").read_text()
    assert not (layers / "scaler.layer.yaml").exists() and not (layers / "scaler.py").exists()
    assert "from .amp import Amp" in (scaler_project / "nn" / "__init__.py").read_text()
    assert "Scaler" not in (layers / "__init__.py").read_text()
    assert cli("generate", "--check", "nn").exit_code == 0


def test_mv_refuses_what_it_cannot_follow(scaler_project):
    before = snapshot(scaler_project)
    for args, where, code in (
        (
            ("mv", "layers/nothing.layer.yaml", "layers/b.layer.yaml"),
            "nothing.layer.yaml",
            "bad-move",
        ),
        (("mv", "layers/scaler.layer.yaml", "layers/b.txt"), "b.txt", "bad-move"),
        (
            ("mv", "layers/scaler.layer.yaml", "layers/c.layer.yaml", "--class", "1x"),
            "scaler.layer.yaml",
            "bad-move",
        ),
    ):
        result = cli(*args)
        assert result.exit_code == 2 and f"[{code}]" in result.output, result.output
        assert f"layers/{where}:1:1: error:" in result.output
        assert snapshot(scaler_project) == before


def test_a_class_renamed_to_the_name_of_a_helper_in_its_module_is_refused(scaler_project):
    """The layer renamed to the name of a hand-written helper of its module:
    the helper shadowed the layer."""
    layers = scaler_project / "layers"
    module_file = layers / "scaler.py"
    module_file.write_text(module_file.read_text() + "\n\nclass Gain:\n    pass\n")
    edit(layers / "scaler.layer.yaml", "layer: Scaler", "layer: Gain")
    before = snapshot(scaler_project)
    result = cli("generate", "layers")
    assert result.exit_code == 2 and "[name-taken]" in result.output, result.output
    assert "layers/scaler.layer.yaml:1:1: error: layers/scaler.py already defines `Gain`" in (
        result.output
    )
    assert snapshot(scaler_project) == before


def test_a_class_renamed_in_its_module_by_an_ide_is_carried_by_sync(scaler_project):
    """An IDE rename of the generated class (in the module): `sync` rewrote
    `__init__.py` to import the old name, which no longer exists; `--check` 0, the package
    did not import."""
    layers = scaler_project / "layers"
    add_method(layers / "scaler.py")
    code = (layers / "scaler.py").read_text()
    (layers / "scaler.py").write_text(
        code.replace("class Scaler(", "class Gainer(").replace("super(Scaler", "super(Gainer")
    )
    before = snapshot(scaler_project)
    result = cli("generate", "--check", "layers")
    assert result.exit_code == 2 and "[renamed-by-hand]" in result.output, result.output
    assert "layergen sync layers/scaler.py" in result.output
    assert snapshot(scaler_project) == before
    result = cli("sync", "layers/scaler.py")
    assert result.exit_code == 0, result.output
    assert "layer: Gainer\n" in (layers / "scaler.layer.yaml").read_text()
    code = (layers / "scaler.py").read_text()
    assert "class Gainer(" in code and "class Scaler" not in code and "    def mine(self):" in code
    assert "from .scaler import Gainer" in (layers / "__init__.py").read_text()
    assert "Gainer" in (scaler_project / "tests" / "test_scaler.py").read_text()
    assert cli("generate", "--check", "layers").exit_code == 0


# -- a class renamed in its declaration keeps its hand edits ------------------------------------


def test_a_renamed_class_carries_its_hand_edits(scaler_project):
    (scaler_project / "layers" / "scaler.py").write_text(
        module(scaler_project).replace("return x * self.scale * self.gain", HAND_CALL)
    )
    test = scaler_project / "tests" / "test_scaler.py"
    test.write_text(
        test.read_text() + "\n\ndef test_mine():\n    assert Scaler(gain=2.0).gain == 2.0\n"
    )
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("layer: Scaler", "layer: Multiplier")
    )
    result = run("generate", "layers")
    assert result.exit_code == 0, result.output
    text = module(scaler_project)
    assert "class Multiplier(" in text and "class Scaler" not in text
    assert HAND_CALL in text
    assert "assert Multiplier(gain=2.0).gain == 2.0" in test.read_text()
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_file_put_back_at_the_new_path_of_a_renamed_declaration(scaler_project):
    """Found by a second attack: a run that renamed the file and wrote conflicts into it left
    the lock pointing at a base stored under the old name only (exit 2 from then on)."""
    edit(module_path(scaler_project), "        return x", "        x = x  # mine\n        return x")
    mine = module(scaler_project)
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    edit(declaration_path(scaler_project), "doc: Multiplies", "doc: Now multiplies")
    declaration_path(scaler_project).rename(scaler_project / "layers" / "amp.layer.yaml")
    assert run("generate", "layers").exit_code == 1
    (scaler_project / "layers" / "amp.py").write_text(mine)
    for command in (("generate", "--check", "layers"), ("generate", "layers")):
        result = run(*command)
        assert result.exit_code == 1 and "[bad-lock]" not in result.output, result.output


def test_a_renamed_declaration_file_takes_its_module_and_tests_along(scaler_project):
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        # mine\n",
    )
    generated_tests(scaler_project).write_text(
        generated_tests(scaler_project).read_text()
        + "\n\ndef test_by_hand():\n    assert make_layer()\n"
    )
    declaration_path(scaler_project).rename(scaler_project / "layers" / "amp.layer.yaml")
    edit(
        scaler_project / "layers" / "amp.layer.yaml",
        "call: x * scale * gain",
        "call: x * scale + gain",
    )
    assert run("generate", "--check", "layers").exit_code == 1
    assert run("generate", "layers").exit_code == 0
    moved = (scaler_project / "layers" / "amp.py").read_text()
    assert "        # mine\n" in moved and "return x * self.scale + self.gain" in moved
    assert "def test_by_hand():" in (scaler_project / "tests" / "test_amp.py").read_text()
    assert not module_path(scaler_project).exists() and not generated_tests(scaler_project).exists()
    assert "from .amp import Scaler\n" in package_imports(scaler_project)
    assert "from .scaler import" not in package_imports(scaler_project)
    assert 'package="demo"' in moved  # the registration stays: saved models still load
    assert run("generate", "--check", "layers").exit_code == 0
    lock = (scaler_project / "layergen.lock").read_text()
    assert "layers/scaler" not in lock and "tests/test_scaler.py" not in lock


def test_a_file_and_its_class_renamed_at_once_take_the_hand_edits_along(scaler_project):
    """Found by the stateful test: the hand edits were left in an orphan module (exit 1)."""
    add_method(module_path(scaler_project))
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    result = run("generate", "layers")
    assert result.exit_code == 0
    moved = (scaler_project / "layers" / "gainer.py").read_text()
    assert "class Gainer(" in moved and "    def mine(self):" in moved
    assert not module_path(scaler_project).exists() and not generated_tests(scaler_project).exists()
    # what went is said, as what came is
    assert "removed    layers/scaler.py\n" in result.output
    assert "removed    tests/test_scaler.py\n" in result.output
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_deleted_layer_and_a_new_loss_are_not_paired_as_a_rename(scaler_project):
    """The lone-rename pairing needs the same kind: a layer's hand edits never go to a loss."""
    add_method(module_path(scaler_project))
    declaration_path(scaler_project).unlink()
    loss = Path(__file__).parents[2] / "examples" / "smooth_l1_error.loss.yaml"
    shutil.copy(loss, scaler_project / "layers" / loss.name)
    result = run("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output
    assert "    def mine(self):" in module(scaler_project)
    assert "def mine(" not in (scaler_project / "layers" / "smooth_l1_error.py").read_text()


def test_a_deleted_layer_and_a_new_unrelated_one_are_not_paired_as_a_rename(scaler_project):
    """Found by an attack on 0.1: one declaration deleted and an unrelated one added in the
    same folder were paired as a rename; the old edited module and its hand-added test were
    deleted and the edits moved into the new class (exit 0)."""
    edit(
        module_path(scaler_project),
        "    def call(self",
        "    def mine(self):\n        return self.scale\n\n    def call(self",
    )
    tests = generated_tests(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    declaration_path(scaler_project).unlink()
    other = Path(__file__).parents[2] / "examples" / "rms_norm.layer.yaml"
    shutil.copy(other, scaler_project / "layers" / other.name)
    result = run("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "    def mine(self):" in module(scaler_project)
    assert "def test_by_hand():" in tests.read_text()
    assert "def mine(" not in (scaler_project / "layers" / "rms_norm.py").read_text()
    assert "def test_by_hand(" not in (scaler_project / "tests" / "test_rms_norm.py").read_text()


def test_a_lone_rename_is_followed_while_another_folder_gains_a_layer(scaler_project):
    """Found by a second attack: a new declaration anywhere else in the run stopped the lone
    rename in this folder from being followed (the edits left in an orphan)."""
    add_method(module_path(scaler_project))
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    (scaler_project / "b").mkdir()
    (scaler_project / "b" / "brand.layer.yaml").write_text("layer: Brand\ncall: x * 2\n")
    assert run("generate", "layers", "b").exit_code == 0
    assert "    def mine(self):" in (scaler_project / "layers" / "gainer.py").read_text()


def test_an_orphan_is_never_taken_for_a_rename_later(scaler_project):
    """Found by a second attack: a deleted declaration's edited module, reported as an orphan,
    was taken by a later new declaration of the same shape, and deleted without a word."""
    add_method(module_path(scaler_project))
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1  # [orphan]
    for command in (
        ("generate", "layers"),  # a declaration of the same shape, written by hand
        ("new", "Twin", "--params", "gain:float=1.0", "--weights", "scale"),
    ):
        twin = scaler_project / "layers" / "twin.layer.yaml"
        if command[0] == "generate":
            twin.write_text(DECLARATION.replace("Scaler", "Twin"))
        result = run(*command)
        assert result.exit_code == 1 and "[orphan]" in result.output, result.output
        assert "    def mine(self):" in module(scaler_project)
        assert "def mine(" not in (scaler_project / "layers" / "twin.py").read_text()
        twin.unlink()
        (scaler_project / "layers" / "twin.py").unlink()


EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize(
    "old, new",
    [
        (None, None),  # two layers with no params or weights: nothing tells them apart
        ("stochastic_depth", "gaussian_jitter"),  # alike only in `seed` and its generator
    ],
)
def test_layers_alike_only_in_what_every_layer_has_are_no_rename(scaler_project, old, new):
    """Found by a third attack: two layers with no params and no weights, or sharing only a
    seed, were paired as a rename: the old module removed, its helper in the new one."""
    layers = scaler_project / "layers"
    if old is None:
        (layers / "swish.layer.yaml").write_text("layer: Swish\ncall: x * ops.sigmoid(x)\n")
        old, fresh = "swish", "layer: HardTanh\ncall: ops.clip(x, -1.0, 1.0)\n"
        new = "hard_tanh"
    else:
        shutil.copy(EXAMPLES / f"{old}.layer.yaml", layers)
        fresh = (EXAMPLES / f"{new}.layer.yaml").read_text()
    assert run("generate", "layers").exit_code == 0
    module_file = layers / f"{old}.py"
    module_file.write_text(module_file.read_text() + "\n\ndef helper():\n    return 1\n")
    (layers / f"{old}.layer.yaml").unlink()
    (layers / f"{new}.layer.yaml").write_text(fresh)
    result = run("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "def helper(" in module_file.read_text()
    assert "def helper(" not in (layers / f"{new}.py").read_text()


def test_a_renamed_declarations_old_module_name_taken_by_another_is_a_located_error(scaler_project):
    """Found by a third attack: a declaration renamed, and a new one (a loss) given its old
    name, gave a false `changed-during-run` on every run."""
    declaration_path(scaler_project).rename(scaler_project / "layers" / "amp.layer.yaml")
    shutil.copy(
        EXAMPLES / "smooth_l1_error.loss.yaml", scaler_project / "layers" / "scaler.loss.yaml"
    )
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "changed-during-run" not in result.output, result.output
    assert (
        "layers/scaler.loss.yaml:1:1: error:" in result.output and "amp.layer.yaml" in result.output
    )
    assert snapshot(scaler_project) == before


PROJ_BLOCK = """\
layer: ProjBlock
inputs:
  x: {min_rank: 2}
sublayers:
  proj: {class: keras.layers.Dense, args: {units: 8}}
  norm: {class: keras.layers.LayerNormalization}
call: norm(proj(x))
output_shape: (*x[:-1], 8)
"""


def test_a_layer_of_sublayers_alone_renamed_with_its_file_takes_its_edits(scaler_project):
    """Found by a fourth attack: with only params and weights compared, a layer made of
    sublayers had nothing to be told by, and its rename was no longer followed."""
    layers = scaler_project / "layers"
    (layers / "proj_block.layer.yaml").write_text(PROJ_BLOCK)
    assert run("generate", "layers").exit_code == 0
    add_method(layers / "proj_block.py")
    (layers / "proj_block.layer.yaml").rename(layers / "dense_norm.layer.yaml")
    edit(layers / "dense_norm.layer.yaml", "ProjBlock", "DenseNorm")
    assert run("generate", "layers").exit_code == 0
    assert "    def mine(self):" in (layers / "dense_norm.py").read_text()
    assert not (layers / "proj_block.py").exists()


def test_two_declarations_swapping_files_never_move_one_edit_silently(scaler_project):
    """Found by a fourth attack: `block.layer.yaml` and `block_v2.layer.yaml` swapped (v2
    promoted): the lone-rename pairing gave each class the other's hand edit, exit 0. The
    gone declaration's class is declared again in the run, so it is no lone rename."""
    layers = scaler_project / "layers"
    for stem, name in (("block", "Block"), ("block_v2", "BlockV2")):
        (layers / f"{stem}.layer.yaml").write_text(DECLARATION.replace("Scaler", name))
    assert run("generate", "layers").exit_code == 0
    edit(
        layers / "block_v2.py",
        "    def call(self",
        "    def only_v2(self):\n        return 2\n\n    def call(self",
    )
    (layers / "block.layer.yaml").rename(layers / "block_v1.layer.yaml")
    (layers / "block_v2.layer.yaml").rename(layers / "block.layer.yaml")
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "[taken-module]" in result.output, result.output
    assert snapshot(scaler_project) == before


def test_a_class_moved_to_a_new_file_and_a_new_one_in_its_place_is_a_located_error(
    scaler_project,
):
    """Found by a fifth attack: the old version kept as `scaler_v1.layer.yaml` (class kept) and
    a new layer written in `scaler.layer.yaml`: the old class's hand edits and hand-added
    tests went to the new class (rewritten to name it), exit 0."""
    add_method(module_path(scaler_project))
    declaration_path(scaler_project).rename(scaler_project / "layers" / "scaler_v1.layer.yaml")
    declaration_path(scaler_project).write_text("layer: Gated\ncall: x * 2\n")
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "[taken-module]" in result.output, result.output
    assert "layers/scaler.layer.yaml:1:1: error: it now declares Gated" in result.output
    assert snapshot(scaler_project) == before
    declaration_path(scaler_project).unlink()  # as the hint says: the move alone first
    assert run("generate", "layers").exit_code == 0
    assert "    def mine(self):" in (scaler_project / "layers" / "scaler_v1.py").read_text()


def test_renames_while_a_conflict_is_unsettled_leave_one_module(scaler_project):
    """Found by the stateful test at 600 runs."""
    edit(module_path(scaler_project), "self.gain\n", "self.gain * 0.5  # mine\n")
    layers = scaler_project / "layers"
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    declaration_path(scaler_project).rename(layers / "gain_layer.layer.yaml")
    assert run("generate", "layers").exit_code == 1  # the call: a conflict
    (layers / "gain_layer.layer.yaml").rename(declaration_path(scaler_project))
    assert run("generate", "layers").exit_code == 1
    declaration_path(scaler_project).rename(layers / "gain_layer.layer.yaml")
    assert run("generate", "--force", "layers").exit_code == 0
    assert sorted(p.name for p in layers.glob("*.py")) == ["__init__.py", "gain_layer.py"]
    assert package_imports(scaler_project).count("import Scaler") == 1
    assert sorted(p.name for p in (scaler_project / "tests").glob("test_*.py")) == [
        "test_gain_layer.py"
    ]
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_declaration_moved_to_another_folder_keeps_its_registration(scaler_project):
    (scaler_project / "blocks").mkdir()
    declaration_path(scaler_project).rename(scaler_project / "blocks" / "scaler.layer.yaml")
    assert run("generate", "blocks").exit_code == 0
    assert 'package="demo"' in (scaler_project / "blocks" / "scaler.py").read_text()
    assert not module_path(scaler_project).exists()
    assert "from .scaler import Scaler" not in package_imports(scaler_project)
    assert "from .scaler import Scaler\n" in (scaler_project / "blocks" / "__init__.py").read_text()


# The decisions of layergen/renames.py on their own, without the CLI.


def test_renamed_from_pairs_by_the_class_kept_or_the_text_kept_and_nothing_else(scaler_project):
    from layergen.renames import read_declaration, renamed_from
    from layergen.update.lock import Lock

    old = declaration_path(scaler_project)
    moved = scaler_project / "layers" / "gain.layer.yaml"
    shutil.move(old, moved)
    lock = Lock.read(scaler_project)
    key = lock.key(old)
    assert renamed_from(lock, [moved], {moved: read_declaration(moved)}) == {moved: key}
    # The text kept but for the class name: a rename of file and class at once.
    renamed = moved.read_text().replace("layer: Scaler", "layer: Gain")
    assert renamed_from(lock, [moved], {moved: renamed.encode()}) == {moved: key}
    # Two new declarations of that one text: neither is paired.
    twin = scaler_project / "layers" / "twin.layer.yaml"
    raws = {moved: renamed.encode(), twin: renamed.replace("Gain", "Twin").encode()}
    assert renamed_from(lock, [moved, twin], raws) == {}
    # Another layer altogether is no rename.
    assert renamed_from(lock, [moved], {moved: PROJECTION.encode()}) == {}


def test_a_class_renamed_in_its_module_is_told_only_when_exactly_one_class_is_new():
    from layergen.class_renames import renamed_in_module

    base = "class Scaler:\n    pass\n"
    assert renamed_in_module(base, "class Gain:\n    pass\n", "Scaler") == "Gain"
    # The old name still used, or two new classes, or a module that does not parse: no rename.
    assert renamed_in_module(base, "class Gain:\n    pass\n\nScaler = Gain\n", "Scaler") is None
    assert renamed_in_module(base, "class A:\n    pass\n\nclass B:\n    pass\n", "Scaler") is None
    assert renamed_in_module(base, "class Gain(:\n", "Scaler") is None
    # A class the last generation did not have is not the layer renamed.
    assert renamed_in_module("", "class Gain:\n    pass\n", "Scaler") is None


def test_content_is_the_text_but_for_the_class_name():
    from layergen.renames import content, with_class

    text = "layer: Scaler\ncall: x * 2\n"
    assert content(with_class(text, "Gain").encode()) == content(text.encode())
    assert content(b"layer: Scaler\ncall: x * 3\n") != content(text.encode())


# -- a class renamed, told in one place (class_renames.class_changes) ----------------------------------


def test_a_class_renamed_is_one_class_gone_and_one_new():
    from layergen.class_renames import class_changes, class_renamed

    before = "class A:\n    pass\n\n\nclass B:\n    pass\n"
    assert class_renamed(before, before.replace("class B", "class C")) == ("B", "C")
    assert class_changes(before, "class A:\n    pass\n") == ({"B"}, set())
    assert class_renamed(before, "class A:\n    pass\n") is None  # removed: no rename
    two = before.replace("class A", "class X").replace("class B", "class Y")
    assert class_renamed(before, two) is None  # two gone, two new: which is which?
    assert class_changes(before, "class (:\n") is None  # a text that does not parse


def test_a_class_in_a_string_or_a_function_is_no_class_of_the_module():
    from layergen.class_renames import class_renamed

    before = "class A:\n    pass\n"
    after = 'EXAMPLE = """\nclass Shown:\n"""\n\n\ndef f():\n    class Inner:\n        pass\n\n\nclass B:\n    pass\n'
    assert class_renamed(before, after) == ("A", "B")
