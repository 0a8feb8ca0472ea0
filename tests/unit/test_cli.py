"""The command line, driven in process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from layergen.cli import app

from helpers import snapshot

runner = CliRunner()


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_new_scaffolds_the_seed_scaled_dense(project):
    result = runner.invoke(app, ["new", "ScaledDense", "--weights", "kernel,scale,bias"])
    assert result.exit_code == 0, result.output
    declaration = (project / "layers" / "scaled_dense.layer.yaml").read_text()
    assert "units: {type: int, min: 1}" in declaration
    assert "activation: {type: activation, default: null}" in declaration
    module = (project / "layers" / "scaled_dense.py").read_text()
    assert "return self.activation((ops.matmul(x, self.kernel) + self.bias) * self.scale)" in module
    assert (project / "tests" / "test_scaled_dense.py").is_file()
    assert (
        "from .scaled_dense import ScaledDense" in (project / "layers" / "__init__.py").read_text()
    )


def test_new_refuses_to_overwrite(project):
    assert runner.invoke(app, ["new", "Foo"]).exit_code == 0
    result = runner.invoke(app, ["new", "Foo"])
    assert result.exit_code == 2
    assert "already exists" in result.output


def test_new_rejects_a_bad_param_type_and_writes_nothing(project):
    before = snapshot(project)
    result = runner.invoke(app, ["new", "Foo", "--params", "units:integer"])
    assert result.exit_code == 2
    assert "[bad-option]" in result.output
    assert snapshot(project) == before


@pytest.mark.parametrize(
    "obstacle, code",
    [("module", "exists"), ("tests", "cannot-write")],
)
def test_new_writes_nothing_when_its_run_fails(project, obstacle, code):
    """Found by an attack on 0.1: the declaration and the schema were written before the run
    that failed (exit 2, "nothing was written"), and `new` then refused them as existing."""
    (project / "layers").mkdir()
    if obstacle == "module":  # a module of that name, mid-edit
        (project / "layers" / "gate.py").write_text(
            "import keras\n\nclass Gate(keras.layers.Layer):\n    def call(self, x\n"
        )
    else:  # a plain file where the tests folder goes
        (project / "tests").write_text("not a folder\n")
    before = snapshot(project)
    result = runner.invoke(app, ["new", "Gate", "--weights", "gamma"])
    assert result.exit_code == 2 and f"[{code}]" in result.output, result.output
    assert snapshot(project) == before
    assert "created" not in result.output


def test_generate_reports_every_error_and_writes_nothing(project):
    layers = project / "layers"
    layers.mkdir()
    (layers / "good.layer.yaml").write_text("layer: Good\ncall: x * 2\n")
    (layers / "bad.layer.yaml").write_text("layer: Bad\ncall: x * sclae\nparams:\n  scale: float\n")
    before = snapshot(project)
    result = runner.invoke(app, ["generate", "layers"])
    assert result.exit_code == 2
    assert "bad.layer.yaml:2:11: error: unknown name `sclae` [unknown-name]" in result.output
    assert "did you mean `scale`?" in result.output
    assert "Traceback" not in result.output
    assert snapshot(project) == before


def test_generate_writes_module_next_to_declaration_and_tests_in_tests(project):
    layers = project / "layers"
    layers.mkdir()
    (layers / "double.layer.yaml").write_text("layer: Double\ncall: x * 2\n")
    result = runner.invoke(app, ["generate", "layers"])
    assert result.exit_code == 0, result.output
    assert (layers / "double.py").is_file()
    assert (project / "tests" / "test_double.py").is_file()
    assert (project / "tests" / "conftest.py").is_file()
    # A second run changes nothing, and --check agrees.
    before = snapshot(project)
    assert runner.invoke(app, ["generate", "layers"]).exit_code == 0
    assert snapshot(project) == before
    assert runner.invoke(app, ["generate", "--check", "layers"]).exit_code == 0
    (layers / "double.layer.yaml").write_text("layer: Double\ncall: x * 3\n")
    assert runner.invoke(app, ["generate", "--check", "layers"]).exit_code == 1
    assert snapshot(project)["layers/double.py"] == before["layers/double.py"]


def test_generate_uses_pyproject_paths(project):
    (project / "pyproject.toml").write_text("[tool.layergen]\npaths = ['src_layers']\n")
    (project / "src_layers").mkdir()
    (project / "src_layers" / "half.layer.yaml").write_text("layer: Half\ncall: x / 2\n")
    assert runner.invoke(app, ["generate"]).exit_code == 0
    assert (project / "src_layers" / "half.py").is_file()


def test_unknown_config_key_is_located(project):
    (project / "pyproject.toml").write_text("[tool.layergen]\npaths = ['a']\ntest = 'x'\n")
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 2
    assert (
        "pyproject.toml:3:1: error: unknown key `test` in [tool.layergen] [unknown-config]"
        in result.output
    )


def test_generating_imports_no_deep_learning_framework(project):
    (project / "layers").mkdir()
    (project / "layers" / "double.layer.yaml").write_text("layer: Double\ncall: x * 2\n")
    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from layergen.cli import app\n"
        "assert CliRunner().invoke(app, ['generate', 'layers']).exit_code == 0\n"
        "print(sorted(m for m in ('keras', 'tensorflow', 'jax', 'torch') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=project
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    assert (project / "layers" / "double.py").is_file()


@pytest.mark.e2e
def test_new_layer_tests_pass_right_away(project):
    result = runner.invoke(app, ["new", "ScaledDense", "--weights", "kernel,scale,bias"])
    assert result.exit_code == 0
    result = runner.invoke(
        app,
        [
            "new",
            "Mixer",
            "--weights",
            "gamma,beta,mix",
            "--params",
            "rate:float=0.1",
            "--inputs",
            "a,b",
        ],
    )
    assert result.exit_code == 0, result.output
    env = {**os.environ, "KERAS_BACKEND": "jax", "KERAS_HOME": str(project / ".keras")}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
            "tests",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert " passed" in run.stdout


def test_progress_bar_only_on_a_terminal_for_several_declarations(monkeypatch):
    from layergen.output import progress_bar

    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert progress_bar(quiet=False) is None  # piped: plain output
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert progress_bar(quiet=True) is None
    show = progress_bar(quiet=False)
    items = [Path(f"{i}.layer.yaml") for i in range(6)]
    assert list(show(items)) == items  # every declaration still goes through, in order
    assert list(show(items[:2])) == items[:2]


# -- errors that belong to no position are printed without an invented one ----------


def test_errors_without_a_position_name_no_line(project):
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    cases = {
        ("generate", "nowhere"): "nowhere: error: no such file or folder [no-such-file]",
        ("generate", "--package", "1x"): "--package: error: `--package` must be a dotted",
        ("new", "Foo", "--params", "units:int=="): (
            "--params: error: param `units` has default `=`, which is not a YAML value"
        ),
    }
    for args, expected in cases.items():
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2 and expected in result.output, (args, result.output)
        assert ":1:1:" not in result.output
    assert not (project / "layers").exists()


def test_a_toml_syntax_error_is_located_where_tomllib_found_it(project):
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\nfoo = = 1\n")
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 2
    assert "pyproject.toml:3:7: error: invalid TOML" in result.output
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n[tool.layergen]\npaths = [\n"
    )
    result = runner.invoke(app, ["generate"])
    assert "pyproject.toml:4:10: error: invalid TOML" in result.output, result.output


def test_what_is_no_declaration_is_said_so(scaler_project):
    """`generate layers/scaler.py` (or pyproject.toml) said "invalid YAML"."""
    from helpers import cli

    for name in ("layers/scaler.py", "pyproject.toml"):
        result = cli("generate", name)
        assert result.exit_code == 2 and "[not-a-declaration]" in result.output, result.output
        assert f"{name}:1:1: error: not a declaration" in result.output


def test_init_takes_mesh_axes_spelled_with_an_underscore(tmp_path, monkeypatch):
    """The format documents `mesh_axes`, `generate` read it, `init` refused it."""
    from helpers import cli

    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\nmesh_axes = ['data', 'model']\n"
    )
    monkeypatch.chdir(tmp_path)
    result = cli("init")
    assert result.exit_code == 0, result.output
    assert "mesh_axes = ['data', 'model']" in (tmp_path / "pyproject.toml").read_text()


def test_tests_of_an_orphaned_module_are_not_refused_as_generated(scaler_project):
    """`layergen tests` on a module whose declaration is gone (an orphan kept
    for its hand edits) said it is generated from that declaration."""
    from helpers import cli, edit

    edit(
        scaler_project / "layers" / "scaler.py",
        "    def call(self",
        "    def mine(self):\n        return 1\n\n    def call(self",
    )
    (scaler_project / "layers" / "scaler.layer.yaml").unlink()
    assert cli("generate", "--check", "layers").exit_code in (1, 2)
    (scaler_project / "layers" / "other.layer.yaml").write_text("layer: Other\ncall: x * 2\n")
    assert cli("generate", "layers").exit_code == 1  # the orphan, said
    result = cli("tests", "layers/scaler.py")
    assert "[generated-module]" not in result.output, result.output


def _helps():
    """Each command's `--help` as a person reads it, with its click command."""
    import typer.main

    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        yield name, command, result.output


