"""Example values by evidence: the project's own constructions of a class, followed through
the classes that build it with values computed from their own arguments (keras-hub's
backbones: `Embedding(image_size=height)` after `height = image_shape[0]`)."""

from __future__ import annotations

from helpers import cli
from helpers import write_layer as write

EMBEDDING = """\
import keras


class Embedding(keras.layers.Layer):
    def __init__(self, hidden_dim, patch_size, image_size, dtype=None, **kwargs):
        super().__init__(dtype=dtype, **kwargs)
        self.hidden_dim = hidden_dim
        self.patch_size = patch_size
        self.image_size = image_size

    def call(self, x):
        return x * self.hidden_dim
"""


def adopted(project, module="layers/embedding.py"):
    result = cli("adopt", module)
    assert result.exit_code == 0, result.output
    return (project / module.replace(".py", ".layer.yaml")).read_text(), result.output


def test_keyword_values_of_a_call_count_for_a_class_that_forwards_dtype(project):
    """`dtype=dtype` passed on to the base is the base's, no param of the declaration: the
    call's keyword values of the other params are evidence all the same, its `dtype` none."""
    write(project, "embedding.py", EMBEDDING)
    (project / "tests").mkdir()
    (project / "tests" / "embedding_test.py").write_text(
        "from layers.embedding import Embedding\n\n"
        'layer = Embedding(image_size=16, patch_size=4, hidden_dim=8, dtype="float32")\n'
    )
    text, _ = adopted(project)
    assert "  params: {hidden_dim: 8, patch_size: 4, image_size: 16}" in text


ENCODER = """\
import keras

from .embedding import Embedding


class Encoder(keras.Model):
    def __init__(self, patch_size, hidden_dim, image_shape=(224, 224, 3), scale=2, **kwargs):
        height, width = image_shape[0], image_shape[1]
        side = int(height // patch_size)
        self.embedding = Embedding(
            hidden_dim=hidden_dim * scale,
            patch_size=(patch_size, patch_size),
            image_size=side,
        )
        super().__init__(**kwargs)
"""


def test_values_computed_from_the_outer_arguments_are_evaluated(project):
    """The encoder passes values it computes from its own arguments (a local unpacked from a
    subscript of a default, arithmetic, a tuple, `int()`); its test passes the others
    positionally: the layer's example is what that one call computes."""
    write(project, "embedding.py", EMBEDDING)
    write(project, "encoder.py", ENCODER)
    (project / "tests").mkdir()
    (project / "tests" / "encoder_test.py").write_text(
        "from layers.encoder import Encoder\n\n\nmodel = Encoder(16, 64)\n"
    )
    text, _ = adopted(project)
    assert "  params: {hidden_dim: 128, patch_size: [16, 16], image_size: 14}" in text
    assert "params from tests/encoder_test.py:4, a call of `Encoder`, which passes" in text


def test_a_value_computed_from_an_unknown_name_is_no_evidence(project):
    """An argument computed from something the call does not know (a name bound outside
    `__init__`) is left unknown: the refusal stands, nothing guessed."""
    write(project, "embedding.py", EMBEDDING)
    write(project, "encoder.py", ENCODER.replace("image_size=side", "image_size=SIDE"))
    (project / "tests").mkdir()
    (project / "tests" / "encoder_test.py").write_text(
        "from layers.encoder import Encoder\n\n\nmodel = Encoder(16, 64)\n"
    )
    result = cli("adopt", "layers/embedding.py")
    assert result.exit_code == 2, result.output
    assert "`Embedding` requires `image_size`" in result.output


