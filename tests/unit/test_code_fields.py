"""Code fields come out as exactly the code that was written.

- A Unicode line separator (U+2028, \\x0b, \\x85, ...) is no line break to Python: text after
  one in a comment stays in the comment, in every code field.
- A multi-line string literal gets no indentation inserted when the code is indented.
- A trailing comment in an expression field neither breaks black nor the generated code.

Declarations are written as JSON (which is YAML), so any character goes in escaped.
"""

from __future__ import annotations

import ast
import copy
import functools
import json

import pytest
from libcst.metadata import ExpressionContextProvider, ScopeProvider

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.kinds import KINDS
from layergen.render.context import build_context
from layergen.render.render import block, render, render_source
from layergen.render.tests_context import build_test_context

from helpers import module_code as class_code


def module_code(text: str, path: str, *, formatted: bool = True) -> str:
    """The generated module and its generated test module, one after the other; both compile.

    `formatted`: through black, as generate writes them (else as the templates write them)."""
    analysis = parse_declaration(path, text.encode())
    kind = KINDS[analysis.decl.kind]
    write = render if formatted else render_source
    tests = write(
        kind.test_template, build_test_context(analysis.ir, module="pkg.probe", source=path)
    )
    compile(tests, path, "exec", dont_inherit=True)
    if formatted:
        return class_code(text, path) + "\n" + tests
    module = render_source(kind.template, build_context(analysis.ir, package="p", source=path))
    compile(module, path, "exec", dont_inherit=True)
    return module + "\n" + tests


SEPARATORS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]

LAYER = {
    "layer": "Probe",
    "params": {"on": {"type": "bool", "default": True}},
    "weights": {
        "k": {"shape": "(x[-1],)", "initializer": "zeros"},
        "s": {"shape": "(1,)", "trainable": False},
    },
    "sublayers": {"d": {"class": "keras.layers.Dense", "args": {"units": "2"}}},
    "ops": {"f": {"args": ["a"], "forward": "a * 2", "gradient": "upstream * 2"}},
    "methods": {"helper": {"args": ["v"], "body": "return v"}},
    "call": "x",
}
# field: (path into LAYER, value holding `{c}` where a comment goes), or a whole declaration for other kinds.
FIELDS = {
    "call": (("call",), "y = x  {c}\nreturn y"),
    "call as an expression": (("call",), "x  {c}"),
    "call.train": (("call",), {"train": "y = x  {c}\nreturn y", "infer": "x"}),
    "call.infer": (("call",), {"train": "x", "infer": "y = x  {c}\nreturn y"}),
    "init": (("init",), "self.z = 1  {c}"),
    "methods.body": (("methods", "helper", "body"), "w = v  {c}\nreturn w"),
    "ops.forward": (("ops", "f", "forward"), "b = a * 2  {c}\nreturn b"),
    "ops.forward as an expression": (("ops", "f", "forward"), "a * 2  {c}"),
    "ops.gradient as an expression": (("ops", "f", "gradient"), "upstream * 2  {c}"),
    "ops.gradient per argument": (("ops", "f", "gradient"), {"a": "upstream * 2  {c}"}),
    "losses": (("losses",), ["ops.sum(x)  {c}"]),
    "updates": (("updates",), {"s": "s + 1  {c}"}),
    "masking": (("masking",), "mask  {c}"),
    "weights.shape": (("weights", "k", "shape"), "(x[-1],)  {c}"),
    "weights.shape, one dim": (("weights", "k", "shape"), "x[-1]  {c}"),
    "weights.shape list item": (("weights", "k", "shape"), ["x[-1]  {c}", 2]),
    "weights.when": (("weights", "k", "when"), "on  {c}"),
    "weights.initializer expression": (
        ("weights", "k", "initializer"),
        "keras.initializers.Constant(1.0)  {c}",
    ),
    "output_shape": (("output_shape",), "(*x[:-1], x[-1])  {c}"),
    "output_shape, one dim": (("output_shape",), "x[-1]  {c}"),
    "output_shape, the input's": (("output_shape",), "x  {c}"),
    "outputs": (("outputs",), {"o": "x[-1]  {c}"}),
    "sublayer args": (("sublayers", "d", "args", "units"), "2  {c}"),
    "sequential sublayer args": (
        ("sublayers", "d"),
        {"layers": [{"class": "keras.layers.Dense", "args": {"units": "2  {c}"}}]},
    ),
    "loss call": (
        {"loss": "ProbeLoss", "call": "d = y_pred - y_true  {c}\nreturn ops.mean(d)"},
        None,
    ),
    "loss call as an expression": (
        {"loss": "ProbeLoss", "call": "ops.mean(y_pred - y_true)  {c}"},
        None,
    ),
    "constraint init": (
        {"constraint": "ProbeConstraint", "init": "self.z = 1  {c}", "call": "w"},
        None,
    ),
}


