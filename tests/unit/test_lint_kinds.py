"""Which classes are Keras classes, and which class a base names (layergen/lint/kinds.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings


def check(tmp_path: Path, files: dict[str, str], folder: str = ".") -> set[tuple[str, str, int]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    settings = CheckSettings(root=tmp_path, select=frozenset(RULES) - {"unregistered"})
    report = check_files(python_files([tmp_path / folder], settings), settings)
    assert not report.errors
    return {
        (p.relative_to(tmp_path).as_posix(), f.code, f.line)
        for p, fs in report.findings.items()
        for f in fs
    }


SHIMMED = {
    "mypkg/__init__.py": "",
    "mypkg/internal/__init__.py": "",
    "mypkg/internal/tf_keras.py": "from keras import *  # noqa\n",
    "mypkg/layers/__init__.py": "",
    "mypkg/layers/dense.py": """\
        from mypkg.internal import tf_keras


        class Scaled(tf_keras.layers.Layer):
            def __init__(self, factor=2.0, **kwargs):
                super().__init__(**kwargs)
                self.factor = factor

            def call(self, x):
                return x * self.factor

            def get_config(self):
                return {**super().get_config()}
        """,
}
UNRELATED_LAYER = """\
    class Layer(object):
        \"\"\"The numpy backend's layer: nothing to do with Keras.\"\"\"

        def __init__(self, name=None):
            self.name = name

        def call(self, x):
            return x
    """


def test_a_base_is_not_taken_for_a_class_of_another_module_by_its_last_name(tmp_path):
    """`tf_keras.layers.Layer` (through a package's own re-export module)
    matched an unrelated `class Layer(object)` elsewhere by its last name: the whole package
    had no finding where the layers folder alone had a true one."""
    expected = {("mypkg/layers/dense.py", "config-missing", 12)}
    assert check(tmp_path, SHIMMED) == expected
    files = {**SHIMMED, "mypkg/backend/numpy_backend.py": UNRELATED_LAYER}
    assert check(tmp_path, files) == expected
    assert check(tmp_path, files, "mypkg/layers") == expected


BLOCK = """\
    import keras


    class Block(keras.layers.Layer):
        def __init__(self, width=4, **kwargs):
            super().__init__(**kwargs)
            self.width = width

        def get_config(self):
            return {**super().get_config(), "width": self.width}
    """
CHILD = """\
    {imports}


    class Child({base}):
        def __init__(self, depth=2, **kwargs):
            super().__init__(**kwargs)
            self.depth = depth
    """


def test_a_base_is_found_through_what_its_import_names(tmp_path):
    """The module an import names, a package that re-exports its own
    module's class, and a relative import each lead to the class; a class of the same name
    in another module does not (the child must extend Block's config: config-missing)."""
    cases = {
        "from mypkg.blocks import Block": "Block",
        "from mypkg import blocks": "blocks.Block",
        "import mypkg.blocks as b": "b.Block",
        "from mypkg import Block": "Block",  # mypkg/__init__.py re-exports it
        "from .blocks import Block": "Block",
    }
    failed = []
    for number, (imports, base) in enumerate(cases.items()):
        root = tmp_path / str(number)
        files = {
            "mypkg/__init__.py": "from .blocks import Block\n",
            "mypkg/blocks.py": BLOCK,
            # Another Block, read first, with no `get_config`: taken for the base, no finding.
            "alt/blocks.py": BLOCK.replace("def get_config", "def _config"),
            "mypkg/child.py": CHILD.format(imports=imports, base=base),
        }
        if check(root, files) != {("mypkg/child.py", "config-missing", 4)}:
            failed.append(imports)
    assert not failed


def test_code_of_another_framework_is_not_taken_for_keras(tmp_path):
    """A package's PyTorch emulation of Keras (its own `Layer` on
    `torch.nn.Module`, with `build` and `call`) gave sublayer-dtype findings, and a
    TensorFlow object named like a project's Keras layer
    (`tf.tpu.experimental.embedding.TPUEmbedding`) was taken for that layer, and `--fix`
    added `dtype=` to a constructor that has no such argument."""
    files = {
        "mypkg/torch_layers.py": """\
            import torch


            class Layer(torch.nn.Module):
                def build(self, input_shape):
                    pass

                def call(self, x):
                    return x


            class Dense(Layer):
                def __init__(self, units):
                    super().__init__()
                    self.units = units


            class Block(Layer):
                def __init__(self, units):
                    super().__init__()
                    self.dense = Dense(units)

                def call(self, x):
                    return self.dense(x)
            """,
        "mypkg/embedding.py": """\
            import keras
            import tensorflow as tf


            @keras.saving.register_keras_serializable()
            class TPUEmbedding(keras.layers.Layer):
                def __init__(self, features, **kwargs):
                    super().__init__(**kwargs)
                    self.features = features

                def get_config(self):
                    return {**super().get_config(), "features": self.features}


            @keras.saving.register_keras_serializable()
            class Model(keras.layers.Layer):
                def __init__(self, features, **kwargs):
                    super().__init__(**kwargs)
                    self.features = features
                    self.tpu = tf.tpu.experimental.embedding.TPUEmbedding(features, None)
                    self.own = TPUEmbedding(features)

                def get_config(self):
                    return {**super().get_config(), "features": self.features}
            """,
    }
    # Its base from a module the run does not read: a PyTorch file's class is no layer.
    files["mypkg/torch_more.py"] = """\
        import torch

        from mypkg.unread import Layer


        class Wide(Layer):
            def __init__(self, units):
                super().__init__()
                self.units = units

            def build(self, input_shape):
                self.w = torch.zeros(input_shape[-1], self.units)

            def call(self, x):
                return x @ self.w
        """
    assert check(tmp_path, files) == {("mypkg/embedding.py", "sublayer-dtype", 21)}


def test_keras_public_names_are_keras_s_even_in_a_folder_named_keras(tmp_path):
    """`keras.Model(...)` is Keras's Model (not a sublayer to give a dtype
    policy), not a project class named Model in a module under a folder named keras."""
    files = {
        "lib/keras/models.py": """\
            import keras


            class Model(keras.layers.Layer):
                def call(self, x):
                    return x
            """,
        "lib/extractor.py": """\
            import keras


            class Extractor(keras.layers.Layer):
                def __init__(self, inner, **kwargs):
                    super().__init__(**kwargs)
                    self.inner = keras.Model(inner.inputs, inner.outputs)

                def call(self, x):
                    return self.inner(x)
            """,
    }
    assert check(tmp_path, files) == set()
