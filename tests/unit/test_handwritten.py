"""`layergen tests` on layers written by hand: the seeds' layers pass, classic bugs are named."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from helpers import HANDWRITTEN, layergen

HERE = HANDWRITTEN


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("handwritten")
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    shutil.copytree(HERE, root / "mylayers")
    for target in ("mylayers/seeds.py", "mylayers/buggy.py"):
        result = layergen("tests", target, "--input-shape", "2,5", cwd=root)
        assert result.returncode == 0, result.stderr
    env = {**os.environ, "KERAS_BACKEND": "jax", "KERAS_HOME": str(root / ".keras")}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
            "-rf",
            "-v",
            "tests",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return run.stdout


@pytest.mark.e2e
def test_tests_for_the_seeds_pass(report):
    for name in (
        "scaled_dense",
        "offset_swish",
        "dropout_and_scale",
        "my_dense",
        "running_max_scale",
    ):
        assert (
            f"tests/test_seeds_{name}.py::test_save_and_load_without_custom_objects PASSED"
            in report
        )
        assert f"FAILED tests/test_seeds_{name}.py" not in report, report[-4000:]


@pytest.mark.e2e
def test_missing_kwargs_passthrough_is_named(report):
    assert "FAILED tests/test_buggy_no_kwargs.py::test_base_layer_arguments_pass_through" in report
    assert "does not take **kwargs for the base layer" in report


@pytest.mark.e2e
def test_missing_config_argument_is_named(report):
    assert "FAILED tests/test_buggy_forgetful_config.py::test_config_round_trip" in report
    assert "get_config() does not return constructor argument 'shift'" in report


def test_unknown_class_is_a_located_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "mod.py").write_text("class A:\n    def call(self, x):\n        return x\n")
    result = layergen("tests", "mod.py:B", cwd=tmp_path)
    assert result.returncode == 2
    assert "mod.py:1:1: error: no class `B` in this file [no-class]" in result.stderr
