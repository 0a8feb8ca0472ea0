"""The rules of `layergen/lint/rules/` on the round-two corpus (issue 37, benchmarks/check_corpus_round2.md):
each false-positive pattern found there, rebuilt as a small synthetic project and run
through `check_files` as a whole-project run would. Each test failed before its fix."""

from __future__ import annotations

import textwrap
from pathlib import Path

from layergen.lint.engine import check_files
from layergen.lint.rules import DEFAULT_RULES
from layergen.lint.settings import CheckSettings


def check(
    root: Path, files: dict[str, str], select: frozenset[str] = DEFAULT_RULES
) -> list[tuple[str, str, str]]:
    """Write `files` under `root` and check them together: [(file, rule, message)]."""
    paths = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        paths.append(path)
    report = check_files(paths, CheckSettings(root=root, select=select))
    assert not report.errors
    return sorted(
        (path.relative_to(root).as_posix(), f.code, f.message)
        for path, found in report.findings.items()
        for f in found
    )


def rules(root: Path, files: dict[str, str], **kwargs) -> list[str]:
    return [code for _, code, _ in check(root, files, **kwargs)]


# --- A: a Keras base class with no get_config of its own --------------------------------

RNN_CELL = """
    import tensorflow as tf

    class Cell(tf.keras.layers.AbstractRNNCell):
        def __init__(self, units, mode="default", **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.mode = mode

        @property
        def state_size(self):
            return self.units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units))

        def call(self, inputs, states):
            y = tf.matmul(inputs, self.kernel)
            y = tf.tanh(y) if self.mode == "pure" else y
            return y, [y]
    """


def test_a_keras_base_without_get_config_auto_configs_like_the_bare_layer(tmp_path):
    # AbstractRNNCell (Keras 2) defines no get_config: Layer's auto-config saves `units`
    # and `mode` (run on tf_keras 2.21: Cell(8, mode="pure") comes back "pure").
    assert rules(tmp_path, {"cell.py": RNN_CELL}) == []
    # Keras 3's ELU and Identity have none either.
    elu = """
        import keras

        class Leaky(keras.layers.ELU):
            def __init__(self, alpha=1.0, floor=0.0, **kwargs):
                super().__init__(alpha=alpha, **kwargs)
                self.floor = floor

            def call(self, x):
                return keras.ops.maximum(super().call(x), self.floor)
        """
    assert rules(tmp_path, {"leaky.py": elu}) == []


def test_a_keras_base_with_a_get_config_of_its_own_still_loses_the_argument(tmp_path):
    dense = """
        import keras

        class Scaled(keras.layers.Dense):
            def __init__(self, units, scale=1.0, **kwargs):
                super().__init__(units, **kwargs)
                self.scale = scale

            def call(self, x):
                return super().call(x) * self.scale
        """
    assert rules(tmp_path, {"scaled.py": dense}) == ["config-missing"]


# --- B: an argument kept as a weight, its shape saved under a key **kwargs gives back ----

TABLE = """
    import keras

    class Table(keras.layers.Layer):
        def __init__(self, values=None, **kwargs):
            shape = kwargs.pop("values_shape", None)
            super().__init__(**kwargs)
            if values is not None:
                shape = (len(values),)
                initializer = keras.initializers.Constant(values)
            else:
                initializer = "zeros"
            self.table = self.add_weight(shape=shape, initializer=initializer, trainable=False)

        def get_config(self):
            return {"values_shape": tuple(self.table.shape), **super().get_config()}

        def call(self, indices):
            return keras.ops.take(self.table, indices)
    """


def test_an_argument_restored_through_a_key_kwargs_reads_back_is_not_missing(tmp_path):
    # A .keras save and load of Table(values=[1.0, 2.0, 3.0]) gives the same lookups.
    assert rules(tmp_path, {"table.py": TABLE}) == []


def test_a_key_kwargs_reads_back_does_not_cover_another_argument(tmp_path):
    other = (
        TABLE.replace("values=None, **kwargs", "values=None, scale=2.0, **kwargs")
        .replace(
            "return keras.ops.take(self.table, indices)",
            "return keras.ops.take(self.table, indices) * self.scale",
        )
        .replace("trainable=False)\n", "trainable=False)\n            self.scale = scale\n")
    )
    found = check(tmp_path, {"table.py": other})
    assert [(code, "`scale`" in message, "`values`" in message) for _, code, message in found] == [
        ("config-missing", True, False)
    ]


