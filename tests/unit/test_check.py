"""`layergen check`: each rule on code that has its bug and on near-misses that must stay
silent, `--fix` and `--diff`, settings, ignore comments, exit codes, and layergen's own
generated code (which must be clean)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from layergen.init import PROBLEM_REGEXP
from layergen.lint.engine import check_files, python_files
from layergen.lint.fixes import apply_fixes
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

from helpers import HANDWRITTEN, OWN_EXAMPLES, REPO, layergen, layergen_in_process, make_project

HEADER = (
    "import keras\nimport numpy as np\nimport tensorflow as tf\nfrom keras import layers, ops\n\n\n"
)


def findings(
    code: str,
    tmp_path: Path,
    name: str = "mod.py",
    settings: CheckSettings | None = None,
    extra=None,
):
    """[(code, line)] for a module holding HEADER + code."""
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(code))
    paths = [path]
    for other_name, other in (extra or {}).items():
        (tmp_path / other_name).write_text(textwrap.dedent(other))
        paths.append(tmp_path / other_name)
    report = check_files(paths, settings or CheckSettings(root=tmp_path, select=frozenset(RULES)))
    assert not report.errors
    return [(f.code, f.line - HEADER.count("\n")) for f in report.findings.get(path, [])]


def codes(code: str, tmp_path: Path, **kwargs) -> set[str]:
    return {c for c, _ in findings(code, tmp_path, **kwargs)}


REG = '@keras.saving.register_keras_serializable(package="t")\n'

# A project's preprocessing layers (their base is not read): they may use TensorFlow, and
# keep their own dtype when they are sublayers.
PREPROCESSING_LAYERS = (
    "from hub.layers import PreprocessingLayer\n\n"
    + REG
    + "class Splitter(PreprocessingLayer):\n    def call(self, x):\n        return tf.strings.split(x)\n"
    "    def get_config(self):\n        return super().get_config()\n"
    + REG
    + "class Encoder(PreprocessingLayer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
    "        self.splitter = Splitter()\n    def call(self, x):\n        return self.splitter(x)\n"
    "    def get_config(self):\n        return super().get_config()\n"
)

# (rule, code with the bug, near-misses that must not trigger it)
CASES = {
    "init-kwargs": (
        REG
        + "class A(keras.layers.Layer):\n    def __init__(self, f=1.0):\n        super().__init__()\n        self.f = f\n"
        "    def get_config(self):\n        return {**super().get_config(), 'f': self.f}\n",
        [
            REG
            + "class A(keras.layers.Layer):\n    def __init__(self, f=1.0, **kw):\n        super(A, self).__init__(**kw)\n        self.f = f\n",
            REG
            + "class A(keras.layers.Layer):\n    def __init__(self, name=None, dtype=None):\n        super().__init__(name=name, dtype=dtype)\n",
            REG
            + "class A(keras.layers.Layer):\n    def __init__(self, **kwargs):\n        kwargs.pop('x', None)\n        super().__init__(name=kwargs.get('name'))\n",
        ],
    ),
    "config-missing": (
        REG
        + "class A(layers.Layer):\n    def __init__(self, f=1.0, shift=0.0, **kwargs):\n        super().__init__(**kwargs)\n"
        "        self.f = f\n        self.shift = shift\n    def get_config(self):\n        config = super().get_config()\n"
        "        config.update({'f': self.f})\n        return config\n",
        [
            REG
            + "class A(layers.Layer):\n    def __init__(self, f=1.0, shift=0.0, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.f = f\n        self.shift = shift\n    def get_config(self):\n        base = super().get_config()\n"
            "        config = {'f': self.f}\n        config['shift'] = self.shift\n        return dict(list(base.items()) + list(config.items()))\n",
            REG
            + "class A(layers.Layer):\n    def __init__(self, f=1.0, **kwargs):\n        super().__init__(**kwargs)\n        self.f = f\n",  # auto config
            REG
            + "class A(layers.Layer):\n    def __init__(self, f=1.0, **kwargs):\n        super().__init__(**kwargs)\n        self.f = f\n"
            "    def get_config(self):\n        return dict(super().get_config(), f=self.f)\n",
            REG
            + "class A(layers.Layer):\n    def __init__(self, f=1.0, **kwargs):\n        super().__init__(**kwargs)\n        self.f = f\n"
            "    def get_config(self):\n        return {**super().get_config(), **self._extra()}\n",  # cannot follow: silent
            REG
            + "class A(layers.Dense):\n    def __init__(self, units, **kwargs):\n        super().__init__(units, **kwargs)\n",
        ],
    ),
    "config-missing-initializer": (
        REG
        + "class A(layers.Layer):\n    def __init__(self, init=1.0, **kwargs):\n        super().__init__(**kwargs)\n"
        "        self.init = init\n    def build(self, shape):\n"
        "        self.w = self.add_weight(shape=(), initializer=keras.initializers.Constant(self.init))\n"
        "    def call(self, x):\n        return x * self.w\n    def get_config(self):\n        return super().get_config()\n",
        [
            REG
            + "class A(layers.Layer):\n    def __init__(self, init=1.0, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.init = init\n    def build(self, shape):\n"
            "        self.w = self.add_weight(shape=(), initializer=keras.initializers.Constant(self.init))\n"
            "    def call(self, x):\n        return x * self.w\n    def get_config(self):\n"
            "        return {**super().get_config(), 'init': self.init}\n",
        ],
    ),
    "sublayer-dtype": (
        REG
        + "class A(layers.Layer):\n    def build(self, shape):\n        self.d = layers.Dense(4)\n    def call(self, x):\n        return self.d(x)\n",
        [
            REG
            + "class A(layers.Layer):\n    def build(self, shape):\n        self.d = layers.Dense(4, dtype=self.dtype_policy)\n    def call(self, x):\n        return self.d(x)\n",
            REG
            + "class A(layers.Layer):\n    def build(self, shape):\n        self.lookup = layers.StringLookup(vocabulary=['a'])\n    def call(self, x):\n        return self.lookup(x)\n",
            "def make():\n    return layers.Dense(4)\n",
            PREPROCESSING_LAYERS,
        ],
    ),
    "weight-in-call": (
        REG
        + "class A(layers.Layer):\n    def call(self, x):\n        self.w = self.add_weight(shape=(x.shape[-1],))\n        return x * self.w\n",
        [
            REG
            + "class A(layers.Layer):\n    def build(self, s):\n        self.w = self.add_weight(shape=(s[-1],))\n    def call(self, x):\n        return x * self.w\n",
            # Keras 2: made once, at the first call
            "class A(tf.keras.layers.Layer):\n    def call(self, x):\n        if self.w is None:\n"
            "            self.w = self.add_weight(shape=(x.shape[-1],))\n        return x * self.w\n",
        ],
    ),
    "weight-in-init": (
        REG
        + "class A(layers.Layer):\n    def __init__(self, units=2, **kwargs):\n        super().__init__(**kwargs)\n        self.units = units\n"
        "        self.w = self.add_weight(shape=(784, units))\n    def call(self, x):\n        return ops.matmul(x, self.w)\n",
        [
            REG
            + "class A(layers.Layer):\n    def __init__(self, input_dim=3, units=2, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.units = units\n        self.input_dim = input_dim\n        self.w = self.add_weight(shape=(input_dim, units))\n"
            "        self.s = self.add_weight(shape=(1,))\n    def call(self, x):\n        return ops.matmul(x, self.w) * self.s\n"
        ],
    ),
    "untracked-variable": (
        REG
        + "class A(layers.Layer):\n    def build(self, s):\n        self.b = tf.Variable(tf.zeros([2]))\n    def call(self, x):\n        return x + self.b\n",
        [
            REG
            + "class A(tf.keras.layers.Layer):\n    def build(self, s):\n        self.b = tf.Variable(tf.zeros([2]))\n    def call(self, x):\n        return x + self.b\n"
        ],
    ),
    "unregistered": (
        "class A(layers.Layer):\n    def call(self, x):\n        return x\n",
        [
            "class _A(layers.Layer):\n    def call(self, x):\n        return x\n",
            (
                "@export('A')\nclass A(layers.Layer):\n    def call(self, x):\n        return x\n"
                "def export(name):\n    return keras.saving.register_keras_serializable(name=name)\n"
            ),
            "class A(layers.Layer):\n    def call(self, x):\n        return x\nkeras.saving.get_custom_objects()['A'] = A\n",
            "class Base(layers.Layer):\n    def call(self, x):\n        raise NotImplementedError\n",
        ],
    ),
    "numpy-in-call": (
        REG
        + "class A(layers.Layer):\n    def call(self, x):\n        y = x * 2\n        return np.mean(y)\n",
        [
            REG
            + "class A(layers.Layer):\n    def call(self, x):\n        return x * np.sqrt(x.shape[-1]) * np.float32(2.0)\n"
        ],
    ),
    "backend-op-in-call": (
        REG + "class A(layers.Layer):\n    def call(self, x):\n        return tf.nn.relu(x)\n",
        [
            REG
            + "class A(tf.keras.layers.Layer):\n    def call(self, x):\n        return tf.nn.relu(x)\n",
            REG
            + "class A(layers.Layer):\n    def call(self, x):\n        return x * keras.backend.epsilon()\n",
            PREPROCESSING_LAYERS,  # run in tf.data on every backend, as Keras's own
        ],
    ),
    "unused-weight": (
        REG
        + "class A(layers.Layer):\n    def build(self, s):\n        self.k = self.add_weight(shape=(s[-1], 2))\n        self.b = self.add_weight(shape=(2,))\n"
        "    def call(self, x):\n        return ops.matmul(x, self.k)\n",
        [
            REG
            + "class A(layers.Layer):\n    def build(self, s):\n        self.k = self.add_weight(shape=(s[-1], 2))\n        self.m = self.add_weight(shape=(2,), trainable=False)\n"
            "    def call(self, x):\n        return ops.matmul(x, self.k)\n",
            REG
            + "class A(layers.Dense):\n    def build(self, s):\n        super().build(s)\n        self.extra = self.add_weight(shape=(2,))\n",
        ],
    ),
    "training-not-passed": (
        REG
        + "class A(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
        "        self.drop = [layers.Dropout(0.5, dtype=self.dtype_policy)]\n"
        "    def call(self, x, training=None):\n        for d in self.drop:\n            x = d(x)\n        return x\n",
        [
            REG
            + "class A(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.drop = layers.Dropout(0.5, dtype=self.dtype_policy)\n        self.dense = layers.Dense(2, dtype=self.dtype_policy)\n"
            "    def call(self, x, training=None):\n        return self.drop(self.dense(x), training=training)\n"
        ],
    ),
    "python-if-on-tensor": (
        REG
        + "class A(layers.Layer):\n    def call(self, x):\n        m = ops.max(x)\n        if m > 1.0:\n            x = x / m\n        return x\n",
        [
            REG + "class A(layers.Layer):\n    def call(self, x, mask=None, training=None):\n"
            "        if mask is not None and training and x.shape[-1] > 2 and len(x.shape) == 3:\n            x = x * 2\n        return x\n"
        ],
    ),
    "state-rebound": (
        REG
        + "class A(layers.Layer):\n    def build(self, s):\n        self.n = self.add_weight(shape=(), trainable=False)\n"
        "    def call(self, x, training=None):\n        if training:\n            self.n = self.n + 1\n        return x\n",
        [
            REG
            + "class A(layers.Layer):\n    def build(self, s):\n        self.n = self.add_weight(shape=(), trainable=False)\n"
            "    def call(self, x, training=None):\n        if training:\n            self.n.assign(self.n + 1)\n        return x\n"
        ],
    ),
    "unbuilt-sublayer": (
        REG
        + "class A(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
        "        self.blocks = [layers.Dense(2, dtype=self.dtype_policy)]\n        self.drop = layers.Dropout(0.1, dtype=self.dtype_policy)\n"
        "    def call(self, x):\n        return self.drop(self.blocks[0](x))\n"
        "    def compute_output_shape(self, s):\n        return (*s[:-1], 2)\n",
        [
            # built in build (through a helper), weightless, or no output shape given (Keras traces call)
            REG
            + "class A(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.blocks = [layers.Dense(2, dtype=self.dtype_policy)]\n        self.drop = layers.Dropout(0.1, dtype=self.dtype_policy)\n"
            "    def build(self, s):\n        self._build_blocks(s)\n    def _build_blocks(self, s):\n        for b in self.blocks:\n            b.build(s)\n"
            "    def call(self, x, training=None):\n        return self.drop(self.blocks[0](x), training=training)\n"
            "    def compute_output_shape(self, s):\n        return (*s[:-1], 2)\n",
            REG
            + "class A(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.dense = layers.Dense(2, dtype=self.dtype_policy)\n"
            "    def call(self, x):\n        return self.dense(x)\n",
            # built in __init__; a custom sublayer whose weights are made in its __init__
            REG
            + "class Table(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.t = self.add_weight(shape=(), trainable=False)\n"
            "    def call(self, x):\n        return x * self.t\n"
            + REG
            + "class A(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.dense = layers.Dense(4, dtype=self.dtype_policy)\n        self.dense.build((None, 4))\n"
            "        self.table = Table(dtype=self.dtype_policy)\n"
            "    def call(self, x):\n        return self.table(self.dense(x))\n"
            "    def compute_output_shape(self, s):\n        return s\n",
        ],
    ),
    "forwarded-value": (
        "class C(layers.Conv2D):\n    def __init__(self, filters, padding='symmetric', **kwargs):\n"
        "        super().__init__(filters, 3, padding='valid', **kwargs)\n        self.mode = padding\n",
        [
            REG
            + "class C(layers.Conv2D):\n    def __init__(self, filters, padding='VALID', **kwargs):\n"
            "        super().__init__(filters, 3, padding=padding.lower(), **kwargs)\n"
            "        self.mode = padding.lower()\n",
            REG
            + "class C(layers.Conv2D):\n    def __init__(self, filters, padding='symmetric', **kwargs):\n"
            "        super().__init__(filters, 3, padding='valid', **kwargs)\n        self.mode = padding\n"
            "    def get_config(self):\n        return {**super().get_config(), 'padding': self.mode}\n"
            "    @classmethod\n    def from_config(cls, config):\n        return cls(**config)\n",
            REG
            + "class C(layers.Conv2D):\n    def __init__(self, filters, padding=None, **kwargs):\n"
            "        super().__init__(filters, 3, padding='valid', **kwargs)\n",
            REG
            + "class C(layers.Conv2D):\n    def __init__(self, filters, padding='same', **kwargs):\n"
            "        super().__init__(filters, 3, padding='valid', **kwargs)\n        self.mode = padding\n"
            "    def get_config(self):\n        return {**super().get_config(), 'mode': self.mode}\n"
            "    @classmethod\n    def from_config(cls, config):\n"
            "        return cls(padding=config.pop('mode'), **config)\n",
        ],
    ),
    "config-key-mismatch": (
        "class H(layers.Layer):\n    def __init__(self, hashing, **kwargs):\n"
        "        super().__init__(**kwargs)\n        self.hashing = hashing\n"
        "    def get_config(self):\n        return {**super().get_config(), 'hashing_config': 1}\n"
        "    @classmethod\n    def from_config(cls, config):\n"
        "        return cls(config.pop('hash_config'), **config)\n",
        [
            REG + "class H(layers.Layer):\n    def __init__(self, bins=4, **kwargs):\n"
            "        super().__init__(**kwargs)\n        self.bins = bins\n"
            "    def get_config(self):\n        return {**super().get_config(), 'bins': self.bins}\n"
            "    @classmethod\n    def from_config(cls, config):\n"
            "        config['bins'] = config.pop('num_bins', config.get('bins', 4))\n"
            "        return cls(**{**config, 'name': config['name']})\n",
            REG
            + "class H(layers.Dense):\n    def get_config(self):\n        return super().get_config()\n"
            "    @classmethod\n    def from_config(cls, config):\n"
            "        config.pop('units')\n        return cls(3, **config)\n",
        ],
    ),
    "python-syntax": (
        "class A(layers.Layer:\n    pass\n",
        [REG + "class A(layers.Layer):\n    def call(self, x):\n        return x  # class A(:\n"],
    ),
}


def test_every_rule_has_cases_and_an_explanation():
    assert set(CASES) == set(RULES)
    for rule in RULES.values():
        assert rule.summary and rule.bad and rule.good and rule.code in rule.explain()


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_triggers_on_its_bug_and_not_on_near_misses(rule, tmp_path):
    bad, near_misses = CASES[rule]
    assert rule in codes(bad, tmp_path), bad
    for i, good in enumerate(near_misses):
        assert codes(good, tmp_path, name=f"good{i}.py") == set(), good


def test_subclass_of_a_custom_layer_in_another_file_must_extend_its_config(tmp_path):
    parent = (
        HEADER
        + REG
        + (
            "class Base2(layers.Layer):\n    def __init__(self, f=1.0, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.f = f\n    def get_config(self):\n        return {**super().get_config(), 'f': self.f}\n"
        )
    )
    child = (
        "from .parent import Base2\nimport keras\n\n\n"
        + REG
        + "class Child(Base2):\n    def __init__(self, g=2.0, **kwargs):\n        super().__init__(**kwargs)\n        self.g = g\n"
    )
    found = findings("", tmp_path, extra={"parent.py": parent, "child.py": child})
    assert found == []
    report = check_files(
        [tmp_path / "parent.py", tmp_path / "child.py"], CheckSettings(root=tmp_path)
    )
    assert [f.code for f in report.findings[tmp_path / "child.py"]] == ["config-missing"]
    fixed = apply_fixes(child, [f.fix for f in report.findings[tmp_path / "child.py"]])
    assert fixed.endswith(
        "        self.g = g\n\n    def get_config(self):\n        config = super().get_config()\n"
        '        config.update({"g": self.g})\n        return config\n'
    )


def test_keras_ops_under_another_name_and_project_registration_decorators(tmp_path):
    code = (
        "import keras.ops as K\nimport numpy\nfrom myproj.api import export\n\n\n@export('x')\n"
        "class A(keras.layers.Layer):\n    def call(self, x):\n        if K.any(x > 0):\n            return numpy.abs(x)\n        return x\n"
    )
    (tmp_path / "a.py").write_text(code)
    settings = CheckSettings(
        root=tmp_path, registrars=frozenset({"myproj.api.export"}), select=frozenset(RULES)
    )
    report = check_files([tmp_path / "a.py"], settings)
    assert [f.code for f in report.findings[tmp_path / "a.py"]] == [
        "python-if-on-tensor",
        "numpy-in-call",
    ]


FIX_BEFORE = """\
import keras
from keras import layers


