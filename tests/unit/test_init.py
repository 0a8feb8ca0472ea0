"""`layergen init`: merges into what a project has, and the problem matcher reads real errors.

Regression tests: inputs that gave tracebacks, broken code reported as success.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from layergen.cli import app
from layergen.config import load_config
from layergen.init import PROBLEM_REGEXP, merge_tasks, strip_jsonc, vscode_tasks
from layergen.schema import declaration_schema

from helpers import LATIN_1, REPO, layergen, no_traceback, snapshot
from helpers import cli as run

runner = CliRunner()

PYPROJECT = """\
# The demo project.
[project]
name = "demo"  # keep this comment

[tool.black]
line-length = 100  # wide lines

[tool.layergen]
# where the declarations live
paths = ["src_layers"]  # not the default
"""

TASKS = """\
// See https://go.microsoft.com/fwlink/?LinkId=733558
{
  "version": "2.0.0",
  "tasks": [
    {
      "label": "build docs",  /* a person's task */
      "type": "shell",
      "command": "make docs // not a comment",
    },
    {"label": "layergen: generate", "type": "shell", "command": "old layergen"},
    {"label": "lint", "type": "shell", "command": "ruff check ."},
  ],
}
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_in_an_empty_folder_sets_everything_up(project):
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 0, result.output
    config = load_config(project)
    assert config.paths == [project / "layers"] and config.tests == project / "tests"
    tasks = json.loads((project / ".vscode" / "tasks.json").read_text())
    labels = [t["label"] for t in tasks["tasks"]]
    assert labels == [
        "layergen: generate",
        "layergen: check",
        "layergen: sync",
        "layergen: watch",
        "layergen: check layers",
    ]
    watch = tasks["tasks"][3]
    assert (
        watch["isBackground"] is True and "beginsPattern" in watch["problemMatcher"]["background"]
    )
    schema = json.loads((project / ".layergen" / "declaration.schema.json").read_text())
    assert schema == declaration_schema()
    assert "id: layergen-generate" in (project / ".pre-commit-config.yaml").read_text()
    # A second run changes nothing.
    before = snapshot(project)
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 0
    assert snapshot(project) == before
    assert result.output.count("unchanged") == 6  # pyproject, 3 VS Code files, schema, git


def test_init_merges_into_pyproject_and_keeps_comments(project):
    (project / "pyproject.toml").write_text(PYPROJECT)
    result = runner.invoke(app, ["init", "--package", "demo_layers"])
    assert result.exit_code == 0, result.output
    text = (project / "pyproject.toml").read_text()
    assert text.startswith(PYPROJECT)  # every line and comment kept, keys only added after them
    for comment in (
        "# The demo project.",
        "# keep this comment",
        "# wide lines",
        "# where the declarations live",
        "# not the default",
    ):
        assert comment in text
    data = tomllib.loads(text)
    assert data["tool"]["layergen"] == {
        "paths": ["src_layers"],
        "tests": "tests",
        "package": "demo_layers",
    }
    assert data["tool"]["black"] == {"line-length": 100}
    assert "[tool.layergen]: tests, package" in result.output


def test_init_refuses_an_unknown_key_and_writes_nothing(project):
    (project / "pyproject.toml").write_text("[tool.layergen]\npaths = ['a']\ntest = 'x'\n")
    before = snapshot(project)
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 2
    assert (
        "pyproject.toml:3:1: error: unknown key `test` in [tool.layergen] [unknown-config]"
        in result.output
    )
    assert snapshot(project) == before


def test_init_merges_tasks_by_label_and_keeps_the_others(project):
    (project / ".vscode").mkdir()
    (project / ".vscode" / "tasks.json").write_text(TASKS)
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 0, result.output
    assert "comments were not kept" in result.output
    tasks = json.loads((project / ".vscode" / "tasks.json").read_text())["tasks"]
    labels = [t["label"] for t in tasks]
    assert labels == [
        "build docs",
        "layergen: generate",
        "lint",
        "layergen: check",
        "layergen: sync",
        "layergen: watch",
        "layergen: check layers",
    ]
    assert tasks[0] == {
        "label": "build docs",
        "type": "shell",
        "command": "make docs // not a comment",
    }
    assert tasks[2] == {"label": "lint", "type": "shell", "command": "ruff check ."}
    assert tasks[1]["command"] == "layergen generate"  # layergen's own task, updated in place


