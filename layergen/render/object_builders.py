"""The generated tests of a loss, constraint, initializer or regularizer: one builder per
check, the checks of each kind in `KIND_TESTS` (as `test_builders.py` does for layers).

Each builder takes the class's name; the module's `make_object`, `declared`, `SHAPE` and
`ARGS` (`_object_test.j2`) are what the tests run."""

from __future__ import annotations

from collections.abc import Callable

from .generated_tests import GeneratedTest, body

ObjectBuilder = Callable[[str], list[GeneratedTest]]


def config_round_trip(name: str) -> list[GeneratedTest]:
    lines = [
        "obj = make_object()",
        "config = obj.get_config()",
        "for name in ARGS:",
        '    message = f"get_config() does not return constructor argument {name!r}"',
        "    assert name in config, message",
        f"clone = support.from_config({name}, config)",
        "assert clone.get_config() == config",
    ]
    return [GeneratedTest("test_config_round_trip", body(*lines), "params")]


def serialization(name: str) -> list[GeneratedTest]:
    lines = [
        "obj = make_object()",
        "data = keras.saving.serialize_keras_object(obj)",
        "clone = keras.saving.deserialize_keras_object(data)",
        f"assert isinstance(clone, {name})",
        "assert clone.get_config() == obj.get_config()",
    ]
    return [GeneratedTest("test_serialization_finds_the_registered_class", body(*lines), "name")]


def _saved(kind: str, name: str) -> list[str]:
    """Save the model, load it, and find the object of `kind` on its Dense layer again."""
    return [
        'path = tmp_path / "model.keras"',
        "model.save(path)",
        "loaded = keras.saving.load_model(path)",
        f"{kind} = loaded.layers[-1].kernel_{kind}",
        f"assert isinstance({kind}, {name})",
        f"assert {kind}.get_config() == layer.kernel_{kind}.get_config()",
    ]


def loss(name: str) -> list[GeneratedTest]:
    formula = [
        "obj = make_object()",
        "y_true, y_pred = make_data()",
        "# Regression data too, its errors at every scale of the params: every branch runs.",
        "data = [(y_true, y_pred)] + [(y_true, y_true + e) for e in support.spread(SHAPE, ARGS)]",
        "checked = 0",
        "for y_true, y_pred in data:",
        "    expected = support.numpy(ops.mean(declared(y_true, y_pred, obj)))",
        "    if not np.isfinite(expected):",
        "        continue  # outside the loss's domain (a cross-entropy of negative numbers)",
        "    value = support.numpy(obj(y_true, y_pred))",
        "    assert value.shape == ()",
        "    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)",
        "    checked += 1",
        'assert checked, "the declared formula is finite on none of the data"',
    ]
    reduction = [
        "obj = make_object(reduction=reduction)",
        "y_true, y_pred = make_data()",
        "per_sample = support.numpy(declared(y_true, y_pred, obj))",
        'expected = per_sample if reduction == "none" else np.sum(per_sample)',
        "value = support.numpy(obj(y_true, y_pred))",
        "np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)",
    ]
    fit = [
        "inputs = keras.Input(shape=SHAPE[1:])",
        'outputs = keras.layers.Dense(SHAPE[-1], activation="softmax")(inputs)',
        "model = keras.Model(inputs, outputs)",
        "optimizer = keras.optimizers.SGD(learning_rate=0.1)",
        "model.compile(optimizer=optimizer, loss=make_object(), jit_compile=support.JIT_COMPILE)",
        "y_true, y_pred = make_data()",
        "before = [support.numpy(w) for w in model.trainable_weights]",
        "history = model.fit(y_pred, y_true, epochs=1, verbose=0)",
        'assert np.isfinite(history.history["loss"][0])',
        "for weight, old in zip(model.trainable_weights, before):",
        '    assert np.any(support.numpy(weight) != old), f"no gradient reaches weight {weight.path}"',
        'path = tmp_path / "model.keras"',
        "model.save(path)",
        "loaded = keras.saving.load_model(path)",
        "expected = model.predict(y_pred, verbose=0)",
        "np.testing.assert_allclose(loaded.predict(y_pred, verbose=0), expected, rtol=1e-6)",
        "assert np.isfinite(loaded.evaluate(y_pred, y_true, verbose=0))",
    ]
    reductions = 'pytest.mark.parametrize("reduction", ["none", "sum"])'
    return [
        GeneratedTest(
            "test_value_is_the_declared_formula_reduced_over_the_batch", body(*formula), "call"
        ),
        GeneratedTest("test_reduction", body(*reduction), "call", ("reduction",), (reductions,)),
        GeneratedTest("test_compile_fit_save_and_load", body(*fit), "call", ("tmp_path",)),
    ]


