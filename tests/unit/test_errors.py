"""Every mistake in a declaration is reported at its line and column with its code, and nothing else happens.

`CASES` is the corpus: one broken declaration per class of mistake, each with
every diagnostic it must give, as (line, column, code). A declaration that
starts with another kind key (`loss: ...`) is read from a file with that suffix.
"""

import time

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.kinds import KINDS

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

# name: (declaration, [(line, column, code), ...] in the order reported)
CASES = {
    # YAML and the file itself
    "yaml syntax in a flow mapping": (
        "layer: A\nweights:\n  k: {shape: (x[-1], 3), initializer: zeros}\n",
        [(3, 16, "yaml-syntax")],
    ),
    "yaml syntax: a tab for indentation": (
        "layer: A\nparams:\n\tunits: int\n",
        [(3, 1, "yaml-syntax")],
    ),
    "a second document where one class is read": (
        "layer: A\n---\nlayer: B\n",
        [(3, 1, "several-documents")],
    ),
    "yaml syntax: a control character": ("layer: A\ndoc: a\x07b\n", [(2, 7, "yaml-syntax")]),
    "yaml syntax: nested too deep": (
        "layer: A\ndoc: " + "[" * 100 + "]" * 100 + "\n",
        [(2, 69, "yaml-syntax")],
    ),
    "yaml syntax: a quote never closed": (
        'layer: A\ndoc: "hello\ncall: x\n',
        [(2, 6, "yaml-syntax")],
    ),
    "yaml syntax: a bracket never closed": (
        "layer: A\nexample:\n  input_shape: [2, 3\n",
        [(3, 16, "yaml-syntax")],
    ),
    "yaml syntax: a missing colon": ("layer: A\nparams\n  units: int\n", [(3, 8, "yaml-syntax")]),
    "duplicate key": ("layer: A\ndoc: one\ndoc: two\n", [(3, 1, "duplicate-key")]),
    "duplicate param": (
        "layer: A\nparams:\n  units: int\n  units: float\n",
        [(4, 3, "duplicate-key")],
    ),
    "empty file": ("# nothing here\n", [(1, 1, "empty")]),
    "blank file": ("\n   \n", [(1, 1, "empty")]),
    "not utf-8": (b"layer: A\ndoc: \xff\n", [(2, 6, "encoding")]),
    "utf-16": ("layer: A\n".encode("utf-16"), [(1, 1, "encoding")]),
    "alias": (
        "layer: A\ndoc: &d hello\nparams:\n  u: {type: int, doc: *d}\n",
        [(2, 6, "yaml-alias")],
    ),
    "anchor on a mapping": ("layer: A\nparams: &p\n  u: int\n", [(2, 9, "yaml-alias")]),
    "merge key": ("layer: A\nparams:\n  <<: {u: int}\n", [(3, 3, "yaml-alias")]),
    "complex key": ("layer: A\n? [a, b]\n: 1\n", [(2, 3, "yaml-key")]),
    "not a mapping": ("- layer: A\n", [(1, 1, "not-a-mapping")]),
    "huge integer": (
        "layer: A\nparams:\n  u: {type: int, default: " + "9" * 5000 + "}\n",
        [(3, 27, "bad-number")],
    ),
    "infinite float": (
        "layer: A\nparams:\n  u: {type: float, default: 1.0, max: .inf}\n",
        [(3, 39, "bad-number")],
    ),
    "lone surrogate": ('layer: A\ndoc: "\\ud800"\n', [(2, 6, "encoding")]),
    # the kind key
    "no kind key": ("doc: hello\ncall: x\n", [(1, 1, "missing-kind")]),
    "two kind keys": ("layer: A\nloss: B\n", [(2, 1, "doubled-kind")]),
    "kind without a name": ("layer:\ndoc: hello\n", [(1, 1, "bad-class-name")]),
    # names
    "bad class name": ("layer: my-layer\n", [(1, 8, "bad-class-name")]),
    "lower-case class name": ("layer: dense\n", [(1, 8, "bad-class-name")]),
    "keyword class name": ("layer: None\n", [(1, 8, "bad-class-name")]),
    "bad param name": ("layer: A\nparams:\n  my-units: int\n", [(3, 3, "bad-name")]),
    "number as a param name": ("layer: A\nparams:\n  1: int\n", [(3, 3, "bad-name")]),
    "boolean as a weight name": ("layer: A\nweights:\n  true: 3\n", [(3, 3, "bad-name")]),
    "keyword param": ("layer: A\nparams:\n  lambda: float\n", [(3, 3, "keyword-name")]),
    "keyword weight": ("layer: A\nweights:\n  for: 3\n", [(3, 3, "keyword-name")]),
    "keyword method argument": (
        "layer: A\nmethods:\n  helper:\n    args: [class]\n    body: return 1\n",
        [(4, 12, "keyword-name")],
    ),
    "reserved param": ("layer: A\nparams:\n  trainable: bool\n", [(3, 3, "reserved-name")]),
    "reserved weight": ("layer: A\nweights:\n  weights: 3\n", [(3, 3, "reserved-name")]),
    "reserved sublayer": (
        "layer: A\nsublayers:\n  name: {class: keras.layers.Dense, args: {units: 2}}\n",
        [(3, 3, "reserved-name")],
    ),
    "private param": ("layer: A\nparams:\n  _tracker: int\n", [(3, 3, "reserved-name")]),
    "name layergen keeps": ("layer: A\nweights:\n  ops: 3\n", [(3, 3, "reserved-name")]),
    "reserved loss param": (
        "loss: A\nparams:\n  reduction: str\ncall: y_pred\n",
        [(3, 3, "reserved-name")],
    ),
    "same name twice": (
        "layer: A\nparams:\n  k: int\nweights:\n  k: 3\n",
        [(5, 3, "duplicate-name")],
    ),
    "op argument twice": (
        "layer: A\nops:\n  f:\n    args: [v, v]\n    forward: v\n    gradient: upstream\ncall: f(x, x)\n",
        [(4, 15, "duplicate-name")],
    ),
    "name that Python normalizes": ("layer: A\nparams:\n  \u00b5: float\n", [(3, 3, "bad-name")]),
    "bad base class path": ("layer: A\nbase: keras.layers.class\n", [(2, 7, "bad-class")]),
    "bad sublayer class": (
        "layer: A\nsublayers:\n  d: {class: 'keras.layers.Dense()'}\ncall: d(x)\n",
        [(3, 14, "bad-class")],
    ),
    "import that runs code": (
        "layer: A\nimports:\n  - import os; os.system('touch pwned')\n",
        [(3, 5, "bad-import")],
    ),
    "__future__ import": (
        "layer: A\nimports:\n  - from __future__ import annotations\n",
        [(3, 5, "bad-import")],
    ),
    "import with a syntax error": (
        "layer: A\nimports:\n  - from . import\n",
        [(3, 5, "python-syntax")],
    ),
    # shape of the declaration
    "unknown key": ("layer: A\nparms:\n  u: int\n", [(2, 1, "unknown-key")]),
    "unknown nested key": (
        "layer: A\nweights:\n  k:\n    shape: 3\n    initialiser: zeros\n",
        [(5, 5, "unknown-key")],
    ),
    "unknown type": ("layer: A\nparams:\n  u: {type: integer}\n", [(3, 13, "unknown-type")]),
    "wrong type": ("layer: A\nrandom: maybe\n", [(2, 9, "wrong-type")]),
    "list where a mapping goes": ("layer: A\nparams: [units, rate]\n", [(2, 9, "wrong-type")]),
    "call that is a number": ("layer: A\ncall: 5\n", [(2, 7, "wrong-type")]),
    "weight without a shape": (
        "layer: A\nweights:\n  k: {initializer: zeros}\n",
        [(3, 6, "missing-key")],
    ),
    "output_shape and outputs": (
        "layer: A\noutput_shape: x\noutputs:\n  a: x\n",
        [(3, 1, "conflicting-keys")],
    ),
    "no outputs": ("layer: A\noutputs: {}\n", [(2, 1, "missing-key")]),
    "required param after a default": (
        "layer: A\nparams:\n  rate: {type: float, default: 0.1}\n  units: int\n",
        [(4, 3, "param-order")],
    ),
    "layer key in a loss": ("loss: A\nweights:\n  k: 3\ncall: y_pred\n", [(2, 1, "not-for-kind")]),
    # values
    "default below min": (
        "layer: A\nparams:\n  u: {type: int, default: 0, min: 1}\n",
        [(3, 27, "bad-default")],
    ),
    "default above max": (
        "layer: A\nparams:\n  r: {type: float, default: 1.5, max: 1}\n",
        [(3, 29, "bad-default")],
    ),
    "default not a choice": (
        "layer: A\nparams:\n  m: {type: str, default: c, choices: [a, b]}\n",
        [(3, 27, "bad-default")],
    ),
    "default of the wrong type": (
        "layer: A\nparams:\n  u: {type: int, default: many}\n",
        [(3, 27, "bad-default")],
    ),
    "min above max": (
        "layer: A\nparams:\n  u: {type: int, min: 3, max: 1}\n",
        [(3, 23, "bad-bound")],
    ),
    "bound on a string": ("layer: A\nparams:\n  s: {type: str, min: 1}\n", [(3, 6, "bad-bound")]),
    "unknown dtype": ("layer: A\ninputs:\n  x: {dtype: flaot32}\n", [(3, 14, "bad-dtype")]),
    "negative rank": ("layer: A\ninputs:\n  x: {rank: -1}\n", [(3, 13, "bad-bound")]),
    "unknown initializer": (
        "layer: A\nweights:\n  k: {shape: 3, initializer: glorot_unifrom}\n",
        [(3, 30, "unknown-initializer")],
    ),
    "param of the wrong kind as initializer": (
        "layer: A\nparams:\n  u: int\nweights:\n  k: {shape: 3, initializer: u}\n",
        [(5, 30, "wrong-type")],
    ),
    # unknown names, in every kind of expression
    "unknown name in call": (
        "layer: A\nparams:\n  units: int\ncall: |\n  y = x * unit\n  return y\n",
        [(5, 11, "unknown-name")],
    ),
    "unknown name in a train branch": (
        "layer: A\ncall:\n  train: x * rat\n  infer: x\n",
        [(3, 14, "unknown-name")],
    ),
    "unknown name in losses": (
        "layer: A\nlosses:\n  - ops.sum(x) * rat\n",
        [(3, 18, "unknown-name")],
    ),
    "unknown name in updates": (
        "layer: A\nweights:\n  m: {shape: (), trainable: false}\nupdates:\n  m: m * momentun\n",
        [(5, 10, "unknown-name")],
    ),
    "unknown name in masking": ("layer: A\nmasking: mask & mak\n", [(2, 17, "unknown-name")]),
    "unknown param in when": (
        "layer: A\nweights:\n  b:\n    shape: 3\n    when: use_bias\n",
        [(5, 11, "unknown-name")],
    ),
    "unknown param in shape": (
        "layer: A\nweights:\n  k: {shape: units}\n",
        [(3, 14, "unknown-name")],
    ),
    "unknown name in a quoted shape": (
        "layer: A\nparams:\n  units: int\nweights:\n  k: {shape: '(x[-1], unit)'}\n",
        [(5, 23, "unknown-name")],
    ),
    "unknown name in a shape list": (
        "layer: A\nparams:\n  units: int\nweights:\n  k:\n    shape:\n      - x[-1]\n      - unit\n",
        [(8, 9, "unknown-name")],
    ),
    "unknown name in output_shape": (
        "layer: A\noutput_shape: (*x[:-1], unitz)\n",
        [(2, 25, "unknown-name")],
    ),
    "unknown name in outputs": (
        "layer: A\noutputs:\n  a: x\n  b: (x[0], unitz)\n",
        [(4, 13, "unknown-name")],
    ),
    "unknown name in a gradient": (
        "layer: A\nops:\n  f:\n    args: [v]\n    forward: v\n    gradient: upstream * w\ncall: f(x)\n",
        [(6, 26, "unknown-name")],
    ),
    "unknown name in a gradient mapping": (
        "layer: A\nops:\n  f:\n    args: [v]\n    forward: v\n    gradient:\n      v: upstream * w\ncall: f(x)\n",
        [(7, 21, "unknown-name")],
    ),
    "unknown name in a forward": (
        "layer: A\nops:\n  f:\n    args: [v]\n    forward: v * q\n    gradient: upstream\ncall: f(x)\n",
        [(5, 18, "unknown-name")],
    ),
    "gradient for an unknown argument": (
        "layer: A\nops:\n  f:\n    args: [v]\n    forward: v\n    gradient:\n      u: upstream\ncall: f(x)\n",
        [(7, 7, "unknown-arg")],
    ),
    "unknown name in sublayer args": (
        "layer: A\nsublayers:\n  d:\n    class: keras.layers.Dense\n    args: {units: unitz}\ncall: d(x)\n",
        [(5, 19, "unknown-name")],
    ),
    "unknown name in an initializer expression": (
        "layer: A\nweights:\n  k:\n    shape: 3\n    initializer: keras.initializers.Constant(valu)\n",
        [(5, 46, "unknown-name")],
    ),
    "unknown name in init": ("layer: A\ninit: |\n  self.q = foo\n", [(3, 12, "unknown-name")]),
    "unknown name in a method": (
        "layer: A\nmethods:\n  helper:\n    args: [a]\n    body: |\n      return a + bb\n",
        [(6, 18, "unknown-name")],
    ),
    "unknown name in a loss": (
        "loss: A\ncall: ops.mean(y_pred - y_tru)\n",
        [(2, 25, "unknown-name")],
    ),
    "unknown class module": (
        "layer: A\nsublayers:\n  d: {class: layers.Dense}\ncall: d(x)\n",
        [(3, 14, "unknown-name")],
    ),
    # Python syntax, at its line and column in every scalar style
    "python syntax in a literal block": (
        "layer: A\ncall: |\n  y = x\n  z = y + * 2\n  return z\n",
        [(4, 11, "python-syntax")],
    ),
    "python syntax: a bracket never closed": (
        "layer: A\ncall: |\n  y = x\n  z = (y +\n  return z\n",
        [(4, 7, "python-syntax")],
    ),
    "python syntax in a folded block": (
        "layer: A\ncall: >\n  ops.add(x,\n  x +* 2)\n",
        [(4, 6, "python-syntax")],
    ),
    "python syntax in a double-quoted string": (
        'layer: A\ncall: "ops.add(x, \\t x +* 2)"\n',
        [(2, 25, "python-syntax")],
    ),
    "python syntax in a multi-line double-quoted string": (
        'layer: A\ncall: "ops.add(x,\n  x +* 2)"\n',
        [(3, 6, "python-syntax")],
    ),
    "python syntax in a single-quoted string": (
        "layer: A\ncall: 'ops.add(''a'', x +* 2)'\n",
        [(2, 26, "python-syntax")],
    ),
    "python syntax in a multi-line plain scalar": (
        "layer: A\ncall: ops.add(x,\n  x +* 2)\n",
        [(3, 6, "python-syntax")],
    ),
    "python syntax in a flow mapping": (
        "layer: A\nweights:\n  k: {shape: 3, when: 'a b'}\n",
        [(3, 26, "python-syntax")],
    ),
    "a flow mapping's comma cuts an expression short": (
        "layer: A\nparams:\n  n: int\nweights:\n  k: {shape: (n, n), initializer: zeros}\n",
        [(5, 14, "python-syntax"), (5, 18, "unknown-key")],
    ),
    # A `,` in a plain value of a flow mapping, and `**kwargs` in a method
    "a flow mapping's comma cuts a doc short": (
        "layer: A\nparams:\n  u: {type: int, doc: a, b}\n",
        [(3, 26, "unknown-key")],
    ),
    "a flow mapping's commas cut a doc in three": (
        "layer: A\nparams:\n  u: {type: int, doc: a, b, c}\n",
        [(3, 26, "unknown-key")],
    ),
    "star arguments of a method": (
        "layer: A\nmethods:\n  helper:\n    args: [y, z=1, '**kwargs']\n"
        "    body: return y + len(kwargs)\ncall: helper(x)\n",
        [(4, 20, "bad-name")],
    ),
    "star arguments after training": (
        "layer: A\nmethods:\n  helper:\n    args: [y, training=None, '**kwargs']\n"
        "    body: return y\ncall: helper(x)\n",
        [(4, 30, "bad-name")],
    ),
    "a star argument of a method": (
        "layer: A\nmethods:\n  helper:\n    args: [y, '*rest']\n    body: return y\ncall: helper(x)\n",
        [(4, 15, "bad-name")],
    ),
    # `masks` names the tensor input whose steps a keyword mask hides
    "masks names no tensor input": (
        "layer: A\ninputs:\n  x: {rank: 3}\n  pad: {default: null, masks: y}\ncall: x\n",
        [(4, 31, "unknown-input")],
    ),
    "masks a keyword tensor the example gives no value": (
        "layer: A\ninputs:\n  x: {rank: 3}\n  enc: {default: null}\n"
        "  pad: {default: null, masks: enc}\ncall: x\n",
        [(5, 31, "bad-example")],
    ),
    "masks on a python argument": (
        "layer: A\ninputs:\n  x: {rank: 3}\n  pad: {type: int, default: 0, masks: x}\ncall: x\n",
        [(4, 32, "conflicting-keys")],
    ),
    "a mask argument whose example hides nothing": (
        "layer: A\ninputs:\n  x: {rank: 3}\n  pad: {default: null, masks: x}\ncall: x\n"
        "example:\n  input_shape: [2, 3, 4]\n"
        "  call_args: {pad: [[true, true, true], [1, 1, 1]]}\n",
        [(8, 20, "bad-example")],
    ),
    "a mask argument of the wrong shape": (
        "layer: A\ninputs:\n  x: {rank: 3}\n  pad: {default: null, masks: x}\ncall: x\n"
        "example:\n  input_shape: [2, 3, 4]\n  call_args: {pad: [[true, false], [true, true]]}\n",
        [(8, 20, "bad-example")],
    ),
    # `causal` names the tensor input a bool argument makes the layer causal along
    "causal on a tensor argument": (
        "layer: A\ninputs:\n  x: {rank: 3}\n  c: {default: null, causal: x}\ncall: x\n",
        [(4, 22, "conflicting-keys")],
    ),
    "causal names no tensor input": (
        "layer: A\ninputs:\n  x: {rank: 3}\n  c: {type: bool, default: false, causal: z}\n"
        "call: x\n",
        [(4, 43, "unknown-input")],
    ),
    "python syntax with CRLF line ends": (
        "layer: A\r\ncall: |\r\n  y = x\r\n  z = y + * 2\r\n  return z\r\n",
        [(4, 11, "python-syntax")],
    ),
    "python syntax after a BOM": ("\ufefflayer: A\ncall: x +* 2\n", [(2, 10, "python-syntax")]),
    "python syntax in a block with a commented header": (
        "layer: A\ncall: |  # the call\n  y = x +* 1\n  return y\n",
        [(3, 10, "python-syntax")],
    ),
    "python syntax only the compiler finds": (
        "layer: A\ncall: |\n  y = x\n  break\n  return y\n",
        [(4, 3, "python-syntax")],
    ),
    "await outside async": (
        "layer: A\ncall: |\n  y = await x\n  return y\n",
        [(3, 7, "python-syntax")],
    ),
    "empty code": ("layer: A\ncall: ''\n", [(2, 7, "empty-code")]),
    # updates and examples
    "update of a trainable weight": (
        "layer: A\nweights:\n  m: {shape: ()}\nupdates:\n  m: m + 1\n",
        [(5, 3, "trainable-update")],
    ),
    "update of an unknown weight": ("layer: A\nupdates:\n  m: x\n", [(3, 3, "unknown-weight")]),
    "example without a required param": (
        "layer: A\nparams:\n  u: int\nexample:\n  input_shape: [2, 3]\n",
        [(4, 1, "missing-example")],
    ),
    "example with an unknown param": (
        "layer: A\nexample:\n  params: {units: 3}\n",
        [(3, 12, "unknown-param")],
    ),
    "example value outside its bounds": (
        "layer: A\nparams:\n  u: {type: int, min: 1}\nexample:\n  params: {u: 0}\n",
        [(5, 15, "bad-example")],
    ),
    "example shape for an unknown input": (
        "layer: A\ninputs:\n  a:\n  b:\nexample:\n  input_shape: {a: [2, 3], c: [2, 3]}\n",
        [(6, 16, "missing-example"), (6, 28, "unknown-input")],
    ),
    "example shape with a zero dim": (
        "layer: A\nexample:\n  input_shape: [2, 0]\n",
        [(3, 16, "bad-example")],
    ),
    "example dtype unknown": (
        "layer: A\nexample:\n  input_dtype: flaot32\n",
        [(3, 16, "bad-dtype")],
    ),
    # A call case brings its own inputs (ReversibleEmbedding's `reverse`)
    "call case with an unknown keyword": (
        "layer: A\ninputs:\n  x:\n  reverse: {type: bool, default: false}\ncall: x\n"
        "example:\n  call_cases:\n    - {args: {revers: true}, input_shape: [2, 3]}\n",
        [(8, 15, "unknown-input")],
    ),
    "call case with a zero dim": (
        "layer: A\ninputs:\n  x:\n  reverse: {type: bool, default: false}\ncall: x\n"
        "example:\n  call_cases:\n    - {args: {reverse: true}, input_shape: [2, 0]}\n",
        [(8, 44, "bad-example")],
    ),
    "call case with a bad value and an unknown dtype": (
        "layer: A\ninputs:\n  x:\n  reverse: {type: bool, default: false}\ncall: x\n"
        "example:\n  call_cases:\n    - args: {reverse: 3}\n      input_dtype: flaot32\n",
        [(8, 23, "bad-example"), (9, 20, "bad-dtype")],
    ),
    "call case without args": (
        "layer: A\ninputs:\n  x:\n  reverse: {type: bool, default: false}\ncall: x\n"
        "example:\n  call_cases:\n    - {input_shape: [2, 3]}\n",
        [(8, 7, "bad-example")],
    ),
}


