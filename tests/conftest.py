import contextlib
import functools
import os
import shutil
import tempfile

import pytest
from hypothesis import settings

from helpers import DECLARATION, saved_long_ago

# The suite draws the same examples on every run, so a run is red only for a change, never
# for a new draw (two CI runs each found a formatting case that way: both are @examples now).
# `pytest --hypothesis-profile=explore` draws new ones on each run, to look for more.
settings.register_profile("derandomized", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("derandomized")

# Keras keeps its config in KERAS_HOME; keep test runs out of ~/.keras.
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))
# layergen keeps black's results and Jinja's compiled templates under XDG_CACHE_HOME: the
# session starts with neither, as on a fresh machine (its tests and their subprocesses then
# share one), and leaves nothing in ~/.cache but black's own cache of this repository's
# files (test_style.py runs black as by hand).
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="layergen-cache-")

# TensorFlow 2.21's oneDNN kernels compute float16 einsums wrongly on CPU (an error of 14 on a
# (4, 3, 8) x (4, 8, 16) `...d,edh->...eh`, measured; 0.007 without them): the generated
# mixed-precision test of a layer that uses one rightly fails on it (the MoE example's did,
# before it used `ops.tensordot`). This suite checks layergen,
# not TensorFlow, so the processes it starts run TensorFlow without them.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

# Generated code kept as data, not tests of this project.
collect_ignore_glob = ["golden/*", "fixtures/*"]


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/ from what the examples generate now",
    )


@pytest.fixture(scope="session", autouse=True)
def shared_jax_cache(tmp_path_factory):
    """One folder of JAX compilations for this process's pytest runs of generated tests,
    in its temporary folder (pytest removes old ones in turn). One per xdist worker: a
    worker's runs follow one another, so no run reads an entry another is writing (JAX
    writes without a lock, and a sharded test fails on the warning a half-written entry
    gives)."""
    import helpers

    folder = tmp_path_factory.getbasetemp() / "jax-compilations"
    folder.mkdir(exist_ok=True)
    helpers.JAX_CACHE = folder


@pytest.fixture(scope="session", autouse=True)
def one_click_command():
    """typer's test runner builds the click command from the app on every invoke (4 ms, a
    third of a small command's run in the tests' thousands of runs): built once per app.
    The command holds only what the app declares, so every invoke sees the same one."""
    import typer.testing

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(typer.testing, "_get_command", functools.cache(typer.testing._get_command))
        yield


@pytest.fixture(autouse=True)
def adopt_trial(request, monkeypatch):
    """`layergen adopt` runs the generated tests of what it adopts (a pytest process of
    seconds) unless told not to: the tests of its other decisions tell it, through the
    option's environment variable; those marked `trial` let it run."""
    on = request.node.get_closest_marker("trial") is not None
    monkeypatch.setenv("LAYERGEN_ADOPT_TRIAL", "1" if on else "0")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project with a `layers` package, as the working directory (adopt's tests)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "__init__.py").write_text("")
    saved_long_ago(tmp_path / "layers" / "__init__.py")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="session")
def generated_scaler(tmp_path_factory):
    """The Scaler project as `generate` leaves it, generated once per session (its files
    hold no path of their own: the lock's are relative)."""
    from typer.testing import CliRunner

    from layergen.cli import app

    root = tmp_path_factory.mktemp("scaler")
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "layers").mkdir()
    (root / "layers" / "scaler.layer.yaml").write_text(DECLARATION)
    with contextlib.chdir(root):
        assert CliRunner().invoke(app, ["generate", "layers"]).exit_code == 0
    return root


@pytest.fixture
def scaler_project(generated_scaler, tmp_path, monkeypatch):
    """A project with one generated layer, Scaler, as the working directory: a copy of the
    session's (generating it again for each of some 200 tests took seconds in all)."""
    shutil.copytree(generated_scaler, tmp_path, symlinks=True, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path