def test_a_layer_built_in_a_loop_over_a_literal_list_takes_its_first_value(project):
    """`[Block(width=w) for w in (8, 16)]`: the loop variable from a literal takes the
    first item's value, as the first layer the loop builds."""
    write(project, "embedding.py", EMBEDDING)
    write(
        project,
        "encoder.py",
        "import keras\n\nfrom .embedding import Embedding\n\n\n"
        "class Encoder(keras.Model):\n"
        "    def __init__(self, patch_size, sizes=(32, 64), **kwargs):\n"
        "        self.blocks = [\n"
        "            Embedding(hidden_dim=4 * i, patch_size=patch_size, image_size=size)\n"
        "            for i, size in enumerate(sizes)\n"
        "        ]\n"
        "        for depth in [3, 5]:\n"
        "            pass\n"
        "        super().__init__(**kwargs)\n",
    )
    (project / "tests").mkdir()
    (project / "tests" / "encoder_test.py").write_text(
        "from layers.encoder import Encoder\n\n\nmodel = Encoder(patch_size=2)\n"
    )
    text, _ = adopted(project)
    assert "  params: {hidden_dim: 0, patch_size: 2, image_size: 32}" in text


def test_after_an_if_of_unknown_test_a_value_both_branches_agree_on_is_known(project):
    """`if data_format == "channels_last": height, width = shape[0], shape[1] else:
    height, width = shape[1], shape[2]` with `data_format` unknown: for a square image
    `height` is the same either way; `width` differs, and stays unknown."""
    write(project, "embedding.py", EMBEDDING)
    write(
        project,
        "encoder.py",
        "import keras\n\nfrom .embedding import Embedding\n\n\n"
        "class Encoder(keras.Model):\n"
        "    def __init__(self, data_format, image_shape=(32, 32, 3), **kwargs):\n"
        '        if data_format == "channels_last":\n'
        "            height, width = image_shape[0], image_shape[1]\n"
        "        else:\n"
        "            height, width = image_shape[1], image_shape[2]\n"
        "        self.embedding = Embedding(hidden_dim=8, patch_size=4, image_size=height)\n"
        "        self.other = Embedding(hidden_dim=8, patch_size=4, image_size=width)\n"
        "        super().__init__(**kwargs)\n",
    )
    text, _ = adopted(project)
    assert "  params: {hidden_dim: 8, patch_size: 4, image_size: 32}" in text


def test_a_function_of_the_project_is_evaluated_by_its_body(project):
    """keras-hub's backbones call its own `standardize_data_format(data_format)`, which
    returns Keras's configured format for None: the function's body is read (never run),
    and Keras's configuration getter gives what it gives in this process."""
    write(project, "embedding.py", EMBEDDING)
    write(
        project,
        "utils.py",
        "import keras\n\n\n"
        "def standardize(data_format):\n"
        "    if data_format is None:\n"
        "        return keras.config.image_data_format()\n"
        "    return str(data_format).lower()\n",
    )
    write(
        project,
        "encoder.py",
        "import keras\n\nfrom layers.embedding import Embedding\n"
        "from layers.utils import standardize\n\n\n"
        "class Encoder(keras.Model):\n"
        "    def __init__(self, image_shape=(32, 16, 3), data_format=None, **kwargs):\n"
        "        data_format = standardize(data_format)\n"
        '        h_axis = -3 if data_format == "channels_last" else -2\n'
        "        self.embedding = Embedding(8, 4, image_shape[h_axis])\n"
        "        super().__init__(**kwargs)\n",
    )
    text, _ = adopted(project)
    assert "  params: {hidden_dim: 8, patch_size: 4, image_size: 32}" in text


def test_a_default_the_docstring_type_cannot_hold_is_typed_by_the_code(project):
    """keras-hub's `background_class: int.` documented, `background_class=-1.0` written: the
    code runs with the float, so the declaration's type is the default's, not the
    docstring's (which would refuse the class's own default)."""
    write(
        project,
        "encoder.py",
        "import keras\n\n\n"
        "class Encoder(keras.layers.Layer):\n"
        '    """Encodes.\n\n'
        "    Args:\n"
        "        background_class: int. The background's class id.\n"
        "        width: int. The width.\n"
        '    """\n\n'
        "    def __init__(self, background_class=-1.0, width=2, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.background_class = background_class\n"
        "        self.width = width\n\n"
        "    def call(self, x):\n"
        "        return x * self.width + self.background_class\n",
    )
    text, _ = adopted(project, "layers/encoder.py")
    assert 'background_class: {type: "float", default: -1.0}' in text
    assert 'width: {type: "int", default: 2}' in text


