"""Loading a declaration (layergen/declaration/load.py): odd inputs, packages, import lines.

Regression tests: located errors where there were tracebacks or silence.
"""

from __future__ import annotations

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError

from helpers import codes_of, module_code, quote


@pytest.mark.parametrize(
    "package",
    [
        "'a>b'",
        "'with space'",
        "''",
        "'a..b'",
        "'.a'",
        "'1a'",
        "'a.class'",
        "'a-b'",
        "\"import os; os.system('x')\"",
    ],
)
def test_a_declared_package_must_be_a_dotted_name(package):
    assert codes_of(f"layer: A\npackage: {package}\ncall: x\n") == [(2, 10, "bad-package")]


def test_a_good_declared_package_passes():
    assert (
        parse_declaration("a.layer.yaml", b"layer: A\npackage: my_pkg.layers\n").decl.package
        == "my_pkg.layers"
    )


# -- odd but valid (or plainly wrong) inputs: a result or a located error, never a crash -------------

ODD = {
    "non-string key at the top": "layer: A\n1: 2\n",
    "null key": "layer: A\nnull: 2\n",
    "non-string param name": "layer: A\nparams:\n  1: int\n",
    "list where a mapping goes": "layer: A\nweights: [a, b]\n",
    "params with a null value": "layer: A\nparams:\ncall: x\n",
    "a weight with a null value": "layer: A\nweights: {k: null}\n",
    "an integer as the class name": "layer: 123\n",
    "an integer as a weight name": "layer: A\nweights:\n  7: 3\n",
    "a call that is a number": "layer: A\ncall: 5\n",
    "a call that is a list": "layer: A\ncall: [x]\n",
    "a huge integer": "layer: A\nparams:\n  u: {type: int, default: " + "9" * 5000 + "}\n",
    "a huge hex integer": "layer: A\nparams:\n  u: {type: int, default: 0x" + "f" * 5000 + "}\n",
    "a float that overflows": "layer: A\nparams:\n  u: {type: float, default: 1e999}\n",
    "nan": "layer: A\nparams:\n  u: {type: float, default: .nan}\n",
    "a string default with a lone surrogate": 'layer: A\nparams:\n  s: {type: str, default: "\\udc00"}\n',
    "a null byte in code": 'layer: A\ncall: "x\\0"\n',
    "a dtype default that is a list": "layer: A\nparams:\n  d: {type: dtype, default: [float32]}\n",
    "an empty mapping of outputs": "layer: A\noutputs: {}\n",
    "a YAML tag": "layer: !!python/object:os.system A\n",
    "a binary value": "layer: A\ndoc: !!binary aGVsbG8=\n",
    "a timestamp default": "layer: A\nparams:\n  d: {type: str, default: 2001-12-14}\n",
    "deep brackets in code": "layer: A\ncall: " + "(" * 300 + "x" + ")" * 300 + "\n",
    "a very long line": "layer: A\ncall: x" + " + x" * 20000 + "\n",
}


@pytest.mark.parametrize("name", ODD)
def test_odd_inputs_give_code_or_a_located_error(name):
    raw = ODD[name].encode()
    try:
        module_code(raw)
    except DiagnosticError as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert 1 <= d.line <= raw.count(b"\n") + 1 and d.col >= 1, d


@pytest.mark.parametrize(
    "line",
    [
        "import os; os.system('touch pwned')",
        "import os\nos.system('touch pwned')",
        "from os import *",
        "from __future__ import annotations",
        "x = 1",
        "import os  \\\n; os.system('x')",
        "",
    ],
)
def test_import_lines_hold_imports_only(line):
    text = "layer: A\nimports:\n  - " + quote(line) + "\n"
    with pytest.raises(DiagnosticError) as info:
        module_code(text)
    assert {d.code for d in info.value.diagnostics} <= {"bad-import", "python-syntax"}


def test_good_import_lines_pass():
    code = module_code(
        "layer: A\nimports:\n  - import math\n  - from math import pi as PI\ncall: x * math.e * PI\n"
    )
    assert "import math" in code and "from math import pi as PI" in code