# --- C: from_config fills an argument in by assigning into the config dict ---------------

WRAPPED = """
    import keras

    class Wrapped(keras.layers.Layer):
        def __init__(self, spec, optimizer, **kwargs):
            super().__init__(**kwargs)
            if spec is not None:
                self.inner = keras.layers.Dense(spec["units"])
            self.optimizer = optimizer

        def get_config(self):
            config = super().get_config()
            config.update({"inner": keras.saving.serialize_keras_object(self.inner)})
            return config

        @classmethod
        def from_config(cls, config):
            inner = keras.saving.deserialize_keras_object(config.pop("inner"))
            FILL
            layer = cls(**config)
            layer.inner = inner
            return layer

        def call(self, x):
            return self.inner(x)
    """


def test_arguments_from_config_writes_into_the_config_it_passes_are_rebuilt(tmp_path):
    for fill in [
        'config["spec"] = None; config["optimizer"] = None',
        "config.update(spec=None, optimizer=None)",
        'config.update({"spec": None}); config.setdefault("optimizer", None)',
    ]:
        code = WRAPPED.replace("FILL", fill)
        assert rules(tmp_path, {"wrapped.py": code}) == [], fill


def test_an_argument_from_config_does_not_fill_in_is_still_missing(tmp_path):
    code = WRAPPED.replace("FILL", 'config["spec"] = None')
    found = check(tmp_path, {"wrapped.py": code})
    assert [(code, "`optimizer`" in m, "`spec`" in m) for _, code, m in found] == [
        ("config-missing", True, False)
    ]


# --- D: a regularizer with no get_config: the base raises, so saving fails loudly -------

PENALTY = """
    import keras

    class KLPenalty(BASE):
        def __init__(self, prior, weight=1.0):
            self.prior = prior  # a distribution object: no config can hold it
            self.weight = weight

        def __call__(self, x):
            return self.weight * keras.ops.sum(self.prior(x))
    """


def test_a_regularizer_without_get_config_is_not_silent(tmp_path):
    # Saving a model that uses it raises NotImplementedError naming the class.
    code = PENALTY.replace("BASE", "keras.regularizers.Regularizer")
    assert rules(tmp_path, {"penalty.py": code}) == []


def test_initializers_and_regularizers_with_a_config_of_their_own_still_lose_arguments(tmp_path):
    # An initializer's base get_config returns {} (Keras's own Identity(gain=...) is one);
    # a subclass of L2 inherits L2's, which saves only `l2`.
    for base in ["keras.initializers.Initializer", "keras.regularizers.L2"]:
        code = PENALTY.replace("BASE", base)
        assert rules(tmp_path, {"penalty.py": code}) == ["config-missing"], base


# --- H: a **kwargs that swallows the `reduction` a loss fixes on purpose ----------------

MARGIN = """
    import tensorflow as tf

    class MarginLoss(tf.keras.losses.Loss):
        def __init__(self, margin=1.0, name=None, **kwargs):
            # the loss is per example by design: the config's `reduction` is swallowed
            super().__init__(name=name, reduction=tf.keras.losses.Reduction.NONE)
            self.margin = margin

        def call(self, y_true, y_pred):
            return tf.maximum(0.0, self.margin - y_true * y_pred)

        def get_config(self):
            return {**super().get_config(), "margin": self.margin}
    """


def test_kwargs_dropped_by_a_call_that_passes_every_base_argument_is_no_finding(tmp_path):
    # tf_keras 2.21: MarginLoss.from_config(MarginLoss(margin=2.0, name="m").get_config())
    # works; passing **kwargs on makes it raise "multiple values for 'reduction'".
    assert rules(tmp_path, {"margin.py": MARGIN}) == []
    # Keras 3: a loss's config holds `dtype` too, and this call passes it.
    keras3 = (
        MARGIN.replace("import tensorflow as tf", "import keras\n    import tensorflow as tf")
        .replace("tf.keras.losses.Loss", "keras.losses.Loss")
        .replace("reduction=tf.keras.losses.Reduction.NONE", 'reduction="none", dtype=None')
    )
    assert rules(tmp_path, {"margin.py": keras3}) == []


