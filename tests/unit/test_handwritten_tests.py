"""`layergen tests` for hand-written layers (layergen/handwritten.py). Issue 34."""

from __future__ import annotations

from helpers import cli

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
    """Issue 34 item 16: after a hand-written layer's module was deleted, `layergen tests`
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
    """Issue 34 item 11: tests written by `layergen tests FILE` went stale when the layer
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
    """Issue 34 item 12: after `[tool.layergen] tests` changed, `layergen tests` wrote a fresh
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