class Block(keras.layers.Layer):
    def __init__(
        self,
        units,
        rate=0.1,
    ):
        super().__init__()  # keep this comment
        self.units = units
        self.rate = rate
        self.activation = keras.activations.get("relu")
        self.dense = layers.Dense(units, activation="relu")
        self.drop = layers.Dropout(rate)

    def call(self, x, training=None):
        return self.drop(self.dense(x))

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
            }
        )
        return config
"""

FIX_AFTER = """\
import keras
from keras import layers


@keras.saving.register_keras_serializable(package="pkg")
class Block(keras.layers.Layer):
    def __init__(
        self,
        units,
        rate=0.1,
        **kwargs,
    ):
        super().__init__(**kwargs)  # keep this comment
        self.units = units
        self.rate = rate
        self.activation = keras.activations.get("relu")
        self.dense = layers.Dense(units, activation="relu", dtype=self.dtype_policy)
        self.drop = layers.Dropout(rate, dtype=self.dtype_policy)

    def call(self, x, training=None):
        return self.drop(self.dense(x), training=training)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "rate": self.rate,
            }
        )
        return config
"""


def test_fix_rewrites_every_fixable_rule_and_keeps_the_rest_byte_for_byte(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "block.py").write_bytes(
        FIX_BEFORE.replace("\n", "\r\n").encode()
    )  # line endings are kept too
    fixable = ",".join(code for code, rule in RULES.items() if rule.fixable)
    result = layergen_in_process("check", "--fix", "--select", fixable, "pkg", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (folder / "block.py").read_bytes() == FIX_AFTER.replace("\n", "\r\n").encode()
    assert layergen_in_process("check", "--select", fixable, "pkg", cwd=tmp_path).returncode == 0


def test_diff_shows_the_fix_and_writes_nothing(tmp_path):
    (tmp_path / "buggy.py").write_text(FIX_BEFORE)
    result = layergen_in_process("check", "--diff", "buggy.py", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        "+        **kwargs,\n" in result.stdout
        and "-        super().__init__()  # keep this comment\n" in result.stdout
    )
    assert (tmp_path / "buggy.py").read_text() == FIX_BEFORE


def test_output_matches_the_problem_matcher_and_exit_codes(tmp_path):
    (tmp_path / "clean.py").write_text(HEADER + CASES["init-kwargs"][1][0])
    (tmp_path / "buggy.py").write_text(HEADER + CASES["init-kwargs"][0])
    assert layergen_in_process("check", "clean.py", cwd=tmp_path).returncode == 0
    result = layergen_in_process("check", "buggy.py", cwd=tmp_path)
    assert result.returncode == 1
    first, hint = result.stdout.splitlines()[:2]
    match = re.match(PROBLEM_REGEXP, first)
    assert (
        match
        and match.group(1) == "buggy.py"
        and match.group(4) == "error"
        and match.group(6) == "init-kwargs"
    ), first
    assert hint.startswith("  hint: ")
    # A syntax error is a finding, and the other files are checked all the same.
    (tmp_path / "broken.py").write_text("import keras\nclass A(:\n")
    result = layergen_in_process("check", "broken.py", "buggy.py", cwd=tmp_path)
    assert result.returncode == 1 and re.search(
        r"broken\.py:2:\d+: error: invalid Python.*\[python-syntax\]", result.stdout
    )
    assert "[init-kwargs]" in result.stdout
    # A file that cannot hold a Keras class is not read (see the prefilter), broken or not.
    (tmp_path / "other.py").write_text("class Point(:\n")
    assert layergen_in_process("check", "other.py", cwd=tmp_path).returncode == 0
    assert "Traceback" not in result.stderr
    missing = layergen_in_process("check", "nope.py", cwd=tmp_path)
    assert missing.returncode == 2 and "[no-such-file]" in missing.stderr


def test_explain(tmp_path):
    result = layergen_in_process("check", "--explain", "config-missing", cwd=tmp_path)
    assert result.returncode == 0 and "Flagged:" in result.stdout and "Instead:" in result.stdout
    result = layergen_in_process("check", "--explain", "config-mising", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean `config-missing`?" in result.stderr


def test_settings_and_ignore_comments(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.layergen]\npaths = ["layers"]\n\n[tool.layergen.check]\nignore = ["unregistered"]\n'
    )
    (tmp_path / "a.py").write_text(
        HEADER
        + "class A(layers.Layer):\n    def call(self, x):\n        return np.mean(x)  # layergen: ignore[numpy-in-call]\n"
    )
    assert layergen_in_process("check", "a.py", cwd=tmp_path).returncode == 0
    assert (
        layergen_in_process(
            "check", "--select", "unregistered", "--ignore", "", "a.py", cwd=tmp_path
        ).returncode
        == 0
    )  # ignored in config
    (tmp_path / "pyproject.toml").write_text('[tool.layergen.check]\nselect = ["unregisterd"]\n')
    result = layergen_in_process("check", "a.py", cwd=tmp_path)
    assert (
        result.returncode == 2
        and "pyproject.toml:2:1: error: unknown rule `unregisterd`" in result.stderr
    )
    (tmp_path / "pyproject.toml").write_text('[tool.layergen.check]\nselcet = ["unregistered"]\n')
    result = layergen_in_process("check", "a.py", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean `select`?" in result.stderr


def test_handwritten_seed_layers_are_clean_and_the_buggy_ones_flagged_at_their_class():
    root = HANDWRITTEN
    settings = CheckSettings(root=root)
    report = check_files(python_files([root], settings), settings)
    assert root / "seeds.py" not in report.findings
    found = {(f.code, f.line) for f in report.findings[root / "buggy.py"]}
    assert found == {("init-kwargs", 9), ("config-missing", 30)}


def test_generated_code_of_every_example_is_clean(tmp_path):
    project = make_project(tmp_path / "demo", {"examples": OWN_EXAMPLES})
    result = layergen("generate", "examples", cwd=project)
    assert result.returncode == 0, result.stderr
    assert len(list(project.rglob("*.py"))) > len(list(OWN_EXAMPLES.glob("*.yaml")))
    result = layergen_in_process("check", "--ignore", "", ".", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    settings = CheckSettings(root=project)
    report = check_files(python_files([project], settings), settings)
    kinds = sorted({c.kind for source in report.files.values() for c in source.classes if c.kind})
    assert kinds == [
        "constraint",
        "initializer",
        "layer",
        "loss",
        "regularizer",
    ]  # the rules did see every class


def test_init_adds_the_vscode_task_and_the_pre_commit_hook():
    import yaml

    from layergen.init import pre_commit_config, vscode_tasks

    task = next(t for t in vscode_tasks() if t["command"] == "layergen check")
    assert task["problemMatcher"]["pattern"]["regexp"] == PROBLEM_REGEXP
    hooks = {h["id"]: h for h in yaml.safe_load(pre_commit_config())["repos"][0]["hooks"]}
    assert hooks["layergen-check"]["entry"] == "layergen check" and hooks["layergen-check"][
        "types"
    ] == ["python"]
    shipped = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert shipped["layergen-check"]["entry"] == "layergen check"


def test_lines_are_counted_as_python_counts_them(tmp_path):
    """A form feed is not a line break to Python: positions and ignore comments stay right."""
    code = (
        REG
        + "class A(layers.Layer):\n    def __init__(self, f):  # \x0c\n        super().__init__()\n"
    )
    assert findings(code, tmp_path) == [("init-kwargs", 3)]
    silenced = code.replace("# \x0c", "# \x0c layergen: ignore[init-kwargs]")
    assert findings(silenced, tmp_path, name="b.py") == []


def test_test_files_are_skipped_when_a_folder_is_searched(tmp_path):
    buggy = HEADER + CASES["init-kwargs"][0]
    for name in ("test_layer.py", "layer_test.py", "conftest.py", "layer.py"):
        (tmp_path / name).write_text(buggy)
    settings = CheckSettings(root=tmp_path)
    assert [p.name for p in python_files([tmp_path], settings)] == ["layer.py"]
    named = python_files([tmp_path / "test_layer.py"], settings)  # named: checked all the same
    assert check_files(named, settings).findings


def _run(tmp_path, files: dict[str, str], select=None) -> dict[str, list[str]]:
    """{file: [codes]} of a run over `files` (relative paths under tmp_path)."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    settings = CheckSettings(root=tmp_path, select=frozenset(select or RULES))
    report = check_files(python_files([tmp_path], settings), settings)
    return {
        p.relative_to(tmp_path).as_posix(): [f.code for f in found]
        for p, found in report.findings.items()
    }