def test_fix_never_adds_kwargs_to_a_call_that_names_a_config_key(tmp_path):
    # Keras 3: `dtype` is dropped (a finding), but `**kwargs` beside `reduction="none"`
    # would pass the config's `reduction` twice: no fix.
    from helpers import layergen_in_process

    keras3 = (
        MARGIN.replace("import tensorflow as tf", "import keras\n    import tensorflow as tf")
        .replace("tf.keras.losses.Loss", "keras.losses.Loss")
        .replace("reduction=tf.keras.losses.Reduction.NONE", 'reduction="none"')
    )
    assert rules(tmp_path, {"margin.py": keras3}) == ["init-kwargs"]
    before = (tmp_path / "margin.py").read_text()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    result = layergen_in_process("check", "--fix", "--select", "init-kwargs", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert (tmp_path / "margin.py").read_text() == before


# --- G: a project folder whose name has a dot -------------------------------------------

BASE = """
    import keras

    class Base(keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def get_config(self):
            return {**super().get_config(), "units": self.units}
    """
SCALED = """
    from .base import Base

    class Scaled(Base):
        def __init__(self, units, scale=1.0, **kwargs):
            super().__init__(units, **kwargs)
            self.scale = scale

        def call(self, x):
            return x * self.scale
    """


def test_a_relative_import_resolves_under_a_dotted_folder(tmp_path):
    for folder in ["proj", "proj-1.0", "proj_1.0", "repo.v2/src"]:
        found = check(
            tmp_path / folder, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/scaled.py": SCALED}
        )
        assert [(f, code) for f, code, _ in found] == [("pkg/scaled.py", "config-missing")], folder


def test_a_torch_module_base_under_a_dotted_folder_is_not_a_keras_layer(tmp_path):
    # sionna 2.2 (pure PyTorch) gave 7 init-kwargs findings checked as `sionna-2.2.0/`.
    files = {
        "sionna/__init__.py": "",
        "sionna/object.py": """
            import torch

            class Object(torch.nn.Module):
                def __init__(self, precision=None, **kwargs):
                    super().__init__()
                    self.precision = precision
            """,
        "sionna/block.py": """
            from .object import Object

            class Block(Object):
                def __init__(self, precision=None, **kwargs):
                    super().__init__(precision=precision)

                def build(self, *shapes):
                    pass

                def call(self, *args, **kwargs):
                    raise NotImplementedError
            """,
    }
    assert check(tmp_path / "sionna-2.2.0", files) == []


# --- F: an argument that only makes a weight's starting value ----------------------------

BIAS = """
    import keras

    class BiasLayer(keras.layers.Layer):
        def __init__(self, axis=-1, initializer="zeros", **kwargs):
            super().__init__(**kwargs)
            self.axis, self.initializer = axis, initializer

        def build(self, input_shape):
            self.bb = self.add_weight(shape=(input_shape[-1],), initializer=self.initializer)

        def call(self, inputs):
            return inputs + self.bb

        def get_config(self):
            config = super().get_config()
            config.update({"axis": self.axis})  # Not saving initializer in config
            return config
    """
AFFINE = """
    import keras
    from keras import initializers

    class ChannelAffine(keras.layers.Layer):
        def __init__(self, weight_init_value=1, start=0.0, units=4, **kwargs):
            super().__init__(**kwargs)
            if isinstance(weight_init_value, (int, float)):
                self.ww_init = initializers.Constant(weight_init_value)
            else:
                self.ww_init = weight_init_value
            self.start = start
            self.dense = keras.layers.Dense(units, bias_initializer=initializers.Constant(start))

        def build(self, input_shape):
            init = self.ww_init
            self.ww = self.add_weight(shape=(input_shape[-1],), initializer=init)

        def call(self, inputs):
            return self.dense(inputs * self.ww)

        def get_config(self):
            return {**super().get_config(), "units": self.dense.units}
    """
INITIALIZER_RULE = DEFAULT_RULES | {"config-missing-initializer"}


def test_an_initializer_left_out_is_not_a_default_finding(tmp_path):
    # A loaded model takes its weights from the file: the initializer never shows.
    for name, code in [("bias.py", BIAS), ("affine.py", AFFINE)]:
        assert rules(tmp_path, {name: code}) == [], name
        found = check(tmp_path, {name: code}, select=INITIALIZER_RULE)
        assert [code for _, code, _ in found] == ["config-missing-initializer"], name
    assert "`weight_init_value`, `start`" in found[0][2]


def test_an_argument_used_for_more_than_a_starting_value_is_still_config_missing(tmp_path):
    uses = {
        # read in `call` as well
        "scale": BIAS.replace(
            "return inputs + self.bb", "return inputs + self.bb * self.initializer"
        ),
        # gives the weight its shape
        "shape": BIAS.replace("shape=(input_shape[-1],)", "shape=self.initializer"),
        # passed where Keras takes a regularizer
        "regularizer": BIAS.replace(
            "initializer=self.initializer)", "regularizer=self.initializer)"
        ),
    }
    for use, code in uses.items():
        found = check(tmp_path, {"bias.py": code}, select=INITIALIZER_RULE)
        assert [code for _, code, _ in found] == ["config-missing"], use
    # With another argument missing too, the finding stays the default rule's, whole.
    both = BIAS.replace('initializer="zeros", **kwargs', 'initializer="zeros", gain=1.0, **kwargs')
    both = both.replace(
        "self.axis, self.initializer = axis, initializer",
        "self.axis, self.initializer, self.gain = axis, initializer, gain",
    )
    both = both.replace("return inputs + self.bb", "return inputs + self.bb * self.gain")
    found = check(tmp_path, {"bias.py": both}, select=INITIALIZER_RULE)
    assert [(code, "`initializer`, `gain`" in m) for _, code, m in found] == [
        ("config-missing", True)
    ]


def test_the_initializer_rule_is_opt_in_and_explained():
    from layergen.lint.rules import RULES

    rule = RULES["config-missing-initializer"]
    assert not rule.default and rule.fixable
    assert "clone_model" in rule.explain()


# --- forwarded-value: the subclass sets the attribute the parent's get_config reads -------

FORWARDED = """
    import keras

    class Base(keras.layers.Layer):
        def __init__(self, activation=None, **kwargs):
            super().__init__(**kwargs)
            self.activation = keras.activations.get(activation)

        def get_config(self):
            CONFIG
            return {**super().get_config(), **config}

    class Child(Base):
        def __init__(self, units, activation="relu", **kwargs):
            super().__init__(activation=None, **kwargs)
            self.units = units
            SET

        def get_config(self):
            return {**super().get_config(), "units": self.units}

        def call(self, x):
            return self.activation(x)
    """
SET_AFTER = "self.activation = keras.activations.get(activation)  # set after the parent's"
EXPLICIT = 'config = {"activation": keras.activations.serialize(self.activation)}'
# spektral's MessagePassing: `getattr(self, key)` for each of its keyword arguments
BY_NAME = 'config = {k: getattr(self, k) for k in ["activation"]}'
FORWARDED_RULE = frozenset({"forwarded-value"})


def test_a_forwarded_value_the_subclass_overwrites_is_saved_as_the_argument(tmp_path):
    # Running it: Child(3, activation="tanh") round-trips as tanh.
    for config in [EXPLICIT, BY_NAME]:
        code = FORWARDED.replace("CONFIG", config).replace("SET", SET_AFTER)
        assert rules(tmp_path, {"child.py": code}, select=FORWARDED_RULE) == [], config


def test_a_forwarded_value_kept_elsewhere_is_still_reported(tmp_path):
    kept = "self.mode = activation"  # another attribute: the parent saves None
    for config in [EXPLICIT, BY_NAME]:
        code = FORWARDED.replace("CONFIG", config).replace("SET", kept)
        assert rules(tmp_path, {"child.py": code}, select=FORWARDED_RULE) == [
            "forwarded-value"
        ], config


def test_a_key_from_config_converts_in_place_is_not_rebuilt(tmp_path):
    # qkeras's Clip: `config["constraint"] = constraints.get(config.get("constraint"))`
    # converts what the config saved; get_config never saves it, so it is lost.
    clip = """
        import keras

        class Clip(keras.constraints.Constraint):
            def __init__(self, max_value=1.0, constraint=None):
                self.max_value = max_value
                self.constraint = keras.constraints.get(constraint)

            def __call__(self, w):
                w = self.constraint(w) if self.constraint else w
                return keras.ops.clip(w, -self.max_value, self.max_value)

            def get_config(self):
                return {"max_value": self.max_value}

            @classmethod
            def from_config(cls, config):
                config["constraint"] = keras.constraints.get(config.get("constraint", None))
                return cls(**config)
        """
    found = check(tmp_path, {"clip.py": clip})
    assert [(code, "`constraint`" in m) for _, code, m in found] == [("config-missing", True)]
