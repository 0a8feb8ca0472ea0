"""Goldens recorded from the class a declaration twins (`example.original`): its outputs on
every call case, at the seeded weights the generated tests use, are what the generated
layer must compute from the first `generate` on, with no hand-written reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import codes_of, errors, layergen, pytest_in

ORIGINAL = """\
import keras


class Scale(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, x_shape):
        self.kernel = self.add_weight(shape=(x_shape[-1], self.units))

    def call(self, x, double=True):
        y = keras.ops.matmul(x, self.kernel)
        return y * 2.0 if double else y
"""
DECLARATION = """\
layer: Scale
params:
  units: int
inputs:
  x:
  double:
    type: bool
    default: true
weights:
  kernel: (x[-1], units)
call: |
  y = ops.matmul(x, kernel)
  return y * {factor} if double else y
output_shape: (*x[:-1], units)
example:
  params: {{units: 3}}
  input_shape: [2, 4]
  call_args: {{double: false}}
  original: ref.scale.Scale
"""
LINE = DECLARATION.splitlines().index("  original: ref.scale.Scale") + 1


def test_a_declaration_names_the_class_it_twins():
    from layergen.declaration.load import parse_declaration

    checked = parse_declaration("a.layer.yaml", DECLARATION.format(factor="2.0").encode())
    assert checked.decl.example.original == "ref.scale.Scale"


@pytest.mark.parametrize("value", ["Scale", "ref.scale.", "ref.3scale.Scale", "ref..Scale"])
def test_an_original_that_is_no_dotted_class_path_is_located(value):
    text = DECLARATION.format(factor="2.0").replace("ref.scale.Scale", f'"{value}"')
    line = text.splitlines().index(f'  original: "{value}"') + 1
    assert codes_of(text) == [(line, 13, "bad-example")]


def _project(root: Path, factor: str = "2.0", original: str = "ref.scale.Scale") -> Path:
    from helpers import project

    declaration = DECLARATION.format(factor=factor).replace("ref.scale.Scale", original)
    return project(
        root,
        {
            "ref/__init__.py": "",
            "ref/scale.py": ORIGINAL,
            "layers/scale.layer.yaml": declaration,
        },
    )


def test_the_test_module_of_each_declaration_naming_an_original(tmp_path):
    from layergen.config import load_config
    from layergen.golden import originals

    root = _project(tmp_path)
    (root / "layers" / "plain.layer.yaml").write_text("layer: Plain\ncall: x\n")
    config = load_config(root)
    found = originals(sorted((root / "layers").glob("*.yaml")), config, {})
    assert list(found) == [config.tests_dir / "test_scale.py"]
    (original,) = found.values()
    assert (original.cls, original.dotted) == ("Scale", "ref.scale.Scale")
    assert (Path(original.where.path).name, original.where.line) == ("scale.layer.yaml", LINE)


def test_the_test_module_of_an_original_is_where_the_run_places_it(tmp_path):
    """A declaration of the same file name in a folder that sorts first takes
    `test_scale.py`; the one naming the original gets `test_layers_scale.py`, and its
    golden is recorded there, not into the other's tests."""
    from layergen.config import load_config
    from layergen.generate import plan_run
    from layergen.golden import originals

    root = _project(tmp_path)
    (root / "a_plain").mkdir()
    (root / "a_plain" / "scale.layer.yaml").write_text("layer: Plain\ncall: x\n")
    config = load_config(root)
    declarations = [root / "a_plain" / "scale.layer.yaml", root / "layers" / "scale.layer.yaml"]
    run = plan_run(declarations, config)
    found = originals(declarations, config, run.companions)
    assert list(found) == [config.tests_dir / "test_layers_scale.py"]


