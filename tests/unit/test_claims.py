"""The files of a declaration that is gone and was no rename (layergen/claims.py): removed
as generated, or kept as orphans and reported, and the lock forgets them."""

from __future__ import annotations

from helpers import (
    DECLARATION,
    declaration_path,
    edit,
    generated_tests,
    module,
    module_path,
    package_imports,
)
from helpers import cli as run


def test_a_declaration_put_back_after_its_orphan_run_gets_its_tests_again(scaler_project):
    """Found by a third attack: the record kept for the orphan was taken as is by the fast
    path when the declaration came back: no test module, and `--check` said all was well."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    generated = module(scaler_project)
    edit(module_path(scaler_project), "    def call(self", "    # a note\n    def call(self")
    declared = declaration_path(scaler_project).read_text()
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1  # [orphan]; its test module removed
    assert not generated_tests(scaler_project).exists()
    declaration_path(scaler_project).write_text(declared)  # both put back (`git checkout`)
    module_path(scaler_project).write_text(generated)
    assert run("generate", "layers").exit_code == 0
    assert generated_tests(scaler_project).is_file()
    assert run("generate", "--check", "layers").exit_code == 0
    assert '"orphaned"' not in (scaler_project / "layergen.lock").read_text()


def test_an_orphan_deleted_by_hand_leaves_the_lock(scaler_project):
    """Found by a third attack: its entry and base text stayed in the lock for ever."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    edit(module_path(scaler_project), "    def call(self", "    # a note\n    def call(self")
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1
    module_path(scaler_project).unlink()  # as the orphan message asks
    assert run("generate", "layers").exit_code == 0
    assert "layers/scaler" not in (scaler_project / "layergen.lock").read_text()
    assert not list((scaler_project / ".layergen" / "base" / "layers").glob("scaler.py.*"))


def test_a_declaration_put_back_after_an_orphan_run_of_its_tests_alone(scaler_project):
    """Found by a fourth attack: when only the test module had stayed (edited by hand), the
    declaration put back paired its new module with that test module by position: the
    hand-added test went into the layer's module and the test module was removed."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    tests = generated_tests(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    declared = declaration_path(scaler_project).read_text()
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1  # [orphan]: the test module
    assert not module_path(scaler_project).exists()
    declaration_path(scaler_project).write_text(declared)
    assert run("generate", "layers").exit_code == 0
    assert "def test_by_hand(" in tests.read_text()
    assert "def test_by_hand(" not in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_deleted_declaration_removes_what_was_generated_and_reports_hand_edits(scaler_project):
    (scaler_project / "layers" / "other.layer.yaml").write_text(
        DECLARATION.replace("Scaler", "Other")
    )
    assert run("generate", "layers").exit_code == 0
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 0  # nothing edited: all of it goes
    assert not module_path(scaler_project).exists() and not generated_tests(scaler_project).exists()
    assert "from .scaler import" not in package_imports(scaler_project)
    assert '"Scaler"' not in package_imports(scaler_project)

    (scaler_project / "layers" / "third.layer.yaml").write_text(
        DECLARATION.replace("Scaler", "Third")
    )
    assert run("generate", "layers").exit_code == 0
    third = scaler_project / "tests" / "test_third.py"
    third.write_text(third.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    (scaler_project / "layers" / "third.layer.yaml").unlink()
    for _ in range(2):  # every run says so
        result = run("generate", "layers")
        assert result.exit_code == 1 and "tests/test_third.py:1:" in result.output
        assert "[orphan]" in result.output and "third.layer.yaml" in result.output
    assert third.exists() and not (scaler_project / "layers" / "third.py").exists()
    assert "from .third import" not in package_imports(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 1
    third.unlink()
    assert run("generate", "layers").exit_code == 0
    assert run("generate", "--check", "layers").exit_code == 0
