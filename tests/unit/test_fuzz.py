"""Fuzzing: whatever a declaration file holds, layergen ends with code that compiles or a located error.

Valid declarations come from a strategy over the format (params of every type
with defaults and bounds, weights whose shapes use params and the input, call
expressions over the names in scope); broken ones are those with keys renamed,
values replaced, characters inserted or deleted, and random text and bytes.
Loading, analysing and rendering each one must either give code that compiles
or raise `DiagnosticError` with sane positions: never any other exception.

A few valid declarations are also generated, imported with Keras on JAX, and
put through the quick checks of their generated tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.kinds import KINDS
from layergen.render.context import build_context
from layergen.render.render import render
from layergen.render.tests_context import build_test_context

from helpers import ACCEPTANCE, OWN_EXAMPLES

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.generate],
)

NAMES = [
    "units",
    "rate",
    "alpha",
    "beta",
    "scale",
    "gain",
    "width",
    "depth",
    "mode",
    "flag",
    "eps",
    "gamma",
    "offset",
    "factor",
    "level",
    "size",
    "shift",
    "bias_init",
    "kernel_init",
    "act",
    "reg",
    "cons",
    "kind_",
    "tag",
]
WEIGHT_NAMES = [
    "kernel",
    "bias",
    "w",
    "v",
    "table",
    "center",
    "spread",
    "moving_mean",
    "moving_var",
    "counter",
]

# -- valid declarations ------------------------------------------------------------

_DEFAULTS = {
    "int": st.integers(1, 4),
    "float": st.floats(-2, 2, allow_nan=False, width=32).map(lambda f: round(f, 3)),
    "bool": st.booleans(),
    "str": st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
    "list[int]": st.lists(st.integers(-5, 5), max_size=3),
    "list[float]": st.lists(
        st.floats(-1, 1, allow_nan=False, width=32).map(lambda f: round(f, 3)), max_size=3
    ),
    "list[str]": st.lists(st.text(max_size=5), max_size=3),
    "activation": st.sampled_from(["relu", "tanh", "sigmoid", "linear", None]),
    "initializer": st.sampled_from(["zeros", "ones", "glorot_uniform", "he_normal"]),
    "regularizer": st.sampled_from(["l1", "l2", None]),
    "constraint": st.sampled_from(["non_neg", "unit_norm", None]),
    "dtype": st.sampled_from(["float32", "float16", "int32"]),
}


@st.composite
def params(draw):
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
    out = {}
    for name in names:
        kind = draw(st.sampled_from(sorted(_DEFAULTS)))
        spec: dict = {"type": kind}
        if draw(st.booleans()) or kind in ("activation", "regularizer", "constraint"):
            spec["default"] = draw(_DEFAULTS[kind])
        if kind in ("int", "float") and draw(st.booleans()):
            spec["min"] = 1 if kind == "int" else -2.0
            spec["max"] = 4 if kind == "int" else 2.0
        if kind == "str" and draw(st.booleans()):
            choices = draw(st.lists(_DEFAULTS["str"], min_size=1, max_size=3, unique=True))
            spec["choices"] = choices
            if "default" in spec:
                spec["default"] = draw(st.sampled_from(choices))
        if draw(st.booleans()):
            spec["doc"] = draw(st.text(max_size=30))
        out[name] = spec
    # Python wants required arguments first (the other order is a `param-order` error).
    return {n: s for n, s in out.items() if "default" not in s} | {
        n: s for n, s in out.items() if "default" in s
    }


@st.composite
def valid_declarations(draw, *, runnable: bool = False):
    """A declaration that must load and render; `runnable`: its quick checks must pass too."""
    name = draw(st.from_regex(r"[A-Z][a-z]{2,8}(?:[A-Z][a-z]{1,5})?", fullmatch=True))
    decl: dict = {"layer": name}
    if draw(st.booleans()):
        decl["doc"] = draw(st.text(max_size=60))
    ps = draw(params())
    decl["params"] = ps
    ints = [p for p, s in ps.items() if s["type"] == "int" and ("min" in s or "default" not in s)]
    floats = [p for p, s in ps.items() if s["type"] == "float" and s.get("default") is not None]
    dim = st.sampled_from(["x[-1]", "2", "3", *ints])
    weights = {}
    for w in draw(st.lists(st.sampled_from(WEIGHT_NAMES), unique=True, max_size=3)):
        dims = draw(st.lists(dim, max_size=2))
        spec: dict = {"shape": "(" + ", ".join(dims) + ",)" if dims else "()"}
        if draw(st.booleans()):
            spec["initializer"] = draw(st.sampled_from(["zeros", "ones", "random_normal"]))
        if draw(st.booleans()):
            spec["trainable"] = False
        weights[w] = spec
    decl["weights"] = weights
    terms = ["x"] + [f"ops.mean({w})" for w in weights] + floats
    ops_ = draw(
        st.lists(st.sampled_from(["+", "-", "*"]), min_size=len(terms) - 1, max_size=len(terms) - 1)
    )
    expression = terms[0] + "".join(f" {o} {t}" for o, t in zip(ops_, terms[1:]))
    if draw(st.booleans()):
        decl["call"] = expression
    else:
        decl["call"] = f"y = {expression}\nreturn ops.cast(y, x.dtype)\n"
    required = {p: draw(_DEFAULTS[s["type"]]) for p, s in ps.items() if "default" not in s}
    for p, s in ps.items():
        if p in required and "choices" in s:
            required[p] = s["choices"][0]
        if p in required and "min" in s:
            required[p] = min(max(required[p], s["min"]), s["max"])
    if weights and draw(st.booleans()):
        decl["losses"] = [f"0.01 * ops.mean(ops.square({draw(st.sampled_from(sorted(weights)))}))"]
    state = [w for w, spec in weights.items() if spec.get("trainable") is False]
    if state and draw(st.booleans()):
        decl["updates"] = {w: f"0.9 * {w} + 0.1 * ops.mean(x)" for w in state}
    if draw(st.booleans()):
        decl["masking"] = True
    decl["example"] = {"params": required, "input_shape": [2, draw(st.integers(1, 4))]}
    if runnable:
        for p, s in ps.items():  # keep the example's values usable as dims and scalars
            if s["type"] == "dtype":
                decl["example"]["params"][p] = "float32"
    return decl


def quote(text: str) -> str:
    """A YAML double-quoted scalar: printable ASCII as it is, everything else escaped."""
    out = []
    for c in text:
        code = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= code < 0x7F:
            out.append(c)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def scalar(value) -> str:
    if isinstance(value, str):
        return quote(value)
    return json.dumps(value)


def to_yaml(value, indent: int = 0) -> str:
    """Block-style YAML (code blocks as `|` literals); every other scalar double-quoted or as JSON."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}\n"
        lines = []
        for key, item in value.items():
            head = f"{pad}{key if isinstance(key, str) and key.isidentifier() else scalar(key)}:"
            if isinstance(item, (dict, list)) and item:
                lines.append(head + "\n" + to_yaml(item, indent + 2))
            elif isinstance(item, str) and _literal_block(item):
                lines.append(
                    head
                    + " |\n"
                    + "".join(
                        f"{pad}  {line}\n" if line else "\n" for line in item[:-1].split("\n")
                    )
                )
            else:
                lines.append(f"{head} {to_yaml(item).strip()}\n")
        return "".join(lines)
    if isinstance(value, list):
        if not value:
            return "[]\n"
        out = []
        for item in value:
            if isinstance(item, (dict, list)) and item:
                out.append(f"{pad}-\n" + to_yaml(item, indent + 2))
            else:
                out.append(f"{pad}- {to_yaml(item).strip()}\n")
        return "".join(out)
    return scalar(value) + "\n"