@pytest.mark.e2e
def test_the_original_is_recorded_when_its_golden_is_missing_and_catches_a_twin_that_differs(
    tmp_path,
):
    """No `--record`: the first `generate` records the original's outputs (both call cases),
    so a twin computing `y * 3.0` fails its golden test from day one; the right twin passes."""
    root = _project(tmp_path, factor="3.0")
    result = layergen("generate", "layers", cwd=root)
    assert result.returncode == 0, result.stderr
    golden = json.loads((root / "tests" / "test_scale.golden.json").read_text())
    assert golden["original"] == "ref.scale.Scale"
    assert sorted(golden["runs"]) == ["outputs", "outputs with double"]
    test = "tests/test_scale.py::test_outputs_match_the_recorded_golden"
    wrong = pytest_in(root, "-q", "-p", "no:cacheprovider", test, KERAS_BACKEND="torch")
    assert wrong.returncode == 1 and "1 failed" in wrong.stdout, wrong.stdout
    # The right twin: the golden stays the original's (it is not recorded again).
    declaration = root / "layers" / "scale.layer.yaml"
    declaration.write_text(declaration.read_text().replace("y * 3.0", "y * 2.0"))
    assert layergen("generate", "layers", cwd=root).returncode == 0
    assert json.loads((root / "tests" / "test_scale.golden.json").read_text()) == golden
    right = pytest_in(root, "-q", "-p", "no:cacheprovider", test, KERAS_BACKEND="torch")
    assert right.returncode == 0 and "1 passed" in right.stdout, right.stdout


@pytest.mark.e2e
def test_an_original_that_does_not_import_is_located_at_its_key(tmp_path):
    root = _project(tmp_path, original="ref.scale.Missing")
    result = layergen("generate", "layers", cwd=root)
    ((name, line, _, code),) = errors(result)
    assert (name, line, code) == ("scale.layer.yaml", LINE, "record-failed")
    assert "ref.scale.Missing" in result.stderr
    assert not (root / "tests" / "test_scale.golden.json").exists()


MIXING = """\
import keras


class Mix(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, x_shape, context_shape=None):
        self.kernel = self.add_weight(shape=(x_shape[-1], self.units))
        self.context_kernel = None
        if context_shape is not None:
            self.context_kernel = self.add_weight(shape=(context_shape[-1], self.units))

    def call(self, x, context=None):
        y = keras.ops.matmul(x, self.kernel)
        if context is not None:
            y = y + keras.ops.matmul(context, self.context_kernel)
        return y
"""
MIXING_DECLARATION = """\
layer: Mix
params:
  units: int
inputs:
  x:
  context: {{default: null}}
weights:
  kernel: (x[-1], units)
  context_kernel: {{shape: "(context[-1], units)", when: context is not None}}
call: |
  y = ops.matmul(x, kernel)
  if context is not None:
      y = y + {factor} * ops.matmul(context, context_kernel)
  return y
output_shape: (*x[:-1], units)
example:
  params: {{units: 3}}
  input_shape: [2, 4]
  call_args:
    context: [[0.1, -0.2, 0.3, 0.5], [1.0, 0.4, -0.7, 0.2]]
  original: ref.mix.Mix
"""


@pytest.mark.e2e
def test_a_call_case_that_adds_weights_is_recorded_and_catches_a_twin_that_differs_there(
    tmp_path,
):
    """A call case whose keyword builds weights the example's layer lacks (a cross-attention
    over an encoder's sequence) is recorded too: the weights the layer has keep the seeded
    values, the ones the case adds get values drawn from their shapes alone, the same in the
    original and the twin; so a twin wrong only in that branch fails its golden test."""
    from helpers import project

    def generated(factor: str) -> Path:
        root = project(
            tmp_path / factor,
            {
                "ref/__init__.py": "",
                "ref/mix.py": MIXING,
                "layers/mix.layer.yaml": MIXING_DECLARATION.format(factor=factor),
            },
        )
        result = layergen("generate", "layers", cwd=root)
        assert result.returncode == 0, result.stderr
        return root

    wrong, right = generated("2.0"), generated("1.0")
    golden = json.loads((wrong / "tests" / "test_mix.golden.json").read_text())
    assert sorted(golden["runs"]) == ["outputs", "outputs with context"]
    again = json.loads((right / "tests" / "test_mix.golden.json").read_text())
    assert again == golden  # the original's numbers, whoever records them
    test = "tests/test_mix.py::test_outputs_match_the_recorded_golden"
    failed = pytest_in(wrong, "-q", "-p", "no:cacheprovider", test, KERAS_BACKEND="torch")
    assert failed.returncode == 1 and "outputs with context" in failed.stdout, failed.stdout
    passed = pytest_in(right, "-q", "-p", "no:cacheprovider", test, KERAS_BACKEND="torch")
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout
