"""A class rename that `generate` follows is a refactoring, as `mv --class` is: every import of
the class across the project follows it (layergen/move_imports.py), and no package
`__init__.py` of the project is left importing a name that is gone behind a green `--check`
(layergen/package_check.py)."""

from __future__ import annotations

from helpers import cli as run
from helpers import edit, python_in, snapshot


def importable(root) -> str:
    """What `import layers` (and its subpackage) says: "ok", or the error."""
    done = python_in(root, "import layers, layers.sub; print('ok')")
    return done.stdout.strip() or done.stderr[-1500:]


def moved_into_sub(root):
    assert run("mv", "layers/scaler.layer.yaml", "layers/sub/scaler.layer.yaml").exit_code == 0
    assert "from .sub.scaler import Scaler" in (root / "layers" / "__init__.py").read_text()


def test_a_class_renamed_in_a_subpackage_is_renamed_in_the_parent_package(scaler_project):
    moved_into_sub(scaler_project)
    (scaler_project / "app.py").write_text("from layers.sub.scaler import Scaler as S\n")
    edit(scaler_project / "layers" / "sub" / "scaler.layer.yaml", "layer: Scaler", "layer: Booster")
    assert run("generate", "layers").exit_code == 0
    parent = (scaler_project / "layers" / "__init__.py").read_text()
    assert "from .sub.scaler import Booster" in parent and '"Booster"' in parent, parent
    assert "Scaler" not in parent, parent
    assert (scaler_project / "app.py").read_text() == "from layers.sub.scaler import Booster as S\n"
    assert run("generate", "--check", "layers").exit_code == 0
    assert importable(scaler_project) == "ok"


def test_a_move_back_after_a_class_rename_imports_the_new_name_everywhere(scaler_project):
    moved_into_sub(scaler_project)
    edit(scaler_project / "layers" / "sub" / "scaler.layer.yaml", "layer: Scaler", "layer: Booster")
    assert run("mv", "layers/sub/scaler.layer.yaml", "layers/scaler.layer.yaml").exit_code == 0
    parent = (scaler_project / "layers" / "__init__.py").read_text()
    assert "Scaler" not in parent, parent
    sub = (scaler_project / "layers" / "sub" / "__init__.py").read_text()
    assert "from ..scaler import Booster" in sub, sub
    assert run("generate", "--check", "layers").exit_code == 0
    assert importable(scaler_project) == "ok"


def test_an_import_of_a_name_a_subpackage_no_longer_binds_is_a_located_error(scaler_project):
    """An import the rename does not rewrite (the class taken from the subpackage that
    re-exported it, under its old name): the run says where, and writes nothing."""
    moved_into_sub(scaler_project)
    init = scaler_project / "layers" / "__init__.py"
    init.write_text(init.read_text() + "from .sub import Scaler as Again  # mine\n")
    line = init.read_text().splitlines().index("from .sub import Scaler as Again  # mine") + 1
    edit(scaler_project / "layers" / "sub" / "scaler.layer.yaml", "layer: Scaler", "layer: Booster")
    before = snapshot(scaler_project)
    for check in ([], ["--check"]):
        result = run("generate", *check, "layers")
        assert result.exit_code == 2, result.output
        assert f"__init__.py:{line}:1: error: " in result.output, result.output
        assert "[stale-import]" in result.output and "Scaler" in result.output, result.output
        assert snapshot(scaler_project) == before
