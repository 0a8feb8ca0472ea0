"""Every command over a project with one hostile file: exit 0, 1 or 2, never a traceback.

A generated project, then one of its files replaced by what people and tools leave behind
(another encoding, a folder, a pipe, a syntax error, conflict markers, CRLF, NUL bytes, random
bytes, nothing at all), then one command. The commands run in this process (typer's test runner),
so an exception is seen as one, whatever the command prints.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from layergen.cli import app

from helpers import DECLARATION

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.generate],
)

FILES = [
    "layers/scaler.py",
    "tests/test_scaler.py",
    "layers/__init__.py",
    "layers/scaler.layer.yaml",
    "layergen.lock",
    ".layergen/base/layers/scaler.py.*",  # the merge base of the module
    "pyproject.toml",
    "tests/conftest.py",
    "tests/layergen_support.py",
    ".vscode/tasks.json",  # not there until `init`: made by the damage
]

COMMANDS = [
    ["generate", "layers"],
    ["generate", "--check", "layers"],
    ["generate", "--diff", "layers"],
    ["generate", "--force", "layers"],
    ["generate"],
    ["sync", "layers"],
    ["resolve", "layers/scaler.py", "--ours"],
    ["tests", "layers/scaler.py"],
    ["new", "Other"],
    ["init"],
    ["check", "layers"],
]


def latin_1(data: bytes) -> bytes:
    return "# coding: latin-1\n# caf\xe9\n".encode("latin-1") + data


def markers(data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    middle = len(lines) // 2
    return b"".join(
        [*lines[:middle], b"<<<<<<< yours\n", *lines[middle:], b"=======\n>>>>>>> theirs\n"]
    )


DAMAGE = {
    "latin-1": latin_1,
    "crlf": lambda data: data.replace(b"\n", b"\r\n"),
    "no final newline": lambda data: data.rstrip(b"\n"),
    "half": lambda data: data[: len(data) // 2],
    "syntax error": lambda data: data + b"\ndef broken(:\n",
    "markers": markers,
    "nul": lambda data: data[:10] + b"\0" + data[10:],
    "empty": lambda data: b"",
    "utf-16": lambda data: data.decode("utf-8", "replace").encode("utf-16"),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A project with one generated layer (generated once; each example works on a copy)."""
    root = tmp_path_factory.mktemp("template")
    (root / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    (root / "layers").mkdir()
    (root / "layers" / "scaler.layer.yaml").write_text(DECLARATION)
    assert invoke(root, ["generate", "layers"]).exit_code == 0
    return root


def invoke(root: Path, args: list[str]):
    here = os.getcwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(app, args)
    finally:
        os.chdir(here)


def damage(root: Path, pattern: str, how: str | bytes) -> None:
    found = sorted(root.glob(pattern))
    path = found[0] if found else root / pattern
    data = path.read_bytes() if path.is_file() else b""
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "folder":
        path.unlink(missing_ok=True)
        path.mkdir()
        (path / "inside.txt").write_text("a folder where a file should be\n")
    elif how == "missing":
        path.unlink(missing_ok=True)
    elif how == "pipe":  # reading it waits for a writer that never comes
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    elif isinstance(how, bytes):
        path.write_bytes(how)
    else:
        path.write_bytes(DAMAGE[how](data))


def check_one(template: Path, pattern: str, how: str | bytes, args: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        shutil.copytree(template, root, symlinks=True)
        damage(root, pattern, how)
        result = invoke(root, args)
        what = f"{args} with {pattern} damaged: {how!r}\n{result.output}"
        assert result.exception is None or isinstance(result.exception, SystemExit), what + "".join(
            traceback.format_exception(result.exception)
        )
        assert result.exit_code in (0, 1, 2), what


HOW = st.one_of(
    st.sampled_from([*DAMAGE, "folder", "missing", "pipe"]),
    st.binary(max_size=40),
    st.text(max_size=40).map(lambda text: text.encode("utf-8", "surrogatepass")),
)


@settings(FUZZ, max_examples=40)
@given(pattern=st.sampled_from(FILES), how=HOW, args=st.sampled_from(COMMANDS))
def test_a_hostile_file_gives_an_exit_status_never_a_traceback(template, pattern, how, args):
    """About 10 s."""
    check_one(template, pattern, how, args)


@pytest.mark.e2e
@pytest.mark.parametrize("pattern", FILES)
def test_every_file_every_damage_every_command(template, pattern):
    """The whole matrix for one file: 12 kinds of damage by 11 commands, 132 runs. About 15 s
    a file, 2.5 minutes for the ten on the 2-core development machine."""
    for how in [*DAMAGE, "folder", "missing", "pipe"]:
        for args in COMMANDS:
            check_one(template, pattern, how, args)
