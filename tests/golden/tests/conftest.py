"""Written by layergen: lets the generated tests import the project's modules."""

import atexit
import importlib.metadata
import importlib.util
import os
import shutil
import sys
import tempfile

import pytest
from packaging.version import Version

# A failed check of the support module shows the values it compared.
pytest.register_assert_rewrite("layergen_support")

for relative in [".", ".."]:
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), relative))
    if root not in sys.path:
        sys.path.insert(0, root)

# Keras keeps its config in KERAS_HOME; keep test runs out of ~/.keras, in a folder of
# this run's that goes when the run ends.
if "KERAS_HOME" not in os.environ:
    os.environ["KERAS_HOME"] = tempfile.mkdtemp(prefix="keras-home-")
    atexit.register(shutil.rmtree, os.environ["KERAS_HOME"], ignore_errors=True)

# Deprecation warnings the frameworks raise in their own code (NumPy 2's `copy`
# keyword in Keras's backends...) say nothing of your layers; yours still show.
FRAMEWORKS = (
    "keras",
    "tensorflow",
    "jax",
    "jaxlib",
    "torch",
    "numpy",
    "ml_dtypes",
    "h5py",
)

# The packages whose XLA reads XLA_FLAGS, each with its releases known to have XLA's
# flag for its older CPU fusion emitters: from the first, up to the second (not
# included); None: none tried.
XLA_WITH_FUSION_EMITTERS_FLAG = {
    "jaxlib": ("0.5.3", "0.11"),
    "tensorflow": ("2.20", "2.22"),
    "torch_xla": None,
}


def pytest_configure(config):
    for framework in FRAMEWORKS:
        config.addinivalue_line(
            "filterwarnings", rf"ignore::DeprecationWarning:{framework}(\.|$)"
        )
    keep_jax_compilations(config)
    compile_jax_quickly()

    # The ModelParallel tests of the sharded layers need 8 devices, which JAX makes of
    # the host's CPU from a flag it reads when it starts: asked for here, those tests
    # run in this process, where your own JAX tests see the devices too (without them,
    # they start a process of their own). A count of your own wins.
    flag = "--xla_force_host_platform_device_count"
    flags = os.environ.get("XLA_FLAGS", "")
    own_count = flag in flags or "JAX_NUM_CPU_DEVICES" in os.environ
    if jax_starts_in_this_run() and not own_count:
        os.environ["XLA_FLAGS"] = f"{flags} {flag}=8".strip()


def keep_jax_compilations(config):
    """JAX compiles each operation for each shape and dtype it meets, most of a JAX test
    run's time: keep what it compiled in pytest's cache (`pytest --cache-clear` empties
    it), as a rerun meets nearly all of it again. JAX reads these when it is imported,
    in this process or in one the tests start; your own settings win."""
    cache = getattr(config, "cache", None)  # None under `-p no:cacheprovider`
    if cache is None or "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return
    try:
        folder = cache.mkdir("jax")
    except OSError:  # pytest itself only warns that it cannot write its cache
        return
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(folder)
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")


def compile_jax_quickly():
    """A test run compiles hundreds of small programs and runs each a few times: most of
    a first JAX run goes to XLA optimizing them. Ask for quick compiles, for every JAX
    test of this run: JAX's switch (a lower XLA optimization level, on any device), and
    on CPU XLA's older fusion emitters, the flag only where every XLA installed is known
    to have it, as XLA stops the process at a flag it does not know. JAX reads both
    when it starts. Your own JAX_DISABLE_MOST_OPTIMIZATIONS, whatever its value, turns
    both off."""
    if not jax_starts_in_this_run() or "JAX_DISABLE_MOST_OPTIMIZATIONS" in os.environ:
        return
    os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
    flag = "--xla_cpu_use_fusion_emitters"
    flags = os.environ.get("XLA_FLAGS", "")
    if flag not in flags and every_xla_knows_fusion_emitters_flag():
        os.environ["XLA_FLAGS"] = f"{flags} {flag}=false".strip()


def jax_starts_in_this_run():
    """Whether JAX runs these tests and has yet to read its settings: the backend the
    environment names is JAX, and nothing imported JAX before this conftest."""
    return os.environ.get("KERAS_BACKEND") == "jax" and "jax" not in sys.modules


def every_xla_knows_fusion_emitters_flag():
    """Whether each XLA installed that reads XLA_FLAGS is a release known to have the
    flag: jaxlib's, and TensorFlow's, which Keras or a test may load in a JAX run."""
    installed = [
        p for p in XLA_WITH_FUSION_EMITTERS_FLAG if importlib.util.find_spec(p)
    ]
    if "jaxlib" not in installed:
        return False
    distributions = importlib.metadata.packages_distributions()
    return all(
        knows_fusion_emitters_flag(package, distributions.get(package, []))
        for package in installed
    )


def knows_fusion_emitters_flag(package, distributions):
    """Whether the distributions installing `package` are releases known to have the
    flag (none found, or metadata unreadable: not known)."""
    known = XLA_WITH_FUSION_EMITTERS_FLAG[package]
    if known is None or not distributions:
        return False
    known_from, known_before = map(Version, known)
    for distribution in distributions:
        try:
            version = Version(importlib.metadata.version(distribution))
        except (importlib.metadata.PackageNotFoundError, ValueError, TypeError):
            return False  # its metadata unreadable (InvalidVersion is a ValueError)
        if not known_from <= version or version.release >= known_before.release:
            return False
    return True
