"""`layergen adopt FILE[:Class] | FOLDER` (layergen/adopt/): hand-written layers put under a
declaration in place, every word the person wrote kept, saved models still loading."""

from __future__ import annotations

import json

import pytest

from helpers import cli, snapshot
from helpers import write_layer as write

# what adopt lists for a class without a docstring of its own, and nothing else
HAND_DOC = (
    "hand_written:  # yours, kept as written in the module\n"
    "  - __doc__  # the class has none: none is generated\n"
)

SCALED = """\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class ScaledDense(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, s):
        d = s[-1]
        self.w = self.add_weight(name="w", shape=(d, self.units), initializer="glorot_uniform")
        self.scale = self.add_weight(shape=(self.units,), initializer="ones")

    def call(self, x):
        # the person's comment stays where it is
        return ops.matmul(x, self.w) * self.scale

    def get_config(self):
        config = super().get_config()
        config["units"] = self.units
        return config
"""


def test_adopt_writes_the_declaration_from_the_code(project):
    module = write(project, "scaled_dense.py", SCALED)
    result = cli("adopt", "layers/scaled_dense.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "scaled_dense.layer.yaml").read_text()
    assert "layer: ScaledDense" in text
    assert 'package: "mine"' in text  # the registered package, kept
    assert 'units: {type: "int"}' in text  # required, a size: an int
    # Weights in creation order, their shapes in terms of the input's
    assert text.index("  w: ") < text.index("  scale: ")
    assert 'w: {shape: "(x[-1], units)", initializer: "glorot_uniform"}' in text
    assert 'scale: {shape: "(units,)", initializer: "ones"}' in text
    # `build` leaves `scale` unnamed (Keras names it `variable`): the generated one would
    # name it, so `build` stays the person's, with the reason
    assert "  - build  # the weight `scale` has no name" in text
    assert "test_output_shapes_eager_symbolic_and_computed" in text  # Keras traces call
    # `call` renders back to the same tree: the declaration's now; the comment goes with it
    assert "call: |" in text and "# the person's comment" in text
    source = module.read_text()
    assert '        self.scale = self.add_weight(shape=(self.units,), initializer="ones")' in source
    assert "# the person's comment stays where it is" in source
    assert "adopted ScaledDense (" in result.output and "lines declared (65%)" in result.output


def test_the_module_is_generated_then_and_check_is_clean(project):
    write(project, "scaled_dense.py", SCALED)
    assert cli("adopt", "layers/scaled_dense.py").exit_code == 0
    lock = json.loads((project / "layergen.lock").read_text())
    assert "layers/scaled_dense.layer.yaml" in lock["records"]
    assert lock["records"]["layers/scaled_dense.layer.yaml"]["hand_written"] == ["__doc__", "build"]
    assert (project / "tests" / "test_scaled_dense.py").is_file()
    assert (
        "from .scaled_dense import ScaledDense" in (project / "layers" / "__init__.py").read_text()
    )
    check = cli("generate", "--check", "layers")
    assert check.exit_code == 0, check.output


def test_a_second_adopt_says_so_and_changes_nothing(project):
    write(project, "scaled_dense.py", SCALED)
    assert cli("adopt", "layers/scaled_dense.py").exit_code == 0
    before = snapshot(project)
    again = cli("adopt", "layers/scaled_dense.py")
    assert again.exit_code == 0
    assert "already adopted" in again.output
    assert snapshot(project) == before


def test_diff_shows_what_it_would_write_and_writes_nothing(project):
    write(project, "scaled_dense.py", SCALED)
    before = snapshot(project)
    result = cli("adopt", "--diff", "layers/scaled_dense.py")
    assert result.exit_code == 0, result.output
    assert "+++ b/layers/scaled_dense.layer.yaml" in result.output
    assert "+layer: ScaledDense" in result.output
    assert "+++ b/layers/scaled_dense.py" in result.output
    assert "would adopt ScaledDense (" in result.output
    assert snapshot(project) == before


BUGGY = """\
import keras


class NoKwargs(keras.layers.Layer):
    def __init__(self, factor=2.0, shift=1.0):
        super().__init__()
        self.factor = factor
        self.shift = shift

    def call(self, x):
        return x * self.factor + self.shift

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}
"""


def test_it_fixes_what_check_reports_and_says_so(project):
    module = write(project, "no_kwargs.py", BUGGY)
    result = cli("adopt", "layers/no_kwargs.py")
    assert result.exit_code == 0, result.output
    for code in ("[unregistered]", "[init-kwargs]", "[config-missing]"):
        assert code in result.output
    source = module.read_text()
    assert "def __init__(self, factor=2.0, shift=1.0, **kwargs):" in source
    assert "super().__init__(**kwargs)" in source
    assert '"shift": self.shift' in source
    assert "@keras.saving.register_keras_serializable(package=" in source
    assert cli("generate", "--check", "layers").exit_code == 0


TWO_TENSORS = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Pair(keras.layers.Layer):
    def call(self, *tensors):
        return tensors[0] + tensors[1]
"""


def test_what_adopt_cannot_carry_is_located_and_nothing_is_written(project):
    write(project, "scaled_dense.py", SCALED)
    write(project, "pair.py", TWO_TENSORS)
    before = snapshot(project)
    result = cli("adopt", "layers/scaled_dense.py", "layers/pair.py")
    assert result.exit_code == 2
    assert "layers/pair.py:6:9: error: `call` takes `*args`" in result.output
    assert "[adopt-call]" in result.output and "hint:" in result.output
    assert "nothing was written" in result.output
    assert snapshot(project) == before  # all or nothing: ScaledDense is not adopted either


@pytest.mark.parametrize(
    ("text", "where", "code"),
    [
        (
            SCALED.replace('package="mine")', 'package="mine", name="Other")'),
            "5:64",
            "adopt-registration",
        ),
        (SCALED.replace("(keras.layers.Layer)", "(MyBase)"), "6:19", "adopt-base"),
    ],
)
def test_a_registered_name_or_a_base_it_cannot_state_is_located(project, text, where, code):
    write(project, "scaled_dense.py", text)
    result = cli("adopt", "layers/scaled_dense.py")
    assert result.exit_code == 2
    assert f"layers/scaled_dense.py:{where}: error:" in result.output
    assert f"[{code}]" in result.output
    assert not (project / "layers" / "scaled_dense.layer.yaml").exists()


TWO_LAYERS = SCALED + """

class Helper(keras.layers.Layer):
    # stays as written
    def call(self, x):
        return x
"""


def test_a_module_of_two_layers_adopts_one_named_and_keeps_the_other(project):
    module = write(project, "two.py", TWO_LAYERS)
    result = cli("adopt", "layers/two.py:ScaledDense")
    assert result.exit_code == 0, result.output
    assert module.read_text().endswith(TWO_LAYERS[TWO_LAYERS.index("class Helper") :])
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_class_whose_tests_layergen_tests_keeps_is_not_left_behind(project):
    """Adopting one class of a module where `layergen tests` keeps another's tests in step
    would leave those tests stale behind a green check: refused, nothing written."""
    module = write(project, "two.py", TWO_LAYERS)
    assert cli("tests", "layers/two.py:Helper").exit_code == 0
    before = snapshot(project)
    result = cli("adopt", "layers/two.py:ScaledDense")
    assert result.exit_code == 2, result.output
    assert "[adopt-tested-class]" in result.output and "`Helper`" in result.output
    assert snapshot(project) == before
    assert module.is_file()


SHADOWED = """\
import keras
from keras import ops

shift = 2.0


@keras.saving.register_keras_serializable(package="mine")
class Shift(keras.layers.Layer):
    def __init__(self, shift=1.0, **kwargs):
        super().__init__(**kwargs)
        self.shift = shift

    def call(self, x):
        return x + shift  # the module's: in the declaration, the name would be the param

    def get_config(self):
        return {**super().get_config(), "shift": self.shift}
"""


def test_call_moves_only_where_it_generates_the_same_code(project):
    module = write(project, "shift.py", SHADOWED)
    result = cli("adopt", "layers/shift.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "shift.layer.yaml").read_text()
    assert "call: |" not in text
    assert "  - call  #" in text
    assert "        return x + shift  # the module's" in module.read_text()


def test_the_tests_layergen_tests_wrote_are_replaced_keeping_hand_added_ones(project, monkeypatch):
    # the generated tests observed seed TensorFlow on any backend: on its own, the quickest
    monkeypatch.setenv("KERAS_BACKEND", "tensorflow")
    write(project, "scaled_dense.py", SCALED)
    assert cli("tests", "layers/scaled_dense.py", "--example", "units=3").exit_code == 0
    tests = project / "tests" / "test_scaled_dense.py"
    tests.write_text(tests.read_text() + "\n\ndef test_mine():\n    assert True\n")
    result = cli("adopt", "layers/scaled_dense.py")
    assert result.exit_code == 0, result.output
    text = tests.read_text()
    assert "layers/scaled_dense.layer.yaml" in text  # the declaration's tests now
    assert "def test_mine():" in text
    assert "units: 3" in (project / "layers" / "scaled_dense.layer.yaml").read_text()
    lock = json.loads((project / "layergen.lock").read_text())
    assert not lock.get("handwritten")
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_folder_adopts_every_layer_in_it(project):
    write(project, "scaled_dense.py", SCALED)
    write(project, "shift.py", SHADOWED)
    write(project, "helpers.py", "def helper():\n    return 1\n")
    result = cli("adopt", "layers")
    assert result.exit_code == 0, result.output
    assert result.output.count("adopted ") == 2
    assert not (project / "layers" / "helpers.layer.yaml").exists()


DENSE = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class PlainDense(keras.layers.Layer):
    def __init__(self, units, activation=None, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.activation = keras.activations.get(activation)
        self.use_bias = use_bias

    def build(self, input_shape):
        self.kernel = self.add_weight(
            name="kernel", shape=(input_shape[-1], self.units), initializer="glorot_uniform"
        )
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        y = keras.ops.matmul(inputs, self.kernel)
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "activation": keras.activations.serialize(self.activation),
                "use_bias": self.use_bias,
            }
        )
        return config
"""


def test_keras_objects_a_conditional_weight_and_the_share_reported(project):
    write(project, "plain_dense.py", DENSE)
    result = cli("adopt", "layers/plain_dense.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "plain_dense.layer.yaml").read_text()
    # stored with keras.activations.get: an activation param, so __init__ and get_config
    # are the generated ones
    assert 'activation: {type: "activation", default: null}' in text
    assert "  - __init__" not in text and "  - get_config" not in text
    assert 'bias: {shape: "(units,)", initializer: "zeros", when: "use_bias"}' in text
    assert "  - build  # it does more than create its weights" in text  # the `if` stays yours
    assert (
        "adopted PlainDense (" in result.output
        and "(hand_written: __doc__, build)" in result.output
    )
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_test_module_of_the_persons_own_is_never_merged_into(project, monkeypatch):
    """The person's tests of the module, at the name adopt's would take: refused, located,
    nothing written; a file there that tests something else is left alone, and adopt's
    tests take the folder into their name."""
    monkeypatch.setenv("KERAS_BACKEND", "numpy")  # its tests observed on the quickest backend
    write(project, "scaled_dense.py", SCALED)
    (project / "tests").mkdir()
    mine = project / "tests" / "test_scaled_dense.py"
    mine.write_text(
        "from layers.scaled_dense import ScaledDense\n\n\n"
        "def test_mine():\n    assert ScaledDense\n"
    )
    before = snapshot(project)
    result = cli("adopt", "layers/scaled_dense.py")
    assert result.exit_code == 2
    assert "tests/test_scaled_dense.py:1:1: error:" in result.output
    assert "[adopt-tests]" in result.output and "test_scaled_dense_mine.py" in result.output
    assert snapshot(project) == before
    mine.write_text("def test_mine():\n    assert True\n")
    result = cli("adopt", "layers/scaled_dense.py")
    assert result.exit_code == 0, result.output
    assert mine.read_text() == "def test_mine():\n    assert True\n"
    assert (project / "tests" / "test_layers_scaled_dense.py").is_file()


CONFIG = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Eps(keras.layers.Layer):
    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.eps = eps

    def call(self, x):
        return x + self.eps

    def get_config(self):
{body}
"""


@pytest.mark.parametrize(
    ("body", "declared"),
    [
        ('        return {**super().get_config(), "eps": self.eps}', True),
        ("        return dict(super().get_config(), eps=self.eps)", True),
        (
            '        config = super().get_config()\n        config["eps"] = self.eps\n'
            "        return config",
            True,
        ),
        ('        return {**super().get_config(), "eps": self.eps * 2}', False),
        ('        return {**super().get_config(), "eps": self.eps, "more": 1}', False),
    ],
)
def test_get_config_moves_only_when_it_lists_the_arguments_as_stored(project, body, declared):
    write(project, "eps.py", CONFIG.format(body=body))
    result = cli("adopt", "layers/eps.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "eps.layer.yaml").read_text()
    assert ("  - get_config" not in text) is declared
    if not declared:  # the person's, byte for byte
        assert body in (project / "layers" / "eps.py").read_text()


MLP = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Mlp(keras.layers.Layer):
    def __init__(self, units=3, rate=0.25, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.rate = rate
        self.hidden = keras.layers.Dense(units, activation="relu")
        self.drop = keras.layers.Dropout(rate, dtype=self.dtype_policy)
        self.head = keras.layers.Dense(units=1, use_bias=False, name="head")

    def call(self, x, training=None):
        return self.head(self.drop(self.hidden(x), training=training))

    def get_config(self):
        return {**super().get_config(), "units": self.units, "rate": self.rate}
"""


def _import(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"{path.stem}_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_sublayers_init_creates_are_declared_and_build_the_same_weights(project, tmp_path):
    import numpy as np

    module = write(project, "mlp.py", MLP)
    original = tmp_path / "mlp_original.py"
    original.write_text(MLP.replace('package="mine"', 'package="mine_original"'))
    result = cli("adopt", "layers/mlp.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "mlp.layer.yaml").read_text()
    # in creation order, positional arguments by name, no name or dtype where the code
    # gives none (Keras names them as before), none of it left to `init`
    assert text.index("  hidden: ") < text.index("  drop: ") < text.index("  head: ")
    assert (
        '  hidden: {class: keras.layers.Dense, args: {units: "units", activation: "\'relu\'",'
        " name: null, dtype: null}, create: init}" in text
    )
    assert '  drop: {class: keras.layers.Dropout, args: {rate: "rate", name: null}' in text
    assert "args: {units: 1, use_bias: false, name: \"'head'\", dtype: null}" in text
    assert "init:" not in text and "hand_written:" not in text.replace(HAND_DOC, "")
    assert "test_weights_match_declaration" not in text  # the weights test runs now
    assert "  - __init__" not in text
    assert cli("generate", "--check", "layers").exit_code == 0
    # the generated module makes the same weights, in the same order, and the same outputs
    mine, adopted = _import(original, "Mlp")(), _import(module, "Mlp")()
    x = np.arange(8, dtype="float32").reshape(2, 4) / 8
    mine(x), adopted(x)
    assert [(w.name, tuple(w.shape)) for w in mine.weights] == [
        (w.name, tuple(w.shape)) for w in adopted.weights
    ]
    assert adopted.head.name == "head" and adopted.hidden.name.startswith("dense")
    adopted.set_weights(mine.get_weights())
    np.testing.assert_allclose(adopted(x), mine(x))


def test_a_sublayer_made_otherwise_stays_the_persons_code(project):
    # an initializer object in `__init__`, a sublayer built from a shape the format does
    # not state so: they stay code that is the person's, as written
    made = MLP.replace('activation="relu"', "kernel_initializer=keras.initializers.Ones()")
    write(project, "mlp.py", made)
    assert cli("adopt", "layers/mlp.py").exit_code == 0
    text = (project / "layers" / "mlp.layer.yaml").read_text()
    assert "sublayers:" not in text
    assert "keras.initializers.Ones()" in text.split("init: |")[1]
    assert "test_weights_match_declaration" in text
    # a `build` that sizes its sublayer through a local of its own
    built = RESIDUAL.replace("        # sized from the input\n", "        width = s[-1]\n").replace(
        "Dense(s[-1]", "Dense(width"
    )
    write(project, "residual.py", built)
    assert cli("adopt", "layers/residual.py").exit_code == 0
    text = (project / "layers" / "residual.layer.yaml").read_text()
    assert "sublayers:" not in text and "  - build  # it does more" in text
    assert "Dense(width, activation" in (project / "layers" / "residual.py").read_text()


RESIDUAL = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Residual(keras.layers.Layer):
    def __init__(self, activation="relu", **kwargs):
        super().__init__(**kwargs)
        self.activation = activation

    def build(self, s):
        self.dense = keras.layers.Dense(s[-1], activation=self.activation, dtype=self.dtype_policy)
        self.dense.build(s)
        self.built = True

    def call(self, x):
        return x + self.dense(x)

    def get_config(self):
        return {**super().get_config(), "activation": self.activation}
"""


def test_sublayers_build_creates_and_builds_are_declared(project, tmp_path):
    import numpy as np

    module = write(project, "residual.py", RESIDUAL)
    original = tmp_path / "residual_original.py"
    original.write_text(RESIDUAL.replace('package="mine"', 'package="mine_original"'))
    result = cli("adopt", "layers/residual.py")
    assert result.exit_code == 0, result.output
    assert "(hand_written: __doc__)" in result.output
    text = (project / "layers" / "residual.layer.yaml").read_text()
    assert (
        '  dense: {class: keras.layers.Dense, args: {units: "x[-1]", activation: "activation",'
        ' name: null}, create: build, build: "x"}' in text
    )
    assert "hand_written:" not in text.replace(HAND_DOC, "")
    assert "test_weights_match_declaration" not in text
    assert cli("generate", "--check", "layers").exit_code == 0
    mine, adopted = _import(original, "Residual")(), _import(module, "Residual")()
    mine.build((2, 4)), adopted.build((2, 4))
    assert [(w.name, tuple(w.shape)) for w in mine.weights] == [
        (w.name, tuple(w.shape)) for w in adopted.weights
    ]
    x = np.arange(8, dtype="float32").reshape(2, 4) / 8
    adopted.set_weights(mine.get_weights())
    np.testing.assert_allclose(adopted(x), mine(x))


def test_the_sublayer_proof_tells_a_changed_name_or_argument():
    from layergen.adopt.sublayers import normalized

    mine = "def __init__(self, units):\n    self.d = keras.layers.Dense(units, dtype=self.dtype_policy)\n"
    same = "def __init__(self, units):\n    self.d = keras.layers.Dense(units=self.units, name=None, dtype=self.dtype_policy)\n"
    named = same.replace("name=None", 'name="d"')
    other = same.replace("units=self.units", "units=units + 1")
    assert normalized(mine, {"units"}) == normalized(same, {"units"})
    assert normalized(mine, {"units"}) != normalized(named, {"units"})
    assert normalized(mine, {"units"}) != normalized(other, {"units"})
    # a param not stored as given (an activation's Keras function) is not its attribute
    assert normalized(mine, set()) != normalized(same, set())


def test_the_positional_arguments_adopt_binds_are_keras_own():
    import inspect

    import keras

    from layergen.adopt.sublayers import POSITIONAL

    for dotted, names in POSITIONAL.items():
        cls = getattr(keras.layers, dotted.rsplit(".", 1)[1])
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        leading = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD][: len(names)]
        assert tuple(leading) == names, dotted


DOCUMENTED = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Documented(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        \"\"\"Args:
            units: the width.
        \"\"\"
        super().__init__(**kwargs)
        self.units = units  # NOTE: read by get_config

    def call(self, x):
        return x * self.units

    def get_config(self):
        # the width, as given
        return {**super().get_config(), "units": self.units}
"""


def test_a_member_with_a_docstring_or_comments_stays_the_persons(project):
    """A member whose docstring or comments the declaration would not keep is not replaced
    by its generated version: every word the person wrote stays."""
    module = write(project, "documented.py", DOCUMENTED)
    done = cli("adopt", "layers/documented.py:Documented", "--example", "units=2")
    assert done.exit_code == 0, done.output
    text = module.read_text()
    for words in ("units: the width.", "# NOTE: read by get_config", "# the width, as given"):
        assert words in text
    declaration = (project / "layers" / "documented.layer.yaml").read_text()
    assert "__init__" in declaration and "get_config" in declaration  # hand_written, said
    assert cli("generate", "--check", "layers").exit_code == 0


BARE_INIT = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Bare(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def call(self, x):
        return x * 2.0
"""


def test_a_class_without_arguments_adopts(project):
    """An `__init__` that only calls the base's, where the generated class has none: it was
    a KeyError traceback; the person's method stays."""
    module = write(project, "bare.py", BARE_INIT)
    done = cli("adopt", "layers/bare.py:Bare")
    assert done.exit_code == 0, done.output
    assert "def __init__(self, **kwargs):" in module.read_text()
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_save_during_adopt_is_never_overwritten(project, monkeypatch):
    """The module saved by an editor while adopt renders its trials: the run stops, the
    save stays (the module was checked against a later read, the declaration not at all)."""
    import layergen.commands.adopt as adopting

    module = write(project, "scaled_dense.py", SCALED)
    rendered = adopting.adopted_module

    def saved_meanwhile(*args, **kwargs):
        module.write_text(SCALED + "\n# saved meanwhile\n")
        return rendered(*args, **kwargs)

    monkeypatch.setattr(adopting, "adopted_module", saved_meanwhile)
    result = cli("adopt", "layers/scaled_dense.py")
    assert result.exit_code == 2, result.output
    assert "[changed-during-run]" in result.output
    assert module.read_text().endswith("# saved meanwhile\n")


CAST = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Widen(keras.layers.Layer):
    def __init__(self, hidden_dim, rate=0.5, **kwargs):
        super().__init__(**kwargs)
        self.hidden_dim = int(hidden_dim)
        self.rate = rate

    def call(self, x):
        return keras.ops.tile(x, (1, self.hidden_dim)) * self.rate

    def get_config(self):
        config = super().get_config()
        config.update({"hidden_dim": self.hidden_dim, "rate": self.rate})
        return config
"""


def test_a_plain_get_config_is_declared_beside_an_init_that_is_yours(project):
    """An `__init__` that does more than the format's stays yours, but a `get_config` that
    lists each argument as the format's does is the same code generated, so it is
    declared (it stayed yours)."""
    # a module constant read: more than the format's `__init__` (and its `init`) does
    extra = "        self.rate = rate\n        self.floor = FLOOR\n"
    text = CAST.replace("        self.rate = rate\n", extra)
    write(project, "widen.py", text.replace("import keras\n", "import keras\n\nFLOOR = 0.1\n"))
    result = cli("adopt", "layers/widen.py", "--example", "hidden_dim=2")
    assert result.exit_code == 0, result.output
    assert "(hand_written: __doc__, __init__)" in result.output, result.output
    text = (project / "layers" / "widen.layer.yaml").read_text()
    assert "  - get_config" not in text, text
    assert cli("generate", "--check", "layers").exit_code == 0
    module = (project / "layers" / "widen.py").read_text()
    assert "self.hidden_dim = int(hidden_dim)" in module
    assert '"hidden_dim": self.hidden_dim' in module


def test_an_argument_stored_cast_is_declared_so(project):
    """keras-hub's `__init__`s store `self.hidden_dim = int(hidden_dim)`: the param is
    declared `cast: true`, whose generated `__init__` stores it so, and `__init__` is no
    longer yours."""
    write(project, "widen.py", CAST)
    result = cli("adopt", "layers/widen.py", "--example", "hidden_dim=2")
    assert result.exit_code == 0, result.output
    assert "(hand_written: __doc__)" in result.output, result.output
    text = (project / "layers" / "widen.layer.yaml").read_text()
    assert '  hidden_dim: {type: "int", cast: true}' in text, text
    assert cli("generate", "--check", "layers").exit_code == 0
    module = (project / "layers" / "widen.py").read_text()
    assert "self.hidden_dim = int(hidden_dim)" in module


def test_an_argument_cast_that_defaults_to_none_keeps_init_yours(project):
    """`int(None)` raises: such a store is not the format's `cast`."""
    text = CAST.replace("hidden_dim, rate=0.5", "hidden_dim=None, rate=0.5")
    write(project, "widen.py", text.replace("self.hidden_dim)", "self.hidden_dim or 1)"))
    result = cli("adopt", "layers/widen.py", "--diff")
    assert result.exit_code == 0, result.output
    assert "__init__" in result.output.split("hand_written:")[1].split(")")[0], result.output
    assert "cast: true" not in result.output


EDITED_COPY = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Widen(keras.layers.Layer):
    def __init__(self, hidden_dim, **kwargs):
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim

    def call(self, x):
        return keras.ops.tile(x[..., :1], (1, 1, self.hidden_dim))

    def compute_output_shape(self, input_shape):
        output_shape = list(input_shape)
        output_shape[-1] = self.hidden_dim
        return output_shape
"""


@pytest.mark.parametrize(
    "edit, declared",
    [
        ("output_shape[-1] = self.hidden_dim", "(*x[:-1], hidden_dim)"),
        ("output_shape[1] = self.hidden_dim * 2", "(*x[:1], hidden_dim * 2, *x[2:])"),
    ],
)
def test_a_shape_copied_and_one_dim_set_is_declared_as_the_output_shape(project, edit, declared):
    """keras-hub's `compute_output_shape` idiom: the input's shape copied into a list, one
    dim set, the list returned. The shape it returns is an `output_shape` expression."""
    text = EDITED_COPY.replace("output_shape[-1] = self.hidden_dim", edit)
    write(project, "widen.py", text)
    result = cli("adopt", "layers/widen.py", "--example", "hidden_dim=2")
    assert result.exit_code == 0, result.output
    assert "compute_output_shape" not in result.output.split("hand_written:")[1].split(")")[0]
    declaration = (project / "layers" / "widen.layer.yaml").read_text()
    assert f'output_shape: "{declared}"' in declaration, declaration
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_cast_whose_default_is_not_of_its_type_keeps_init_yours(project):
    """`int(2.5)` is not the default's value, `int(True)` not a bool: such stores are not
    the format's `cast` (whose default must be of the param's type), and adopt still
    adopts the class, its `__init__` yours."""
    text = CAST.replace("hidden_dim, rate=0.5", "hidden_dim=2.5, rate=0.5")
    write(project, "widen.py", text.replace("int(hidden_dim)", "int(hidden_dim) or 1"))
    flags = CAST.replace("hidden_dim, rate=0.5", "hidden_dim=True, rate=0.5")
    write(project, "flags.py", flags.replace("class Widen", "class Flags"))
    for name in ("widen", "flags"):
        result = cli("adopt", f"layers/{name}.py")
        assert result.exit_code == 0, result.output
        assert "(hand_written: __doc__, __init__" in result.output, result.output
        assert "cast: true" not in (project / "layers" / f"{name}.layer.yaml").read_text()


TABLE = """\
import keras
import numpy as np


@keras.saving.register_keras_serializable(package="mine")
class Table(keras.layers.Layer):
    def __init__(self, size, **kwargs):
        super().__init__(**kwargs)
        self.size = size

    def build(self, input_shape):
        freqs = 1.0 / (
            10000.0 ** (np.arange(0, self.size) / self.size)
        )
        self.table = self.add_weight(
            name="table", shape=freqs.shape, initializer="zeros", trainable=False
        )

    def call(self, x):
        return x + self.table[0]

    def get_config(self):
        return {**super().get_config(), "size": self.size}
"""


def test_a_reason_quoting_code_of_several_lines_stays_one_yaml_comment(project):
    """keras-hub's SAM3 rotary embedding computes a table over several lines in `build`:
    the reason `build` stays yours quoted all of them, and the declaration was not YAML."""
    write(project, "table.py", TABLE)
    result = cli("adopt", "layers/table.py", "--example", "size=4")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "table.layer.yaml").read_text()
    assert "  - build  # it does more than create its weights (`freqs = 1.0 / (`)\n" in text, text


WITH_DOCSTRING = CAST.replace(
    "class Widen(keras.layers.Layer):\n",
    'class Widen(keras.layers.Layer):\n    """Tiles the input and scales it.\n\n'
    "    Args:\n        hidden_dim: int. How many times to tile.\n"
    '        rate: float. The scale.\n    """\n\n',
)


def _param_added(project) -> None:
    declaration = project / "layers" / "widen.layer.yaml"
    text = declaration.read_text()
    declared = text.replace(
        '  rate: {type: "float", default: 0.5}\n',
        '  rate: {type: "float", default: 0.5}\n  gain: {type: float, default: 1.0}\n',
    )
    assert declared != text, text
    declaration.write_text(declared)


@pytest.mark.parametrize("text", [WITH_DOCSTRING, CAST], ids=["documented", "undocumented"])
def test_the_docstring_of_an_adopted_class_stays_its_own(project, text):
    """The class's docstring (or its want of one) is the person's: a param added to the
    declaration later never writes conflict markers into it, nor a generated docstring."""
    write(project, "widen.py", text)
    result = cli("adopt", "layers/widen.py", "--example", "hidden_dim=2", "--no-trial")
    assert result.exit_code == 0, result.output
    assert "  - __doc__  # " in (project / "layers" / "widen.layer.yaml").read_text()
    _param_added(project)
    result = cli("generate", "layers")
    module = (project / "layers" / "widen.py").read_text()
    assert "<<<<<<<" not in module, module
    assert '"gain": self.gain' in module
    docstring = text.split("class Widen(keras.layers.Layer):\n")[1].split("    def __init__")[0]
    assert module.split("class Widen(keras.layers.Layer):\n")[1].startswith(docstring), module
    if text == WITH_DOCSTRING:  # the docstring the declaration changes is said, at the class
        assert result.exit_code == 1, result.output
        assert "layers/widen.py:5: hand-written: `Widen.__doc__` is yours" in result.output
        assert cli("resolve", "layers/widen.py", "--ours").exit_code == 0
    assert cli("generate", "--check", "layers").exit_code == 0


def test_taking_the_generated_docstring_adds_it_to_a_class_without_one(project):
    """`resolve --theirs` hands the docstring back to the declaration: the class gets the
    generated one, and later declaration changes are made to it."""
    write(project, "widen.py", CAST)
    assert cli("adopt", "layers/widen.py", "--example", "hidden_dim=2", "--no-trial").exit_code == 0
    _param_added(project)
    assert cli("generate", "layers").exit_code == 0  # no docstring: nothing to bring up to date
    assert cli("resolve", "layers/widen.py", "--theirs").exit_code == 0
    module = (project / "layers" / "widen.py").read_text()
    assert '    """Widen layer.\n' in module and "gain: float. Defaults to `1.0`." in module
    assert not any(line.isspace() for line in module.split("\n")), module  # black's layout
    assert "__doc__" not in (project / "layers" / "widen.layer.yaml").read_text()
    assert cli("generate", "--check", "layers").exit_code == 0
    assert cli("check", "layers").exit_code == 0


COMMENTED = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Commented(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        # === Config ===
        self.units = units

    def build(self, input_shape):
        # one scale per unit
        self.scale = self.add_weight(name="scale", shape=(self.units,), initializer="ones")

    def call(self, x):
        return x * self.scale

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})  # every argument
        return config
"""


def test_members_with_comments_are_declared_and_keep_them(project):
    """A comment is no reason for a member to stay the person's: where the generated member
    is the same code, it is declared and the comments stay in it, as a hand edit on it
    merges; a declaration change later keeps them."""
    module = write(project, "commented.py", COMMENTED)
    result = cli("adopt", "layers/commented.py", "--example", "units=4", "--no-trial")
    assert result.exit_code == 0, result.output
    assert "(hand_written: __doc__)" in result.output, result.output
    text = module.read_text()
    for comment in ("# === Config ===", "# one scale per unit", "# every argument"):
        assert text.count(comment) == 1, text
    assert cli("generate", "--check", "layers").exit_code == 0
    declaration = project / "layers" / "commented.layer.yaml"
    declared = declaration.read_text().replace(
        '  units: {type: "int"}\n', '  units: {type: "int"}\n  gain: {type: float, default: 1.0}\n'
    )
    declaration.write_text(declared)
    assert cli("generate", "layers").exit_code == 0
    text = module.read_text()
    assert "<<<<<<<" not in text and "self.gain = gain" in text, text
    for comment in ("# === Config ===", "# one scale per unit"):
        assert text.count(comment) == 1, text
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_commented_member_the_declaration_writes_otherwise_stays_the_persons(project):
    """Stores in another order than the params': the generated `__init__` is not the same
    code, so the comments could not be kept in it."""
    text = COMMENTED.replace("units, **kwargs", "units, rate=0.5, **kwargs").replace(
        "        self.units = units\n", "        self.rate = rate\n        self.units = units\n"
    )
    write(
        project,
        "commented.py",
        text.replace('"units": self.units}', '"units": self.units, "rate": self.rate}'),
    )
    result = cli("adopt", "layers/commented.py", "--example", "units=4", "--no-trial")
    assert result.exit_code == 0, result.output
    declaration = (project / "layers" / "commented.layer.yaml").read_text()
    assert "  - __init__  # it has comments, which the generated method would drop" in declaration
    assert "# === Config ===" in (project / "layers" / "commented.py").read_text()


STORED_OTHERWISE = """\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class Gate(keras.layers.Layer):
    def __init__(self, units, epsilon=1e-3, **kwargs):
        super().__init__(**kwargs)
        self._units = units
        self.epsilon = epsilon

    def build(self, input_shape):
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_shape[-1], self._units),
            initializer="glorot_uniform",
        )

    def call(self, x):
        return ops.matmul(x, self.kernel) + self.epsilon

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self._units)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self._units, "epsilon": self.epsilon})
        return config
