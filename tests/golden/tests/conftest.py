"""Written by layergen: lets the generated tests import the project's modules."""

import os
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


def pytest_configure(config):
    for framework in FRAMEWORKS:
        config.addinivalue_line(
            "filterwarnings", rf"ignore::DeprecationWarning:{framework}(\.|$)"
        )
    # JAX compiles each operation for each shape and dtype it meets, most of a JAX
    # test run's time: keep what it compiled in pytest's cache (`pytest --cache-clear`
    # empties it), as a rerun meets nearly all of it again. JAX reads these when it is
    # imported, here or in the ModelParallel tests' process; your own settings win.
    cache = getattr(config, "cache", None)  # None under `-p no:cacheprovider`
    if cache is not None and "JAX_COMPILATION_CACHE_DIR" not in os.environ:
        os.environ["JAX_COMPILATION_CACHE_DIR"] = str(cache.mkdir("jax"))
        os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
        os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")
    # A sharded layer's ModelParallel tests need 8 devices, which JAX makes
    # of the host's CPU from a flag it reads when it starts: asked for here, those
    # tests run in this process (else they start one of their own). Yours win.
    flag = "--xla_force_host_platform_device_count"
    flags = os.environ.get("XLA_FLAGS", "")
    starts_jax = os.environ.get("KERAS_BACKEND") == "jax" and "jax" not in sys.modules
    if starts_jax and flag not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} {flag}=8".strip()
