"""`layergen new` (layergen/cli.py, scaffold.py).

Regression tests: inputs that gave tracebacks, broken code reported as success; everyday workflows
that lost an edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

from helpers import (
    add_method,
    cli,
    declaration_path,
    edit,
    module,
    module_path,
    no_traceback,
    snapshot,
)
from helpers import cli as run


def test_new_refuses_a_folder_outside_the_configured_paths(tmp_path, monkeypatch):
    """`new --dir` outside `paths` wrote a layer that `generate` and its
    `--check` never saw again, while the printed next step said they would."""
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    (tmp_path / "layers").mkdir()
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    result = cli("new", "Gain", "--dir", "elsewhere")
    assert result.exit_code == 2 and "[outside-paths]" in result.output, result.output
    assert 'paths = ["layers"]' in result.output
    assert snapshot(tmp_path) == before
    assert cli("new", "Gain", "--dir", "layers/nn").exit_code == 0  # inside: fine
    assert cli("generate", "--check").exit_code == 0


def test_the_commands_new_names_run_on_its_folder_without_a_pyproject(tmp_path, monkeypatch):
    """`new` in a folder with no pyproject.toml says to run `layergen generate`: it (and
    `sync`, `watch`) run on the declaration folder `new` wrote, as `new` does."""
    from layergen.commands.watch import runners

    monkeypatch.chdir(tmp_path)
    assert run("new", "Foo").exit_code == 0
    assert run("generate", "--check").exit_code == 0
    edit(tmp_path / "layers" / "foo.layer.yaml", "reference: x", "reference: x * 2")
    edit(tmp_path / "layers" / "foo.layer.yaml", "call: x", "call: x * 2")
    result = run("generate")
    assert result.exit_code == 0 and "layers/foo.py" in result.output, result.output
    assert run("sync").exit_code == 0
    assert runners(True, print)[3] == [tmp_path / "layers"]


def test_no_paths_in_an_empty_folder_cites_no_missing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args, what in (
        (("generate", "--check"), "no declarations given"),
        (("sync",), "no modules given"),
        (("watch",), "nothing to watch"),
    ):
        result = run(*args)
        no_traceback(result)
        assert result.exit_code == 2
        assert f"layergen {args[0]}: error: {what} [no-paths]" in result.output, result.output
        assert "pyproject.toml:" not in result.output
        assert "the `layers` folder `layergen new` writes to" in result.output
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.layergen]\n")
    result = run("generate", "--check")
    assert "pyproject.toml:4:1: error: no declarations given [no-paths]" in result.output


def test_new_never_takes_a_declaration_deleted_in_the_same_run(scaler_project):
    """`new` scaffolds a new layer: a declaration deleted beside it is no rename of it."""
    add_method(module_path(scaler_project))
    declaration_path(scaler_project).unlink()
    result = run("new", "Twin", "--params", "gain:float=1.0", "--weights", "scale")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "    def mine(self):" in module(scaler_project)


def test_new_over_its_own_module_as_generated_starts_the_layer_over(scaler_project):
    """Found by a fourth attack: `new` refused a module the lock records as generated and
    nobody edited (the person deleted the declaration to start over)."""
    declaration_path(scaler_project).unlink()
    result = run("new", "Scaler", "--params", "units:int=4")
    assert result.exit_code == 0, result.output
    assert "self.units = units" in module(scaler_project)


def test_new_refuses_a_module_already_there(scaler_project):
    """Found by a third attack: `new` merged its scaffold into an orphan module of the same
    name (a deleted declaration's, edited by hand)."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    edit(module_path(scaler_project), "    def call(self", "    # a note\n    def call(self")
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1
    before = snapshot(scaler_project)
    result = run("new", "Scaler", "--params", "units:int")
    assert result.exit_code == 2 and "[exists]" in result.output, result.output
    assert "layers/scaler.py" in result.output
    assert snapshot(scaler_project) == before
    # --force: the person's choice; the new layer is merged in, their edit kept
    assert run("new", "Scaler", "--params", "units:int", "--force").exit_code in (0, 1)
    assert "    # a note\n" in module(scaler_project) and "self.units = units" in module(
        scaler_project
    )


def test_new_reports_a_bad_name_or_option_as_typed_not_in_a_file_it_did_not_write(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    for args, where in (
        (("scaled_dense",), "layergen new: error: `scaled_dense` is not a valid class name"),
        (("class",), "layergen new: error: `class` is not a valid class name"),
        (("Gain", "--params", "x:int"), "--params: error: param `x` has the name of an input"),
        (("Gain", "--inputs", "x,x"), "--inputs: error: `x` is given twice"),
        (("3Dense",), "layergen new: error: `3Dense` is not a valid class name"),
        (("Gain", "--weights", "1x"), "--weights: error: weight `1x` is not a Python identifier"),
    ):
        result = run("new", *args)
        assert result.exit_code == 2, result.output
        assert result.output.startswith(where), result.output
        assert ".layer.yaml" not in result.output and "line" not in result.output
        assert result.output.count("error:") == 1, result.output
        assert not (tmp_path / "layers").exists()


def test_new_says_to_run_init_where_the_project_is_not_set_up(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("new", "Gain")
    assert result.exit_code == 0 and "\n  layergen init  " in result.output, result.output
    assert run("init").exit_code == 0
    result = run("new", "Other")
    assert result.exit_code == 0 and "layergen init" not in result.output, result.output
