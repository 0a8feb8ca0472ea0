"""Written by layergen: lets the generated tests import the project's modules."""

import importlib.metadata
import os
import re
import sys
import tempfile

for relative in [".", ".."]:
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), relative))
    if root not in sys.path:
        sys.path.insert(0, root)

# Keras keeps its config in KERAS_HOME; keep test runs out of ~/.keras.
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

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

# The jaxlib versions known to have XLA's flag for its older CPU fusion emitters: from
# the first, up to the second.
JAXLIB_WITH_FUSION_EMITTERS_FLAG = ((0, 5, 3), (0, 11))


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
    jax_not_imported = "jax" not in sys.modules
    if os.environ.get("KERAS_BACKEND") == "jax" and jax_not_imported and not own_count:
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
    a first JAX run goes to XLA optimizing them. Ask for quick compiles: JAX's switch,
    and on CPU XLA's older fusion emitters, which compile in about half the time; the
    flag only for the jaxlib versions known to have it, as XLA stops the process at a
    flag it does not know. JAX reads both when it starts; your own settings win."""
    if os.environ.get("KERAS_BACKEND") != "jax" or "jax" in sys.modules:
        return
    os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
    flag = "--xla_cpu_use_fusion_emitters"
    flags = os.environ.get("XLA_FLAGS", "")
    known_from, known_before = JAXLIB_WITH_FUSION_EMITTERS_FLAG
    if flag not in flags and known_from <= jaxlib_version() < known_before:
        os.environ["XLA_FLAGS"] = f"{flags} {flag}=false".strip()


def jaxlib_version():
    """jaxlib's (major, minor, patch), or () where it is not installed."""
    try:
        version = importlib.metadata.version("jaxlib")
    except importlib.metadata.PackageNotFoundError:
        return ()
    return tuple(int(number) for number in re.findall(r"\d+", version)[:3])
