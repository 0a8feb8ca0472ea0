"""The conftest.py layergen writes beside the generated tests: what its `pytest_configure`
sets for JAX (a compilation cache in pytest's cache, the mesh's host devices), and what
of the person's own settings it leaves alone. Run here on a stand-in for pytest's config;
`tests/e2e/test_newcomer.py` and `test_model_parallel_process.py` run it under pytest.

Regression tests: no conflict passes unnoticed, no edit is lost.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
import types

import pytest

from layergen.config import load_config
from layergen.generate import conftest

from helpers import is_black_clean

FLAG = "--xla_force_host_platform_device_count"
QUICK = "--xla_cpu_use_fusion_emitters=false"
# What importlib.metadata.version() gives for a dist-info folder without METADATA: None.
UNREADABLE = object()
# A package that imports but that no distribution installed (built from source).
NO_DISTRIBUTION = object()


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
    """`configure(sharded=..., cache=..., jaxlib=..., tensorflow=..., torch_xla=...)`: a
    project's conftest, run on a stand-in for pytest's config in an environment without
    JAX settings, with the packages whose XLA reads XLA_FLAGS installed as given (a
    version; None: not installed; UNREADABLE: its metadata unreadable; NO_DISTRIBUTION);
    returns pytest's cache folder for JAX."""
    for name in [n for n in environ if n.startswith(("JAX_", "XLA_"))]:
        del environ[name]
    environ.update(KERAS_BACKEND="jax", KERAS_HOME=str(tmp_path / ".keras"))
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))  # the conftest adds its roots; undone after
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    real_version, real_find_spec = importlib.metadata.version, importlib.util.find_spec

    def run(sharded=True, cache="writable", jaxlib=None, tensorflow=None, torch_xla=None):
        given = {"jaxlib": jaxlib, "tensorflow": tensorflow, "torch_xla": torch_xla}
        installed = {package: v for package, v in given.items() if v is not None}

        def find_spec(name, *args):
            if name in given:
                return object() if name in installed else None
            return real_find_spec(name, *args)

        def packages_distributions():
            return {
                package: [f"{package}-dist"]
                for package, v in installed.items()
                if v is not NO_DISTRIBUTION
            }

        def version(name):
            if not name.endswith("-dist"):
                return real_version(name)
            v = installed[name.removesuffix("-dist")]
            return None if v is UNREADABLE else v

        monkeypatch.setattr(importlib.util, "find_spec", find_spec)
        monkeypatch.setattr(importlib.metadata, "packages_distributions", packages_distributions)
        monkeypatch.setattr(importlib.metadata, "version", version)
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


@pytest.mark.parametrize("jaxlib", ["0.5.3", "0.5.3+cuda12", "0.10.2", "0.10.3.dev1"])
def test_jax_is_asked_for_quick_compiles(configure, jaxlib):
    configure(sharded=False, jaxlib=jaxlib)
    assert os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] == "1"
    assert os.environ["XLA_FLAGS"] == QUICK


def test_quick_compiles_keep_the_persons_flags_and_the_mesh_devices(configure, monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=false")
    configure(jaxlib="0.10.2")
    assert os.environ["XLA_FLAGS"] == f"--xla_cpu_enable_fast_math=false {QUICK} {FLAG}=8"


@pytest.mark.parametrize(
    "jaxlib", ["0.4.38", "0.5.1", "0.5.3rc1", "0.5.3.dev20250301", "0.11.0.dev1", "1.0", None]
)
def test_xla_gets_no_flag_a_jaxlib_may_not_know(configure, jaxlib):
    # XLA stops the process at a flag it does not know: every test would be lost.
    configure(sharded=False, jaxlib=jaxlib)
    assert "XLA_FLAGS" not in os.environ
    assert os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] == "1"  # JAX's own switch


@pytest.mark.parametrize("jaxlib", [UNREADABLE, NO_DISTRIBUTION])
def test_unreadable_jaxlib_metadata_gets_no_flag(configure, jaxlib):
    configure(sharded=False, jaxlib=jaxlib)
    assert "XLA_FLAGS" not in os.environ


@pytest.mark.parametrize("tensorflow", ["2.20.0", "2.21.0"])
def test_tensorflow_that_knows_the_flag_keeps_it(configure, tensorflow):
    configure(sharded=False, jaxlib="0.10.2", tensorflow=tensorflow)
    assert os.environ["XLA_FLAGS"] == QUICK


@pytest.mark.parametrize(
    "tensorflow", ["2.19.0", "2.22.0", "2.20.0rc0", UNREADABLE, NO_DISTRIBUTION]
)
def test_xla_gets_no_flag_tensorflows_xla_may_not_know(configure, tensorflow):
    # TensorFlow's XLA reads XLA_FLAGS too, in a JAX run where Keras or a test loads it:
    # TensorFlow 2.19 beside jaxlib 0.5.3 stopped at its first XLA-compiled function.
    configure(sharded=False, jaxlib="0.5.3", tensorflow=tensorflow)
    assert "XLA_FLAGS" not in os.environ
    assert os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] == "1"  # JAX's own switch


def test_xla_gets_no_flag_an_untried_xla_may_not_know(configure):
    configure(sharded=False, jaxlib="0.10.2", torch_xla="2.8.0")
    assert "XLA_FLAGS" not in os.environ


@pytest.mark.parametrize("value", ["0", "1"])
def test_the_persons_own_switch_turns_both_off(configure, monkeypatch, value):
    monkeypatch.setenv("JAX_DISABLE_MOST_OPTIMIZATIONS", value)
    configure(sharded=False, jaxlib="0.10.2")
    assert os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] == value
    assert "XLA_FLAGS" not in os.environ


def test_the_persons_own_flag_wins(configure, monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=true")
    configure(sharded=False, jaxlib="0.10.2")
    assert os.environ["XLA_FLAGS"] == "--xla_cpu_use_fusion_emitters=true"
    assert os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] == "1"


@pytest.mark.parametrize("case", ["tensorflow", "jax imported"])
def test_quick_compiles_only_where_jax_starts_in_this_run(configure, monkeypatch, case):
    if case == "tensorflow":  # TensorFlow's XLA reads XLA_FLAGS too
        monkeypatch.setenv("KERAS_BACKEND", "tensorflow")
    else:
        monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    configure(sharded=False, jaxlib="0.10.2")
    assert "XLA_FLAGS" not in os.environ
    assert "JAX_DISABLE_MOST_OPTIMIZATIONS" not in os.environ


def test_the_conftest_is_black_clean(scaler_project):
    assert is_black_clean((scaler_project / "tests" / "conftest.py").read_text())


def test_the_support_modules_failed_asserts_show_their_values(tmp_path):
    """The conftest registers the support module for pytest's assertion rewriting: a
    bare assert failing in it shows the values compared, not a bare AssertionError."""
    import subprocess

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    ((path, text),) = conftest(load_config(tmp_path), [tmp_path]).items()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    (path.parent / "layergen_support.py").write_text(
        "def assert_shapes(eager, declared):\n    assert eager == declared\n"
    )
    (path.parent / "test_demo.py").write_text(
        "import layergen_support as support\n\n\n"
        "def test_shapes():\n    support.assert_shapes([(2, 3)], [(2, 4)])\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path.parent)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "KERAS_BACKEND": "numpy"},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "assert [(2, 3)] == [(2, 4)]" in done.stdout, done.stdout