def test_tasks_json_errors_are_located(project):
    (project / ".vscode").mkdir()
    (project / ".vscode" / "tasks.json").write_text(
        '{\n  // fine\n  "tasks": [\n    {"label": "x"} oops\n  ]\n}\n'
    )
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 2
    assert re.search(
        r"tasks\.json:4:20: error: invalid JSON: .* \[bad-json\]", result.output
    ), result.output


def test_jsonc_keeps_strings_and_positions():
    text = '{"a": "x // y, }", /* c\n */ "b": [1, 2,],}'
    plain = strip_jsonc(text)
    assert json.loads(plain) == {"a": "x // y, }", "b": [1, 2]}
    assert len(plain) == len(text) and plain.count("\n") == 1
    merged, _note = merge_tasks(None, vscode_tasks())
    assert merge_tasks(merged, vscode_tasks()) == (merged, "")


def test_init_leaves_an_existing_pre_commit_config_and_prints_the_snippet(project):
    config = (
        "repos:\n  - repo: https://example.invalid/other\n    rev: v1\n    hooks: [{id: other}]\n"
    )
    (project / ".pre-commit-config.yaml").write_text(config)
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 0
    assert (project / ".pre-commit-config.yaml").read_text() == config
    assert "  - repo: local\n    hooks:\n      - id: layergen-generate\n" in result.output


def test_problem_matcher_reads_real_error_output(project):
    runner.invoke(app, ["init"])
    layers = project / "layers"
    layers.mkdir()
    (layers / "bad.layer.yaml").write_text("layer: Bad\ncall: x * sclae\nparams:\n  scale: float\n")
    (layers / "worse.layer.yaml").write_text("layer: Worse\nparms: {}\nrandom: maybe\n")
    result = layergen("generate", cwd=project)  # the real command, in its own process
    assert result.returncode == 2
    output = result.stdout + result.stderr
    task = json.loads((project / ".vscode" / "tasks.json").read_text())["tasks"][0]
    pattern = task["problemMatcher"]["pattern"]
    assert pattern["regexp"] == PROBLEM_REGEXP
    regexp = re.compile(pattern["regexp"])
    found = []
    for line in output.splitlines():
        match = regexp.match(line)
        if match:
            found.append(
                {
                    k: match.group(pattern[k])
                    for k in ("file", "line", "column", "severity", "code", "message")
                }
            )
    for problem in found:
        problem["file"] = Path(problem["file"]).resolve().relative_to(project.resolve()).as_posix()
    assert found == [
        {
            "file": "layers/bad.layer.yaml",
            "line": "2",
            "column": "11",
            "severity": "error",
            "code": "unknown-name",
            "message": "unknown name `sclae`",
        },
        {
            "file": "layers/worse.layer.yaml",
            "line": "2",
            "column": "1",
            "severity": "error",
            "code": "unknown-key",
            "message": "unknown key `parms` at the top level",
        },
        {
            "file": "layers/worse.layer.yaml",
            "line": "3",
            "column": "9",
            "severity": "error",
            "code": "wrong-type",
            "message": "`random` must be true or false",
        },
    ]
    # Hints and the closing count are not problems.
    assert not any(
        regexp.match(line)
        for line in output.splitlines()
        if "hint:" in line or "nothing was written" in line
    )


def test_the_repository_ships_both_hooks():
    from ruamel.yaml import YAML

    hooks = {
        h["id"]: h for h in YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
    }
    assert hooks["layergen-generate"]["entry"] == "layergen generate --check"
    assert hooks["layergen-sync"]["entry"] == "layergen sync --skip-undeclared"
    assert all(
        h["language"] == "system" for h in hooks.values()
    )  # no download, the project's own layergen