def test_help_shows_every_text_as_written_and_flags_without_a_value():
    """`[tool.layergen]` is text, not markup to drop; a flag takes no value, so its help
    shows none (a `<bool>` had people type `--check true`)."""
    import click

    for name, command, output in _helps():
        for param in command.params:
            if getattr(param, "help", None):  # every word as written, wrapped
                assert " ".join(param.help.split()) in " ".join(output.split()), (name, output)
            if isinstance(param, click.Option) and param.is_flag:
                line = next(line for line in output.splitlines() if param.opts[0] in line)
                assert "<" not in line.split(param.opts[-1])[0], (name, line)
        assert "<bool>" not in output, (name, output)


def test_init_quiet_prints_errors_only(project):
    result = runner.invoke(app, ["init", "-q"])
    assert result.exit_code == 0 and result.output == "", result.output
    assert (project / ".vscode" / "tasks.json").is_file()
    (project / "pyproject.toml").write_text("[tool.layergen]\npathz = 1\n")
    result = runner.invoke(app, ["init", "--quiet"])
    assert result.exit_code == 2 and "[unknown-config]" in result.output, result.output


def test_a_value_after_a_flag_is_said_to_be_one(project):
    for args in (("generate", "--check", "true"), ("check", "--fix", "false")):
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2, result.output
        assert "take no value" in result.output and "Traceback" not in result.output


def test_the_command_list_says_what_each_command_does_in_full():
    result = runner.invoke(app, ["--help"])
    commands = result.output.split("Commands:", 1)[1].strip().splitlines()
    assert len(commands) == 11 and not any(line.endswith("...") for line in commands), commands