def _literal_block(text: str) -> bool:
    """Whether `text` reads back the same from a `|` block: several lines, ASCII, no edge spaces."""
    lines = text[:-1].split("\n")
    return (
        text.endswith("\n")
        and len(lines) > 1
        and not text.startswith((" ", "\n"))
        and not text.endswith("\n\n")
        and all(
            all(0x20 <= ord(c) < 0x7F for c in line) and not line.endswith(" ") for line in lines
        )
    )


# -- broken declarations -----------------------------------------------------------

_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2),
    st.sampled_from(
        [
            "x[",
            "return",
            "lambda",
            "class",
            "ops.",
            "**",
            "1 +",
            "x y",
            "'",
            '"""',
            "{{ x }}",
            "\t",
            "\x00",
            "self",
            "training",
            "__import__('os')",
            "import os",
            "*x",
            "yield x",
            "await x",
            "break",
        ]
    ),
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, prefix + (i,))


@st.composite
def mutated_declarations(draw):
    decl = draw(valid_declarations())
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(decl) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = decl
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["rename", "delete", "replace", "duplicate"]))
        if action == "rename" and isinstance(parent, dict):
            new = draw(
                st.one_of(
                    st.text(max_size=10),
                    st.sampled_from(
                        [
                            "class",
                            "name",
                            "dtype",
                            "trainable",
                            "1",
                            "self",
                            "_x",
                            "layer",
                            "loss",
                            "parms",
                            "shape",
                            "µ",
                        ]
                    ),
                )
            )
            parent[new] = parent.pop(path[-1])
        elif action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "duplicate" and isinstance(parent, dict):
            parent[path[-1] + "_" if isinstance(path[-1], str) else path[-1]] = parent[path[-1]]
        else:
            parent[path[-1]] = draw(_JUNK)
    return to_yaml(decl).encode("utf-8", "surrogatepass")


