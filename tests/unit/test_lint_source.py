"""What a file's names stand for (layergen/lint/source.py): Keras 2 however it arrives."""

from __future__ import annotations

import textwrap
from pathlib import Path

from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

KERAS2_LAYER = """\
    {imports}


    class Scaled({base}):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            if tf.reduce_max(x) > 1.0:
                x = x / tf.reduce_max(x)
            return tf.matmul(x, x) * self.factor

        def get_config(self):
            return {{**super().get_config()}}


    class Plain({base}):
        def __init__(self, units):
            super().__init__()
            self.units = units
    """


def report(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    settings = CheckSettings(root=tmp_path, select=frozenset(RULES))
    return check_files(python_files([tmp_path], settings), settings)


def test_keras_2_through_tensorflow_compat_or_a_tf_keras_shim_is_keras_2(tmp_path):
    """`import tensorflow.compat.v2 as tf` and a package's own `tf_keras`
    shim were taken for Keras 3: its rules fired on Keras 2 code (backend-op-in-call,
    python-if-on-tensor, unregistered; init-kwargs where Keras 2's get_config raises).
    The rules that apply to Keras 2 still do (config-missing)."""
    cases = {
        "import tensorflow.compat.v2 as tf": "tf.keras.layers.Layer",
        "import tensorflow.compat.v1 as tf": "tf.keras.layers.Layer",
        "import tensorflow as tf": "tf.compat.v2.keras.layers.Layer",
        "import tensorflow as tf\nfrom mypkg.internal import tf_keras": "tf_keras.layers.Layer",
        "import tensorflow as tf\nfrom mypkg.internal.tf_keras import layers": "layers.Layer",
    }
    wrong = {}
    for number, (imports, base) in enumerate(cases.items()):
        root = tmp_path / str(number)
        found = report(
            root,
            {
                "mypkg/__init__.py": "",
                "mypkg/internal/tf_keras.py": "from tensorflow.keras import *  # noqa\n",
                "mypkg/layer.py": textwrap.dedent(KERAS2_LAYER).format(imports=imports, base=base),
            },
        )
        [source] = [s for p, s in found.files.items() if p.name == "layer.py"]
        codes = sorted(f.code for fs in found.findings.values() for f in fs)
        if codes != ["config-missing"] or any(c.keras3 for c in source.classes):
            wrong[imports] = codes
    assert not wrong
