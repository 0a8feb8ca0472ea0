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
