"""`layergen adopt` on code as a codebase writes it (keras-hub's idioms): what it writes is
what `generate` accepts, its refusals are located in the person's module, and it states
what the format can say (forwarded constructor arguments, several tensor inputs, a base
reached through an import, example values found in the project)."""

from __future__ import annotations

from helpers import cli, snapshot
from helpers import write_layer as write

TAGGED = """\
import keras


class Tagged(keras.layers.Layer):
    def __init__(self, scale=2.0, name=None, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.label = name

    def call(self, x):
        return x * self.scale
"""


def test_a_declaration_generate_refuses_is_located_in_the_module(project):
    """`name` held as an ordinary argument (not the layer's name): the declaration adopt
    would write is one `generate` refuses; the error is in the module, at the argument,
    and never asks to rename it (every caller passes `name=`)."""
    write(project, "tagged.py", TAGGED)
    before = snapshot(project)
    result = cli("adopt", "layers/tagged.py")
    assert result.exit_code == 2, result.output
    assert "layers/tagged.py:5:35: error:" in result.output
    assert "[reserved-name]" in result.output
    assert ".layer.yaml" not in result.output
    assert "name_value" not in result.output and "rename" not in result.output
    assert snapshot(project) == before


def test_a_module_with_a_syntax_error_is_located(project):
    write(project, "broken.py", "import keras\n\n\nclass Broken(keras.layers.Layer:\n    pass\n")
    result = cli("adopt", "layers/broken.py")
    assert result.exit_code == 2, result.output
    # libcst finds the missing `)` where the next line starts
    assert "layers/broken.py:5:1: error:" in result.output and "[python-syntax]" in result.output
    assert "libcst" not in result.output


def test_a_module_without_a_layer_says_so(project):
    write(project, "helpers.py", "def call(x):\n    return x\n")
    result = cli("adopt", "layers/helpers.py")
    assert result.exit_code == 2, result.output
    assert "layers/helpers.py:1:1: error: no layer class" in result.output
    assert not (project / "layers" / "helpers.layer.yaml").exists()


SCALE = """\
import keras


class Scale(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}
"""


def test_one_save_during_adopt_is_adopted_again_not_an_abort(project, monkeypatch):
    """An editor saves the module once while adopt runs: adopt reads it again and adopts
    what was saved, as `generate` plans again; the save is kept."""
    import layergen.commands.adopt as adopting

    module = write(project, "scale.py", SCALE)
    rendered = adopting.adopted_module
    saves = []

    def saved_once(*args, **kwargs):
        if not saves:
            module.write_text(SCALE + "\n# saved meanwhile\n")
            saves.append(1)
        return rendered(*args, **kwargs)

    monkeypatch.setattr(adopting, "adopted_module", saved_once)
    result = cli("adopt", "layers/scale.py")
    assert result.exit_code == 0, result.output
    assert module.read_text().endswith("# saved meanwhile\n")
    assert (project / "layers" / "scale.layer.yaml").is_file()
    assert cli("generate", "--check", "layers").exit_code == 0


HEAD = """\
import keras
from keras import ops


class MaskedHead(keras.layers.Layer):
    def __init__(self, scale=2.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs, mask_positions):
        return inputs * self.scale + mask_positions

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}
"""