@st.composite
def edited_text(draw):
    """A valid declaration's text with a few characters inserted, deleted or replaced."""
    text = to_yaml(draw(valid_declarations()))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        piece = draw(
            st.sampled_from(
                [
                    ":",
                    " ",
                    "\n",
                    "-",
                    "{",
                    "}",
                    "[",
                    "]",
                    ",",
                    "'",
                    '"',
                    "#",
                    "&a",
                    "*a",
                    "!!",
                    "\t",
                    "|",
                    ">",
                    "\\",
                    "%",
                    "@",
                    "`",
                    "\r\n",
                    "\ufeff",
                    "---",
                    "<<: ",
                ]
            )
        )
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert":
            text = text[:i] + piece + text[i:]
        elif action == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 5)) :]
        else:
            text = text[:i] + piece + text[i + 1 :]
    return text.encode("utf-8", "surrogatepass")


EXAMPLES = sorted(OWN_EXAMPLES.glob("*.yaml")) + sorted(ACCEPTANCE.glob("*.yaml"))


@st.composite
def edited_examples(draw):
    """An example declaration (every feature of the format) with a few characters edited, as `edited_text`."""
    path = draw(st.sampled_from(EXAMPLES))
    text = path.read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        piece = draw(
            st.sampled_from(
                [
                    "",
                    " ",
                    "\n",
                    ":",
                    "-",
                    "[",
                    "]",
                    "(",
                    ")",
                    ",",
                    "'",
                    '"',
                    "x",
                    "_",
                    "1",
                    "#",
                    "\t",
                    "*",
                    ".",
                    "  ",
                ]
            )
        )
        text = text[:i] + piece + text[i + draw(st.integers(0, 3)) :]
    return path.name, text.encode("utf-8", "surrogatepass")


# -- the property ------------------------------------------------------------------


def generate(raw: bytes, path: str = "fuzz.layer.yaml"):
    """Load, analyse and render like `layergen generate`: the module and test code, or a DiagnosticError."""
    try:
        analysis = parse_declaration(path, raw)
    except DiagnosticError as exc:
        lines = raw.count(b"\n") + 2
        assert exc.diagnostics, "a DiagnosticError without diagnostics"
        for d in exc.diagnostics:
            assert 1 <= d.line <= lines and d.col >= 1 and d.code and d.message, d
            assert "Traceback" not in d.message
        return None
    kind = analysis.decl.kind
    module = render(KINDS[kind].template, build_context(analysis.ir, package="fuzz", source=path))
    compile(module, "module.py", "exec", dont_inherit=True)
    test = render(
        KINDS[kind].test_template,
        build_test_context(analysis.ir, module="fuzz_module", source="fuzz.layer.yaml"),
    )
    compile(test, "test_module.py", "exec", dont_inherit=True)
    return module


@pytest.mark.e2e  # hundreds of hypothesis examples: in CI, not the fast subset
@settings(FUZZ, max_examples=40)
@given(valid_declarations())
def test_valid_declarations_generate_code_that_compiles(decl):
    raw = to_yaml(decl).encode("utf-8", "surrogatepass")
    assert generate(raw) is not None, raw.decode("utf-8", "replace")


@pytest.mark.e2e  # hundreds of hypothesis examples: in CI, not the fast subset
@settings(FUZZ, max_examples=150)
@given(mutated_declarations())
def test_mutated_declarations_compile_or_fail_with_located_errors(raw):
    generate(raw)


