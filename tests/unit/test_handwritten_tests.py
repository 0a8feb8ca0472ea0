"""`layergen tests` for hand-written layers (layergen/handwritten.py).

Regression tests: no conflict passes unnoticed, no edit is lost; everyday workflows that lost an
edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

from helpers import cli, declaration_path, edit, generated_tests, snapshot
from helpers import cli as run

GAIN = """\
import keras


@keras.saving.register_keras_serializable(package="demo")
class Gain(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}
"""


def gain_project(root):
    (root / "layers" / "gain.py").write_text(GAIN)
    assert cli("tests", "layers/gain.py").exit_code == 0
    return root / "tests" / "test_gain.py"


def test_a_hand_written_module_deleted_leaves_its_tests_and_the_lock(scaler_project):
    """After a hand-written layer's module was deleted, `layergen tests`
    failed on every run (nothing removed its record)."""
    tests = gain_project(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_mine():\n    assert True\n")
    (scaler_project / "layers" / "gain.py").unlink()
    result = cli("tests")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "def test_mine" in tests.read_text()  # edited: kept and said
    tests.unlink()
    assert cli("tests").exit_code == 0
    assert "gain" not in (scaler_project / "layergen.lock").read_text()
    result = cli("tests")
    assert result.exit_code == 2 and "[no-tests]" in result.output, result.output


def test_the_tests_of_a_deleted_module_as_generated_are_removed(scaler_project):
    tests = gain_project(scaler_project)
    (scaler_project / "layers" / "gain.py").unlink()
    result = cli("tests")
    assert result.exit_code == 0 and "removed    tests/test_gain.py" in result.output, result.output
    assert not tests.exists()


def test_generate_check_sees_the_tests_of_a_hand_written_layer_go_stale(scaler_project):
    """Tests written by `layergen tests FILE` went stale when the layer
    gained a constructor argument, and `generate --check` (the hook) still exited 0."""
    from helpers import edit

    tests = gain_project(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_mine():\n    assert True\n")
    assert cli("generate", "--check", "layers").exit_code == 0
    module = scaler_project / "layers" / "gain.py"
    edit(module, "factor=2.0, **kwargs", "factor=2.0, bias=0.5, **kwargs")
    edit(module, "self.factor = factor\n", "self.factor = factor\n        self.bias = bias\n")
    edit(module, "return x * self.factor", "return x * self.factor + self.bias")
    edit(module, '"factor": self.factor}', '"factor": self.factor, "bias": self.bias}')
    result = cli("generate", "--check", "layers")
    assert (
        result.exit_code == 1 and "would change tests/test_gain.py" in result.output
    ), result.output
    assert cli("generate", "layers").exit_code == 0
    assert '"bias"' in tests.read_text() and "def test_mine" in tests.read_text()
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_new_tests_folder_takes_the_tests_and_the_hand_added_ones_along(scaler_project):
    """After `[tool.layergen] tests` changed, `layergen tests` wrote a fresh
    test module without the hand-added test and left the old one in the lock, never updated
    again, never reported."""
    tests = gain_project(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_mine():\n    assert True\n")
    (scaler_project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\ntests = 'checks'\n"
    )
    for args in (("tests",), ("generate", "layers")):
        result = cli(*args)
        assert result.exit_code == 0, (args, result.output)
    moved = scaler_project / "checks" / "test_gain.py"
    assert "def test_mine" in moved.read_text() and not tests.exists()
    assert "tests/test_gain.py" not in (scaler_project / "layergen.lock").read_text()
    assert cli("generate", "--check", "layers").exit_code == 0


# -- layergen tests writes through the lock and the merge, and never invents ----------------------

HANDWRITTEN = '''\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class ClassToken(keras.layers.Layer):
    """Prepends a learned token.

    Args:
        hidden_dim: Integer, the width of the token.
    """

    def __init__(self, hidden_dim, **kwargs):
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim

    def build(self, input_shape):
        batch, length, width = input_shape
        self.token = self.add_weight(name="token", shape=(1, 1, width))

    def call(self, x):
        token = ops.broadcast_to(self.token, (ops.shape(x)[0], 1, ops.shape(x)[2]))
        return ops.concatenate([token, x], axis=1)

    def get_config(self):
        return {**super().get_config(), "hidden_dim": self.hidden_dim}
'''


def test_tests_command_keeps_a_hand_added_test_and_names_files_in_snake_case(scaler_project):
    (scaler_project / "layers" / "blocks.py").write_text(HANDWRITTEN)
    first = run("tests", "layers/blocks.py")
    assert first.exit_code == 0, first.output
    assert "created    tests/test_blocks.py" in first.output  # one layer: named after its module
    test = scaler_project / "tests" / "test_blocks.py"
    text = test.read_text()
    assert (
        "input_shape = (2, 4, 4)" in text or "(2, 4, 4)" in text
    )  # rank 3, from `batch, length, width = input_shape`
    assert '"hidden_dim": 4' in text  # an Integer, says the docstring
    test.write_text(text + "\n\ndef test_mine():\n    assert True\n")
    again = run("tests", "layers/blocks.py")
    assert again.exit_code == 0, again.output
    assert "def test_mine():" in test.read_text()
    assert "unchanged  tests/test_blocks.py" in again.output


def test_tests_command_requires_what_the_code_does_not_say(scaler_project):
    code = (
        HANDWRITTEN.replace("        hidden_dim: Integer, the width of the token.\n", "")
        .replace(
            "        batch, length, width = input_shape\n        ",
            "        width = input_shape[-1]\n        ",
        )
        .replace("ops.shape(x)[2]", "width")
        .replace("(1, 1, width)", "(1, 1, input_shape[-1])")
        .replace("width))", "self.hidden_dim))")
    )
    (scaler_project / "layers" / "blocks.py").write_text(
        code.replace("input_shape[-1]", "input_shape.last")
    )
    before = snapshot(scaler_project)
    result = run("tests", "layers/blocks.py")
    assert result.exit_code == 2
    assert "layers/blocks.py:12:24: error: `ClassToken` requires `hidden_dim`" in result.output
    assert "--example hidden_dim=VALUE" in result.output
    # No rank in the code is not an error: the default shape, said in a note.
    assert "input shape" not in result.output
    assert snapshot(scaler_project) == before
    assert (
        run(
            "tests", "layers/blocks.py", "--example", "hidden_dim=8", "--input-shape", "2,3,8"
        ).exit_code
        == 0
    )


def test_tests_command_renders_through_the_projects_own_template(scaler_project):
    """A `templates` folder overrides the built-in test template for `layergen tests` too."""
    from layergen.render.render import _builtin_templates

    builtin = (_builtin_templates() / "layer_test.py.j2").read_text()
    (scaler_project / "templates").mkdir()
    (scaler_project / "templates" / "layer_test.py.j2").write_text("# our own template\n" + builtin)
    pyproject = scaler_project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "[tool.layergen]\ntemplates = 'templates'\n")
    (scaler_project / "layers" / "blocks.py").write_text(HANDWRITTEN)
    result = run("tests", "layers/blocks.py")
    assert result.exit_code == 0, result.output
    text = (scaler_project / "tests" / "test_blocks.py").read_text()
    assert text.startswith("# our own template\n")


def test_tests_for_a_generated_module_are_refused_and_renames_still_follow(scaler_project):
    """Found by the stateful test: `layergen tests` on a declaration's module took its tests
    over (the declaration's record dropped), and a later rename of the declaration left two
    modules of the same class."""
    before = snapshot(scaler_project)
    result = run("tests", "layers/scaler.py", "--input-shape", "2,4")
    assert result.exit_code == 2 and "[generated-module]" in result.output
    assert "layers/scaler.py:1:1: error:" in result.output and "hint:" in result.output
    assert snapshot(scaler_project) == before
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    assert run("generate", "layers").exit_code == 0
    layers = sorted(p.name for p in (scaler_project / "layers").glob("*.py"))
    assert layers == ["__init__.py", "gainer.py"]


def test_tests_alone_skip_a_remembered_module_a_declaration_now_generates(scaler_project):
    """A lock from before the refusal remembers the declaration's module as hand-written:
    `layergen tests` alone leaves its tests to the declaration."""
    import json

    lock = scaler_project / "layergen.lock"
    data = json.loads(lock.read_text())
    data["handwritten"] = {
        "tests/test_scaler.py": {"module": "layers/scaler.py", "class": "Scaler"}
    }
    lock.write_text(json.dumps(data, indent=1) + "\n")
    tests_before = generated_tests(scaler_project).read_text()
    assert run("tests").exit_code == 0
    assert generated_tests(scaler_project).read_text() == tests_before
    assert run("generate", "--check", "layers").exit_code == 0


def test_tests_for_a_hand_written_layer_follow_a_class_rename(scaler_project):
    # Two layers in the module: each has its test module, test_own_<class>.py. An argument
    # tells a class renamed from another one (two classes with none are not paired).
    layer = (
        "\n\nclass {}(keras.layers.Layer):\n"
        "    def __init__(self, factor=2.0, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.factor = factor\n\n"
        "    def call(self, x):\n        return x * self.factor\n"
    )
    (scaler_project / "layers" / "own.py").write_text(
        "import keras\n" + layer.format("Other") + layer.format("Mine")
    )
    assert run("tests", "layers/own.py", "--input-shape", "2,4").exit_code == 0
    old = scaler_project / "tests" / "test_own_mine.py"
    old.write_text(old.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    edit(scaler_project / "layers" / "own.py", "class Mine(", "class Yours(")
    assert run("tests", "layers/own.py", "--input-shape", "2,4").exit_code == 0
    new = scaler_project / "tests" / "test_own_yours.py"
    assert not old.exists() and "def test_by_hand():" in new.read_text()
    assert "from layers.own import Yours" in new.read_text()


def test_tests_of_a_removed_class_do_not_go_to_an_unrelated_new_one(scaler_project):
    """Found by an attack on 0.1: a class removed from a module and an unrelated one added
    were paired as a rename; the removed class's edited test module was deleted and its tests
    moved to the new class's, still calling the removed class."""
    layer = (
        "\n\nclass {0}(keras.layers.Layer):\n"
        "    def __init__(self, {1}=1.0, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.{1} = {1}\n\n"
        "    def call(self, x):\n        return x + self.{1}\n"
    )
    own = scaler_project / "layers" / "own.py"
    own.write_text(
        "import keras\n" + layer.format("Keep", "bias") + layer.format("Shift", "offset")
    )
    assert run("tests", "layers/own.py", "--input-shape", "2,4").exit_code == 0
    old = scaler_project / "tests" / "test_own_shift.py"
    old.write_text(old.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    own.write_text("import keras\n" + layer.format("Keep", "bias") + layer.format("Clip", "limit"))
    result = run("tests", "layers/own.py", "--input-shape", "2,4")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "def test_by_hand():" in old.read_text()
    new = (scaler_project / "tests" / "test_own_clip.py").read_text()
    assert "def test_by_hand(" not in new and "Shift" not in new


def test_generate_check_of_the_project_sees_the_tests_of_a_layer_outside_paths_go_stale(
    scaler_project,
):
    """The hook runs `generate --check` on the configured paths: tests `layergen tests` wrote
    for a hand-written layer elsewhere in the project are the project's, checked with it."""
    (scaler_project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    assert cli("generate").exit_code == 0
    (scaler_project / "mylib").mkdir()
    module = scaler_project / "mylib" / "gain.py"
    module.write_text(GAIN)
    assert cli("tests", "mylib/gain.py").exit_code == 0
    assert cli("generate", "--check").exit_code == 0
    edit(module, "factor=2.0, **kwargs", "factor=2.0, bias=0.5, **kwargs")
    edit(module, '"factor": self.factor}', '"factor": self.factor, "bias": self.bias}')
    edit(module, "self.factor = factor\n", "self.factor = factor\n        self.bias = bias\n")
    result = cli("generate", "--check")
    assert (
        result.exit_code == 1 and "would change tests/test_gain.py" in result.output
    ), result.output
    assert cli("generate").exit_code == 0
    assert '"bias"' in (scaler_project / "tests" / "test_gain.py").read_text()
    assert cli("generate", "--check").exit_code == 0
    # a run on named paths checks the tests of the layers under them only
    assert cli("generate", "--check", "layers").exit_code == 0