LAYER = """
class Scale(keras.layers.Layer):
    def call(self, x):
        return x
"""


def test_registration_through_an_alias_or_an_export_class_is_recognised(tmp_path):
    found = _run(
        tmp_path,
        {
            "alias.py": "import keras\nreg = keras.saving.register_keras_serializable(package='x')\n\n@reg"
            + LAYER,
            "api.py": """
                import keras
                def _register(symbol):
                    keras.saving.register_keras_serializable(package="x")(symbol)
                class my_export:
                    def __init__(self, path):
                        self.path = path
                    def __call__(self, symbol):
                        _register(symbol)
                        return symbol
                """,
            "exported.py": "import keras\nfrom api import my_export\n\n@my_export('x.Scale')"
            + LAYER,
        },
        select=["unregistered"],
    )
    assert found == {}


def test_keras_packages_are_found_by_module_path_and_keras_2_is_not_judged_as_keras_3(
    tmp_path,
):
    (tmp_path / "keras_hub").mkdir()
    (tmp_path / "keras_hub" / "__init__.py").write_text("")
    keras2 = """
        import tensorflow as tf, tf_keras
        layers = tf_keras.layers

        class Scale(layers.Layer):
            def call(self, x):
                if tf.reduce_max(x) > 1.0:
                    x = tf.nn.relu(x)
                return x
        """
    found = _run(
        tmp_path,
        {"keras_hub/src/models/scale.py": "import keras\n" + LAYER, "tfm.py": keras2},
    )
    assert found == {}


