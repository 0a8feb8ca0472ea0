"""Every mistake in a declaration is reported at its line with its code, and nothing else happens."""

import textwrap

import pytest

from layergen.diagnostics import DiagnosticError
from layergen.spec.load import parse_declaration

OK = """\
layer: Fine
params:
  units: {type: int, min: 1}
weights:
  kernel:
    shape: (x[-1], units)
call: ops.matmul(x, kernel)
output_shape: (*x[:-1], units)
example:
  params: {units: 2}
"""

# (declaration, expected (line, code) of each error)
CASES = {
    "yaml syntax in a flow mapping": ("layer: A\nweights:\n  k: {shape: (x[-1], 3), initializer: zeros}\n", [(3, "yaml-syntax")]),
    "duplicate key": ("layer: A\ndoc: one\ndoc: two\n", [(3, "duplicate-key")]),
    "empty file": ("# nothing here\n", [(1, "empty")]),
    "alias": ("layer: A\ndoc: &d hello\nparams:\n  u: {type: int, doc: *d}\n", [(2, "yaml-alias")]),
    "no kind key": ("doc: hello\ncall: x\n", [(1, "missing-kind")]),
    "two kind keys": ("layer: A\nloss: B\n", [(2, "doubled-kind")]),
    "bad class name": ("layer: my-layer\n", [(1, "bad-class-name")]),
    "keyword param": ("layer: A\nparams:\n  lambda: float\n", [(3, "keyword-name")]),
    "reserved param": ("layer: A\nparams:\n  trainable: bool\n", [(3, "reserved-name")]),
    "unknown key": ("layer: A\nparms:\n  u: int\n", [(2, "unknown-key")]),
    "unknown nested key": ("layer: A\nweights:\n  k:\n    shape: 3\n    initialiser: zeros\n", [(5, "unknown-key")]),
    "unknown type": ("layer: A\nparams:\n  u: {type: integer}\n", [(3, "unknown-type")]),
    "wrong type": ("layer: A\nrandom: maybe\n", [(2, "wrong-type")]),
    "default below min": ("layer: A\nparams:\n  u: {type: int, default: 0, min: 1}\n", [(3, "bad-default")]),
    "default not a choice": ("layer: A\nparams:\n  m: {type: str, default: c, choices: [a, b]}\n", [(3, "bad-default")]),
    "unknown name in call": ("layer: A\nparams:\n  units: int\ncall: |\n  y = x * unit\n  return y\n", [(5, "unknown-name")]),
    "python syntax in call": ("layer: A\ncall: |\n  y = x +\n  return y\n", [(3, "python-syntax")]),
    "unknown param in shape": ("layer: A\nweights:\n  k: {shape: units}\n", [(3, "unknown-name")]),
    "unknown param in when": ("layer: A\nweights:\n  b:\n    shape: 3\n    when: use_bias\n", [(5, "unknown-name")]),
    "update of a trainable weight": (
        "layer: A\nweights:\n  m: {shape: ()}\nupdates:\n  m: m + 1\n", [(5, "trainable-update")]
    ),
    "update of an unknown weight": ("layer: A\nupdates:\n  m: x\n", [(3, "unknown-weight")]),
    "unknown name in a gradient": (
        "layer: A\nops:\n  f:\n    args: [v]\n    forward: v\n    gradient: upstream * w\ncall: f(x)\n",
        [(6, "unknown-name")],
    ),
    "example without a required param": ("layer: A\nparams:\n  u: int\nexample:\n  input_shape: [2, 3]\n", [(4, "missing-example")]),
    "unknown initializer": ("layer: A\nweights:\n  k: {shape: 3, initializer: glorot_unifrom}\n", [(3, "unknown-initializer")]),
    "not utf-8": (b"layer: A\ndoc: \xff\n", [(2, "encoding")]),
}


def diagnostics(text):
    raw = text if isinstance(text, bytes) else text.encode()
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("broken.layer.yaml", raw)
    return info.value.diagnostics


def test_a_correct_declaration_loads():
    analysis = parse_declaration("fine.layer.yaml", OK.encode())
    assert analysis.decl.name == "Fine"


@pytest.mark.parametrize("name", CASES)
def test_each_mistake_is_located(name):
    text, expected = CASES[name]
    found = [(d.line, d.code) for d in diagnostics(text)]
    assert found == expected


def test_several_errors_are_all_reported():
    text = "layer: A\nparams:\n  u: {type: int, mn: 1}\ncall: y * q\n"
    found = [(d.line, d.code) for d in diagnostics(text)]
    assert (3, "unknown-key") in found


def test_unknown_name_points_at_its_column_and_suggests_the_closest():
    text = "layer: A\nparams:\n  units: int\ncall: |\n  y = x * unitz\n  return y\n"
    (d,) = diagnostics(text)
    assert (d.line, d.col) == (5, 11)
    assert "`units`" in d.hint
    assert d.format().startswith("broken.layer.yaml:5:11: error: unknown name `unitz` [unknown-name]")


def test_flow_mapping_error_hints_at_block_style():
    (d,) = diagnostics(CASES["yaml syntax in a flow mapping"][0])
    assert "block style" in d.hint


def test_yaml_12_scalars():
    text = "layer: A\nparams:\n  eps: {type: float, default: 1e-4}\n  mode: {type: str, default: no}\n"
    params = parse_declaration("a.layer.yaml", text.encode()).params
    assert params["eps"].default == 1e-4
    assert params["mode"].default == "no"


def test_alias_bomb_fails_fast():
    lines = ["layer: A", "doc: &a0 lol"]
    for i in range(1, 30):
        lines.append(f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    errors = diagnostics("\n".join(lines) + "\n")
    assert errors and all(d.code == "yaml-alias" for d in errors)
