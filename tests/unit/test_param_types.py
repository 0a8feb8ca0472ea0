"""layergen/declaration/param_types.py: each param type is one row, which every stage reads."""

from __future__ import annotations

import re
from pathlib import Path

import keras
import pytest

from layergen.declaration.literals import PLAIN_TYPES, literal_type
from layergen.declaration.model import OBJECT_TYPES, Param, ParamType
from layergen.declaration.param_types import NAMES, PARAM_TYPES
from layergen.lint.configs import CONFIG_HELPERS
from layergen.render.context import param_config, param_doc, param_store
from layergen.scaffold import parse_params

from helpers import cli

SPEC = Path(__file__).parents[2] / "docs" / "spec-format.md"


def test_the_stages_take_the_types_from_the_rows():
    assert ParamType.__args__ == NAMES  # the model, and so the JSON Schema
    assert tuple(row.name for row in PARAM_TYPES if row.literal) == PLAIN_TYPES
    assert {row.name for row in PARAM_TYPES if row.made} == OBJECT_TYPES
    for name in NAMES:  # `new --params` takes each
        assert parse_params(f"x:{name}") == {"x": (name, None)}


@pytest.mark.parametrize("row", [r for r in PARAM_TYPES if r.literal and r.example is not None])
def test_a_literal_types_example_reads_back_as_that_type(row):
    assert literal_type(row.example_value()) == row.name  # as sync and adopt read it
    if isinstance(row.example, tuple):  # a list: one of its own each time
        assert row.example_value() is not row.example_value()


@pytest.mark.parametrize("row", [r for r in PARAM_TYPES if r.keras_module])
def test_a_keras_object_type_is_got_and_saved_by_its_keras_module(row):
    module = getattr(keras, row.keras_module)
    value = module.get(row.example)
    assert module.get(module.serialize(value)) is not None
    assert row.stored("x") == f"keras.{row.keras_module}.get(x)"
    assert row.saved("x") == f"keras.{row.keras_module}.serialize(self.x)"
    assert row.keras_module in CONFIG_HELPERS  # the helper `check` reads a config's saving by
    assert row.example in row.names  # a name a declaration may write


@pytest.mark.parametrize("row", PARAM_TYPES, ids=lambda r: r.name)
def test_the_generated_class_stores_saves_and_documents_a_param_by_its_row(row):
    param = Param(type=row.name)
    assert param_store("x", param) == row.stored("x")
    assert param_config("x", param) == row.saved("x")
    assert param_doc("x", param) == f"x: {row.said.rstrip('.')}."


def test_the_spec_lists_every_param_type():
    (line,) = [line for line in SPEC.read_text().splitlines() if line.startswith("| `params` |")]
    listed = re.findall(r"`([\w\[\]]+)`", line.split("Types:", 1)[1])
    assert set(NAMES) <= set(listed)


GATE = """\
layer: Gate
doc: Keeps the features whose flag is set.
params:
  keep: {type: "list[bool]", default: [true, false]}
call: x * ops.cast(ops.convert_to_tensor(keep), x.dtype)
example:
  input_shape: [2, 2]
"""


def test_a_list_of_bools_is_one_row_every_stage_takes(project):
    """The type added as one row (`list[bool]`): declared, generated, saved and loaded, read
    back from a Python default by `sync` and `adopt`, taken by `new --params`."""
    import importlib.util

    (project / "layers" / "gate.layer.yaml").write_text(GATE)
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    spec = importlib.util.spec_from_file_location("gate", project / "layers" / "gate.py")
    gate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gate)
    layer = gate.Gate(keep=[False, True])
    assert type(layer).from_config(layer.get_config()).keep == [False, True]
    assert (
        "keep: list[bool]. Defaults to `[True, False]`."
        in (project / "layers" / "gate.py").read_text()
    )
    assert literal_type((True, False)) == "list[bool]"  # as sync and adopt read a default
    assert literal_type([True, 1]) is None  # no type holds a bool as a number
    assert parse_params("keep:list[bool]=[true]") == {"keep": ("list[bool]", "[true]")}
    bad = project / "layers" / "gate.layer.yaml"
    bad.write_text(GATE.replace("[true, false]", "[true, 0]"))
    result = cli("generate", "layers")
    assert result.exit_code == 2 and "list[bool]" in result.output, result.output


CONV = """\
layer: Strided
doc: Scales by the product of the first kernel's size.
params:
  kernel_sizes: {type: list, default: [[1, 1], [3, 3]]}
  shape: {type: list, default: [null, 2]}
call: x * float(kernel_sizes[0][0] * kernel_sizes[0][1])
example:
  input_shape: [2, 2]
"""


def test_a_list_of_anything_literal_is_one_row_every_stage_takes(project):
    """keras-hub's Gemma3n audio encoder takes `sscp_conv_kernel_size=[[3, 3], [3, 3]]`, its
    Gemma4 einsum `output_shape=[None, 2, 4]`: `list` holds numbers, `None`s and such
    lists, what no narrower list type holds; declared, generated, saved and loaded, read back from a
    Python default, and refused where a value is no list."""
    import importlib.util

    (project / "layers" / "strided.layer.yaml").write_text(CONV)
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    spec = importlib.util.spec_from_file_location("strided", project / "layers" / "strided.py")
    strided = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(strided)
    layer = strided.Strided(kernel_sizes=[[2, 2]], shape=[None, 4])
    again = type(layer).from_config(layer.get_config())
    assert again.kernel_sizes == [[2, 2]] and again.shape == [None, 4]
    assert literal_type(((1, 1), (3, 3))) == "list"  # a tuple of tuples, as adopt reads it
    assert literal_type([None, 2, 4]) == "list"
    assert literal_type([1, 2]) == "list[int]"  # the narrowest still
    bad = project / "layers" / "strided.layer.yaml"
    bad.write_text(CONV.replace("[null, 2]", "3"))
    result = cli("generate", "layers")
    assert result.exit_code == 2 and "`shape`" in result.output, result.output
