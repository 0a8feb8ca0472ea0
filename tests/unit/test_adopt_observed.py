"""`layergen adopt` observes what static evidence lacks: where no literal call gives a
required argument or the input's shape (the layer is built inside an outer model's
`__init__`, on `keras.Input` tensors, and the test hands that model `**self.init_kwargs`),
it runs the project's own tests that construct the class, records the first construction's
literal arguments and the first call's input shapes, and says where it saw them."""

from __future__ import annotations

import pytest

from helpers import cli
from helpers import write_layer as write

PATCHES = """\
import keras
from keras import ops


class PatchEmbedding(keras.layers.Layer):
    def __init__(self, patch_size, hidden_dim, **kwargs):
        super().__init__(**kwargs)
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.proj = keras.layers.Dense(hidden_dim, dtype=self.dtype_policy)

    def call(self, images):
        p = self.patch_size
        height, width, channels = images.shape[1], images.shape[2], images.shape[3]
        patches = ops.reshape(images, (-1, (height // p) * (width // p), p * p * channels))
        return self.proj(patches)

    def get_config(self):
        return {
            **super().get_config(),
            "patch_size": self.patch_size,
            "hidden_dim": self.hidden_dim,
        }
"""

BACKBONE = """\
import keras

from layers.patches import PatchEmbedding


class Backbone(keras.Model):
    def __init__(self, patch_size, num_heads, head_dim, image_size, **kwargs):
        inputs = keras.Input(shape=(image_size, image_size, 3))
        outputs = PatchEmbedding(patch_size, hidden_dim=num_heads * head_dim)(inputs)
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
"""

BACKBONE_TEST = """\
from unittest import TestCase

import numpy as np

from layers.backbone import Backbone


class BackboneTest(TestCase):
    def setUp(self):
        self.init_kwargs = {"patch_size": 4, "num_heads": 2, "head_dim": 4, "image_size": 8}
        self.input_data = np.ones((2, 8, 8, 3), "float32")

    def test_backbone_basics(self):
        model = Backbone(**self.init_kwargs)
        self.assertEqual(tuple(model(self.input_data).shape), (2, 4, 8))
"""


# The backend the project's tests are observed on: numpy, the quickest to start (torch takes
# three times as long); the arguments and input shapes observed are the same on every backend.
OBSERVED_ON = "numpy"


@pytest.fixture
def backbone(project, monkeypatch):
    """A layer constructed only inside an outer functional model, whose test builds it."""
    monkeypatch.setenv("KERAS_BACKEND", OBSERVED_ON)
    write(project, "patches.py", PATCHES)
    write(project, "backbone.py", BACKBONE)
    write(project, "backbone_test.py", BACKBONE_TEST)
    return project


def test_the_input_shape_observed_where_the_code_shows_none(backbone):
    """The values are evidenced statically (through `Backbone(**self.init_kwargs)`); the
    layer is called only on the backbone's `keras.Input`: its shape is observed."""
    result = cli("adopt", "layers/patches.py:PatchEmbedding")
    assert result.exit_code == 0, result.output
    text = (backbone / "layers" / "patches.layer.yaml").read_text()
    assert "  params: {patch_size: 4, hidden_dim: 8}\n" in text, text
    assert "  input_shape: [2, 8, 8, 3]\n" in text, text
    assert f"; input_shape observed in {WHERE}" in text, text
    assert f"input_shape observed in {WHERE}" in result.output


def test_values_observed_where_no_literal_gives_them(backbone):
    """The test's construction is not literal (its config read from JSON): the first
    construction's literal arguments, positionals by their param names, are observed."""
    _unliteral(backbone)
    result = cli("adopt", "layers/patches.py:PatchEmbedding")
    assert result.exit_code == 0, result.output
    text = (backbone / "layers" / "patches.layer.yaml").read_text()
    assert "  params: {patch_size: 4, hidden_dim: 8}\n" in text, text
    assert "  input_shape: [2, 8, 8, 3]\n" in text, text
    assert f"example:  # params and input_shape observed in {WHERE}" in text, text