def constraint(name: str) -> list[GeneratedTest]:
    formula = [
        "obj = make_object()",
        "for w in support.spread(SHAPE, ARGS):  # at every scale of the params",
        "    w = ops.convert_to_tensor(w)  # a tensor, as Keras passes a constraint its weight",
        "    expected = support.numpy(declared(w, obj))",
        "    np.testing.assert_allclose(support.numpy(obj(w)), expected, rtol=1e-6, atol=1e-7)",
    ]
    fit = [
        "inputs = keras.Input(shape=SHAPE[:1])",
        "layer = keras.layers.Dense(SHAPE[-1], kernel_constraint=make_object())",
        "model = keras.Model(inputs, layer(inputs))",
        "optimizer = keras.optimizers.SGD(learning_rate=1.0)",
        'model.compile(optimizer=optimizer, loss="mse", jit_compile=support.JIT_COMPILE)',
        "rng = np.random.default_rng(1)",
        'x = rng.standard_normal((8, SHAPE[0])).astype("float32")',
        'y = 10 * rng.standard_normal((8, SHAPE[-1])).astype("float32")',
        "model.fit(x, y, epochs=2, verbose=0)",
        "kernel = support.numpy(layer.kernel)",
        "constrained = support.numpy(layer.kernel_constraint(layer.kernel.value))",
        "np.testing.assert_allclose(kernel, constrained, rtol=1e-6, atol=1e-6)",
        *_saved("constraint", name),
    ]
    return [
        GeneratedTest("test_value_is_the_declared_formula", body(*formula), "call"),
        GeneratedTest(
            "test_constrains_a_kernel_under_fit_and_survives_save_and_load",
            body(*fit),
            "call",
            ("tmp_path",),
        ),
    ]


def initializer(name: str) -> list[GeneratedTest]:
    shape = [
        'value = make_object()(SHAPE, dtype="float32")',
        "assert tuple(value.shape) == tuple(SHAPE)",
        'assert keras.backend.standardize_dtype(value.dtype) == "float32"',
        "assert np.all(np.isfinite(support.numpy(value)))",
    ]
    formula = [
        'value = support.numpy(make_object()(SHAPE, dtype="float32"))',
        'expected = support.numpy(declared(SHAPE, "float32", make_object()))',
        'again = support.numpy(declared(SHAPE, "float32", make_object()))',
        "if not np.array_equal(expected, again):",
        '    pytest.skip("the declared formula draws unseeded random numbers")',
        "np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-7)",
    ]
    saved = [
        "inputs = keras.Input(shape=SHAPE[:1])",
        "layer = keras.layers.Dense(SHAPE[-1], kernel_initializer=make_object())",
        "model = keras.Model(inputs, layer(inputs))",
        "assert tuple(layer.kernel.shape) == tuple(SHAPE)",
        *_saved("initializer", name),
        "np.testing.assert_array_equal(support.numpy(loaded.layers[-1].kernel), "
        "support.numpy(layer.kernel))",
    ]
    return [
        GeneratedTest("test_value_has_the_shape_and_dtype_asked_for", body(*shape), "call"),
        GeneratedTest("test_value_is_the_declared_formula", body(*formula), "call"),
        GeneratedTest(
            "test_initializes_a_kernel_and_survives_save_and_load",
            body(*saved),
            "call",
            ("tmp_path",),
        ),
    ]


def regularizer(name: str) -> list[GeneratedTest]:
    formula = [
        "obj = make_object()",
        "for x in support.spread(SHAPE, ARGS):  # at every scale of the params",
        "    x = ops.convert_to_tensor(x)",
        "    value = support.numpy(obj(x))",
        "    assert value.shape == ()",
        "    expected = support.numpy(declared(x, obj))",
        "    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)",
    ]
    saved = [
        "inputs = keras.Input(shape=SHAPE[:1])",
        "layer = keras.layers.Dense(SHAPE[-1], kernel_regularizer=make_object())",
        "model = keras.Model(inputs, layer(inputs))",
        'model(np.zeros((1, SHAPE[0]), "float32"))',
        "assert len(model.losses) == 1",
        "expected = support.numpy(make_object()(layer.kernel))",
        "np.testing.assert_allclose(support.numpy(model.losses[0]), expected, rtol=1e-5, atol=1e-6)",
        *_saved("regularizer", name),
    ]
    return [
        GeneratedTest("test_value_is_the_declared_formula", body(*formula), "call"),
        GeneratedTest(
            "test_adds_its_loss_in_a_layer_and_survives_save_and_load",
            body(*saved),
            "call",
            ("tmp_path",),
        ),
    ]


# The checks of each kind, in the order its module writes their tests.
KIND_TESTS: dict[str, tuple[ObjectBuilder, ...]] = {
    "loss": (config_round_trip, serialization, loss),
    "constraint": (config_round_trip, serialization, constraint),
    "initializer": (config_round_trip, serialization, initializer),
    "regularizer": (config_round_trip, serialization, regularizer),
}


def build_object_tests(kind: str, name: str) -> list[GeneratedTest]:
    """Every generated test of an object of `kind`, but its ops' (`test_builders.op_test`)."""
    return [test for build in KIND_TESTS[kind] for test in build(name)]
