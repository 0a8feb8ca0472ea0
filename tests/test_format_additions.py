"""The declaration format's additions of issue 14, one section per addition.

Each addition is checked where it is decided (the generated source, the located error) and,
end to end (`e2e`), on held-out layers written as real ones are: each declaration is generated,
imported, compared with a NumPy reference written here independently of the generated code,
saved and loaded, and its generated tests are run on TensorFlow and JAX.
"""

from __future__ import annotations

import ast

import pytest

from layergen.diagnostics import DiagnosticError
from layergen.render.context import build_context
from layergen.render.render import format_code, render_source
from layergen.spec.load import parse_declaration


def analysis(text: str, path: str = "a.layer.yaml"):
    return parse_declaration(path, text.encode())


def module_source(text: str) -> str:
    """The generated module of a declaration, formatted."""
    context = build_context(analysis(text), package="demo", source="a.layer.yaml")
    return format_code(render_source("layer.py.j2", context))


def errors(text: str) -> list:
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    return info.value.diagnostics


def method(source: str, name: str) -> str:
    """The source of one method of the generated class."""
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    (found,) = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return ast.get_source_segment(source, found)


# -- 1. sublayers sized from the input ---------------------------------------------------------

SIZED = """\
layer: Excite
params:
  ratio: {type: float, default: 0.5}
sublayers:
  squeeze:
    class: keras.layers.Dense
    args: {units: "max(1, int(x[-1] * ratio))", activation: "'relu'"}
  gate:
    class: keras.layers.Dense
    args: {units: 1}
  excite:
    class: keras.layers.Dense
    args: {units: "x[-1]"}
call: x * excite(squeeze(x)) * gate(x)
"""


def test_a_sublayer_sized_from_the_input_is_created_in_build():
    source = module_source(SIZED)
    init, build = method(source, "__init__"), method(source, "build")
    assert "self.gate = keras.layers.Dense(" in init  # params only: stays in __init__
    assert "self.squeeze" not in init and "self.excite" not in init
    assert "units=max(1, int(input_shape[-1] * self.ratio))" in build
    assert "units=input_shape[-1]" in build
    # Created before `call` is traced, so that tracing builds them.
    assert build.index("self.excite =") < build.index("self.call(")


def test_sized_sublayers_of_several_inputs_read_their_own_shape():
    text = SIZED.replace('"x[-1]"', '"y[-1]"').replace(
        "call: x * excite(squeeze(x)) * gate(x)",
        "inputs: {x: {}, y: {}}\ncall: y * excite(squeeze(x)) * gate(x)",
    )
    build = method(module_source(text), "build")
    assert build.index("x_shape, y_shape = input_shape") < build.index("self.squeeze =")
    assert "units=y_shape[-1]" in build and "x_shape[-1] * self.ratio" in build


def test_the_quoting_hint_only_for_an_unknown_bare_word():
    text = (
        "layer: A\nsublayers:\n  d:\n    class: keras.layers.Dense\n"
        "    args: {units: unitz, activation: \"'relu'\", kernel_initializer: glorot}\n"
        "call: d(x)\n"
    )
    found = errors(text)
    assert [(d.line, d.col, d.code) for d in found] == [
        (5, 19, "unknown-name"),
        (5, 68, "unknown-name"),
    ]
    units, initializer = found
    assert "quote it twice: units: \"'unitz'\"" in units.hint
    assert "quote it twice: kernel_initializer: \"'glorot'\"" in initializer.hint
    assert "relu" not in units.hint + initializer.hint  # an argument already a string


def test_no_quoting_hint_on_an_expression():
    text = 'layer: A\nsublayers:\n  d:\n    class: keras.layers.Dense\n    args: {units: "z[-1]"}\ncall: d(x)\n'
    (found,) = errors(text)
    assert (found.line, found.col, found.code) == (5, 20, "unknown-name")
    assert found.hint == "names in scope here: keras, ops, x"  # the input is in scope


# -- 2. named sublayers ------------------------------------------------------------------------


def test_every_sublayer_is_named_after_its_key():
    more = (
        "  mlp:\n    layers:\n      - {class: keras.layers.Dense, args: {units: 2}}\n"
        "  own:\n    class: keras.layers.Dense\n    args: {units: 2, name: \"'mine'\"}\n"
    )
    source = module_source(SIZED.replace("call:", more + "call:"))
    for key in ("squeeze", "gate", "excite", "mlp"):
        assert f'name="{key}"' in source
    assert source.count("name=") == 5  # not the Sequential's own layers
    assert 'name="mine"' in source and 'name="own"' not in source  # a given name is kept
