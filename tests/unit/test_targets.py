"""Where a declaration's outputs go (layergen/targets.py): folders, symlinks, test folders.

Regression tests: no conflict passes unnoticed, no edit is lost; located errors where there were
tracebacks or silence; everyday workflows that lost an edit or left stale code behind a green
`--check`.
"""

from __future__ import annotations

from helpers import DECLARATION, declaration_path, errors, layergen_in_process, project, snapshot
from helpers import cli as run

# -- declarations at the top of a folder with any name --------------------------------------------


def test_declarations_at_the_top_of_a_folder_that_is_no_identifier(tmp_path, monkeypatch):
    root = tmp_path / "my-project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'my-project'\n")
    (root / "scaler.layer.yaml").write_text(DECLARATION)
    monkeypatch.chdir(root)
    result = run("generate", "scaler.layer.yaml")
    assert result.exit_code == 0, result.output
    assert (
        '@keras.saving.register_keras_serializable(package="my_project")'
        in (root / "scaler.py").read_text()
    )
    assert "from scaler import Scaler" in (root / "tests" / "test_scaler.py").read_text()
    assert not (root / "__init__.py").exists()  # the scaler_project folder is no package


# -- symlinks, empty folders ----------------------------------------------------------------------


def test_a_symlinked_declaration_generates_beside_the_link(tmp_path):
    root = project(tmp_path / "demo", {"shared_src/foo.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    (root / "layers").mkdir()
    (root / "layers" / "foo.layer.yaml").symlink_to(root / "shared_src" / "foo.layer.yaml")
    assert layergen_in_process("generate", "layers/foo.layer.yaml", cwd=root).returncode == 0
    assert (root / "layers" / "foo.py").is_file()
    assert "from layers.foo import Foo" in (root / "tests" / "test_foo.py").read_text()
    assert not (root / "shared_src" / "foo.py").exists()
    assert "from .foo import Foo" in (root / "layers" / "__init__.py").read_text()


def test_a_symlinked_folder_generates_inside_the_link(tmp_path):
    root = project(tmp_path / "demo", {"shared_src/foo.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    (root / "layers").symlink_to(root / "shared_src", target_is_directory=True)
    assert layergen_in_process("generate", "layers", cwd=root).returncode == 0
    assert (root / "layers" / "foo.py").is_file()
    assert "from layers.foo import Foo" in (root / "tests" / "test_foo.py").read_text()


def test_a_folder_without_declarations_says_so(tmp_path):
    root = project(
        tmp_path / "demo",
        {"layers/readme.txt": "nothing here\n", "more/a.layer.yaml": "layer: Foo\ncall: x\n"},
    )
    result = layergen_in_process("generate", "layers", "more", cwd=root)
    assert errors(result) == [("layers", 1, 1, "no-declarations")]
    assert ".layer.yaml" in result.stderr  # the hint names what is looked for
    assert not (root / "more" / "a.py").exists()


def test_projects_with_a_tests_folder_per_folder_are_no_duplicates(scaler_project):
    """Found by a second attack: a run on one folder with its own `--tests` compared the other
    folder's tests under this run's tests folder (a false `duplicate-test`)."""
    (scaler_project / "b").mkdir()
    text = declaration_path(scaler_project).read_text().replace("Scaler", "OtherScaler")
    (scaler_project / "b" / "scaler.layer.yaml").write_text(text)
    assert run("generate", "b", "--tests", "tests_b").exit_code == 0
    assert run("generate", "layers").exit_code == 0
    assert run("generate", "--check", "b", "--tests", "tests_b").exit_code == 0


def test_a_module_named_like_another_declarations_test_module_is_refused(scaler_project):
    """Found by a fifth attack: with the tests beside the layers, `test_scaler.layer.yaml`
    wrote its module over Scaler's test module (exit 0)."""
    pyproject = scaler_project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "[tool.layergen]\ntests = 'layers'\n")
    assert run("generate", "layers").exit_code == 0
    assert (scaler_project / "layers" / "test_scaler.py").is_file()
    (scaler_project / "layers" / "test_scaler.layer.yaml").write_text(
        "layer: TestScaler\ncall: x * 2\n"
    )
    before = snapshot(scaler_project)
    for layers in ("layers", "layers/test_scaler.layer.yaml"):  # the run on part of it too
        result = run("generate", layers)
        assert result.exit_code == 2 and "[duplicate-test]" in result.output, result.output
        assert "module would overwrite the tests of" in result.output
        assert snapshot(scaler_project) == before


# -- one writer per file, across `generate` and `layergen tests` ----------------------------------

HAND_WRITTEN_SCALED_DENSE = """\
import keras


@keras.saving.register_keras_serializable(package="extra")
class ScaledDense(keras.layers.Layer):
    def call(self, x):
        return x * 2
"""
DECLARED_SCALED_DENSE = "layer: ScaledDense\ncall: x * 3\n"


def _scaled_dense_twice(root):
    (root / "layers").mkdir()
    (root / "layers" / "scaled_dense.layer.yaml").write_text(DECLARED_SCALED_DENSE)
    (root / "extra").mkdir()
    (root / "extra" / "__init__.py").write_text("")
    (root / "extra" / "scaled_dense.py").write_text(HAND_WRITTEN_SCALED_DENSE)


def test_tests_of_a_hand_written_module_never_replace_a_declarations(tmp_path, monkeypatch):
    """`layergen tests extra/scaled_dense.py` replaced the declared ScaledDense's
    tests/test_scaled_dense.py (exit 0); `generate` put it back, so `--check` failed after
    every `layergen tests`."""
    root = project(tmp_path / "p", {})
    _scaled_dense_twice(root)
    monkeypatch.chdir(root)
    assert run("generate", "layers").exit_code == 0
    before = snapshot(root)
    result = run("tests", "extra/scaled_dense.py")
    assert result.exit_code == 2, result.output
    assert "extra/scaled_dense.py:1:1: error:" in result.output
    assert "[duplicate-test]" in result.output and "layers/scaled_dense.layer.yaml" in result.output
    assert snapshot(root) == before
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_declaration_never_replaces_the_tests_layergen_tests_keeps(tmp_path, monkeypatch):
    """The other order: `layergen tests` wrote tests/test_scaled_dense.py first; a declaration
    whose test module would have that name takes its folder into its tests' name instead of
    taking the other's over, which stays as it was."""
    root = project(tmp_path / "p", {})
    _scaled_dense_twice(root)
    monkeypatch.chdir(root)
    assert run("tests", "extra/scaled_dense.py").exit_code == 0
    kept = (root / "tests" / "test_scaled_dense.py").read_bytes()
    result = run("generate", "layers")
    assert result.exit_code == 0, result.output
    assert (root / "tests" / "test_scaled_dense.py").read_bytes() == kept
    theirs = (root / "tests" / "test_layers_scaled_dense.py").read_text()
    assert "from layers.scaled_dense import ScaledDense" in theirs
    assert run("generate", "--check", "layers").exit_code == 0
