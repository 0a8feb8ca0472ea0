"""Rename following (layergen/claims.py, `layergen mv`): a rename is followed on evidence that
cannot pair two different layers, refused where the paths cannot tell, and never guessed.
Issue 34: each test marked so failed on main at 2811b3d."""

from __future__ import annotations

from pathlib import Path

from helpers import DECLARATION, cli, edit, snapshot

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


def add_method(module_file: Path, name: str = "mine") -> None:
    edit(
        module_file,
        "    def call(self",
        f"    def {name}(self):\n        return 1\n\n    def call(self",
    )


def add_test(test_file: Path, name: str = "test_by_hand") -> None:
    test_file.write_text(test_file.read_text() + f"\n\ndef {name}():\n    assert make_layer()\n")


def test_two_declarations_swapped_are_a_located_error(scaler_project):
    """Issue 34 item 2: `scale.layer.yaml` and `shift.layer.yaml` swapped: each class was
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
    """Issue 34 item 3: Projection (units, kernel) deleted and Router (units, temperature,
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
    """Issue 34 item 7: the layer renamed to the name of a hand-written helper of its module:
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
    """Issue 34 item 5: an IDE rename of the generated class (in the module): `sync` rewrote
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
