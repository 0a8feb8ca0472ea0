"""Declared names never collide with the names the generated code uses.

The reserved sets in `layergen/declaration/reserved.py` are checked against what the templates
render: rich probe declarations of every kind are generated, and every name that the
generated code uses in a function where a declared name is a local variable (or reads as
a module global) must be in the matching set. Then every reserved name is declared, in
each place it is reserved for, and must give a located error.
"""

from __future__ import annotations

import ast
import json
import symtable

import pytest

from layergen.declaration import reserved
from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.kinds import KINDS
from layergen.render.context import build_context
from layergen.render.render import render
from layergen.render.tests_context import build_test_context

LAYER2 = {
    "layer": "ProbeTwo",
    "imports": ["import math"],
    "params": {
        "pa": {"type": "int", "default": 2, "min": 1, "max": 9, "choices": [1, 2, 3]},
        "pf": {"type": "float", "default": 0.5, "min": 0.0},
        "pact": {"type": "activation", "default": "relu"},
        "pini": {"type": "initializer", "default": "zeros"},
    },
    "random": True,
    "inputs": {"ia": {"rank": 2}, "ib": None},
    "weights": {
        "wk": {"shape": "(ia[-1], pa)", "when": "pa > 0", "layout": ["model", None]},
        "ws": {"shape": "(1,)", "trainable": False, "aggregation": "mean"},
        "wt": {"shape": "(1,)", "trainable": False},
        "wv": {"shape": "ia[-1:]", "initializer": "pini"},
    },
    "sublayers": {"sd": {"class": "keras.layers.Dropout", "args": {"rate": "pf"}}},
    "ops": {
        "of": {"args": ["oa", "ob"], "forward": "oa * ob", "gradient": {"oa": "upstream * ob"}}
    },
    "methods": {"mh": {"args": ["ma"], "body": "return ma"}},
    "call": {"train": "return sd(of(ia, wk) + ib, training=training) * mh(pf)", "infer": "ia + ib"},
    "losses": ["ops.sum(ia)"],
    "updates": {"ws": "ws + 1", "wt": "wt + ws"},
    "masking": "mask",
    "output_shape": "(*ia[:-1], pa)",
    "init": "self.extra = pa",
    "example": {"params": {"pa": 2}, "input_shape": {"ia": [2, 3], "ib": [2, 2]}},
}
LAYER1 = {
    "layer": "ProbeOne",
    "params": {"pa": {"type": "int", "default": 2}},
    "weights": {"wk": "(x[-1], pa)"},
    "ops": {"of": {"args": ["oa"], "forward": "oa * 2", "gradient": "upstream * 2"}},
    "call": "of(ops.matmul(x, wk))",
    "masking": True,
    "outputs": {"o1": "(*x[:-1], pa)", "o2": "x"},
}
OTHERS = [
    (
        {
            "loss": "ProbeLoss",
            "params": {"pa": {"type": "float", "default": 1.0, "min": 0.0}},
            "ops": {"of": {"args": ["oa"], "forward": "oa * 2", "gradient": "upstream * 2"}},
            "call": "ops.mean(of(y_pred - y_true)) * pa",
            "init": "self.extra = pa",
        },
        "loss",
    ),
    (
        {
            "constraint": "ProbeConstraint",
            "params": {"pa": {"type": "float", "default": 1.0}},
            "call": "w * pa",
        },
        "constraint",
    ),
    (
        {
            "regularizer": "ProbeRegularizer",
            "params": {"pa": {"type": "float", "default": 1.0}},
            "call": "ops.sum(x) * pa",
        },
        "regularizer",
    ),
    (
        {
            "initializer": "ProbeInitializer",
            "params": {"pa": {"type": "float", "default": 1.0}},
            "call": "ops.ones(shape, dtype) * pa",
        },
        "initializer",
    ),
]

