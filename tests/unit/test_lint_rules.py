"""The rules of `layergen/lint/rules/` on the round-two corpus
(benchmarks/check_corpus_round2.md): each false-positive pattern found there, rebuilt as a
small synthetic project and run through `check_files` as a whole-project run would. Each
test failed before its fix.

The patterns that are one file and its findings alone (A, D, H, the forwarded values, and
more of B, C and F) are data in tests/fixtures/lint_rules/ (test_lint_rule_fixtures.py);
the tests here check what a finding says, or a project of several files."""

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


def test_an_argument_from_config_does_not_fill_in_is_still_missing(tmp_path):
    code = WRAPPED.replace("FILL", 'config["spec"] = None')
    found = check(tmp_path, {"wrapped.py": code})
    assert [(code, "`optimizer`" in m, "`spec`" in m) for _, code, m in found] == [
        ("config-missing", True, False)
    ]


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
    # A loaded model takes its weights from the file: the initializer never shows. (BIAS
    # is a fixture: config-missing-initializer/initializer_argument_left_out_with_a_sublayer.py)
    assert rules(tmp_path, {"affine.py": AFFINE}) == []
    found = check(tmp_path, {"affine.py": AFFINE}, select=INITIALIZER_RULE)
    assert [code for _, code, _ in found] == ["config-missing-initializer"]
    assert "`weight_init_value`, `start`" in found[0][2]


def test_an_argument_used_for_more_than_a_starting_value_is_still_config_missing(tmp_path):
    # An argument read in `call`, giving the weight its shape or passed as a regularizer:
    # fixtures in config-missing/initializer_argument_*.py.
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


# --- a functional model's input tensor, which no config can hold ------------------------

INPUT_TENSOR_MODEL = """
    import keras

    class Backbone(keras.Model):
        def __init__(self, input_shape=None, input_tensor=None, width=8, **kwargs):
            inputs = keras.Input(input_shape) if input_tensor is None else input_tensor
            super().__init__(inputs=inputs, outputs=keras.layers.Dense(width)(inputs), **kwargs)
            self.given_shape = input_shape
            self.input_tensor = input_tensor
            self.width = width

        def get_config(self):
            return {**super().get_config(), "input_shape": self.given_shape, "width": self.width}
    """


def hints(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip())
    report = check_files([root / n for n in files], CheckSettings(root=root))
    assert not report.errors
    return [f.hint for found in report.findings.values() for f in found]


def test_the_hint_for_an_input_tensor_says_to_save_the_built_input_shape(tmp_path):
    (hint,) = hints(tmp_path, {"backbone.py": INPUT_TENSOR_MODEL})
    assert '"input_tensor"' not in hint  # a Keras tensor: no config can hold it
    assert '"input_shape": self.input_shape[1:]' in hint
    assert "keras.Input" in hint


def test_the_hint_for_an_input_tensor_still_lists_the_other_arguments(tmp_path):
    text = INPUT_TENSOR_MODEL.replace("width=8,", "width=8, scale=2.0,").replace(
        "self.width = width", "self.width = width; self.scale = scale"
    )
    (hint,) = hints(tmp_path, {"backbone.py": text})
    assert hint.startswith('add "scale": self.scale to the config')
    assert '"input_tensor"' not in hint and '"input_shape": self.input_shape[1:]' in hint
