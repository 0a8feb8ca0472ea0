"""`layergen tests` on layers written by hand: the seeds' layers pass, classic bugs are named."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from helpers import HANDWRITTEN, heldout_project, layergen, layergen_in_process

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
    result = layergen_in_process("tests", "mod.py:B", cwd=tmp_path)
    assert result.returncode == 2
    assert "mod.py:1:1: error: no class `B` in this file [no-class]" in result.stderr


def test_every_heldout_layer_gets_tests_without_a_flag(tmp_path):
    """The rank is read from how build, call and compute_output_shape use their shape
    parameter, whatever its name; sizes from their use in weight shapes; a layer whose code
    states no rank gets a default shape, said in the output and in the test. (In process:
    the CLI path is the next test's.)"""
    from layergen.config import load_config
    from layergen.handwritten import plan_tests

    modules = heldout_project(tmp_path)
    assert len(modules) >= 15
    config = load_config(tmp_path)
    shapes = {}
    for module in modules:
        plan, notes = plan_tests(module, None, config, {}, None)
        [test] = [p for p in plan.generated if p.name.startswith("test_")]
        assert test.name == f"test_{module.stem}.py"  # one layer: named after its module
        text = plan.generated[test]
        shapes[module.stem] = text.split("INPUT_SHAPES = ")[1].split("\n")[0]
        assert bool(notes) == ("# The code states no input rank" in text), module.name
        if module.stem == "gated_linear":
            assert 'ARGS = {"units": ' in text
    assert shapes["sequence_mean"] == '{"x": (2, 4, 4)}'  # `batch, steps, features = s`
    assert shapes["scaled_dense"] == '{"x": (2, 4)}'  # `s[-1]`
    assert shapes["swish"] == '{"x": (2, 4)}'  # no rank in the code: the default


def test_flags_given_once_are_remembered(tmp_path):
    heldout_project(tmp_path)
    first = layergen_in_process(
        "tests",
        "heldout/swish.py:Swish",
        "--input-shape",
        "2,3,5",
        "--example",
        "x=1",
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stderr
    test = tmp_path / "tests" / "test_swish.py"
    assert 'INPUT_SHAPES = {"x": (2, 3, 5)}' in test.read_text()
    assert layergen_in_process("tests", "heldout/rms_norm.py", cwd=tmp_path).returncode == 0
    test.unlink()
    again = layergen_in_process("tests", "heldout/swish.py", cwd=tmp_path)  # no flag
    assert again.returncode == 0, again.stderr
    assert 'INPUT_SHAPES = {"x": (2, 3, 5)}' in test.read_text()
    # An edit, then `layergen tests` alone: every layer it wrote tests for, with its flags.
    rms = tmp_path / "heldout" / "rms_norm.py"
    rms.write_text(rms.read_text().replace("epsilon=1e-6", "epsilon=1e-3"))
    everything = layergen_in_process("tests", cwd=tmp_path)
    assert everything.returncode == 0, everything.stderr
    assert 'ARGS = {"epsilon": 0.001}' in (tmp_path / "tests" / "test_rms_norm.py").read_text()
    assert 'INPUT_SHAPES = {"x": (2, 3, 5)}' in test.read_text()
    nothing = layergen_in_process("tests", cwd=tmp_path / "heldout")
    assert nothing.returncode == 0


def test_no_remembered_layer_is_a_located_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    result = layergen_in_process("tests", cwd=tmp_path)
    assert result.returncode == 2 and "[no-tests]" in result.stderr
    assert "Traceback" not in result.stderr
