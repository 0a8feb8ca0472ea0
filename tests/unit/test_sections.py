"""The declaration sections of `declaration/sections/`: each built as a pure function of its
part of the declaration and the scope, and named in every stage that reads it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import keras
import pytest

import layergen
from layergen.declaration import ir, model
from layergen.declaration.code import BUILTINS
from layergen.declaration.load import parse_declaration
from layergen.declaration.sections import SECTIONS, Scope
from layergen.declaration.yamlfile import load
from layergen.diagnostics import DiagnosticError
from layergen.render import test_builders
from layergen.render.context import build_context
from layergen.render.render import render

TEMPLATES = Path(layergen.__file__).parent / "templates"
SPEC = Path(__file__).parents[2] / "docs" / "spec-format.md"


def scope_and_raw(key: str, text: str):
    """A declaration's scope, names resolved up front, and its part `key`, validated."""
    doc = load("layers/a.layer.yaml", textwrap.dedent(text).encode())
    decl = model.Declaration.model_validate(doc.data)
    scope = Scope(
        doc,
        inputs=frozenset({"x"}),
        params=frozenset(decl.params),
        members=frozenset(decl.params),
        imported=frozenset(),
        known=frozenset({"ops", "keras", "self", *BUILTINS}),
    )
    return scope, getattr(decl, key)


NOISY = """\
    layer: A
    random: true
    params: {units: int}
    noise: {unbiased: true, shape: ['x[0]', 1, units]}
    """


def test_the_noise_section_builds_its_piece_from_its_part_and_the_scope_alone():
    scope, raw = scope_and_raw("noise", NOISY)
    noise, problems = SECTIONS["noise"].build(raw, scope)
    assert problems == ()
    assert isinstance(noise, ir.Noise) and noise.unbiased
    assert noise.shape.code.render() == "(x[0]\n, 1\n, units\n, )"
    assert [d if isinstance(d, int) else d.render() for d in noise.shape.dims] == [
        "(x[0]\n,)",
        1,
        "(units\n,)",
    ]
    assert {f.name for f in noise.shape.code.free} == {"x", "units"}  # resolved already


def test_an_absent_section_builds_nothing_and_says_nothing():
    scope, raw = scope_and_raw("noise", "layer: A\n")
    assert SECTIONS["noise"].build(raw, scope) == (None, ())


def test_a_section_reports_a_name_outside_the_scope_where_it_was_written():
    scope, raw = scope_and_raw("noise", NOISY.replace("units]}", "unit]}"))
    noise, problems = SECTIONS["noise"].build(raw, scope)
    assert noise is None
    assert [(d.line, d.col, d.code, d.hint) for d in problems] == [
        (4, 44, "unknown-name", "did you mean `units`?")
    ]
    # The analyzer reports exactly the section's problems, nothing of its own.
    with pytest.raises(DiagnosticError) as info:
        parse_declaration(
            "layers/a.layer.yaml", textwrap.dedent(NOISY.replace("units]}", "unit]}")).encode()
        )
    assert info.value.diagnostics == list(problems)


def test_the_noise_context_says_its_facts_through_the_shape_writer():
    scope, raw = scope_and_raw("noise", NOISY)
    noise, _ = SECTIONS["noise"].build(raw, scope)
    facts = SECTIONS["noise"].context(noise, lambda code: f"<{code.render()}>")
    assert facts == {"unbiased": True, "noise_shape": "<(x[0]\n, 1\n, units\n, )>"}
    assert SECTIONS["noise"].context(None, str) == {"unbiased": False, "noise_shape": None}


@pytest.mark.parametrize("section", SECTIONS.values(), ids=lambda s: s.key)
def test_a_section_is_a_declaration_key_with_registered_builders_and_an_included_partial(
    section,
):
    assert section.key in model.Declaration.model_fields
    assert f"\n| `{section.key}` | " in SPEC.read_text(), "a row in spec-format.md's keys"
    registered = {build.__name__ for build in test_builders.BUILDERS}
    assert set(section.tests) <= registered
    assert (TEMPLATES / section.partial).is_file()
    if section.partial_in == "support":  # `__init__` partials: layer.py.j2 loops over them
        included = [p for p in TEMPLATES.glob("*.j2") if f'"{section.partial}"' in p.read_text()]
        assert included, f"no template includes {section.partial}"


def generated_class(text: str) -> str:
    checked = parse_declaration("layers/a.layer.yaml", textwrap.dedent(text).encode())
    return render("layer.py.j2", build_context(checked.ir, package="p", source="a"))


def test_a_layer_xla_cannot_compile_says_why_and_opts_out_in_its_init():
    code = generated_class("""\
        layer: Lookup
        no_jit: looks its inputs up in a Python dict
        call: x
        """)
    assert (
        "        super().__init__(**kwargs)\n"
        "        # XLA cannot compile it: looks its inputs up in a Python dict\n"
        "        self.supports_jit = False\n"
    ) in code
    namespace: dict = {}
    exec(compile(code, "lookup.py", "exec"), namespace)
    layer = namespace["Lookup"]()
    assert layer.supports_jit is False
    model = keras.Sequential([keras.Input((2,)), layer])
    model.compile(loss="mse", jit_compile="auto")
    assert model.jit_compile is False  # Keras compiles no model holding it


def test_a_layer_xla_compiles_writes_nothing_of_it():
    assert "supports_jit" not in generated_class("layer: Plain\ncall: x\n")


@pytest.mark.parametrize(
    "text, where",
    [
        ("layer: A\nno_jit: ''\ncall: x\n", (2, 9, "wrong-type")),
        ("loss: L\nno_jit: why\ncall: ops.mean(y_pred)\n", (2, 1, "not-for-kind")),
    ],
    ids=["empty reason", "not a layer"],
)
def test_no_jit_mistakes_are_located(text, where):
    path = "layers/a.loss.yaml" if text.startswith("loss") else "layers/a.layer.yaml"
    with pytest.raises(DiagnosticError) as info:
        parse_declaration(path, text.encode())
    assert [(d.line, d.col, d.code) for d in info.value.diagnostics] == [where]