def test_several_tensor_arguments_are_separate_inputs(project):
    """`call(self, inputs, mask_positions)` (keras-hub's MaskedLMHead): each tensor an
    argument of its own, as the format states with `separate_inputs: true`."""
    module = write(project, "masked_head.py", HEAD)
    result = cli("adopt", "layers/masked_head.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "masked_head.layer.yaml").read_text()
    assert "separate_inputs: true" in text
    assert "  inputs: {}\n  mask_positions: {}\n" in text
    assert "def call(self, inputs, mask_positions):" in module.read_text()
    assert cli("generate", "--check", "layers").exit_code == 0


FORWARDS = """\
import keras
from keras import ops


class Scaled(keras.layers.Layer):
    def __init__(self, hidden_dim: int, dtype=None, name=None, trainable=True, **kwargs):
        super().__init__(dtype=dtype, name=name, trainable=trainable, **kwargs)
        self.hidden_dim = hidden_dim

    def call(self, x):
        return x * self.hidden_dim

    def get_config(self):
        return {**super().get_config(), "hidden_dim": self.hidden_dim}
"""


def test_dtype_and_name_passed_to_the_base_are_the_bases_never_renamed(project):
    """keras-hub's idiom: `dtype=None, name=None` as arguments of `__init__`, passed on to
    `super().__init__`. They are the base's own keyword arguments, which a declaration
    leaves to `**kwargs`: not params (they would be refused as reserved), never renamed,
    and the person's `__init__`, which names them, stays as written."""
    module = write(project, "scaled.py", FORWARDS)
    result = cli("adopt", "layers/scaled.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "scaled.layer.yaml").read_text()
    assert "  hidden_dim: {" in text
    assert "  dtype:" not in text and "  name:" not in text and "  trainable:" not in text
    assert "- __init__  # it passes `dtype`, `name`, `trainable` on to the base" in text
    assert "_value" not in text
    source = module.read_text()
    assert "super().__init__(dtype=dtype, name=name, trainable=trainable, **kwargs)" in source
    assert cli("generate", "--check", "layers").exit_code == 0


EXPERTS = """\
import keras


class Experts(keras.layers.Layer):
    def __init__(self, units: int, use_bias=True, kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer

    def build(self, input_shape):
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer=self.kernel_initializer,
            name="kernel",
        )
        if self.use_bias and self.units > 1:
            self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

    def call(self, x):
        return keras.ops.matmul(x, self.kernel)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "use_bias": self.use_bias,
                "kernel_initializer": self.kernel_initializer,
            }
        )
        return config
"""


def test_an_initializer_stored_as_a_string_and_a_conditional_weight(project):
    """keras-hub's MoE experts: `initializer=self.kernel_initializer`, the argument kept as
    the string it was given; a weight created under a condition the format does not state.
    What adopt writes for them is what `generate` accepts (an empty `weights:` and a param of
    type str as an initializer were refused as wrong-type)."""
    write(project, "experts.py", EXPERTS)
    result = cli("adopt", "layers/experts.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "experts.layer.yaml").read_text()
    assert 'kernel_initializer: {type: "str", default: "glorot_uniform"}' in text
    assert 'initializer: "keras.initializers.get(kernel_initializer)"' in text
    assert "  bias:" not in text  # its condition is the person's code
    assert cli("generate", "--check", "layers").exit_code == 0


RESCALE = """\
import keras
from keras import layers
from keras.layers import Rescaling as KerasRescaling


class Shifted(layers.Rescaling):
    def call(self, inputs):
        return super().call(inputs) + 1.0


class Moved(KerasRescaling):
    def call(self, inputs):
        return super().call(inputs) - 1.0
"""


def test_a_base_reached_through_an_import_is_followed(project):
    """`from keras import layers` then `layers.Rescaling`, or `from keras.layers import
    Rescaling as KerasRescaling`: the base is Keras's `Rescaling`, found by following the
    module's imports (it was refused as not a Keras class)."""
    write(project, "shifted.py", RESCALE)
    result = cli("adopt", "--example", "scale=2.0", "layers/shifted.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "shifted.layer.yaml").read_text()
    assert "layer: Shifted\n" in text and "layer: Moved\n" in text
    assert text.count("base: keras.layers.Rescaling\n") == 2


def test_a_layer_whose_only_weight_is_conditional_writes_no_empty_weights(project):
    only = EXPERTS.replace(
        """        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer=self.kernel_initializer,
            name="kernel",
        )
""",
        "",
    ).replace("keras.ops.matmul(x, self.kernel)", "x")
    write(project, "experts.py", only)
    result = cli("adopt", "layers/experts.py")
    assert result.exit_code == 0, result.output
    assert "weights:" not in (project / "layers" / "experts.layer.yaml").read_text()


ATTENTION = """\
import keras


class Attention(keras.layers.Layer):
    \"\"\"Attention.

    Args:
        num_heads: int. The number of heads.
        hidden_dim: The width.
    \"\"\"

    def __init__(self, num_heads, hidden_dim, **kwargs):
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim

    def call(self, x):
        return x * self.hidden_dim / self.num_heads

    def get_config(self):
        config = super().get_config()
        config.update({"num_heads": self.num_heads, "hidden_dim": self.hidden_dim})
        return config
"""


def test_example_values_come_from_the_projects_own_call_of_the_class(project, monkeypatch):
    """No annotation says what `hidden_dim` takes; the project's test constructs the class
    with literals: those are the example's values (one call's, so they fit together), the
    type follows them, and adopt says where they come from."""
    monkeypatch.setenv("KERAS_BACKEND", "numpy")  # its tests observed on the quickest backend
    write(project, "attention.py", ATTENTION)
    (project / "tests").mkdir()
    (project / "tests" / "attention_test.py").write_text(
        "from layers.attention import Attention\n\n\n"
        "def test_it():\n    layer = Attention(hidden_dim=12, num_heads=3)\n"
    )
    result = cli("adopt", "layers/attention.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "attention.layer.yaml").read_text()
    assert "example:  # params from tests/attention_test.py:5, a call of the class" in text
    assert "  params: {num_heads: 3, hidden_dim: 12}" in text
    assert 'hidden_dim: {type: "int"}' in text
    assert "Attention's example params from tests/attention_test.py:5" in result.output


def test_without_evidence_the_refusal_names_the_argument_and_where_it_looked(project):
    write(project, "attention.py", ATTENTION)
    result = cli("adopt", "layers/attention.py")
    assert result.exit_code == 2, result.output
    assert "layers/attention.py:12:35: error: `Attention` requires `hidden_dim`" in result.output
    assert "no type in the docstring's Args, no call `Attention(...)` in the" in result.output
    assert "[unknown-example]" in result.output and "--example hidden_dim=" in result.output


REVERSIBLE = """\
import keras


class ReversibleEmbedding(keras.layers.ReversibleEmbedding):
    pass
"""


def test_a_subclass_that_only_changes_its_base_is_adopted(project):
    """keras-hub's `ReversibleEmbedding(keras.layers.ReversibleEmbedding): pass`: no `call`
    of its own, a layer all the same; its example takes the base's arguments from the
    project's own call of it."""
    write(project, "reversible_embedding.py", REVERSIBLE)
    (project / "tests").mkdir()
    (project / "tests" / "reversible_embedding_test.py").write_text(
        "from layers.reversible_embedding import ReversibleEmbedding\n\n"
        "layer = ReversibleEmbedding(input_dim=100, output_dim=32, tie_weights=False)\n"
    )
    result = cli("adopt", "layers/reversible_embedding.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "reversible_embedding.layer.yaml").read_text()
    assert "base: keras.layers.ReversibleEmbedding\n" in text
    assert "inputs:" not in text and "\ncall:" not in text
    assert "  params: {input_dim: 100, output_dim: 32, tie_weights: false}" in text
    assert cli("generate", "--check", "layers").exit_code == 0


def test_example_values_passed_on_by_the_model_that_builds_the_layer(project):
    """The layer is only built inside a model's `__init__`, from the model's own arguments
    (`Attention(num_heads=num_heads, ...)`); the model's test constructs the model with
    literals: those reach the layer's example, a default of the model's where its test
    passes none."""
    write(project, "attention.py", ATTENTION)
    write(
        project,
        "backbone.py",
        "import keras\n\nfrom .attention import Attention\n\n\n"
        "class Backbone(keras.Model):\n"
        "    def __init__(self, width, heads=4, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.block = Attention(hidden_dim=width, num_heads=heads)\n",
    )
    (project / "tests").mkdir()
    (project / "tests" / "backbone_test.py").write_text(
        "from layers.backbone import Backbone\n\n\nmodel = Backbone(width=16)\n"
    )
    result = cli("adopt", "layers/attention.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "attention.layer.yaml").read_text()
    assert "  params: {num_heads: 4, hidden_dim: 16}" in text
    assert "params from tests/backbone_test.py:4, a call of `Backbone`, which passes" in text


def test_example_values_from_a_tests_init_kwargs(project, monkeypatch):
    """keras-hub's tests construct a layer through `self.init_kwargs = {...}` handed to
    `run_layer_test(cls=..., init_kwargs=...)`, or spread into a call: those are calls of
    the class too."""
    monkeypatch.setenv("KERAS_BACKEND", "numpy")  # its tests observed on the quickest backend
    write(project, "attention.py", ATTENTION)
    (project / "tests").mkdir()
    (project / "tests" / "attention_test.py").write_text(
        "from layers.attention import Attention\n\n\n"
        "class AttentionTest:\n"
        "    def setUp(self):\n"
        '        self.init_kwargs = {"hidden_dim": 6, "num_heads": 2}\n\n'
        "    def test_basics(self):\n"
        "        self.run_layer_test(cls=Attention, init_kwargs=self.init_kwargs)\n"
    )
    result = cli("adopt", "layers/attention.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "attention.layer.yaml").read_text()
    assert "  params: {num_heads: 2, hidden_dim: 6}" in text
    assert "params from tests/attention_test.py:9, a call of the class" in text


def test_a_call_value_of_another_type_than_the_default_is_left_out(project):
    """`dropout=0` in the code, `dropout=0.0` in the model's test: the param is an int as its
    default says; the call's float would be refused, so the example leaves it at its default
    and takes the call's other values."""
    write(
        project,
        "attention.py",
        ATTENTION.replace("hidden_dim, **kwargs", "hidden_dim, dropout=0, **kwargs"),
    )
    (project / "tests").mkdir()
    (project / "tests" / "attention_test.py").write_text(
        "from layers.attention import Attention\n\n"
        "layer = Attention(hidden_dim=12, num_heads=3, dropout=0.0)\n"
    )
    result = cli("adopt", "layers/attention.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "attention.layer.yaml").read_text()
    assert "  params: {num_heads: 3, hidden_dim: 12}" in text


def test_example_values_passed_on_from_build_as_stored(project):
    """keras-hub builds sublayers in `build` from what `__init__` stored
    (`Attention(hidden_dim=self.width)`): followed to the outer class's test as well."""
    write(project, "attention.py", ATTENTION)
    write(
        project,
        "block.py",
        "import keras\n\nfrom .attention import Attention\n\n\n"
        "class Block(keras.layers.Layer):\n"
        "    def __init__(self, width, heads, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.width = width\n"
        "        self.heads = heads\n\n"
        "    def build(self, shape):\n"
        "        self.inner = Attention(hidden_dim=self.width, num_heads=self.heads)\n\n"
        "    def call(self, x):\n"
        "        return self.inner(x)\n",
    )
    (project / "tests").mkdir()
    (project / "tests" / "block_test.py").write_text(
        "from layers.block import Block\n\n\nblock = Block(width=8, heads=2)\n"
    )
    result = cli("adopt", "layers/attention.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "attention.layer.yaml").read_text()
    assert "  params: {num_heads: 2, hidden_dim: 8}" in text


MASKED_ROWS = """\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class MaskedRows(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units))

    def call(self, x, mask):
        y = ops.matmul(x, self.kernel)
        return ops.where(ops.expand_dims(mask, -1), y, ops.zeros_like(y))

    def get_config(self):
        return {**super().get_config(), "units": self.units}
"""

MASKED_ROWS_TEST = """\
import numpy as np

from layers.masked_rows import MaskedRows


def test_rows():
    x = np.ones((2, 5, 3), dtype="float32")
    MaskedRows(units=4)(x, np.ones((2, 5), dtype="bool"))
"""


def test_a_mask_without_a_default_is_an_input_of_its_own(project):
    """keras-hub's Gemma 3n audio attention takes `call(self, hidden_states, mask)`: not
    Keras's masking argument but an input, which the example gives and every test passes."""
    write(project, "masked_rows.py", MASKED_ROWS)
    write(project, "masked_rows_test.py", MASKED_ROWS_TEST)
    result = cli("adopt", "layers/masked_rows.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "masked_rows.layer.yaml").read_text()
    assert "inputs:\n  x: {}\n  mask: {}\nseparate_inputs: true\n" in text, text
    assert '  input_shape: {"x": [2, 5, 3], "mask": [2, 5]}' in text, text
    assert '  input_dtype: {"mask": "bool"}' in text, text  # as the call gives it
    assert cli("generate", "--check", "layers").exit_code == 0