def path_for(text) -> str:
    raw = text if isinstance(text, bytes) else text.encode()
    first = raw.split(b":")[0].lstrip(b"\xef\xbb\xbf").decode("utf-8", "replace")
    return f"broken.{first if first in KINDS else 'layer'}.yaml"


def diagnostics(text, path=None):
    raw = text if isinstance(text, bytes) else text.encode()
    with pytest.raises(DiagnosticError) as info:
        parse_declaration(path or path_for(text), raw)
    return info.value.diagnostics


def test_a_correct_declaration_loads():
    analysis = parse_declaration("fine.layer.yaml", OK.encode())
    assert analysis.decl.name == "Fine"


@pytest.mark.parametrize("name", CASES)
def test_each_mistake_is_located(name):
    text, expected = CASES[name]
    found = [(d.line, d.col, d.code) for d in diagnostics(text)]
    assert found == expected


@pytest.mark.parametrize("name", CASES)
def test_each_diagnostic_is_one_located_line_and_a_hint(name):
    for d in diagnostics(CASES[name][0]):
        first, *rest = d.format().split("\n")
        assert first.startswith(f"{path_for(CASES[name][0])}:{d.line}:{d.col}: error: ")
        assert first.endswith(f" [{d.code}]")
        assert rest == ([f"  hint: {d.hint}"] if d.hint else [])
        assert "Traceback" not in d.format()


