"""Two layer classes of one name in two modules (`vit/blocks.py:DropPath`,
`vit_det/heads.py:DropPath`), as a codebase of many models has them: each is adopted and
the two register under keys of their own (a saved model reloads the class it was saved
with), or, in a package Keras loads by module path, are declared unregistered as they are."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

from helpers import cli, saved_long_ago

DROP = """\
import keras


class DropPath(keras.layers.Layer):
    def __init__(self, rate=0.5, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate

    def call(self, x):
        return x * {factor}

    def get_config(self):
        return {{**super().get_config(), "rate": self.rate}}
"""


def _two_drop_paths(project, stems=("layers", "layers")):
    for folder, stem, factor in zip(("vit", "vit_det"), stems, ("2.0", "3.0")):
        (project / "layers" / folder).mkdir()
        (project / "layers" / folder / "__init__.py").write_text("")
        saved_long_ago(project / "layers" / folder / "__init__.py")
        (project / "layers" / folder / f"{stem}.py").write_text(DROP.format(factor=factor))


def _keras(root, script: str, **env: str) -> str:
    """`script`'s output, run in a fresh process in `root` (as a person's program sees the
    classes), with `env` added."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=root,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def _registered_names(project, *modules: str) -> list[str]:
    """The key each module's `DropPath` registers under, the modules imported in one process
    on the numpy backend (the quickest to start: registration is the same on every one)."""
    script = "import importlib, keras\n" + "".join(
        f"print(keras.saving.get_registered_name(importlib.import_module({m!r}).DropPath))\n"
        for m in modules
    )
    return _keras(project, script, KERAS_BACKEND="numpy").splitlines()


def test_same_named_classes_register_under_keys_of_their_own(project):
    _two_drop_paths(project, stems=("blocks", "heads"))
    for module in ("vit/blocks", "vit_det/heads"):
        result = cli("adopt", f"layers/{module}.py")
        assert result.exit_code == 0, result.output
        assert "adopted DropPath" in result.output
    first, second = _registered_names(project, "layers.vit.blocks", "layers.vit_det.heads")
    assert first != second and first.endswith(">DropPath") and second.endswith(">DropPath")
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_model_of_both_reloads_each_class_it_was_saved_with(project):
    _two_drop_paths(project, stems=("blocks", "heads"))
    assert cli("adopt", "layers/vit/blocks.py").exit_code == 0
    assert cli("adopt", "layers/vit_det/heads.py").exit_code == 0
    assert _saved_and_loaded(project, "layers.vit.blocks", "layers.vit_det.heads") == "6.0"


def _saved_and_loaded(root, first, second):
    """A model of the two DropPaths (x2 then x3), saved and loaded in a fresh process: its
    output for ones."""
    script = f"""
        import numpy as np, keras
        from {first} import DropPath as A
        from {second} import DropPath as B
        x = keras.Input((3,))
        model = keras.Model(x, B()(A()(x)))
        model.save("both.keras")
        loaded = keras.saving.load_model("both.keras")
        print(float(loaded(np.ones((1, 3)))[0, 0]))
        """
    return _keras(root, script)


