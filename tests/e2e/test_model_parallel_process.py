"""Where a sharded layer's ModelParallel tests run on JAX: in the tests' own process when
it has the mesh's host devices (the generated conftest asks JAX for them), else in a JAX
process of their own, as when a person set another device count.

About 25 s: one sharded example's tests on JAX, twice.
"""

from __future__ import annotations

import shutil
import textwrap

import pytest

from helpers import OWN_EXAMPLES, layergen, pytest_in

pytestmark = pytest.mark.e2e

# A test of the person's own beside the generated ones: how many devices JAX has, and
# whether ModelParallel's report starts a process (the generated tests' fixture calls the
# same function in the same process).
OWN_TEST = """
import pathlib

import keras
import layergen_support as support

SHARDED = pathlib.Path(__file__).with_name("test_column_parallel_dense.py")


def test_devices_and_where_the_report_runs(monkeypatch):
    started = []

    def run(*args, **kwargs):
        started.append(args)
        return real(*args, **kwargs)

    real = support.subprocess.run
    monkeypatch.setattr(support.subprocess, "run", run)
    report = support.run_model_parallel(SHARDED)
    assert report["shardings"]["kernel"] == [None, "model"]
    devices = keras.distribution.list_devices()
    assert (len(devices), len(started)) == ({devices}, {started})
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("sharded")
    (root / "pyproject.toml").write_text("[project]\nname = 'sharded'\n")
    (root / "layers").mkdir()
    shutil.copy(OWN_EXAMPLES / "column_parallel_dense.layer.yaml", root / "layers")
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stderr
    return root


@pytest.mark.parametrize(
    "flags, devices, started",
    [
        ("", 8, 0),  # the conftest's 8 host devices: the report runs here
        ("--xla_force_host_platform_device_count=2", 2, 1),  # the person's count is kept
    ],
)
def test_model_parallel_runs_in_the_tests_process_when_it_has_the_devices(
    project, flags, devices, started
):
    own = project / "tests" / "test_own.py"
    own.write_text(textwrap.dedent(OWN_TEST).format(devices=devices, started=started))
    result = pytest_in(  # with pytest's cache, as users run
        project,
        "-q",
        "tests",
        KERAS_BACKEND="jax",
        KERAS_HOME=str(project / ".keras"),
        XLA_FLAGS=flags,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert "skipped" not in result.stdout.splitlines()[-1], result.stdout[-3000:]