@pytest.mark.e2e  # hundreds of hypothesis examples: in CI, not the fast subset
@settings(FUZZ, max_examples=150)
@given(edited_text())
def test_edited_text_compiles_or_fails_with_located_errors(raw):
    generate(raw)


@pytest.mark.e2e  # hundreds of hypothesis examples: in CI, not the fast subset
@settings(FUZZ, max_examples=60)
@given(edited_examples())
def test_edited_examples_compile_or_fail_with_located_errors(named):
    name, raw = named
    generate(raw, path=name)


@settings(FUZZ, max_examples=150)
@given(
    st.one_of(
        st.binary(max_size=300),
        st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    )
)
def test_random_bytes_and_text_fail_with_located_errors(raw):
    generate(raw)


@settings(FUZZ, max_examples=100)
@given(
    st.lists(
        st.sampled_from(
            [
                "layer: A",
                "loss: B",
                "doc: hello",
                "params:",
                "  units: int",
                "  rate: {type: float, default: 0.5}",
                "weights:",
                "  kernel: {shape: units}",
                "  k:",
                "    shape: (x[-1], units)",
                "call: |",
                "  return x * rate",
                "  y = ops.matmul(x, kernel)",
                "  return y",
                "call: x",
                "example:",
                "  params: {units: 2}",
                "  input_shape: [2, 3]",
                "updates:",
                "  kernel: kernel + 1",
                "losses:",
                "  - ops.sum(x)",
                "masking: true",
                "random: true",
                "ops:",
                "  f:",
                "    args: [v]",
                "    forward: v",
                "    gradient: upstream",
                "inputs:",
                "  a: {rank: 2}",
                "  b:",
                "outputs:",
                "  o: units",
                "output_shape: (*x[:-1], units)",
                "imports: ['import math']",
                "init: self.z = 1",
                "methods:",
                "  m:",
                "    body: return 1",
                "sublayers:",
                "  d: {class: keras.layers.Dense, args: {units: units}}",
                "base: keras.layers.Dense",
                "package: demo",
                "  - a",
                "- b",
                "&x 1",
                "*x",
                "? [a]",
                ": b",
                "---",
                "{",
                "\t",
            ]
        ),
        max_size=14,
    ).map(lambda lines: ("\n".join(lines) + "\n").encode())
)
def test_shuffled_lines_compile_or_fail_with_located_errors(raw):
    generate(raw)


# -- a few generated layers, imported and checked with Keras ------------------------

QUICK_CHECKS = textwrap.dedent("""
    import importlib, sys
    sys.path.insert(0, sys.argv[1])
    importlib.import_module("tests.conftest")  # as pytest does: it puts the support module in reach
    failures = []
    for name in sys.argv[2:]:
        module = importlib.import_module(f"tests.test_{name}")
        for check in ("test_output_shapes_eager_symbolic_and_computed", "test_weights_match_declaration",
                      "test_config_round_trip"):
            if hasattr(module, check):
                try:
                    getattr(module, check)()
                except Exception as exc:
                    failures.append(f"{name}.{check}: {type(exc).__name__}: {exc}")
    print("\\n".join(failures))
    sys.exit(1 if failures else 0)
""")


@pytest.mark.e2e
def test_sample_of_generated_layers_import_and_pass_quick_checks(tmp_path):
    from layergen.config import Config
    from layergen.generate import plan
    from layergen.writes import write

    declarations = []

    @settings(FUZZ, max_examples=3)
    @given(valid_declarations(runnable=True))
    def collect(decl):
        declarations.append(decl)

    collect()
    assert declarations
    folder = tmp_path / "fuzzed"
    folder.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'fuzzed'\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    names = []
    for i, decl in enumerate(declarations):
        decl["layer"] = f"{decl['layer']}{i}"
        path = folder / f"fuzzed_{i}.layer.yaml"
        path.write_bytes(to_yaml(decl).encode())
        names.append(f"fuzzed_{i}")
    write(plan(sorted(folder.glob("*.yaml")), Config(root=tmp_path)))
    env = {
        **os.environ,
        "KERAS_BACKEND": "jax",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "JAX_PLATFORMS": "cpu",
    }
    result = subprocess.run(
        [sys.executable, "-c", QUICK_CHECKS, str(tmp_path), *names],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