def test_config_follows_every_parent_that_super_reaches(tmp_path):
    code = HEADER + textwrap.dedent("""
        class Task(keras.Model):
            def __init__(self, backbone, **kwargs):
                super().__init__(**kwargs)
                self.backbone = backbone
            def get_config(self):
                return {"backbone": self.backbone, "name": self.name}

        class Classifier(Task):
            def __init__(self, backbone, num_classes=2, **kwargs):
                super().__init__(backbone, **kwargs)
                self.num_classes = num_classes
            def get_config(self):
                config = super().get_config()
                config.update({"num_classes": self.num_classes})
                return config

        class Head(Classifier):
            def __init__(self, backbone, num_classes=2, pooling="avg", **kwargs):
                super().__init__(backbone, num_classes=num_classes, **kwargs)
                self.pooling = pooling
            def get_config(self):
                config = super().get_config()
                config.update({"pooling": self.pooling})
                return config

        class Opaque(keras.layers.Layer):
            def __init__(self, size=2, **kwargs):
                super().__init__(**kwargs)
                self._config = {"size": size}
            def get_config(self):
                return dict(self._config.items())
        """)
    found = _run(tmp_path, {"m.py": code}, select=["config-missing"])
    assert found == {}


def test_init_kwargs_only_where_from_config_passes_the_base_arguments_back(tmp_path):
    code = """
        import tensorflow as tf

        class OwnConfig(tf.keras.layers.Layer):
            def __init__(self, size):
                super().__init__()
                self.size = size
            def get_config(self):
                return {"size": self.size}

        class NoConfig(tf.keras.layers.Layer):  # Keras 2 raises at get_config: not silent
            def __init__(self, size):
                super().__init__()
                self.size = size

        class Extends(tf.keras.layers.Layer):
            def __init__(self, size):
                super().__init__()
                self.size = size
            def get_config(self):
                return {**super().get_config(), "size": self.size}
        """
    found = _run(tmp_path, {"m.py": code}, select=["init-kwargs"])
    assert found == {"m.py": ["init-kwargs"]}