def test_a_docstring_type_the_projects_calls_contradict_is_typed_by_the_calls(project):
    """keras-hub's VAE: `stackwise_num_filters: int.` documented, every call passes a list
    (`[32, 32, 32, 32]`); XLNet's `kernel_initializer_range: int.` called with `0.02`. The
    code runs with what its calls pass, so the declaration's type is theirs; a type the
    code's annotation states stays."""
    write(
        project,
        "encoder.py",
        "import keras\n\n\n"
        "class Encoder(keras.layers.Layer):\n"
        '    """Encodes.\n\n'
        "    Args:\n"
        "        filters: int. The filters of each stack.\n"
        "        scale: int. The initializer's range.\n"
        "        width: int. The width.\n"
        '    """\n\n'
        "    def __init__(self, filters, scale, width: int, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.filters = filters\n"
        "        self.scale = scale\n"
        "        self.width = width\n\n"
        "    def call(self, x):\n"
        "        return x * self.scale * len(self.filters) * self.width\n",
    )
    write(
        project,
        "model.py",
        "from .encoder import Encoder\n\n"
        "def make():\n"
        "    return Encoder(filters=[32, 32], scale=0.02, width=3)\n",
    )
    text, _ = adopted(project, "layers/encoder.py")
    assert 'filters: {type: "list[int]"}' in text, text
    assert 'scale: {type: "float"}' in text, text
    assert 'width: {type: "int"}' in text, text


def test_isinstance_of_a_builtin_type_is_evaluated(project):
    """`if isinstance(patch_size, int): patch_size = (patch_size, patch_size)` (keras-hub's
    DeiT): the test's `patch_size=4` makes it a pair; a tuple the test passes stays one
    (not read as a list), so `isinstance(shape, tuple)` holds."""
    write(project, "embedding.py", EMBEDDING)
    write(
        project,
        "encoder.py",
        "import keras\n\nfrom .embedding import Embedding\n\n\n"
        "class Encoder(keras.Model):\n"
        "    def __init__(self, image_shape, patch_size, **kwargs):\n"
        "        if isinstance(patch_size, int):\n"
        "            patch_size = (patch_size, patch_size)\n"
        "        side = image_shape[0] if isinstance(image_shape, tuple) else None\n"
        "        self.embedding = Embedding(8, patch_size, side)\n"
        "        super().__init__(**kwargs)\n",
    )
    (project / "tests").mkdir()
    (project / "tests" / "encoder_test.py").write_text(
        "from layers.encoder import Encoder\n\n\n"
        "model = Encoder(image_shape=(28, 28, 3), patch_size=4)\n"
    )
    text, _ = adopted(project)
    assert "  params: {hidden_dim: 8, patch_size: [4, 4], image_size: 28}" in text


def test_a_comprehension_over_known_values_is_evaluated(project):
    """keras-hub's HGNetV2 backbone hands its encoder `[stage[0] for stage in filters]`, and
    `zip(*filters)` unpacked."""
    write(project, "embedding.py", EMBEDDING)
    write(
        project,
        "encoder.py",
        "import keras\n\nfrom .embedding import Embedding\n\n\n"
        "class Encoder(keras.Model):\n"
        "    def __init__(self, filters, **kwargs):\n"
        "        widths = [stage[0] for stage in filters if stage[1] > 0]\n"
        "        firsts, seconds = zip(*filters)\n"
        "        self.embedding = Embedding(widths, seconds[1] * 2, {w: 1 for w in widths}[widths[0]])\n"
        "        super().__init__(**kwargs)\n",
    )
    (project / "tests").mkdir()
    (project / "tests" / "encoder_test.py").write_text(
        "from layers.encoder import Encoder\n\n\n"
        "model = Encoder(filters=[[32, 0], [16, 1], [64, 2]])\n"
    )
    text, _ = adopted(project)
    assert "  params: {hidden_dim: [16, 64], patch_size: 2, image_size: 1}" in text
