"""A wheel built from the repository works without the source tree (what `pip install layergen` gives)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from helpers import REPO

pytestmark = pytest.mark.e2e  # minutes: generated tests on backends, or many CLI runs


def test_a_wheel_installs_without_the_source_tree_and_runs_new_and_generate(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = wheels.glob("layergen-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # Every package of the source tree is in the wheel, with the templates.
    packages = {
        p.parent.relative_to(REPO).as_posix() for p in (REPO / "layergen").rglob("__init__.py")
    }
    assert packages <= {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
    assert {"layergen/templates/layer.py.j2", "layergen/templates/layer_test.py.j2"} <= set(names)

    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    # PYTHONPATH comes before the editable install of the checkout: only the wheel's code runs.
    env = {**os.environ, "PYTHONPATH": str(site), "KERAS_HOME": str(tmp_path / "keras")}

    def layergen(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "layergen", *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    where = subprocess.run(
        [sys.executable, "-c", "import layergen; print(layergen.__file__)"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(where.strip()).is_relative_to(site)
    new = layergen("new", "ScaledDense", "--weights", "kernel,scale,bias")
    assert new.returncode == 0, new.stderr
    assert (project / "layers" / "scaled_dense.py").is_file() and (
        project / "tests" / "test_scaled_dense.py"
    ).is_file()
    again = layergen("generate", "layers")
    assert again.returncode == 0, again.stderr
    assert layergen("generate", "--check", "layers").returncode == 0