BASE = {
    "layer": "ProbeBase",
    "base": "keras.layers.Dense",
    "params": {"pa": {"type": "int", "default": 2}},
    "weights": {"ws": {"shape": "(1,)", "trainable": False}},
    "updates": {"ws": "ws + 1"},
    "losses": ["ops.sum(x)"],
    "example": {"params": {"units": 2}},
}
# Named outputs, masking and methods: outputs by name, a sublayer sized from the input,
# a method that replaces a generated one.
NAMED = {
    "layer": "ProbeNamed",
    "params": {"pa": {"type": "float", "default": 0.5, "gt": 0.0, "lt": 1.0}},
    "inputs": {"ia": {"rank": 2}},
    "sublayers": {"sd": {"class": "keras.layers.Dense", "args": {"units": "ia[-1]"}}},
    "call": "return tuple([sd(ia), ia * pa])",  # not a written tuple: zipped with the names
    "masking": True,
    "outputs": {"o1": "ia", "o2": "ia"},
    "output_type": "dict",
    "methods": {"get_config": {"body": "return {**super().get_config(), 'pa': pa}"}},
    "example": {"input_shape": [2, 3]},
}
# What whole models need: params holding a layer and a callable, a sublayer under
# a `when` over a keyword tensor (`build` then takes every tensor input's shape), outputs under
# a `when` over the keyword inputs (`compute_output_shape` and `compute_output_spec` take them).
WHOLE = {
    "layer": "ProbeWhole",
    "params": {"pl": {"type": "layer"}, "pc": {"type": "callable", "default": None}},
    "inputs": {
        "ia": {"rank": 3},
        "ik": {"default": None, "rank": 3},
        "ib": {"type": "bool", "default": False},
    },
    "weights": {"wn": {"shape": "(ia[-1],)", "name": "wn_keras"}},
    "sublayers": {
        "sc": {"class": "keras.layers.Dense", "args": {"units": "ik[-1]"}, "when": "ik is not None"}
    },
    "call": "return pl(ia) * wn if ik is None else (pl(ia), sc(ik))",
    "outputs": {"o1": "ia", "o2": {"shape": "ik", "when": "ik is not None and not ib"}},
    "example": {
        "params": {"pl": "keras.layers.Dense(3)", "pc": "keras.activations.relu"},
        "call_args": {"ik": [[[1.0]]], "ib": True},
    },
}
PROBES = [
    (LAYER2, "layer"),
    (LAYER1, "layer"),
    (BASE, "layer"),
    (NAMED, "layer"),
    (WHOLE, "layer"),
    *OTHERS,
]
USER_NAMES = {"math", "extra"}  # bound by the probes' own code


def generated(data: dict, kind: str):
    path = f"probe.{kind}.yaml"
    a = parse_declaration(path, json.dumps(data).encode())
    module = render(KINDS[kind].template, build_context(a.ir, package="p", source=path))
    tests = render(
        KINDS[kind].test_template, build_test_context(a.ir, module="p.probe", source=path)
    )
    return a, module, tests


