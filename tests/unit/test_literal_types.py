"""Which param type a literal value is (layergen/declaration/literals.py), and the stages that
read a hand-written default through it: `sync`, `adopt`'s reader, `introspect`, the checks of
a declaration's values and `new --params`."""

from __future__ import annotations

import pytest

from layergen.adopt.reader import plain_type
from layergen.declaration.analyze_values import value_problem
from layergen.declaration.literals import holding_types, literal_type
from layergen.declaration.model import Param
from layergen.introspect import Arg
from layergen.scaffold import parse_params

from helpers import cli as run
from helpers import module, no_traceback, write

CASES = [
    (3, "int"),
    (0.5, "float"),
    (True, "bool"),
    ("x", "str"),
    ([1, 2], "list[int]"),
    ([1, 0.5], "list[float]"),
    ([0.5, 1], "list[float]"),
    ((1, 0.5), "list[float]"),
    (["a", "b"], "list[str]"),
    ([], None),  # each list type holds it: the value does not say which
    ([True, 1], None),
    ([1, "a"], None),
    ([[1]], "list"),  # numbers, `None`s and such lists: `list`
    ([None, 2, 4], "list"),
    ([[1], "a"], None),
    (None, None),
    ({"a": 1}, None),
]


@pytest.mark.parametrize("value, kind", CASES)
def test_literal_type_is_the_narrowest_type_that_holds_the_value(value, kind):
    assert literal_type(value) == kind


@pytest.mark.parametrize(
    "value, kinds",
    [
        (3, ("int", "float")),
        (True, ("bool",)),
        ([1, 2], ("list[int]", "list[float]", "list")),
        ([1, 0.5], ("list[float]", "list")),
        ([], ("list[int]", "list[float]", "list[str]", "list[bool]", "list")),
        ([False], ("list[bool]",)),
        ([False, 0], ()),
        ([[1, 1], None], ("list",)),
        ({"a": 1}, ()),
    ],
)
def test_holding_types_lists_every_type_that_holds_the_value(value, kinds):
    assert holding_types(value) == kinds


@pytest.mark.parametrize(
    "kind, value, holds",
    [
        ("list[float]", [1, 0.5], True),
        ("list[int]", [1, 0.5], False),
        ("list[int]", [True], False),
        ("list[str]", [], True),
        ("float", 1, True),
        ("int", True, False),
    ],
)
def test_a_declared_value_is_checked_by_the_same_answer(kind, value, holds):
    assert (value_problem(Param(type=kind), value) is None) is holds


@pytest.mark.parametrize("value, kind", [c for c in CASES if c[1] is not None])
def test_adopt_and_introspect_read_a_default_as_its_literal_type(value, kind):
    arg = Arg(name="values", default=value)
    assert plain_type(arg) == kind
    assert arg.type == kind


def test_new_params_take_a_list_default_without_a_type_as_its_literal_type():
    assert parse_params("rates=[1, 0.5],sizes=[2, 3]") == {
        "rates": ("list[float]", "[1, 0.5]"),
        "sizes": ("list[int]", "[2, 3]"),
    }


@pytest.mark.parametrize(
    "default, declared",
    [("[1, 0.5]", "list[float]"), ("[0.5, 1]", "list[float]"), ("[1, 2]", "list[int]")],
)
def test_sync_declares_an_added_list_argument_by_all_its_items(scaler_project, default, declared):
    text = module(scaler_project).replace(
        "def __init__(self, gain=1.0, **kwargs):",
        f"def __init__(self, gain=1.0, rates={default}, **kwargs):",
    )
    write(scaler_project, "layers/scaler.py", text)
    result = run("sync", "layers")
    no_traceback(result)
    assert result.exit_code == 0, result.output
    yaml = (scaler_project / "layers/scaler.layer.yaml").read_text()
    assert f"  rates:\n    type: {declared}\n    default: {default}\n" in yaml, yaml
    result = run("generate", "--check", "layers")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "default, why",
    [
        (
            "[]",
            "is an empty list, which says no item type (annotate it: `rates: list[float] = []`)",
        ),
        ("[True, 1]", "mixes items no one param type holds"),
        ("[1, 'a']", "mixes items no one param type holds"),
    ],
)
def test_sync_refuses_a_list_default_of_no_one_type_at_its_place(scaler_project, default, why):
    text = module(scaler_project).replace(
        "def __init__(self, gain=1.0, **kwargs):",
        f"def __init__(self, gain=1.0, rates={default}, **kwargs):",
    )
    write(scaler_project, "layers/scaler.py", text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "rates=" in t)
    column = text.splitlines()[line - 1].index("rates") + 1
    result = run("sync", "layers")
    no_traceback(result)
    assert result.exit_code == 2, result.output
    expected = (
        f"layers/scaler.py:{line}:{column}: error: the default of `rates` (`{default}`) {why}"
    )
    assert expected in result.output, result.output


def test_sync_takes_an_empty_list_default_its_annotation_types(scaler_project):
    text = module(scaler_project).replace(
        "def __init__(self, gain=1.0, **kwargs):",
        "def __init__(self, gain=1.0, rates: list[float] = [], **kwargs):",
    )
    write(scaler_project, "layers/scaler.py", text)
    result = run("sync", "layers")
    assert result.exit_code == 0, result.output
    yaml = (scaler_project / "layers/scaler.layer.yaml").read_text()
    assert "  rates:\n    type: list[float]\n    default: []\n" in yaml, yaml
