"""End to end: generate the example declarations, then run their generated tests
on TensorFlow, JAX and torch, in fresh processes, the way a user would."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest

from helpers import (
    ACCEPTANCE,
    OWN_EXAMPLES,
    TWINS,
    assert_lint_clean,
    layergen,
    make_project,
    pytest_runs,
)

pytestmark = pytest.mark.e2e  # minutes: generated tests on backends, or many CLI runs

SOURCES = {"examples": OWN_EXAMPLES, "twins": TWINS, "acceptance": ACCEPTANCE}
BACKENDS = ["tensorflow", "jax", "torch"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("project"), SOURCES)
    result = layergen("generate", *SOURCES, cwd=root)
    assert result.returncode == 0, result.stderr
    shutil.copy(TWINS / "match_keras.py", root / "tests" / "test_match_keras.py")
    return root


@pytest.fixture(scope="module")
def outcomes(project):
    """{file::test: outcome} of one pytest run over the project's tests, per backend."""
    return pytest_runs(project)


def test_every_declaration_generated(project):
    for package, source in SOURCES.items():
        for declaration in source.glob("*.yaml"):
            name = declaration.name.split(".")[0]
            assert (project / package / f"{name}.py").is_file()
            assert (project / "tests" / f"test_{name}.py").is_file()


def test_generated_code_is_lint_clean(project):
    """ruff (its default rules and import sorting) and black find nothing in the
    modules, tests, `__init__.py` files, conftest.py and support module; no line
    passes 88 columns."""
    assert_lint_clean(project, "test_match_keras.py")


@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_tests_pass(outcomes, backend):
    results = {
        name: outcome
        for name, outcome in outcomes(backend).items()
        if not name.startswith("test_match_keras::")
    }
    # A layer without trainable weights skips the fit test (its gradient test checks it).
    skippable = ("::test_compiled_fit_step_trains_every_weight",)
    # ModelParallel runs on JAX only: off JAX, the generated tests of the layers that
    # declare layouts skip those tests, saying so; on JAX they run.
    sharded = {name: o for name, o in results.items() if "::test_model_parallel_" in name}
    if backend != "jax":
        skippable += tuple(f"::{name.split('::')[-1]}" for name in sharded)
    failed = [
        name
        for name, outcome in results.items()
        if outcome == "failed" or (outcome == "skipped" and not name.endswith(skippable))
    ]
    assert len(results) > 100
    assert len(sharded) >= 3 * 5  # the three sharded examples, five tests each
    assert not failed, failed


@pytest.mark.parametrize("backend", BACKENDS)
def test_declared_twins_compute_what_keras_builtin_layers_compute(outcomes, backend):
    """Dense, LayerNormalization, BatchNormalization (state, training branch), PReLU,
    Embedding, Conv1D, Dropout (randomness), Reshape (a list param in a shape),
    ActivityRegularization (a loss), Masking (a mask), Concatenate (two inputs) and
    SpectralNormalization (a wrapper, wrapping Dense, Conv2D and Embedding), written in the
    v1 format, against Keras's own: outputs, state, losses, masks."""
    results = {
        name: outcome
        for name, outcome in outcomes(backend).items()
        if name.startswith("test_match_keras::")
    }
    failed = [name for name, outcome in results.items() if outcome != "passed"]
    # 15 cases: in training, in inference, output shapes; a mask; 3 of SpectralNormalization
    # (numbers to the last bit, a weights file of Keras's layer loaded, the config).
    assert len(results) == 15 * 3 + 1 + 3 * 3
    assert not failed, failed


def test_saved_models_load_in_a_fresh_process_without_custom_objects(project):
    """Save a model per generated layer in one process; load each in another."""
    save = textwrap.dedent("""
        import importlib, pathlib, sys
        import numpy as np
        sys.path.insert(0, "tests")
        from layergen_support import as_list
        def flat(outputs):  # one array of every output; outputs by name in the order of their names
            outputs = [outputs[k] for k in sorted(outputs)] if isinstance(outputs, dict) else outputs
            return np.concatenate([np.ravel(o) for o in as_list(outputs)])
        out = pathlib.Path("saved"); out.mkdir(exist_ok=True)
        for path in sorted(pathlib.Path("tests").glob("test_*.py")):
            module = importlib.import_module(path.stem)
            if not hasattr(module, "EXAMPLE"):
                continue  # losses, constraints, ...: covered by their own tests
            model = module.EXAMPLE.model(module.make_layer())
            model.save(out / f"{path.stem}.keras")
            np.save(out / f"{path.stem}.npy", flat(model.predict(module.make_inputs(), verbose=0)))
        """)
    load = textwrap.dedent("""
        import importlib, pathlib, sys
        import numpy as np
        import keras
        PACKAGES
        sys.path.insert(0, "tests")
        from layergen_support import as_list
        def flat(outputs):  # one array of every output; outputs by name in the order of their names
            outputs = [outputs[k] for k in sorted(outputs)] if isinstance(outputs, dict) else outputs
            return np.concatenate([np.ravel(o) for o in as_list(outputs)])
        count = 0
        for path in sorted(pathlib.Path("saved").glob("*.keras")):
            model = keras.saving.load_model(path)  # no custom_objects
            inputs = importlib.import_module(path.stem).make_inputs()
            got = flat(model.predict(inputs, verbose=0))
            np.testing.assert_allclose(got, np.load(path.with_suffix(".npy")), rtol=1e-6, atol=1e-6)
            count += 1
        print("loaded", count)
        """).replace("PACKAGES", "; ".join(f"import {p}" for p in SOURCES))
    env = {
        "KERAS_BACKEND": "tensorflow",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "KERAS_HOME": str(project / ".keras"),
    }
    import os

    env = {**os.environ, **env}
    for script in (save, load):
        result = subprocess.run(
            [sys.executable, "-c", script],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert result.returncode == 0, result.stderr[-3000:]
    layers = sum(1 for p in (project / "saved").glob("*.keras"))
    assert result.stdout.split()[-1] == str(layers) and layers >= 10


def test_binary_conv2d_trains_within_its_clip_and_reloads(project):
    script = textwrap.dedent("""
        import numpy as np
        import keras
        from acceptance.binary_conv2d import BinaryConv2D

        H = 0.5
        layer = BinaryConv2D(filters=4, kernel_size=3, H=H)
        inputs = keras.Input(shape=(8, 8, 3))
        model = keras.Model(inputs, layer(inputs))
        model.compile(optimizer=keras.optimizers.SGD(learning_rate=5.0), loss="mse", jit_compile=True)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((16, 8, 8, 3)).astype("float32")
        y = 3 * rng.standard_normal((16, 6, 6, 4)).astype("float32")
        before = keras.ops.convert_to_numpy(layer.kernel)
        model.fit(x, y, epochs=3, verbose=0)
        after = keras.ops.convert_to_numpy(layer.kernel)
        assert np.any(after != before), "the kernel did not train"
        assert np.abs(after).max() <= H + 1e-6, np.abs(after).max()
        assert np.isclose(np.abs(after).max(), H), "the clip never bit: use a larger learning rate"
        model.save("binary.keras")
        loaded = keras.saving.load_model("binary.keras")
        np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
        print("ok")
        """)
    env = {**__import__("os").environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")