def _git(*args: str, cwd: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_pre_commit_try_repo_passes_on_a_clean_project_and_fails_on_a_stale_one(tmp_path):
    bin_dir = Path(sys.executable).parent
    pre_commit = bin_dir / "pre-commit"
    if not pre_commit.exists() or not (bin_dir / "layergen").exists():
        pytest.skip("needs pre-commit and the layergen script in the environment")
    hooks_repo = tmp_path / "hooks"  # the shipped hooks file, committed in a repository of its own
    hooks_repo.mkdir()
    shutil.copy(REPO / ".pre-commit-hooks.yaml", hooks_repo)
    _git("init", "-q", cwd=hooks_repo)
    _git("add", ".", cwd=hooks_repo)
    _git("commit", "-q", "-m", "hooks", cwd=hooks_repo)

    project = tmp_path / "project"
    (project / "layers").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    (project / "layers" / "double.layer.yaml").write_text("layer: Double\ncall: x * 2\n")
    assert layergen("generate", cwd=project).returncode == 0
    _git("init", "-q", cwd=project)
    _git("add", ".", cwd=project)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PRE_COMMIT_COLOR": "never",
    }

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(pre_commit), "try-repo", str(hooks_repo), "layergen-generate", "--all-files"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    clean = try_repo()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
    (project / "layers" / "double.layer.yaml").write_text("layer: Double\ncall: x * 3\n")
    _git("add", ".", cwd=project)
    stale = try_repo()
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "would change layers/double.py" in stale.stdout
    assert "would change .layergen/" not in stale.stdout  # bookkeeping, in one line
    assert stale.stdout.rstrip().endswith("run `layergen generate` to bring them up to date")


def test_init_schema_and_watch_import_no_deep_learning_framework(tmp_path):
    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from layergen.cli import app\n"
        "import layergen.watch\n"
        "assert CliRunner().invoke(app, ['init']).exit_code == 0\n"
        "assert CliRunner().invoke(app, ['schema']).exit_code == 0\n"
        "print(sorted(m for m in ('keras', 'tensorflow', 'jax', 'torch') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "relative, make, where",
    [
        (
            ".vscode/tasks.json",
            "folder",
            ".vscode/tasks.json: error: cannot read the file: a folder",
        ),
        ("pyproject.toml", "folder", "pyproject.toml: error: cannot read the file: a folder"),
        (".pre-commit-config.yaml", "folder", ".pre-commit-config.yaml: error: cannot read"),
        (".layergen/declaration.schema.json", "folder", "declaration.schema.json:1:1: error:"),
        (".vscode/tasks.json", "latin-1", ".vscode/tasks.json:2:6: error: the file is not valid"),
        ("pyproject.toml", "latin-1", "pyproject.toml:2:6: error: the file is not valid UTF-8"),
        (".pre-commit-config.yaml", "latin-1", ".pre-commit-config.yaml:2:6: error: the file"),
    ],
)
def test_init_over_a_folder_or_a_file_that_is_not_utf8_is_a_located_error(
    tmp_path, monkeypatch, relative, make, where
):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if make == "folder":
        path.mkdir()
    else:
        path.write_bytes(LATIN_1)
    before = snapshot(tmp_path)
    result = run("init")
    no_traceback(result)
    assert result.exit_code == 2 and where in result.output, result.output
    assert snapshot(tmp_path) == before


def test_the_sync_task_run_on_an_open_declaration_syncs_its_module(scaler_project):
    """The VS Code task runs `layergen sync ${file}` on the file in the editor: a
    declaration stands for the module it generates."""
    (task,) = [t for t in vscode_tasks() if t["label"] == "layergen: sync"]
    declaration = scaler_project / "layers" / "scaler.layer.yaml"
    args = task["command"].replace("${file}", str(declaration)).split()[1:]
    before = snapshot(scaler_project)
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "error" not in result.output and snapshot(scaler_project) == before