def declaration(field: str, comment: str) -> tuple[str, str]:
    """The declaration (as JSON text) with `comment` put into `field`, and its file name."""
    where, value = FIELDS[field]

    def fill(v):
        if isinstance(v, str):
            return v.replace("{c}", comment)
        if isinstance(v, list):
            return [fill(i) for i in v]
        if isinstance(v, dict):
            return {k: fill(i) for k, i in v.items()}
        return v

    if isinstance(where, dict):
        data = fill(where)
    else:
        data = copy.deepcopy(LAYER)
        node = data
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = fill(value)
        if field == "masking":
            data["masking"] = fill(value)
    kind = next(k for k in ("layer", "loss", "constraint") if k in data)
    return json.dumps(data), f"probe.{kind}.yaml"


def names_in(code: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Attribute)
    }


@functools.cache
def plain_code(field: str) -> str:
    """`module_code` of the probe without a comment, rendered once for the two tests below."""
    return module_code(*declaration(field, ""))


@pytest.mark.parametrize("field", FIELDS)
def test_every_code_field_generates_plain(field):
    """The baseline: each field of the probe generates without a comment."""
    plain_code(field)


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
@pytest.mark.parametrize("field", FIELDS)
def test_a_line_separator_in_a_comment_never_starts_code(field, sep):
    text, path = declaration(field, f"# note{sep}boom()")
    code = module_code(text, path, formatted=False)  # black's turn is the test below
    assert "boom" not in names_in(code), code


@pytest.mark.parametrize("field", FIELDS)
def test_every_line_separator_in_one_comment_stays_a_comment_through_black(field):
    comment = "# note" + "".join(f"{sep}boom{i}()" for i, sep in enumerate(SEPARATORS))
    code = module_code(*declaration(field, comment))
    assert not {f"boom{i}" for i in range(len(SEPARATORS))} & names_in(code), code


@pytest.mark.parametrize("field", FIELDS)
def test_a_trailing_comment_in_any_code_field_generates(field):
    text, path = declaration(field, "# same as before")
    plain = plain_code(field)
    code = module_code(text, path)
    assert ast.dump(ast.parse(code)) == ast.dump(ast.parse(plain))


MULTILINE = {
    "call": "s = '''ab\ncd'''\nreturn x",
    "call.train": {"train": "s = '''ab\ncd'''\nreturn x", "infer": "x"},
    "init": "self.s = '''ab\ncd'''",
    "methods.body": "return '''ab\ncd'''",
    "ops.forward": "s = '''ab\ncd'''\nreturn a * 2",
    "ops.gradient": "upstream * len('''ab\ncd''')",
}
MULTILINE_PATHS = {
    "call": ("call",),
    "call.train": ("call",),
    "init": ("init",),
    "methods.body": ("methods", "helper", "body"),
    "ops.forward": ("ops", "f", "forward"),
    "ops.gradient": ("ops", "f", "gradient"),
}
LITERALS = {
    "triple-quoted": ("'''ab\ncd\n    ef'''", "ab\ncd\n    ef"),
    "f-string": ("f'''ab\ncd{1}'''", None),
    "a backslash-continued string": ("'ab\\\ncd'", "abcd"),
    "bytes": ("b'''ab\ncd'''", b"ab\ncd"),
}


@pytest.mark.parametrize("literal", LITERALS)
@pytest.mark.parametrize("field", MULTILINE)
def test_multi_line_string_literals_keep_their_text(field, literal):
    source, expected = LITERALS[literal]
    data = copy.deepcopy(LAYER)
    node = data
    where = MULTILINE_PATHS[field]
    for key in where[:-1]:
        node = node[key]
    value = MULTILINE[field]

    def fill(v):
        return v.replace("'''ab\ncd'''", source)

    node[where[-1]] = (
        {k: fill(v) for k, v in value.items()} if isinstance(value, dict) else fill(value)
    )
    code = module_code(json.dumps(data), "probe.layer.yaml")
    strings = [n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.Constant, ast.JoinedStr))]
    if expected is None:  # the f-string: its literal parts
        parts = [
            v.value
            for n in strings
            if isinstance(n, ast.JoinedStr)
            for v in n.values
            if isinstance(v, ast.Constant)
        ]
        assert "ab\ncd" in parts, code
    else:
        assert expected in [n.value for n in strings if isinstance(n, ast.Constant)], code


def test_a_gradient_is_an_expression():
    """The format says so, and the generated test evaluates it as the expected gradient."""
    data = copy.deepcopy(LAYER)
    data["ops"]["f"]["gradient"] = "g = upstream * 2\nreturn g"
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("probe.layer.yaml", json.dumps(data).encode())
    assert [d.code for d in info.value.diagnostics] == ["python-syntax"]


def test_block_indents_statements_but_not_string_contents():
    code = 'x = """a\nb"""\nif x:\n    y = "c\\\nd"\n'
    assert block(code, 4) == '    x = """a\nb"""\n    if x:\n        y = "c\\\nd"'


@pytest.mark.parametrize("provider", [ScopeProvider, ExpressionContextProvider])
def test_libcsts_providers_visit_with_the_methods_libcst_lists(provider):
    """code.py lists a provider's visitor methods once per class (libcst lists them on
    every run): the same methods, bound to the instance."""
    import libcst as cst

    instance = provider()
    assert instance.get_visitors() == cst.BatchableCSTVisitor.get_visitors(instance)
    assert instance.get_visitors()["visit_Module"].__self__ is instance
