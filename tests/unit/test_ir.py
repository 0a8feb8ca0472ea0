"""The IR between checking and rendering: renderers read only it."""

from __future__ import annotations

import ast

import pytest

from layergen.declaration.code import Code
from layergen.declaration.ir import Branches
from layergen.declaration.load import parse_declaration

from helpers import REPO

RENDER = REPO / "layergen" / "render"


def test_the_renderers_import_nothing_of_the_declaration_but_its_ir_and_code():
    allowed = {"layergen.declaration.ir", "layergen.declaration.code"}
    for path in RENDER.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level and node.module:
                module = "layergen." + ".".join(["render"][: 2 - node.level] + [node.module])
                if module.startswith("layergen.spec"):
                    assert module in allowed, f"{path.name} imports {module}"


def ir(text: str, path: str = "a.layer.yaml"):
    return parse_declaration(path, text.encode()).ir


@pytest.mark.parametrize(
    "when, created", [("", True), ("\n    when: true", True), ("\n    when: false", False)]
)
def test_when_is_read_once_as_created_always_never_or_a_condition(when, created):
    layer = ir(f"layer: A\nweights:\n  w:\n    shape: x[-1]{when}\ncall: x * w\n")
    assert layer.weights[0].created is created


def test_a_conditional_weight_carries_its_condition_as_code():
    layer = ir(
        "layer: A\nparams:\n  use: {type: bool, default: true}\n"
        "weights:\n  w:\n    shape: x[-1]\n    when: use\ncall: x\n"
    )
    assert isinstance(layer.weights[0].created, Code)
    assert layer.weights[0].created.render({"use": "self.use"}) == "self.use"


def test_the_forward_pass_is_one_snippet_two_branches_or_written_by_layergen():
    plain = ir("layer: A\ncall: x * 2\n")
    assert isinstance(plain.call, Code) and not plain.call_written_by_layergen
    branches = ir("layer: A\ncall:\n  train: x * 2\n  infer: x\n")
    assert isinstance(branches.call, Branches)
    identity = ir(
        "layer: A\nweights:\n  s:\n    shape: x[-1]\n    trainable: false\nupdates:\n  s: s\n"
    )
    assert identity.call_written_by_layergen and identity.call.render() == "x"
    base = ir("layer: A\nbase: keras.layers.Dense\nexample:\n  params: {units: 2}\n")
    assert base.call is None


def test_a_sublayer_sized_from_the_input_is_marked_for_build():
    layer = ir(
        "layer: A\nsublayers:\n  up: {class: keras.layers.Dense, args: {units: 'x[-1]'}}\n"
        "  down: {class: keras.layers.Dense, args: {units: 2}}\ncall: down(up(x))\n"
    )
    reads = {s.name: s.reads_input_shapes for s in layer.sublayers}
    assert reads == {"up": True, "down": False}


def test_example_inputs_shapes_and_dtypes_are_resolved_per_input():
    layer = ir(
        "layer: A\ninputs:\n  a: {rank: 3}\n  b: {dtype: int32}\ncall: a\n" "output_shape: a\n"
    )
    assert layer.example.input_shapes == {"a": (2, 4, 4), "b": (2, 4)}
    assert layer.example.input_dtypes == {"a": "float32", "b": "int32"}
