"""`layergen adopt` shapes the example's inputs as the project's own code calls the layer
(a test's `run_layer_test(cls=..., input_data=...)`, `layer(x)` on a tensor made with a
literal shape, `layer.build(shape)`), with that construction's values, and says where they
come from; without such a call, with the rank the class's code reads."""

from __future__ import annotations

from helpers import cli, pytest_in
from helpers import write_layer as write

BIAS = """\
import keras
from keras import ops


class Bias(keras.layers.Layer):
    def __init__(self, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, scores):
        shape = ops.shape(scores)
        if len(shape) != 4:
            raise ValueError("scores must be (batch, heads, query, key)")
        return scores * self.scale
"""


def _declaration(project, name: str) -> str:
    return (project / "layers" / f"{name}.layer.yaml").read_text()


def test_the_input_shape_of_the_projects_run_layer_test(project):
    """keras-hub's tests hand the class to `run_layer_test` with `input_data` made from a
    literal shape (its dims named by the test's locals): the example's inputs are those."""
    write(project, "bias.py", BIAS)
    (project / "tests").mkdir()
    (project / "tests" / "bias_test.py").write_text(
        "from keras import random\n"
        "from layers.bias import Bias\n\n\n"
        "class BiasTest:\n"
        "    def test_layer_behaviors(self):\n"
        "        batch_size = 2\n"
        "        num_heads = 3\n"
        "        self.run_layer_test(\n"
        "            cls=Bias,\n"
        '            init_kwargs={"scale": 2.0},\n'
        "            input_data=random.uniform(shape=(batch_size, num_heads, 5, 5)),\n"
        "        )\n"
    )
    result = cli("adopt", "layers/bias.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "bias")
    assert "  input_shape: [2, 3, 5, 5]\n" in text, text
    assert (
        "example:  # params and input_shape from tests/bias_test.py:9, a call of the layer" in text
    ), text
    assert "Bias's example params and input_shape from tests/bias_test.py:9" in result.output


def test_the_input_shape_of_a_tensor_the_layer_is_called_on(project):
    write(project, "bias.py", BIAS)
    (project / "tests").mkdir()
    (project / "tests" / "bias_test.py").write_text(
        "import numpy as np\n"
        "from layers.bias import Bias\n\n\n"
        "def test_it():\n"
        "    layer = Bias()\n"
        "    x = np.ones((1, 2, 4, 4))\n"
        "    layer(x)\n"
    )
    result = cli("adopt", "layers/bias.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "bias")
    assert "  input_shape: [1, 2, 4, 4]\n" in text, text
    assert "example:  # input_shape from tests/bias_test.py:8, a call of the layer" in text


def test_without_a_call_the_rank_the_code_reads(project):
    """No call of the layer in the project: the rank its `call` requires (`len(shape) != 4`
    raises; `batch, steps, dim = ops.shape(x)` unpacks three), never a rank-2 default."""
    write(project, "bias.py", BIAS)
    write(
        project,
        "mix.py",
        "import keras\nfrom keras import ops\n\n\n"
        "class Mix(keras.layers.Layer):\n"
        "    def call(self, x):\n"
        "        batch, steps, dim = ops.shape(x)\n"
        "        return ops.reshape(x, (batch, steps * dim))\n",
    )
    assert cli("adopt", "layers/bias.py").exit_code == 0
    assert cli("adopt", "layers/mix.py").exit_code == 0
    assert "  input_shape: [2, 4, 4, 4]\n" in _declaration(project, "bias")
    assert "  input_shape: [2, 4, 4]\n" in _declaration(project, "mix")


def test_a_call_with_an_axis_one_long_is_the_example_only_where_no_other_call_is(project):
    """An axis one long (keras-hub calls its LlamaAttention on a one-step sequence) makes
    every softmax, sum and broadcast along it an identity: a softmax over one key is 1
    whatever the query, so the query's weights get no gradient there. The project's call on
    longer axes is the example, though it comes second."""
    write(project, "bias.py", BIAS)
    (project / "tests").mkdir()
    (project / "tests" / "bias_test.py").write_text(
        "import numpy as np\n"
        "from layers.bias import Bias\n\n\n"
        "def test_one_step():\n"
        "    Bias()(np.ones((2, 3, 1, 4)))\n\n\n"
        "def test_full():\n"
        "    Bias(scale=2.0)(np.ones((2, 3, 4, 4)))\n"
    )
    result = cli("adopt", "--no-observe", "layers/bias.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "bias")
    assert "  params: {scale: 2.0}\n  input_shape: [2, 3, 4, 4]\n" in text, text
    assert "from tests/bias_test.py:10, a call of the layer" in text, text


HEAD = """\
import keras
from keras import ops


class Head(keras.layers.Layer):
    def __init__(self, vocabulary_size=None, embedding=None, **kwargs):
        super().__init__(**kwargs)
        if vocabulary_size is None and embedding is None:
            raise ValueError("One of `vocabulary_size` or `embedding` must be set.")
        self.vocabulary_size = vocabulary_size
        self.embedding = embedding

    def build(self, inputs_shape, positions_shape=None):
        self.dense = keras.layers.Dense(self.vocabulary_size)
        self.dense.build(inputs_shape)

    def call(self, inputs, positions):
        x = ops.take_along_axis(inputs, ops.expand_dims(positions, -1), axis=1)
        return self.dense(x)

    def get_config(self):
        config = super().get_config()
        config.update({"vocabulary_size": self.vocabulary_size})
        return config
"""


def test_separate_inputs_and_the_values_of_the_same_construction(project):
    """No argument is required, yet the layer needs one of two: the example takes the values
    of the construction whose inputs it takes, one per separate input."""
    write(project, "head.py", HEAD)
    (project / "tests").mkdir()
    (project / "tests" / "head_test.py").write_text(
        "from keras import random\n"
        "from layers.head import Head\n\n\n"
        "class HeadTest:\n"
        "    def test_layer_behaviors(self):\n"
        "        self.run_layer_test(\n"
        "            cls=Head,\n"
        '            init_kwargs={"vocabulary_size": 10},\n'
        "            input_data={\n"
        '                "inputs": random.uniform(shape=(2, 6, 8)),\n'
        '                "positions": random.randint(minval=0, maxval=6, shape=(2, 3)),\n'
        "            },\n"
        "        )\n"
    )
    result = cli("adopt", "layers/head.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "head")
    assert '  input_shape: {"inputs": [2, 6, 8], "positions": [2, 3]}\n' in text, text
    assert "  params: {vocabulary_size: 10}\n" in text, text


REVERSIBLE = """\
import keras


class ReversibleEmbedding(keras.layers.ReversibleEmbedding):
    pass
"""


def test_a_subclass_of_its_base_alone_gets_the_bases_required_arguments(project):
    """A call that passes the base's required arguments by position (`input_dim`,
    `output_dim`) is the evidence; one that passes only an optional keyword is none."""
    write(project, "reversible_embedding.py", REVERSIBLE)
    (project / "models").mkdir()
    (project / "models" / "model.py").write_text(
        "from layers.reversible_embedding import ReversibleEmbedding\n\n\n"
        "def make(vocabulary, dim):\n"
        "    return ReversibleEmbedding(vocabulary, dim, tie_weights=True)\n"
    )
    (project / "tests").mkdir()
    (project / "tests" / "head_test.py").write_text(
        "from layers.reversible_embedding import ReversibleEmbedding\n\n\n"
        "def test_it():\n"
        "    embedding = ReversibleEmbedding(100, 16)\n"
        "    embedding.build((4, 10))\n"
    )
    result = cli("adopt", "layers/reversible_embedding.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "reversible_embedding")
    assert "  params: {input_dim: 100, output_dim: 16}\n" in text, text
    assert "  input_shape: [4, 10]\n" in text, text
    assert "example:  # params and input_shape from tests/head_test.py:6" in text, text


NORM = """\
import keras
from keras import ops


class Norm(keras.layers.Layer):
    def __init__(self, input_dim, **kwargs):
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.scale = self.add_weight(name="scale", shape=(input_dim,), initializer="ones")

    def call(self, x):
        \"\"\"Normalizes `x`.

        Args:
            x: Input tensor of shape (batch_size, input_dim).
        \"\"\"
        return x * ops.rsqrt(ops.mean(ops.square(x), axis=-1, keepdims=True)) * self.scale

    def get_config(self):
        config = super().get_config()
        config.update({"input_dim": self.input_dim})
        return config
"""


def test_without_a_call_the_shape_the_docstring_states_in_the_examples_values(project):
    """keras-hub's RMSNormalization: `x: Input tensor of shape (batch_size, input_dim)`:
    the example's last dim is the example's `input_dim`, so its weight fits the input."""
    write(project, "norm.py", NORM)
    (project / "tests").mkdir()
    (project / "tests" / "model_test.py").write_text(
        "from layers.norm import Norm\n\n\nnorm = Norm(input_dim=6)\n"
    )
    result = cli("adopt", "layers/norm.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "norm")
    assert "  params: {input_dim: 6}\n  input_shape: [2, 6]\n" in text, text
    assert "input_shape from the shape `call`'s docstring states of `x`" in text, text


def test_integer_inputs_of_the_projects_call_are_the_examples_dtype(project):
    """`random.randint(...)` makes the positions keras-hub's MaskedLMHead gathers at: the
    example's input of that name is int32 (a float index does not gather)."""
    write(project, "head.py", HEAD)
    (project / "tests").mkdir()
    (project / "tests" / "head_test.py").write_text(
        "from keras import random\n"
        "from layers.head import Head\n\n\n"
        "def test_it():\n"
        "    layer = Head(vocabulary_size=10)\n"
        "    layer(random.uniform(shape=(2, 6, 8)), random.randint(shape=(2, 3), minval=0, maxval=6))\n"
    )
    result = cli("adopt", "layers/head.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "head")
    assert '  input_dtype: {"positions": "int32"}\n' in text, text


def test_the_range_of_the_projects_integer_inputs_is_the_examples(project):
    """keras-hub's TokenAndPositionEmbedding is tested on `random.randint(minval=0,
    maxval=5, ...)` token ids for a vocabulary of 5: the example draws them from [0, 5),
    not the default [0, 10), which would index past the vocabulary."""
    write(
        project,
        "tokens.py",
        "import keras\n\n\n"
        "class Tokens(keras.layers.Layer):\n"
        "    def __init__(self, vocabulary_size, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.vocabulary_size = vocabulary_size\n"
        "        self.embedding = keras.layers.Embedding(vocabulary_size, 3)\n\n"
        "    def call(self, ids):\n"
        "        return self.embedding(ids)\n\n"
        "    def get_config(self):\n"
        "        config = super().get_config()\n"
        '        config.update({"vocabulary_size": self.vocabulary_size})\n'
        "        return config\n",
    )
    (project / "tests").mkdir()
    (project / "tests" / "tokens_test.py").write_text(
        "from keras import random\n"
        "from layers.tokens import Tokens\n\n\n"
        "class TokensTest:\n"
        "    def test_layer_behaviors(self):\n"
        "        self.run_layer_test(\n"
        "            cls=Tokens,\n"
        '            init_kwargs={"vocabulary_size": 5},\n'
        "            input_data=random.randint(minval=0, maxval=5, shape=(2, 4)),\n"
        "        )\n"
    )
    result = cli("adopt", "layers/tokens.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "tokens")
    assert '  input_dtype: "int32"\n  input_range: [0, 5]\n' in text, text


def test_calls_it_cannot_read_are_no_evidence_and_no_traceback(project, monkeypatch):
    """Inputs whose shape or range is not literal, a dict of computed keys, `*args`: each is
    passed over, and the example falls back to what the code reads."""
    monkeypatch.setenv("KERAS_BACKEND", "numpy")  # its tests observed on the quickest backend
    write(project, "bias.py", BIAS)
    (project / "tests").mkdir()
    (project / "tests" / "bias_test.py").write_text(
        "import numpy as np\n"
        "from keras import random\n"
        "from layers.bias import Bias\n\n\n"
        "def test_it(shape, key, args):\n"
        "    layer = Bias(*args)\n"
        "    layer(random.randint(shape=shape, minval=key, maxval=5))\n"
        "    Bias()({key: np.ones((2, 3))})\n"
        "    Bias()(np.ones(shape=(2, 0, 1, 1)))\n"
        "    Bias()(random.randint(2, 5))\n"
        "    run_layer_test(cls=Bias, init_kwargs=make(), input_data={key: 1})\n"
    )
    result = cli("adopt", "layers/bias.py")
    assert result.exit_code == 0, result.output
    assert "  input_shape: [2, 4, 4, 4]\n" in _declaration(project, "bias")


POSITIONS = """\
import keras
from keras import ops


class Positions(keras.layers.Layer):
    def __init__(self, sequence_length, **kwargs):
        super().__init__(**kwargs)
        self.sequence_length = sequence_length

    def build(self, input_shape):
        self.table = self.add_weight(shape=(self.sequence_length, input_shape[-1]))

    def call(self, inputs, start_index=0):
        shape = ops.shape(inputs)
        table = ops.slice(self.table, (start_index, 0), (shape[-2], shape[-1]))
        return inputs + table

    def get_config(self):
        config = super().get_config()
        config.update({"sequence_length": self.sequence_length})
        return config
"""


def test_the_projects_calls_with_literal_keywords_are_the_examples_call_cases(project):
    """keras-hub's PositionEmbedding is tested on inputs as long as its table and, once, on a
    one-step slice at `start_index=2`: that call is a call case of the example, with the
    same construction's values, and the generated tests no longer pass `start_index=1` on
    an input as long as the table, which the slice overflows."""
    write(project, "positions.py", POSITIONS)
    (project / "tests").mkdir()
    (project / "tests" / "positions_test.py").write_text(
        "from keras import random\n"
        "from layers.positions import Positions\n\n\n"
        "class PositionsTest:\n"
        "    def test_layer_behaviors(self):\n"
        "        self.run_layer_test(\n"
        "            cls=Positions,\n"
        '            init_kwargs={"sequence_length": 6},\n'
        "            input_data=random.uniform(shape=(3, 6, 4)),\n"
        "        )\n\n"
        "    def test_start_index(self):\n"
        "        batch_size, seq_length, feature_size = 2, 4, 5\n"
        "        layer = Positions(seq_length)\n"
        "        data = random.uniform(shape=(batch_size, seq_length, feature_size))\n"
        "        layer(data)\n"
        "        for i in range(seq_length):\n"
        "            layer(data[:, i : i + 1, :], start_index=i)\n"
        "        layer(data[:, :1, :], start_index=2)\n"
    )
    result = cli("adopt", "layers/positions.py")
    assert result.exit_code == 0, result.output
    text = _declaration(project, "positions")
    assert "  params: {sequence_length: 4}\n  input_shape: [2, 4, 5]\n" in text, text
    assert (
        '  call_cases:\n    - {args: {"start_index": 2}, input_shape: [2, 1, 5]}'
        "  # from tests/positions_test.py:20, a call of the layer\n"
    ) in text, text
    assert "test_each_call_input_with_a_value_other_than_its_default" not in text, text
    # TensorFlow starts quickest (the generated tests' seeding imports it on every backend);
    # its slice past the table fails as torch's does
    ran = pytest_in(project, "-q", "-p", "no:cacheprovider", "tests", KERAS_BACKEND="tensorflow")
    assert ran.returncode == 0, ran.stdout + ran.stderr