def test_config_knows_arguments_subclasses_pass_by_position_and_configs_that_refuse(tmp_path):
    code = HEADER + textwrap.dedent("""
        class Pooling(keras.layers.Layer):
            def __init__(self, reduce_function, size=2, **kwargs):
                super().__init__(**kwargs)
                self.reduce_function = reduce_function
                self.size = size
            def get_config(self):
                return {**super().get_config(), "size": self.size}

        class MeanPooling(Pooling):
            def __init__(self, size=2, **kwargs):
                super().__init__(ops.mean, size, **kwargs)

        class Tokenizer(keras.layers.Layer):
            def __init__(self, vocab_file, **kwargs):
                super().__init__(**kwargs)
                self.vocab_file = vocab_file
            def get_config(self):
                raise NotImplementedError("not serializable")
        """)
    assert _run(tmp_path, {"m.py": code}, select=["config-missing"]) == {}


def test_config_leaves_alone_what_a_config_cannot_or_need_not_hold(tmp_path):
    code = HEADER + textwrap.dedent("""
        class Backbone(keras.layers.Layer):
            def __init__(self, input_specs=layers.InputSpec(ndim=4), norm_layer=None,
                         groups=1, unused=3, **kwargs):
                if groups != 1:
                    kwargs = {**kwargs, "groups": groups}
                super().__init__(**kwargs)
                self.input_specs = input_specs
                self.norm_layer = norm_layer
            def build(self, shape):
                self.norm = self.norm_layer(axis=-1)
            def get_config(self):
                return super().get_config()
        """)
    assert _run(tmp_path, {"m.py": code}, select=["config-missing"]) == {}
    kept = code.replace("self.input_specs = input_specs", "self.size = unused")
    assert _run(tmp_path, {"m.py": kept}, select=["config-missing"]) == {"m.py": ["config-missing"]}