"""


def test_no_member_is_declared_that_reads_an_attribute_the_code_never_sets(project):
    """`self._units = units` in an `__init__` that stays the person's: a generated member
    reads `self.units`, which nothing sets (the adopted layer raised AttributeError, and
    the trial stated the failing tests skipped). Those members stay the person's."""
    module = write(project, "gate.py", STORED_OTHERWISE)
    result = cli("adopt", "layers/gate.py", "--example", "units=3", "--no-trial")
    assert result.exit_code == 0, result.output
    text = module.read_text()
    assert "self.units" not in text, text
    declaration = (project / "layers" / "gate.layer.yaml").read_text()
    assert "  - build  # it would read `self.units`" in declaration, declaration
    namespace: dict = {}
    exec(compile(text, "gate.py", "exec"), namespace)
    import keras

    assert tuple(namespace["Gate"](3)(keras.ops.ones((2, 4))).shape) == (2, 3)
    assert cli("generate", "--check", "layers").exit_code == 0


def test_renaming_an_adopted_class_leaves_the_modules_docstring_alone(project):
    """The module's docstring (or its want of one) is the person's: the generated one names
    the class, and a rename wrote conflict markers at the top of the module."""
    module = write(project, "widen.py", '"""Widening layers."""\n\n' + CAST)
    assert cli("adopt", "layers/widen.py", "--example", "hidden_dim=2", "--no-trial").exit_code == 0
    bare = write(project, "plain.py", CAST.replace("Widen", "Plain"))
    assert cli("adopt", "layers/plain.py", "--example", "hidden_dim=2", "--no-trial").exit_code == 0
    for name, path in (("Widen", "widen"), ("Plain", "plain")):
        declaration = project / "layers" / f"{path}.layer.yaml"
        declaration.write_text(declaration.read_text().replace(f"layer: {name}", f"layer: {name}2"))
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    assert module.read_text().startswith('"""Widening layers."""\n\nimport keras\n')
    assert bare.read_text().startswith("import keras\n"), bare.read_text()
    assert "class Plain2(" in bare.read_text()
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_conflict_elsewhere_says_nothing_of_a_docstring_the_class_does_without(project):
    """While markers wait in the module, its classes are read on the person's side of them:
    a class without a docstring has none to bring up to date (it was said, at every run)."""
    write(project, "widen.py", CAST)
    assert cli("adopt", "layers/widen.py", "--example", "hidden_dim=2", "--no-trial").exit_code == 0
    _param_added(project)
    module = project / "layers" / "widen.py"
    module.write_text(module.read_text().replace("* self.rate\n", "* self.rate * 2\n"))
    declaration = project / "layers" / "widen.layer.yaml"
    declaration.write_text(declaration.read_text().replace("* self.rate\n", "* self.rate * 3\n"))
    result = cli("generate", "layers")
    assert result.exit_code == 1 and "[conflict]" in result.output, result.output
    assert "__doc__" not in result.output, result.output