def names(node: ast.AST) -> set[str]:
    """Every name a piece of code reads or binds."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n is not node:
            out.add(n.name)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
    return out


def module_globals(code: str) -> set[str]:
    """The global names the functions of a module read."""
    found = set()

    def walk(table):
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (
                symbol.is_global()
                or (
                    table.get_type() == "module"
                    and not symbol.is_assigned()
                    and not symbol.is_imported()
                )
            ):
                found.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    walk(symtable.symtable(code, "<generated>", "exec"))
    return found


def scan():
    """{category: names the generated code uses where that category's declared names are locals}."""
    used = {"param": set(), "input": set(), "op argument": set(), "method argument": set()}
    module, test_module = set(), set()
    for data, kind in PROBES:
        a, code, tests = generated(data, kind)
        d = a.decl
        declared = {
            "param": set(d.params),  # not layergen's own `seed`: a declared `seed` replaces it
            "input": (
                set(a.inputs) if kind == "layer" else set()
            ),  # the other kinds' arguments are fixed
            "op argument": {x for o in d.ops.values() for x in o.args},
            "method argument": {x for m in d.methods.values() for x in m.args},
        }
        derived = {f"new_{w}" for w in d.updates} | {
            f"{i}_shape" for i in a.inputs
        }  # checked on their own
        every = (
            set().union(*declared.values())
            | set(a.params)
            | set(a.inputs)
            # Keyword inputs: where `compute_output_shape` takes them, analyze.py checks them
            # against its names (`_check_output_shape_names`).
            | set(a.keywords)
            | set(d.weights)
            | set(d.sublayers)
            | set(d.ops)
            | set(d.methods)
            | {d.name}
            | USER_NAMES
            | derived
        )
        for text in (code, tests):
            for function in ast.walk(ast.parse(text)):
                if isinstance(function, ast.FunctionDef):
                    here = names(function)
                    for category, local in declared.items():
                        if here & local:
                            used[category] |= here - every
        module |= module_globals(code) - every
        test_module |= module_globals(tests) - every
    return used, module, test_module


@pytest.fixture(scope="module")
def scanned():
    return scan()


@pytest.mark.parametrize(
    "category, reserved_set",
    [
        ("param", reserved.PARAM),
        ("input", reserved.INPUT),
        ("op argument", reserved.OP_ARGUMENT),
        ("method argument", reserved.METHOD_ARGUMENT),
    ],
)
def test_reserved_sets_hold_every_name_the_templates_use(scanned, category, reserved_set):
    used = scanned[0][category]
    assert used, "the probes declare names of this kind"
    assert (
        used <= reserved_set
    ), f"the templates now use {sorted(used - reserved_set)}: add them to layergen/declaration/reserved.py"


def test_module_globals_are_reserved(scanned):
    _, module, test_module = scanned
    assert module <= reserved.MODULE, sorted(module - reserved.MODULE)
    assert test_module <= reserved.TEST_MODULE, sorted(test_module - reserved.TEST_MODULE)


HOLES = {
    "param": ("layer: A\nparams:\n  {x}: {{type: int, default: 1}}\n", (3, 3)),
    "loss param": (
        "loss: A\nparams:\n  {x}: {{type: float, default: 1.0}}\ncall: y_pred\n",
        (3, 3),
    ),
    "input": ("layer: A\ninputs:\n  {x}:\n  other_input:\ncall: other_input\n", (3, 3)),
    "op argument": (
        "layer: A\nops:\n  f:\n    args: [{x}]\n    forward: '1.0'\n    gradient: upstream\n",
        (4, 12),
    ),
    "method argument": ("layer: A\nmethods:\n  m:\n    args: [{x}]\n    body: return 1\n", (4, 12)),
}
CASES = [
    (hole, name)
    for hole, names_ in [
        ("param", reserved.PARAM),
        ("loss param", reserved.PARAM),
        ("input", reserved.INPUT),
        ("op argument", reserved.OP_ARGUMENT),
        ("method argument", reserved.METHOD_ARGUMENT),
    ]
    for name in sorted(names_)
]


@pytest.mark.parametrize("hole, name", CASES)
def test_every_reserved_name_is_a_located_error(hole, name):
    text, (line, col) = HOLES[hole]
    kind = text.split(":")[0]
    with pytest.raises(DiagnosticError) as info:
        parse_declaration(f"a.{kind}.yaml", text.format(x=name).encode())
    found = {(d.line, d.col, d.code) for d in info.value.diagnostics}
    assert found & {(line, col, "reserved-name")}, found


@pytest.mark.parametrize("name", sorted(reserved.MODULE))
def test_imports_must_not_bind_a_name_the_module_uses(name):
    text = f"layer: A\nimports:\n  - import numpy as {name}\n  - from math import pi\n"
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("a.layer.yaml", text.encode())
    assert [(d.line, d.col, d.code) for d in info.value.diagnostics] == [(3, 5, "reserved-name")]


@pytest.mark.parametrize("name", sorted(n for n in reserved.TEST_MODULE if n[0].isupper()))
def test_the_class_name_must_not_be_a_name_the_modules_use(name):
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("a.layer.yaml", f"layer: {name}\n".encode())
    assert [(d.line, d.col, d.code) for d in info.value.diagnostics] == [(1, 8, "reserved-name")]


@pytest.mark.parametrize(
    "text, where",
    [
        ("layer: A\nparams:\n  x: int\n", (3, 3)),  # the default input
        ("layer: A\nparams:\n  q: int\ninputs:\n  q:\n  k:\ncall: q + k\n", (3, 3)),
        ("loss: A\nparams:\n  y_true: {type: float, default: 1.0}\ncall: y_pred\n", (3, 3)),
    ],
)
def test_a_param_with_an_inputs_name_is_a_located_error(text, where):
    kind = text.split(":")[0]
    with pytest.raises(DiagnosticError) as info:
        parse_declaration(f"a.{kind}.yaml", text.encode())
    assert (*where, "duplicate-name") in {(d.line, d.col, d.code) for d in info.value.diagnostics}


def test_an_input_named_like_an_updates_temporary_is_a_located_error():
    text = (
        "layer: A\ninputs:\n  new_s:\n  b:\nweights:\n  s: {shape: '(1,)', trainable: false}\n"
        "  t: {shape: '(1,)', trainable: false}\ncall: new_s + b\nupdates:\n  s: s + 1\n  t: t + 1\n"
    )
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("a.layer.yaml", text.encode())
    assert (3, 3, "reserved-name") in {(d.line, d.col, d.code) for d in info.value.diagnostics}


def test_reserved_names_elsewhere_still_generate():
    """A weight or sublayer is an attribute (`self.value`), never a local: no reason to refuse it."""
    text = "layer: A\nweights:\n  value: 3\n  shape: 3\ncall: x * value * shape\n"
    parse_declaration("a.layer.yaml", text.encode())