def test_several_errors_are_all_reported():
    text = (
        "layer: A\n"
        "params:\n"
        "  u: {type: int, mn: 1}\n"  # 3: unknown key
        "  class: int\n"  # 4: keyword
        "weights:\n"
        "  k: {shape: (x[-1], u), initialiser: zeros}\n"  # 6: unknown key (the shape is quoted below)
        "call: y * q\n"  # 7: two unknown names
        "example:\n"
        "  params: {u: 1, v: 2}\n"  # 9: unknown param
    ).replace("(x[-1], u)", "'(x[-1], u)'")
    found = [(d.line, d.col, d.code) for d in diagnostics(text)]
    assert found == [
        (3, 18, "unknown-key"),
        (4, 3, "keyword-name"),
        (6, 28, "unknown-key"),
        (7, 7, "unknown-name"),
        (7, 11, "unknown-name"),
        (8, 1, "missing-example"),
        (9, 18, "unknown-param"),
    ]


def test_a_dropped_item_does_not_make_its_name_unknown_elsewhere():
    text = "layer: A\nparams:\n  u: {type: integer}\ncall: x * u * zz\nexample:\n  params: {u: 2}\n"
    found = [(d.line, d.col, d.code) for d in diagnostics(text)]
    assert found == [(3, 13, "unknown-type"), (4, 15, "unknown-name")]