@pytest.mark.e2e
def test_the_generated_tests_pass_on_the_observed_example(backbone):
    from helpers import run_pytest

    _unliteral(backbone)
    assert cli("adopt", "layers/patches.py:PatchEmbedding").exit_code == 0
    outcomes = run_pytest(backbone, "torch", "tests/test_patches.py")
    assert outcomes and "passed" in outcomes.values(), outcomes
    assert "failed" not in outcomes.values(), outcomes


def test_no_observe_leaves_the_refusal(backbone):
    _unliteral(backbone)
    result = cli("adopt", "--no-observe", "layers/patches.py:PatchEmbedding")
    assert result.exit_code == 2, result.output
    assert "layers/patches.py:6:24: error: `PatchEmbedding` requires `patch_size`" in result.output
    assert not (backbone / "layers" / "patches.layer.yaml").exists()


def test_tests_that_cannot_run_leave_the_refusal_with_the_reason(backbone):
    """A test module that fails to import observes nothing: today's refusal, with why."""
    _unliteral(backbone)
    path = backbone / "layers" / "backbone_test.py"
    path.write_text("import not_installed_anywhere\n" + path.read_text())
    result = cli("adopt", "layers/patches.py:PatchEmbedding")
    assert result.exit_code == 2, result.output
    assert "layers/patches.py:6:24: error: `PatchEmbedding` requires `patch_size`" in result.output
    assert "not_installed_anywhere" in result.output, result.output
    assert "Traceback" not in result.output


WHERE = "layers/backbone_test.py::BackboneTest::test_backbone_basics"


def _unliteral(project) -> None:
    path = project / "layers" / "backbone_test.py"
    text = path.read_text().replace(
        'self.init_kwargs = {"patch_size": 4, "num_heads": 2, "head_dim": 4, "image_size": 8}',
        'self.init_kwargs = json.loads(\n            \'{"patch_size": 4, "num_heads": 2, "head_dim": 4, "image_size": 8}\'\n        )',
    )
    path.write_text("import json\n" + text)


def test_a_test_module_that_fails_to_import_leaves_the_others_observed(backbone):
    _unliteral(backbone)
    write(
        backbone, "broken_test.py", "import not_installed_anywhere\n\n\ndef test_x():\n    pass\n"
    )
    result = cli("adopt", "layers/patches.py:PatchEmbedding")
    assert result.exit_code == 0, result.output
    text = (backbone / "layers" / "patches.layer.yaml").read_text()
    assert f"example:  # params and input_shape observed in {WHERE}" in text, text


ROTATED = """\
import keras
from keras import ops


class Rotated(keras.layers.Layer):
    def __init__(self, hidden_dim, **kwargs):
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim

    def call(self, hidden, position_embeddings):
        cos, sin = position_embeddings
        return hidden * cos + hidden * sin

    def get_config(self):
        return {**super().get_config(), "hidden_dim": self.hidden_dim}
"""

ROTATED_TEST = """\
from unittest import TestCase

import numpy as np

from layers.rotated import Rotated


class RotatedTest(TestCase):
    def test_call(self):
        hidden = np.ones((2, 4, 8), "float32")
        Rotated(hidden_dim=8)(hidden, (hidden, hidden))
"""


def test_an_observed_call_that_shapes_only_some_inputs_leaves_the_example_as_it_was(
    project, monkeypatch
):
    """keras-hub's Qwen3_5VisionAttention takes its position embeddings as a (cos, sin) pair:
    the call observed gives no shape for that input, so it is no evidence of the inputs, and
    the example the code gave stands (adopted, as without observation), never a refusal."""
    monkeypatch.setenv("KERAS_BACKEND", OBSERVED_ON)
    write(project, "rotated.py", ROTATED)
    write(project, "rotated_test.py", ROTATED_TEST)
    without = cli("adopt", "layers/rotated.py", "--no-observe", "--diff")
    assert without.exit_code == 0, without.output
    result = cli("adopt", "layers/rotated.py")
    assert result.exit_code == 0, result.output
    assert "position_embeddings" in (project / "layers" / "rotated.layer.yaml").read_text()


