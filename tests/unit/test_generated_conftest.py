"""The conftest.py layergen writes beside the generated tests: what its `pytest_configure`
sets for JAX (a compilation cache in pytest's cache, the mesh's host devices), and what
of the person's own settings it leaves alone. Run here on a stand-in for pytest's config;
`tests/e2e/test_newcomer.py` and `test_model_parallel_process.py` run it under pytest.

Regression tests of issue 10 (no conflict passes unnoticed, no edit is lost).
"""

from __future__ import annotations

import os
import sys
import types

import pytest

from layergen.config import load_config
from layergen.generate import conftest

from helpers import is_black_clean

FLAG = "--xla_force_host_platform_device_count"


class Cache:
    """pytest's `config.cache`, as far as the conftest uses it."""

    def __init__(self, root, writable=True):
        self.root, self.writable = root, writable

    def mkdir(self, name):
        if not self.writable:
            raise OSError(30, "Read-only file system")
        folder = self.root / "d" / name
        folder.mkdir(parents=True, exist_ok=True)
        return folder


class Config:
    def __init__(self, cache):
        if cache is not None:  # no attribute at all under `-p no:cacheprovider`
            self.cache = cache

    def addinivalue_line(self, name, line):
        pass


@pytest.fixture
def environ():
    """os.environ as it was before the test, whatever the conftest set in it."""
    saved = dict(os.environ)
    yield os.environ
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture
def configure(tmp_path, monkeypatch, environ):
    """`configure(sharded=..., cache=...)`: a project's conftest, run on a stand-in for
    pytest's config in an environment without JAX settings; returns pytest's cache folder
    for JAX."""
    for name in [n for n in environ if n.startswith(("JAX_", "XLA_"))]:
        del environ[name]
    environ.update(KERAS_BACKEND="jax", KERAS_HOME=str(tmp_path / ".keras"))
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))  # the conftest adds its roots; undone after
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")

    def run(sharded=True, cache="writable"):
        ((path, text),) = conftest(load_config(tmp_path), [tmp_path], sharded=sharded).items()
        module = types.ModuleType("conftest")
        module.__file__ = str(path)
        exec(compile(text, str(path), "exec"), module.__dict__)
        stand_in = None if cache is None else Cache(tmp_path, writable=cache == "writable")
        module.pytest_configure(Config(stand_in))
        return tmp_path / "d" / "jax"

    return run


def test_jax_compilations_are_kept_in_pytests_cache(configure):
    folder = configure()
    assert folder.is_dir()
    assert os.environ["JAX_COMPILATION_CACHE_DIR"] == str(folder)
    assert os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == "0"


def test_a_cache_dir_of_the_persons_own_wins(configure, monkeypatch):
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", "/mine")
    folder = configure()
    assert os.environ["JAX_COMPILATION_CACHE_DIR"] == "/mine"
    assert not folder.exists()


@pytest.mark.parametrize("cache", [None, "read-only"])
def test_without_pytests_cache_nothing_is_kept_and_the_run_goes_on(configure, cache):
    configure(cache=cache)
    assert "JAX_COMPILATION_CACHE_DIR" not in os.environ
    assert f"{FLAG}=8" in os.environ["XLA_FLAGS"]  # the rest of the conftest still ran


def test_a_project_with_sharded_layers_gives_jax_the_mesh_devices(configure, monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=false")
    configure()
    assert os.environ["XLA_FLAGS"] == f"--xla_cpu_enable_fast_math=false {FLAG}=8"


@pytest.mark.parametrize(
    "case",
    ["no sharded layers", "tensorflow", "jax imported", "a count of its own", "JAX's count"],
)
def test_the_devices_are_left_alone(configure, monkeypatch, case):
    flags = f"{FLAG}=2" if case == "a count of its own" else ""
    monkeypatch.setenv("XLA_FLAGS", flags)
    if case == "tensorflow":
        monkeypatch.setenv("KERAS_BACKEND", "tensorflow")
    if case == "jax imported":
        monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    if case == "JAX's count":
        monkeypatch.setenv("JAX_NUM_CPU_DEVICES", "4")
    configure(sharded=case != "no sharded layers")
    assert os.environ["XLA_FLAGS"] == flags


def test_the_conftest_is_black_clean(scaler_project):
    assert is_black_clean((scaler_project / "tests" / "conftest.py").read_text())