def test_classes_keras_finds_by_module_path_are_declared_unregistered(tmp_path, monkeypatch):
    """In a package Keras loads by module path (keras_hub's own, unregistered `DropPath`s):
    the declarations say the classes are not registered, as the code has them, so two of
    one name are no clash; each is adopted and loads from a saved model."""
    root = tmp_path / "hub"
    for folder in ("keras_hub", "keras_hub/mit", "keras_hub/vit"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
        saved_long_ago(root / folder / "__init__.py")
    (root / "pyproject.toml").write_text("[project]\nname = 'keras-hub'\n")
    plain = DROP.format(factor="2.0")
    (root / "keras_hub/mit/mit_layers.py").write_text(plain)
    (root / "keras_hub/vit/vit_layers.py").write_text(plain.replace("2.0", "3.0"))
    monkeypatch.chdir(root)
    for module in ("mit/mit_layers", "vit/vit_layers"):
        result = cli("adopt", f"keras_hub/{module}.py")
        assert result.exit_code == 0, result.output
        declaration = (root / f"keras_hub/{module}.layer.yaml").read_text()
        assert "package: false" in declaration
        assert "register_keras_serializable" not in (root / f"keras_hub/{module}.py").read_text()
    check = cli("generate", "--check", "keras_hub")
    assert check.exit_code == 0, check.output
    assert _saved_and_loaded(root, "keras_hub.mit.mit_layers", "keras_hub.vit.vit_layers") == "6.0"


def test_same_named_modules_get_test_modules_of_their_own(project):
    """The second `layers.py` adopted takes the folder into its tests' name; the first keeps
    the name it has, and a later run names each as before."""
    _two_drop_paths(project)
    for folder in ("vit", "vit_det"):
        result = cli("adopt", f"layers/{folder}/layers.py")
        assert result.exit_code == 0, result.output
    tests = sorted(p.name for p in (project / "tests").glob("test_*.py"))
    assert tests == ["test_layers.py", "test_vit_det_layers.py"]
    assert "layers.vit_det.layers import" in (project / "tests" / tests[1]).read_text()
    check = cli("generate", "--check", "layers")
    assert check.exit_code == 0, check.output


BLOCKS = """\
layer: Scaler
weights: {scale: {shape: "x[-1]", initializer: ones}}
call: x * scale
---
layer: Shifter
weights: {shift: {shape: "x[-1]", initializer: zeros}}
call: x + shift
"""


def test_a_module_of_several_classes_named_like_another_moves_with_its_tests(project):
    """Two `blocks.layer.yaml` of two classes each, generated in one run: the second's tests
    take its folder into their names; `mv` renames them all, a test added by hand kept."""
    for folder, names in (("a", ("Scaler", "Shifter")), ("b", ("Amp", "Offset"))):
        (project / "layers" / folder).mkdir()
        text = BLOCKS.replace("Scaler", names[0]).replace("Shifter", names[1])
        (project / "layers" / folder / "blocks.layer.yaml").write_text(text)
    assert cli("generate", "layers").exit_code == 0
    tests = project / "tests"
    names = sorted(p.name for p in tests.glob("test_*.py"))
    assert names == [
        "test_b_blocks.py",
        "test_b_blocks_offset.py",
        "test_blocks.py",
        "test_blocks_shifter.py",
    ]
    with open(tests / "test_b_blocks_offset.py", "a") as file:
        file.write("\n\ndef test_mine():\n    pass\n")
    moved = cli("mv", "layers/b/blocks.layer.yaml", "layers/b/heads.layer.yaml")
    assert moved.exit_code == 0, moved.output
    names = sorted(p.name for p in tests.glob("test_*.py"))
    assert names == [
        "test_blocks.py",
        "test_blocks_shifter.py",
        "test_heads.py",
        "test_heads_offset.py",
    ]
    assert "def test_mine" in (tests / "test_heads_offset.py").read_text()
    check = cli("generate", "--check", "layers")
    assert check.exit_code == 0, check.output


def test_a_new_tests_folder_keeps_each_test_modules_name(project):
    """The tests folder changed in pyproject.toml: each declaration's test module moves
    there under the name it had, the second `blocks`'s folder-qualified one too."""
    for folder, names in (("a", ("Scaler", "Shifter")), ("b", ("Amp", "Offset"))):
        (project / "layers" / folder).mkdir()
        text = BLOCKS.replace("Scaler", names[0]).replace("Shifter", names[1])
        (project / "layers" / folder / "blocks.layer.yaml").write_text(text)
    assert cli("generate", "layers").exit_code == 0
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "[tool.layergen]\ntests = 'checks'\n")
    moved = cli("generate", "layers")
    assert moved.exit_code == 0, moved.output
    names = sorted(p.name for p in (project / "checks").glob("test_*.py"))
    assert names == [
        "test_b_blocks.py",
        "test_b_blocks_offset.py",
        "test_blocks.py",
        "test_blocks_shifter.py",
    ]


def test_a_lost_lock_gives_each_test_module_back_to_its_module(project):
    """`vit_det/layers` generated first took `test_layers.py`, `vit/layers` then
    `test_vit_layers.py`. The lock lost, a run places them again from the files on disk: a
    test module that imports another module is that module's, so neither is merged into
    the other's (a hand-added test kept where it was)."""
    for folder, name in (("vit_det", "B"), ("vit", "A")):
        (project / "layers" / folder).mkdir()
        (project / "layers" / folder / "layers.layer.yaml").write_text(
            f"layer: {name}\ncall: x * 2\n"
        )
        assert cli("generate", f"layers/{folder}").exit_code == 0
    tests = project / "tests"
    with open(tests / "test_layers.py", "a") as file:
        file.write("\n\ndef test_mine():\n    assert True\n")
    before = {p.name: p.read_text() for p in tests.glob("test_*.py")}
    (project / "layergen.lock").unlink()
    shutil.rmtree(project / ".layergen", ignore_errors=True)
    again = cli("generate", "layers")
    assert again.exit_code == 0, again.output
    assert {p.name: p.read_text() for p in tests.glob("test_*.py")} == before


def test_package_false_outside_a_package_keras_loads_by_path_is_a_located_error(project):
    """A class that registers nothing loads from a saved model only where Keras finds it
    by its module path (keras_hub and the like): elsewhere `package: false` would leave a
    layer `load_model` cannot find, so it is refused at the key, nothing written."""
    (project / "layers" / "plain.layer.yaml").write_text(
        "layer: Plain\npackage: false\ncall: x * 2\n"
    )
    result = cli("generate", "layers")
    assert result.exit_code == 2, result.output
    assert "layers/plain.layer.yaml:2:10: error:" in result.output, result.output
    assert "[bad-package]" in result.output
    assert not (project / "layers" / "plain.py").exists()
