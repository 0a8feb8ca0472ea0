"""Planning a run (layergen/generate.py).

Regression tests: no conflict passes unnoticed, no edit is lost; located errors where there were
tracebacks or silence; everyday workflows that lost an edit or left stale code behind a green
`--check`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from helpers import (
    DECLARATION,
    cli,
    declaration_path,
    edit,
    edit_call_by_hand_and_in_the_declaration,
    errors,
    generated_tests,
    layergen_in_process,
    module,
    module_path,
    project,
    snapshot,
)
from helpers import cli as run


def test_a_run_on_part_of_the_project_says_a_conflict_elsewhere(scaler_project):
    """`generate`/`sync` on one declaration exited 0 while another file
    held unsettled conflict markers."""
    layers = scaler_project / "layers"
    (layers / "other.layer.yaml").write_text(DECLARATION.replace("Scaler", "Other"))
    assert cli("generate", "layers").exit_code == 0
    edit(
        layers / "scaler.py",
        "        return x",
        "        # mine\n        return x * 2\n        return x",
    )
    edit(layers / "scaler.layer.yaml", "call: x * scale * gain", "call: x * scale + gain")
    assert cli("generate", "layers").exit_code == 1  # the conflict is written
    for args in (
        ("generate", "layers/other.layer.yaml"),
        ("generate", "--check", "layers/other.layer.yaml"),
        ("sync", "layers/other.py"),
    ):
        result = cli(*args)
        assert result.exit_code == 1, (args, result.output)
        assert "layers/scaler.py:" in result.output and "[conflict]" in result.output
    assert cli("resolve", "layers/scaler.py", "--ours").exit_code == 0
    assert cli("generate", "layers/other.layer.yaml").exit_code == 0


# -- --check and --diff tell the truth about conflicts --------------------------------------------


def test_check_and_diff_fail_on_a_conflict_before_and_after_generate(scaler_project):
    edit_call_by_hand_and_in_the_declaration(scaler_project)
    before = snapshot(scaler_project)
    check = run("generate", "--check", "layers")
    assert check.exit_code == 1
    assert "conflict: `Scaler.call` was edited by hand" in check.output
    diff = run("generate", "--diff", "layers")
    assert diff.exit_code == 1
    assert (
        "+<<<<<<< yours (edited by hand)" in diff.output
        and "+        return x * self.scale + self.gain" in diff.output
    )
    assert (
        "layergen.lock" not in diff.output and ".layergen" not in diff.output
    )  # the lock is bookkeeping
    assert snapshot(scaler_project) == before  # neither writes anything

    assert run("generate", "layers").exit_code == 1
    for args in (
        ("generate", "--check", "layers"),
        ("generate", "layers"),
        ("generate", "--diff", "layers"),
    ):
        again = run(*args)
        assert again.exit_code == 1, args  # unmissable until settled
        assert "layers/scaler.py:" in again.output and "[conflict]" in again.output


def test_force_takes_the_generated_side_of_unsettled_markers(scaler_project):
    edit_call_by_hand_and_in_the_declaration(scaler_project)
    run("generate", "layers")
    assert run("generate", "--force", "layers").exit_code == 0
    assert "<<<<<<<" not in module(scaler_project) and "# mine" not in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0


def test_stale_rej_files_of_layergen_0_1_are_removed(scaler_project):
    reject = scaler_project / "layers" / "scaler.py.rej"
    reject.write_text(
        "# layergen: generated `Scaler.call` (yours is kept in scaler.py, line 40)\n    def call(self): ...\n"
    )
    mine = scaler_project / "layers" / "notes.rej"
    mine.write_text("a person's file\n")
    assert run("generate", "layers").exit_code == 0
    assert not reject.exists() and mine.exists()


# -- two declarations of one class name -----------------------------------------------------------


def test_two_declarations_with_one_class_name_are_both_reported(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n",
            "layers/b.layer.yaml": "# the other one\nlayer: Foo\ncall: x * 3\n",
        },
    )
    result = layergen_in_process("generate", "layers", cwd=root)
    assert sorted(errors(result)) == [
        ("a.layer.yaml", 1, 8, "duplicate-name"),
        ("b.layer.yaml", 2, 8, "duplicate-name"),
    ]
    assert not (root / "layers" / "a.py").exists()


def test_one_class_name_in_two_folders_sharing_a_package(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "one/a.layer.yaml": "layer: Foo\npackage: shared\ncall: x * 2\n",
            "two/b.layer.yaml": "layer: Foo\npackage: shared\ncall: x * 3\n",
        },
    )
    assert sorted(errors(layergen_in_process("generate", "one", "two", cwd=root))) == [
        ("a.layer.yaml", 1, 8, "duplicate-name"),
        ("b.layer.yaml", 1, 8, "duplicate-name"),
    ]
    # The same class name in two packages registers twice, distinctly: fine.
    (root / "two" / "b.layer.yaml").write_text("layer: Foo\npackage: other\ncall: x * 3\n")
    assert layergen_in_process("generate", "one", "two", cwd=root).returncode == 0


def test_one_class_name_in_two_folders_under_one_package_flag(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "one/a.layer.yaml": "layer: Foo\ncall: x * 2\n",
            "two/b.layer.yaml": "layer: Foo\ncall: x * 3\n",
        },
    )
    assert [
        e[3]
        for e in errors(
            layergen_in_process("generate", "one", "two", "--package", "shared", cwd=root)
        )
    ] == ["duplicate-name"] * 2
    # The default package is the project's name (a folder's name, `layers`,
    # would collide across projects), so the two classes collide under it too...
    assert [e[3] for e in errors(layergen_in_process("generate", "one", "two", cwd=root))] == [
        "duplicate-name"
    ] * 2
    # ...until one names its own.
    (root / "two" / "b.layer.yaml").write_text("layer: Foo\npackage: two\ncall: x * 3\n")
    assert layergen_in_process("generate", "one", "two", cwd=root).returncode == 0
    assert 'package="demo"' in (root / "one" / "a.py").read_text()


def test_a_class_keeps_the_package_it_was_registered_under(tmp_path):
    """A saved model names `package>Class`: a class generated before keeps its package when
    the default changes (here: a `package` setting dropped), so models saved with it load."""
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    assert layergen_in_process("generate", "layers", "--package", "old", cwd=root).returncode == 0
    assert layergen_in_process("generate", "layers", cwd=root).returncode == 0
    assert 'package="old"' in (root / "layers" / "a.py").read_text()
    # A package set on purpose still wins.
    assert layergen_in_process("generate", "layers", "--package", "new", cwd=root).returncode == 0
    assert 'package="new"' in (root / "layers" / "a.py").read_text()


# -- a read-only output folder --------------------------------------------------------------------


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="root writes to read-only folders"
)
def test_a_read_only_output_folder_is_a_located_error(tmp_path):
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    layers = root / "layers"
    layers.chmod(0o555)
    try:
        result = layergen_in_process("generate", "layers", cwd=root)
    finally:
        layers.chmod(0o755)
    assert [e[3] for e in errors(result)] == ["cannot-write"]
    assert "permission denied" in result.stderr.lower()
    assert not (root / "layers" / "a.py").exists()
    assert not list(layers.glob(".*.tmp"))


def test_a_bad_package_flag_is_an_error(tmp_path):
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x\n"})
    result = layergen_in_process("generate", "layers", "--package", "a>b", cwd=root)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    # An option has no line: none is invented.
    assert "--package: error: `--package` must be a dotted Python name" in result.stderr
    assert "[bad-package]" in result.stderr


def test_a_file_that_cannot_be_written_is_a_located_error(tmp_path):
    """The same path as a read-only folder, where permissions cannot stop the user (root): a folder where the module goes."""
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    (root / "layers" / "a.py").mkdir()
    result = layergen_in_process("generate", "layers", cwd=root)
    assert errors(result) == [("a.py", 1, 1, "cannot-write")]
    assert "nothing was written" in result.stderr
    assert not (root / "layers" / "__init__.py").exists()
    assert not list((root / "layers").glob(".*.tmp"))


# -- the command line: exit 2, located errors, no traceback, nothing written ----------------------


def test_cli_reports_every_error_and_writes_nothing(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = tmp_path / "layers"
    folder.mkdir()
    (folder / "good.layer.yaml").write_text("layer: Good\ncall: x * 2\n")
    (folder / "bad.layer.yaml").write_text(
        "layer: Bad\nparams:\n  u: {type: int, mn: 1}\ncall: x * q\n"
    )
    (folder / "worse.layer.yaml").write_bytes(b"layer: Worse\ndoc: \xff\n")
    result = subprocess.run(
        [sys.executable, "-m", "layergen", "generate", "layers"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output
    for where in (
        "bad.layer.yaml:3:18: error: unknown key `mn`",
        "bad.layer.yaml:4:11: error: unknown name `q`",
        "worse.layer.yaml:2:6: error:",
    ):
        assert where in output, output
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "bad.layer.yaml",
        "good.layer.yaml",
        "pyproject.toml",
        "worse.layer.yaml",
    ]


# -- --force settles conflicting lines only, after the line merge ---------------------------------


def test_force_keeps_a_hand_line_that_merges_cleanly(scaler_project):
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        # my hand line\n",
    )
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    assert run("generate", "--force", "layers").exit_code == 0
    code = module(scaler_project)
    assert "        # my hand line\n" in code and 'initializer="zeros"' in code


def test_force_takes_the_generated_side_of_conflicting_lines_only(scaler_project):
    edit(module_path(scaler_project), 'initializer="ones",', 'initializer="ones",  # mine')
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    # above build, by hand\n    def build(self, input_shape):\n        # my hand line\n",
    )
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    assert run("generate", "layers").exit_code == 1  # the initializer line: a conflict
    assert run("generate", "--force", "layers").exit_code == 0
    code = module(scaler_project)
    assert 'initializer="zeros",\n' in code and "# mine" not in code
    assert "    # above build, by hand\n" in code and "        # my hand line\n" in code
    assert run("generate", "--check", "layers").exit_code == 0


@pytest.mark.parametrize(
    "command", [("generate", "experimental"), ("new", "Scaler", "--dir", "experimental")]
)
def test_a_run_on_part_of_the_project_keeps_the_test_modules_of_the_rest(scaler_project, command):
    """A declaration of the same file name in another folder, run alone, once took over the
    other layer's test module (its hand-added tests then called a class no longer imported);
    its test module now takes its folder into its name, and the other's stays as it was."""
    tests = generated_tests(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    (scaler_project / "experimental").mkdir()
    if command[0] == "generate":
        text = declaration_path(scaler_project).read_text().replace("Scaler", "ScalerV2")
        (scaler_project / "experimental" / "scaler.layer.yaml").write_text(text)
    before, everything = tests.read_bytes(), snapshot(scaler_project)
    result = run(*command)
    if command[0] == "new":  # a second `Scaler` in the project: refused, nothing written
        assert result.exit_code == 2 and "[duplicate-name]" in result.output, result.output
        assert snapshot(scaler_project) == everything
        return
    assert result.exit_code == 0, result.output
    assert tests.read_bytes() == before
    theirs = tests.with_name("test_experimental_scaler.py").read_text()
    assert "from experimental.scaler import" in theirs
    assert run("generate", "--check", "layers", "experimental").exit_code == 0


def test_a_run_on_part_of_the_project_sees_a_class_registered_by_the_rest(scaler_project):
    (scaler_project / "experimental").mkdir()
    shutil.copy(
        declaration_path(scaler_project), scaler_project / "experimental" / "other.layer.yaml"
    )
    before = snapshot(scaler_project)
    for check in ("--check",), ():
        result = run("generate", *check, "experimental")
        assert result.exit_code == 2 and "[duplicate-name]" in result.output, result.output
        assert "experimental/other.layer.yaml:1:8: error:" in result.output
        assert "also declared in" in result.output and "layers/scaler.layer.yaml" in result.output
    assert snapshot(scaler_project) == before
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Renamed")  # not yet generated
    assert run("generate", "experimental").exit_code == 0