MIXER = """\
import keras
from keras import ops


class Mixer(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units))

    def call(self, x):
        return ops.softmax(ops.matmul(x, self.kernel), axis=1)

    def get_config(self):
        return {**super().get_config(), "units": self.units}
"""

MIXER_MODEL = """\
import keras

from layers.mixer import Mixer


class Model(keras.Model):
    def __init__(self, hidden, **kwargs):
        inputs = keras.Input(shape=(None, hidden))
        outputs = Mixer(units=hidden)(inputs)
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
"""

MIXER_MODEL_TEST = """\
import numpy as np

from layers.model import Model


def test_model():
    Model(hidden=8)(np.ones((2, 5, 8), "float32"))
"""

ONE_STEP_TEST = """\
import numpy as np

from layers.mixer import Mixer


def test_one_step():
    Mixer(units=8)(np.ones((3, 1, 8), "float32"))
"""


def test_a_call_on_an_axis_one_long_gives_way_to_one_the_tests_make_on_longer_axes(
    project, monkeypatch
):
    """keras-hub's only literal call of LlamaAttention is on one step (a serving test),
    where a softmax over one key leaves the query's weights without a gradient: its tests
    are run, past that call (first, as its test names the class), to the decoder's call on
    a whole sequence, whose shape and construction are the example."""
    monkeypatch.setenv("KERAS_BACKEND", OBSERVED_ON)
    write(project, "mixer.py", MIXER)
    write(project, "model.py", MIXER_MODEL)
    write(project, "model_test.py", MIXER_MODEL_TEST)
    (project / "tests").mkdir()
    (project / "tests" / "serving_test.py").write_text(ONE_STEP_TEST)
    result = cli("adopt", "layers/mixer.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "mixer.layer.yaml").read_text()
    assert "  params: {units: 8}\n  input_shape: [2, 5, 8]\n" in text, text
    assert "input_shape observed in layers/model_test.py::test_model" in text, text


PAIR = """\
import keras


class First(keras.layers.Layer):
    def call(self, x):
        return x


class Second(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super(Second, self).__init__(**kwargs)
        self.units = units

    def call(self, x):
        return x
"""


def test_a_test_that_cannot_construct_the_class_is_not_run(project):
    """A test module importing the class's module, but naming neither the class nor a
    module that constructs it (the tests generated for another class of the module), cannot
    construct it: adopting the second class of a module does not run the first's tests."""
    from layergen.adopt.observed import _tests

    module = write(project, "pair.py", PAIR)
    (project / "tests").mkdir()
    first = project / "tests" / "test_pair.py"
    first.write_text("from layers.pair import First\n\n\ndef test_first():\n    First()\n")
    assert _tests(project, module, "First") == [first]
    assert _tests(project, module, "Second") == []
    result = cli("adopt", "layers/pair.py:Second")
    assert result.exit_code == 2
    assert "no test of the project names it or imports a module that constructs it" in (
        result.output
    )


def test_a_test_of_the_module_that_constructs_the_class_elsewhere_is_run(project):
    """The class's own module constructs it outside its definition (a model of the module
    builds it): a test of that module may construct it without naming it."""
    from layergen.adopt.observed import _tests

    module = write(project, "pair.py", PAIR + "\n\ndef make():\n    return Second(units=3)\n")
    (project / "tests").mkdir()
    first = project / "tests" / "test_pair.py"
    first.write_text("from layers.pair import make\n\n\ndef test_make():\n    make()\n")
    assert _tests(project, module, "Second") == [first]


def test_a_class_of_the_same_name_elsewhere_is_not_the_class(project):
    """Two modules each define their own `Block` (keras-hub has several `DropPath`s): the
    tests of one construct that one, never the other's, and are not run to observe it; a
    module that imports the other's `Block`, or reaches it as an attribute, may construct
    it, and its tests are run."""
    from layergen.adopt.observed import _tests

    block = "import keras\n\n\nclass Block(keras.layers.Layer):\n    pass\n"
    write(project, "one.py", block)
    other = write(project, "other.py", block)
    (project / "tests").mkdir()
    of_one = project / "tests" / "test_one.py"
    of_one.write_text("from layers.one import Block\n\n\ndef test_one():\n    Block()\n")
    assert _tests(project, other, "Block") == []
    write(
        project, "model.py", "from layers.other import Block as Inner\n\n\nclass Block:\n    pass\n"
    )
    of_model = project / "tests" / "test_model.py"
    of_model.write_text("from layers.model import Block\n\n\ndef test_model():\n    Block()\n")
    assert _tests(project, other, "Block") == [of_model]
    write(
        project, "model.py", "from layers import other\n\n\nclass Block:\n    inner = other.Block\n"
    )
    assert _tests(project, other, "Block") == [of_model]


def test_a_module_in_a_linked_folder_is_observed_by_the_path_python_imports(tmp_path, monkeypatch):
    """`layers/` a link to a folder outside the project: the module is `layers.scale` as
    Python imports it, never a traceback for being outside the project once resolved."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "__init__.py").write_text("")
    (outside / "scale.py").write_text(
        "import keras\n\n\n"
        "class Scale(keras.layers.Layer):\n"
        "    def __init__(self, factor, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.factor = factor\n\n"
        "    def call(self, x):\n"
        "        return x * self.factor\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (project / "layers").symlink_to(outside)
    monkeypatch.chdir(project)
    result = cli("adopt", "layers/scale.py")
    assert result.exit_code == 2, result.output
    assert "requires `factor`" in result.output and "[unknown-example]" in result.output
    assert "no test of the project names it" in result.output, result.output


ATTENDING = """\
import keras
from keras import ops


class Attending(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, x_shape):
        self.kernel = self.add_weight(name="kernel", shape=(x_shape[-1], self.units))

    def call(self, x, attention_mask=None, cache=None):
        y = ops.matmul(x, self.kernel)
        scores = ops.einsum("btu,bsu->bts", y, y)
        scores = ops.where(ops.cast(attention_mask, "bool"), scores, -1000.0)
        return ops.einsum("bts,bsu->btu", ops.softmax(scores, axis=-1), y)

    def get_config(self):
        return {**super().get_config(), "units": self.units}
"""

ATTENDING_MODEL = """\
import keras

from layers.attending import Attending


class Model(keras.Model):
    def __init__(self, hidden, **kwargs):
        x = keras.Input(shape=(None, hidden))
        mask = keras.Input(shape=(None, None), dtype="int32")
        outputs = Attending(units=hidden)(x, attention_mask=mask)
        super().__init__(inputs=[x, mask], outputs=outputs, **kwargs)
"""

ATTENDING_MODEL_TEST = """\
import numpy as np

from layers.model import Model


def test_model():
    mask = np.tril(np.ones((2, 5, 5), "int32"))
    Model(hidden=8)([np.ones((2, 5, 8), "float32"), mask])
"""


@pytest.fixture
def attending(project, monkeypatch):
    """A layer that reads its `attention_mask=None` unconditionally, built and called by a
    model the project's test runs."""
    monkeypatch.setenv("KERAS_BACKEND", OBSERVED_ON)
    write(project, "attending.py", ATTENDING)
    write(project, "model.py", ATTENDING_MODEL)
    write(project, "model_test.py", ATTENDING_MODEL_TEST)
    return project


def test_a_keyword_tensor_the_projects_call_passes_is_passed_in_every_generated_call(attending):
    """keras-hub's Bloom attention takes `attention_mask=None` and reads it
    unconditionally: its callers always pass one. The project's call passes it (and no
    `cache`): the example gives it a shape, so every generated test passes it too."""
    project = attending
    result = cli("adopt", "layers/attending.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "attending.layer.yaml").read_text()
    assert '  input_shape: {"x": [2, 5, 8], "attention_mask": [2, 5, 5]}\n' in text, text
    assert '  input_dtype: {"attention_mask": "int32"}\n' in text, text


@pytest.mark.e2e
def test_the_generated_tests_pass_with_the_keyword_tensor_in_every_call(attending):
    from helpers import run_pytest

    assert cli("adopt", "layers/attending.py").exit_code == 0
    outcomes = run_pytest(attending, "torch", "tests/test_attending.py")
    assert list(outcomes.values()).count("passed") >= 8, outcomes
    assert "failed" not in outcomes.values(), outcomes