def test_a_missing_kind_still_reports_the_rest():
    found = [(d.line, d.code) for d in diagnostics("doc: hello\ncall: x * zz\n")]
    assert found == [(1, "missing-kind"), (2, "unknown-name")]


def test_kind_that_disagrees_with_the_file_suffix():
    (d,) = diagnostics("loss: A\ncall: y_pred\n", path="broken.layer.yaml")
    assert (d.line, d.col, d.code) == (1, 1, "kind-mismatch")


def test_unknown_name_points_at_its_column_and_suggests_the_closest():
    text = "layer: A\nparams:\n  units: int\ncall: |\n  y = x * unitz\n  return y\n"
    (d,) = diagnostics(text)
    assert (d.line, d.col) == (5, 11)
    assert "`units`" in d.hint
    assert d.format().startswith(
        "broken.layer.yaml:5:11: error: unknown name `unitz` [unknown-name]"
    )


@pytest.mark.parametrize(
    "name, hint",
    [
        ("yaml syntax in a flow mapping", "block style"),
        ("a flow mapping's comma cuts an expression short", "a `,` ends the value"),
        ("yaml syntax: a tab for indentation", "spaces, not tabs"),
        ("a second document where one class is read", "split the file"),
        ("unknown key", "did you mean `params`?"),
        ("unknown nested key", "did you mean `initializer`?"),
        ("unknown type", "did you mean `int`?"),
        ("unknown initializer", "did you mean `glorot_uniform`?"),
        ("unknown name in a shape list", "did you mean `units`?"),
        ("unknown name in masking", "did you mean `mask`?"),
        ("unknown dtype", "did you mean `float32`?"),
        ("keyword param", "`lambda_`"),
        ("update of a trainable weight", "trainable: false"),
        ("example without a required param", "add `u` to `example.params`"),
        ("unknown name in sublayer args", "quote it twice"),
        ("name that Python normalizes", "`μ`"),
        ("utf-16", "UTF-16"),
        ("a flow mapping's comma cuts a doc short", 'quote it: `doc: "a, b"`'),
        ("a flow mapping's commas cut a doc in three", 'quote it: `doc: "a, b, c"`'),
        ("a flow mapping's comma cuts an expression short", 'quote it: `shape: "(n, n)"`'),
        ("star arguments of a method", "`args: [y, z=1, training=None]`"),
        ("star arguments of a method", "`self.helper(...)`"),
        ("star arguments after training", "`args: [y, training=None]`"),
        ("call case with an unknown keyword", "did you mean `reverse`?"),
    ],
)
def test_hints(name, hint):
    hints = [d.hint or "" for d in diagnostics(CASES[name][0])]
    assert any(hint in h for h in hints), hints


def test_yaml_12_scalars():
    text = (
        "layer: A\nparams:\n  eps: {type: float, default: 1e-4}\n  mode: {type: str, default: no}\n"
    )
    params = parse_declaration("a.layer.yaml", text.encode()).params
    assert params["eps"].default == 1e-4
    assert params["mode"].default == "no"


def test_alias_bomb_fails_fast():
    lines = ["layer: A", "doc: &a0 lol"]
    for i in range(1, 30):
        lines.append(f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    start = time.perf_counter()
    errors = diagnostics("\n".join(lines) + "\n")
    assert time.perf_counter() - start < 1
    assert errors and all(d.code == "yaml-alias" for d in errors)


def test_deep_nesting_fails_fast_and_located():
    start = time.perf_counter()
    (d,) = diagnostics("layer: A\ndoc:\n  - " + "[" * 5000 + "]" * 5000 + "\n")
    assert time.perf_counter() - start < 2
    assert (d.line, d.code) == (3, "yaml-syntax")
