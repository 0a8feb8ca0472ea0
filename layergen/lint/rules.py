"""The rules of `layergen check`: code, severity, one line, and the example `--explain` shows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str  # error: breaks saving, loading, training or a backend; warning: breaks a setting or a habit
    summary: str
    why: str
    bad: str
    good: str
    fixable: bool = False
    # On unless --select or `select` says otherwise: the rules whose findings are bugs,
    # at 90% precision or more on real code (benchmarks/check_corpus.py).
    default: bool = True
    keras3_only: bool = False  # not run on Keras 2 classes (checks.check_class)

    def explain(self) -> str:
        fix = "`layergen check --fix` rewrites it." if self.fixable else "Not fixed automatically."
        if not self.default:
            fix += " Off by default: turn it on with `--select`."
        return (
            f"{self.code} ({self.severity}): {self.summary}\n\n{self.why}\n\n{fix}\n\n"
            f"Flagged:\n\n{_indent(self.bad)}\nInstead:\n\n{_indent(self.good)}"
        )


def _indent(code: str) -> str:
    return "".join(f"    {line}\n" if line else "\n" for line in code.strip("\n").splitlines())


RULES = {
    r.code: r
    for r in [
        Rule(
            "init-kwargs",
            "error",
            "`__init__` drops `name`, `dtype` and the other base arguments",
            "A constructor without `**kwargs` passed on to `super().__init__` cannot take `name=`, `dtype=` or\n"
            "`trainable=`, so mixed precision cannot be set and `from_config` fails on the keys the base config holds.",
            "class Scale(keras.layers.Layer):\n    def __init__(self, factor):\n        super().__init__()\n        self.factor = factor",
            "class Scale(keras.layers.Layer):\n    def __init__(self, factor, **kwargs):\n        super().__init__(**kwargs)\n        self.factor = factor",
            fixable=True,
        ),
        Rule(
            "config-missing",
            "error",
            "`get_config` leaves out a constructor argument",
            "`from_config` rebuilds the object from `get_config()`: an argument missing there comes back as its default\n"
            "after `load_model` (or fails when it has none). A subclass that adds arguments must extend its parent's\n"
            "`get_config`.",
            'def __init__(self, factor=2.0, shift=1.0, **kwargs): ...\n\ndef get_config(self):\n    return {**super().get_config(), "factor": self.factor}',
            'def get_config(self):\n    return {**super().get_config(), "factor": self.factor, "shift": self.shift}',
            fixable=True,
        ),
        Rule(
            "config-missing-initializer",
            "warning",
            "`get_config` leaves out an argument that only sets a weight's starting value",
            "An argument the code uses only as a weight's initializer (`add_weight(initializer=...)`, a sublayer's\n"
            "`kernel_initializer=`, directly or through `initializers.Constant(...)`) never shows after `load_model`:\n"
            "the weights come from the file. A layer rebuilt from its config alone (`clone_model`, a model built\n"
            "from a saved config) starts from the default instead. `config-missing` reports it when another\n"
            "argument is missing too.",
            "def __init__(self, init_value=1e-6, **kwargs):\n    ...\n    self.gamma_init = keras.initializers.Constant(init_value)\n\n"
            "def get_config(self):\n    return super().get_config()",
            'def get_config(self):\n    return {**super().get_config(), "init_value": self.init_value}',
            fixable=True,
            default=False,
        ),
        Rule(
            "sublayer-dtype",
            "warning",
            "a sublayer is created without `dtype=self.dtype_policy`",
            "Without the outer layer's dtype policy a sublayer computes in float32 under mixed precision: outputs stay\n"
            "float32 and ops that mix dtypes (attention, residual adds) fail.",
            "self.dense = keras.layers.Dense(units)",
            "self.dense = keras.layers.Dense(units, dtype=self.dtype_policy)",
            fixable=True,
            default=False,
            keras3_only=True,
        ),
        Rule(
            "weight-in-call",
            "error",
            "a weight is created in `call`",
            "`call` runs at every step and under tracing: a weight made there is made again each time (or fails in a\n"
            "compiled function) and never reaches the optimizer or the saved file. Create it in `build`.",
            "def call(self, x):\n    self.w = self.add_weight(shape=(x.shape[-1],))\n    return x * self.w",
            "def build(self, input_shape):\n    self.w = self.add_weight(shape=(input_shape[-1],))\n\ndef call(self, x):\n    return x * self.w",
        ),
        Rule(
            "weight-in-init",
            "warning",
            "a weight is created in `__init__` with a shape that does not come from the arguments",
            "In `__init__` the input is not known yet, so a hard-coded size is a guess that breaks on other inputs.\n"
            "Create the weight in `build(input_shape)` from `input_shape[-1]`.",
            "def __init__(self, units, **kwargs):\n    super().__init__(**kwargs)\n    self.w = self.add_weight(shape=(784, units))",
            "def build(self, input_shape):\n    self.w = self.add_weight(shape=(input_shape[-1], self.units))",
            default=False,
        ),
        Rule(
            "untracked-variable",
            "error",
            "state kept in a TensorFlow or NumPy variable instead of `add_weight`",
            "`tf.Variable`, `K.variable` and NumPy arrays are not Keras variables: they are not trained, not saved, and\n"
            "do not exist on JAX or torch. `self.add_weight(...)` makes a tracked, saved, backend-neutral weight.",
            "self.b = tf.Variable(tf.zeros([units]), trainable=True)",
            'self.b = self.add_weight(shape=(units,), initializer="zeros")',
            keras3_only=True,
        ),
        Rule(
            "unregistered",
            "warning",
            "the class is not registered, so `load_model` cannot find it",
            "A saved `.keras` file names the class; loading it without `custom_objects` needs\n"
            "`@keras.saving.register_keras_serializable()` (or a project decorator that wraps it: set\n"
            "`registration-decorators` under [tool.layergen.check]).",
            "class Scale(keras.layers.Layer): ...",
            '@keras.saving.register_keras_serializable(package="my_layers")\nclass Scale(keras.layers.Layer): ...',
            fixable=True,
            default=False,
            keras3_only=True,
        ),
        Rule(
            "numpy-in-call",
            "error",
            "NumPy on a tensor in `call`",
            "In `call` the inputs are symbolic or traced tensors (functional models, `jit_compile`, JAX, torch.compile):\n"
            "NumPy cannot read them, and `.numpy()` works only eagerly. Use `keras.ops`.",
            "def call(self, x):\n    return x / np.linalg.norm(x)",
            "def call(self, x):\n    return x / ops.norm(x)",
            default=False,
        ),
        Rule(
            "backend-op-in-call",
            "error",
            "a TensorFlow op (or a TensorFlow-only `keras.backend` function) in a Keras 3 layer's `call`",
            "Keras 3 layers run on TensorFlow, JAX and torch: `tf.*` and the legacy `keras.backend` functions (`K.dot`,\n"
            "`K.random_binomial`, ...) work on TensorFlow only. Use `keras.ops` and `keras.random`.",
            "def call(self, x):\n    return tf.matmul(x, self.kernel)",
            "def call(self, x):\n    return ops.matmul(x, self.kernel)",
            default=False,
            keras3_only=True,
        ),
        Rule(
            "unused-weight",
            "error",
            "a trainable weight is never read, so it gets no gradient",
            "A weight the forward pass never reads stays at its initial value: the optimizer gets no gradient for it\n"
            "(and some backends warn or fail on it). Use it in `call`, or create it with `trainable=False`.",
            "def build(self, input_shape):\n    self.kernel = self.add_weight(shape=(input_shape[-1], self.units))\n    self.bias = self.add_weight(shape=(self.units,))\n\ndef call(self, x):\n    return ops.matmul(x, self.kernel)",
            "def call(self, x):\n    return ops.matmul(x, self.kernel) + self.bias",
        ),
        Rule(
            "training-not-passed",
            "warning",
            "`training` is not passed to a sublayer that behaves differently in training",
            "Dropout, BatchNormalization, noise and augmentation layers (and layers of this project whose `call` takes\n"
            "`training`) need the flag. Keras 3 fills it in from the outer call only when the outer layer is itself\n"
            "called as a layer; passing it on is what Keras's own layers do and keeps `call` correct when it is called\n"
            "directly (a subclass, a custom train step).",
            "def call(self, x, training=None):\n    return self.dropout(self.dense(x))",
            "def call(self, x, training=None):\n    return self.dropout(self.dense(x), training=training)",
            fixable=True,
            default=False,
        ),
        Rule(
            "python-if-on-tensor",
            "error",
            "Python `if`/`while` on a tensor in `call`",
            "A Python condition needs a concrete boolean: on a symbolic or traced tensor it fails (functional models,\n"
            "`jit_compile`, JAX) or is decided once at trace time. Use `ops.where` or `ops.cond`; conditions on\n"
            "shapes, `training` or `is None` are fine.",
            "def call(self, x):\n    if ops.max(x) > 1.0:\n        x = x / ops.max(x)\n    return x",
            "def call(self, x):\n    return ops.where(ops.max(x) > 1.0, x / ops.max(x), x)",
            default=False,
            keras3_only=True,
        ),
        Rule(
            "state-rebound",
            "error",
            "a weight is replaced with `=` in `call` instead of updated with `assign`",
            "`self.w = ...` in `call` replaces the variable with a tensor: the weight is no longer tracked or saved, and\n"
            "under tracing the tensor leaks out of the function. Update state with `self.w.assign(...)`.",
            "def call(self, x, training=None):\n    if training:\n        self.count = self.count + 1\n    return x",
            "def call(self, x, training=None):\n    if training:\n        self.count.assign(self.count + 1)\n    return x",
        ),
        Rule(
            "unbuilt-sublayer",
            "error",
            "a sublayer with weights is not built in `build`, and `compute_output_shape` is defined",
            "`load_model` builds each layer from its saved input shape, then loads the weights. A layer that defines\n"
            "`compute_output_shape` is not run on the way, so a sublayer its `build` leaves alone has no variables yet\n"
            "and loading fails (\"Layer 'dense' was never built\"). Keras warns about it at load time.",
            "def __init__(self, units, **kwargs):\n    super().__init__(**kwargs)\n    self.dense = keras.layers.Dense(units, dtype=self.dtype_policy)\n\n"
            "def call(self, x):\n    return self.dense(x)\n\ndef compute_output_shape(self, input_shape):\n    return (*input_shape[:-1], self.units)",
            "def build(self, input_shape):\n    self.dense.build(input_shape)",
            keras3_only=True,
        ),
        Rule(
            "forwarded-value",
            "error",
            "an argument is passed on to `super().__init__` under another value",
            "The parent's `get_config` saves the value it was given, not the argument: `from_config` then builds\n"
            "the object with that value in the argument's place, and a reloaded layer behaves differently (a\n"
            '`padding="symmetric"` passed on as `"valid"` comes back as `"valid"`).',
            'def __init__(self, filters, padding="symmetric", **kwargs):\n    super().__init__(filters, 3, padding="valid", **kwargs)\n    self.mode = padding',
            'def get_config(self):\n    return {**super().get_config(), "padding": self.mode}',
            default=False,
        ),
        Rule(
            "config-key-mismatch",
            "error",
            "`from_config` reads a key `get_config` never writes",
            'A key read without a default (`config["k"]`, `config.pop("k")`) that no `get_config` of the class\n'
            "(nor the `super().get_config()` it reaches) writes raises KeyError on every reload.",
            'def get_config(self):\n    return {**super().get_config(), "hashing_config": ...}\n\n'
            '@classmethod\ndef from_config(cls, config):\n    hashing = Hashing.from_config(config.pop("hash_config"))',
            '    hashing = Hashing.from_config(config.pop("hashing_config"))',
            default=False,
        ),
        Rule(
            "python-syntax",
            "error",
            "the file is not valid Python",
            "A file that mentions Keras must parse for its classes to be checked. The other files are checked all\n"
            "the same; this finding is reported whatever `--select` says.",
            "class Scale(keras.layers.Layer:\n    ...",
            "class Scale(keras.layers.Layer):\n    ...",
        ),
    ]
}
DEFAULT_RULES = frozenset(code for code, rule in RULES.items() if rule.default)
KERAS3_ONLY = frozenset(code for code, rule in RULES.items() if rule.keras3_only)
