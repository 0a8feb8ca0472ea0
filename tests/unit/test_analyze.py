"""What `layergen/declaration/analyze.py` accepts and refuses: each case
parsed from YAML, each refusal a located error.

Regression tests: inputs that gave tracebacks, broken code reported as success; located errors where
there were tracebacks or silence.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError

from helpers import cli as run
from helpers import module_code, no_traceback, repro


def analysis(text: str):
    return parse_declaration("layers/a.layer.yaml", textwrap.dedent(text).encode())


def errors(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    return [(d.line, d.col, d.code) for d in info.value.diagnostics]


# -- names real layers use ---------------------------------------------------------------


def test_inputs_may_name_the_only_tensor_input():
    """keras-hub's `call(self, inputs)` is kept."""
    a = analysis("""\
        layer: A
        inputs:
          inputs: {min_rank: 2}
          start_index: {type: int, default: 0}
        call: inputs * start_index
        """)
    assert a.ir.input_names == ["inputs"]


@pytest.mark.parametrize(
    "inputs, where",
    [
        ("  inputs:\n  other:\n", (3, 3)),  # several: `call(self, inputs)` takes their list
        ("  other:\n  inputs:\n", (4, 3)),
        ("  x:\n  inputs: {default: null}\n", (4, 3)),  # a keyword beside the tensor input
    ],
)
def test_inputs_beside_another_input_stays_reserved(inputs, where):
    """Only the sole tensor input may be `inputs`."""
    text = "layer: A\ninputs:\n" + inputs + "call: x\n"
    assert (*where, "reserved-name") in errors(text)


WEIGHT_NAMED = """\
layer: RelativeEmbedding
params:
  hidden_dim: int
weights:
  rel_embeddings: {shape: "(4, hidden_dim)", name: rel_embedding}
call: x + rel_embeddings[0]
"""


def test_a_weight_may_have_a_keras_name_other_than_its_attribute():
    """DeBERTa's `self.rel_embeddings`, named `rel_embedding` by Keras."""
    (weight,) = analysis(WEIGHT_NAMED).ir.weights
    assert (weight.name, weight.keras_name) == ("rel_embeddings", "rel_embedding")


@pytest.mark.parametrize(
    "name, where, code",
    [
        ("a/b", (5, 52), "bad-name"),  # a path's separator
        ("'a b'", (5, 52), "bad-name"),
        ("''", (5, 52), "bad-name"),
        ("bias", (5, 52), "duplicate-name"),  # another weight's Keras name
    ],
)
def test_a_weights_keras_name_is_checked(name, where, code):
    """A name Keras cannot take, or two weights of one path, are located."""
    text = WEIGHT_NAMED.replace("name: rel_embedding", f"name: {name}").replace(
        "call:", "  bias: '(hidden_dim,)'\ncall:"
    )
    assert (*where, code) in errors(text)


# -- params that hold a layer or a callable -----------------------------------------------

WRAPPER = repro("wrap")


def test_a_param_may_hold_a_layer_or_a_callable_given_as_code_in_the_example():
    """The example's values are expressions, made anew by each test."""
    a = analysis(WRAPPER)
    assert [p.type for p in a.ir.params.values()] == ["layer", "callable"]
    assert a.ir.example.args["layer"].render() == "keras.layers.Dense(3)"


@pytest.mark.parametrize(
    "old, new, where, code",
    [
        # An undeclared key: a located error, not a string passed to the constructor.
        (
            "fn: keras.activations.relu}",
            "fn: keras.activations.relu, lyr: x}",
            (7, 72),
            "unknown-param",
        ),
        ('"keras.layers.Dense(3)"', '"keras.layers.Dens(3"', (7, 37), "python-syntax"),
        ('"keras.layers.Dense(3)"', '"Dense(3)"', (7, 20), "unknown-name"),
        ('"keras.layers.Dense(3)"', "3", (7, 19), "bad-example"),
        (
            "fn: {type: callable, default: null}",
            "fn: {type: callable, default: relu}",
            (4, 33),
            "bad-default",
        ),
        ('{layer: "keras.layers.Dense(3)", ', "{", (3, 3), "missing-example"),
    ],
)
def test_object_params_and_example_params_are_checked(old, new, where, code):
    """An undeclared `example.params` key, an object param's example that is
    not an expression over known names, or a default other than null, is a located error."""
    found = errors(WRAPPER.replace(old, new))
    assert any(f[2] == code for f in found), found
    assert (*where, code) in found


def test_a_required_object_param_needs_an_example_even_without_one():
    """No value is made up for a layer."""
    text = "layer: Wrap\nparams:\n  layer: layer\ncall: layer(x)\n"
    assert (3, 3, "missing-example") in errors(text)


@pytest.mark.parametrize(
    "base, key, ok",
    [
        ("keras.layers.Dense", "units", True),  # the base class's own argument
        ("keras.layers.Dense", "name", True),  # every layer's
        ("keras.layers.Dense", "unit", False),
        ("keras.layers.Wrapper", "layer", True),
        ("my_project.Base", "anything", True),  # a class layergen does not know
    ],
)
def test_example_params_of_a_known_base_class_are_checked(base, key, ok):
    """With a Keras base class, a key it does not take is located."""
    text = (
        f"layer: A\nbase: {base}\nexample:\n  params: {{{key}: 3}}\nimports: [import my_project]\n"
    )
    if ok:
        analysis(text)
    else:
        assert (4, 12, "unknown-param") in errors(text)


# -- structure decided by the inputs ------------------------------------------------------

DECODER = """\
layer: Decoder
params:
  use_ffn: {type: bool, default: true}
inputs:
  decoder_sequence: {rank: 3}
  encoder_sequence: {default: null, rank: 3}
  cache_index: {type: int, default: 0}
sublayers:
  cross:
    class: keras.layers.Dense
    args: {units: "encoder_sequence[-1]"}
    when: encoder_sequence is not None
call: decoder_sequence
"""


def test_a_sublayers_when_and_args_may_read_tensor_keyword_inputs():
    """An input name stands for its shape, None when it is not given."""
    (sub,) = analysis(DECODER).ir.sublayers
    assert sub.reads_input_shapes and sub.created.render() == "encoder_sequence is not None"


@pytest.mark.parametrize(
    "old, new, where, code",
    [
        (
            "when: encoder_sequence is not None",
            "when: encoder is not None",
            (12, 11),
            "unknown-name",
        ),
        # A Python keyword argument has no shape.
        ('"encoder_sequence[-1]"', '"cache_index"', (11, 20), "unknown-name"),
        (
            "    when: encoder_sequence",
            "    create: init\n    when: encoder_sequence",
            (12, 13),
            "conflicting-keys",
        ),
    ],
)
def test_a_sublayers_when_is_checked(old, new, where, code):
    """Unknown names, and a sublayer made in `__init__` that needs a shape."""
    assert (*where, code) in errors(DECODER.replace(old, new))


# -- symbolic shapes that take call arguments ---------------------------------------------

SCORES = """\
layer: Attend
inputs:
  x: {rank: 3}
  return_attention_scores: {type: bool, default: false}
call: x
outputs:
  outputs: x
  attention_scores: {shape: "(x[0], x[1], x[1])", when: return_attention_scores}
"""


@pytest.mark.parametrize(
    "old, new, where, code",
    [
        ("when: return_attention_scores", "when: return_scores", (8, 57), "unknown-name"),
        ("outputs:\n", "output_type: dict\noutputs:\n", (9, 57), "conflicting-keys"),
        ("call: x\n", "call: x\ncompute_dtype: float32\n", (9, 57), "conflicting-keys"),
    ],
)
def test_an_outputs_when_is_checked(old, new, where, code):
    """Unknown names; and a structure layergen itself rewrites."""
    assert (*where, code) in errors(SCORES.replace(old, new))


@pytest.mark.parametrize(
    "keyword",
    [
        "shapes: {type: int, default: 0}",  # a local of compute_output_shape
        "input_shape: {type: int, default: 0}",  # its first argument
        "x_shape: {type: int, default: 0}",  # the first input's shape, unpacked
        "cache_shape: {type: int, default: 0}",  # the shape of the keyword `cache`
    ],
)
def test_keyword_inputs_must_not_clash_with_compute_output_shapes_names(keyword):
    """`compute_output_shape` takes the keyword inputs when the outputs
    read them; one named like its own arguments or locals is a located error."""
    keywords = f"  y: {{rank: 3}}\n  cache: {{default: null}}\n  {keyword}\n"
    text = SCORES.replace("  return_attention_scores:", keywords + "  return_attention_scores:")
    text = text.replace("call: x", "call: x + y")
    name = keyword.split(":")[0]  # the outputs read it, and `cache`
    when = f"return_attention_scores and cache is None and {name} is not None"
    text = text.replace("when: return_attention_scores", f"when: {when}")
    assert (6, 3, "reserved-name") in errors(text)


def test_those_names_stay_free_where_the_outputs_read_no_keyword():
    """Declarations of before keep generating."""
    text = SCORES.replace("when: return_attention_scores", "when: true").replace(
        "  return_attention_scores:",
        "  shapes: {type: int, default: 0}\n  return_attention_scores:",
    )
    analysis(text)


def test_a_sublayers_build_shapes_are_checked():
    """A sublayer's `build` shapes are shape expressions, names checked."""
    text = DECODER.replace(
        "    when: encoder_sequence is not None\n",
        "    when: encoder_sequence is not None\n"
        "    build: {query_shape: decoder_sequence, value_shape: encoder}\n",
    )
    assert (13, 57, "unknown-name") in errors(text)
    analysis(text.replace("value_shape: encoder}", "value_shape: encoder_sequence}"))


# -- declarations that generated code Keras or Python then rejected -------------------------------


def generate_one(root: Path, text: str):
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "layers").mkdir(exist_ok=True)
    (root / "layers" / "l.layer.yaml").write_text(text)
    return run("generate", "layers")


BUILTIN_NAMES = ["map", "filter", "min", "id", "type", "print", "range"]


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_an_input_named_like_a_builtin_is_that_input_everywhere(tmp_path, monkeypatch, name):
    """`build` indexed the builtin (`map[-1]`): a declared name comes before a builtin's."""
    monkeypatch.chdir(tmp_path)
    result = generate_one(
        tmp_path,
        f"layer: L\ninputs:\n  {name}: {{}}\nweights:\n  w:\n    shape: {name}[-1]\n"
        f"call: {name} * w\noutput_shape: ({name}[0], {name}[-1])\n",
    )
    assert result.exit_code == 0, result.output
    text = (tmp_path / "layers" / "l.py").read_text()
    assert "shape=(input_shape[-1],)" in text and f"{name}[" not in text
    assert "return (input_shape[0], input_shape[-1])" in text
    assert f"def call(self, {name}):\n        return {name} * self.w" in text


@pytest.mark.parametrize(
    "declaration, where, message",
    [
        ("layer: Ω\ncall: x\n", "1:8", "class name `Ω` is not ASCII"),
        (
            "layer: L\nsublayers:\n  β: {class: keras.layers.Dense, args: {units: 2}}\ncall: β(x)\n",
            "3:3",
            "sublayer `β` is not ASCII",
        ),
        ("layer: L\ninputs:\n  _private: {}\ncall: _private\n", "3:3", "input `_private` starts"),
        ("layer: L\ncall: (self := x) * 2\n", "2:8", "the code assigns `self`"),
        ("layer: L\ncall: |\n  self = x\n  return x\n", "3:3", "the code assigns `self`"),
        (
            "layer: L\ncall: |\n  for self in [x]:\n      pass\n  return x\n",
            "3:7",
            "the code assigns `self`",
        ),
        ("layer: L\ncall: |\n  import os as ops\n  return x\n", "3:3", "the code assigns `ops`"),
        ("layer: L\ncall: |\n  keras = 1\n  return x\n", "3:3", "the code assigns `keras`"),
    ],
)
def test_names_that_generated_broken_code_are_located_errors(
    tmp_path, monkeypatch, declaration, where, message
):
    monkeypatch.chdir(tmp_path)
    result = generate_one(tmp_path, declaration)
    no_traceback(result)
    assert result.exit_code == 2, result.output
    assert f"layers/l.layer.yaml:{where}: error: {message}" in result.output, result.output
    assert not (tmp_path / "layers" / "l.py").exists()


def test_names_bound_inside_a_nested_scope_or_read_stay_allowed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = generate_one(
        tmp_path,
        "layer: L\ncall: |\n  mask = None\n  f = lambda self: self\n"
        "  y = [ops for ops in [x]][0]\n  return f(y) * 2\n",
    )
    assert result.exit_code == 0, result.output


@pytest.mark.e2e
def test_the_analysis_of_a_large_allowed_declaration_stays_linear():
    """Eight times the code takes well under the 64 times a quadratic analysis would."""
    from layergen.render.context import build_context
    from layergen.render.render import render

    def seconds(lines: int) -> float:
        text = "layer: A\nparams:\n" + "".join(
            f"  p{i}: {{type: int, default: {i}}}\n" for i in range(lines // 8)
        )
        text += (
            "call: |\n"
            + "".join(f"  y{i} = x * p{i % (lines // 8)}\n" for i in range(lines))
            + "  return x\n"
        )
        start = time.perf_counter()
        analysis = parse_declaration("a.layer.yaml", text.encode())
        render("layer.py.j2", build_context(analysis.ir, package="p", source="a"))
        return time.perf_counter() - start

    seconds(200)  # warm up imports and caches
    small, large = seconds(300), seconds(2400)
    assert large < 25 * small + 1, (small, large)


# -- identifiers are checked before they reach a template ----------------------------------------

NAME_HOLES = {
    "class": "layer: {x}\n",
    "param": "layer: A\nparams:\n  {x}: int\n",
    "weight": "layer: A\nweights:\n  {x}: 3\n",
    "sublayer": "layer: A\nsublayers:\n  {x}: {{class: keras.layers.Dense, args: {{units: 2}}}}\n",
    "op": "layer: A\nops:\n  {x}:\n    args: [v]\n    forward: v\n    gradient: upstream\n",
    "op argument": "layer: A\nops:\n  f:\n    args: [{x}]\n    forward: '1'\n    gradient: upstream\n",
    "method": "layer: A\nmethods:\n  {x}:\n    body: return 1\n",
    "method argument": "layer: A\nmethods:\n  m:\n    args: [{x}]\n    body: return 1\n",
    "input": "layer: A\ninputs:\n  {x}:\n  b:\n",
    "output": "layer: A\noutputs:\n  {x}: x\n",
    "sublayer argument": "layer: A\nsublayers:\n  d: {{class: keras.layers.Dense, args: {{{x}: 2}}}}\n",
    "base class": "layer: A\nbase: keras.layers.{x}\n",
    "sublayer class": "layer: A\nsublayers:\n  d: {{class: keras.layers.{x}}}\n",
}


BAD_NAMES = [
    "'a b'",
    "'x)'",
    "'x; import os'",
    "'x=1'",
    "'x\\n'",
    "\"os.system('x')#\"",
    "class",
    "None",
    "'1x'",
    "'-'",
    "'\\u00b5'",
    "'x.y'",
]


@pytest.mark.parametrize(
    "hole, name",
    [
        (hole, name)
        for hole in NAME_HOLES
        for name in BAD_NAMES
        if not (hole.endswith("class") and name == "'x.y'")
        # a method argument may give its default: `x=1` is valid there
        and not (hole == "method argument" and name == "'x=1'")
    ],
)
def test_bad_names_never_reach_a_template(hole, name):
    text = NAME_HOLES[hole].format(x=name)
    with pytest.raises(DiagnosticError) as info:
        module_code(text)
    assert {d.code for d in info.value.diagnostics} & {
        "bad-name",
        "keyword-name",
        "bad-class-name",
        "bad-class",
        "yaml-syntax",
        "wrong-type",
    }, info.value


# -- each section builds its IR piece or reports why not ---------------------------------


def _analyzer(text: str):
    from layergen.declaration import model
    from layergen.declaration.analyze import _Analyzer
    from layergen.declaration.yamlfile import load

    doc = load("layers/a.layer.yaml", textwrap.dedent(text).encode())
    return _Analyzer(doc, model.Declaration.model_validate(doc.data))


@pytest.mark.parametrize(
    "section, spec, piece, code",
    [
        ("weights", "w: {shape: 'x[-1]', dtype: float32}", "Weight", None),
        ("weights", "w: {shape: 'x[-1]', dtype: floaty}", None, "bad-dtype"),
        ("weights", "w: {shape: 'x[-1', initializer: zeros}", None, "python-syntax"),
        ("ops", "o: {args: [a], forward: a * 2, gradient: upstream}", "Op", None),
        ("ops", "o: {args: [a], forward: a, gradient: {b: upstream}}", None, "unknown-arg"),
        ("methods", "m: {args: [a, 'b=2'], body: return a}", "Method", None),
        ("methods", "m: {args: ['b=2', a], body: return a}", None, "param-order"),
    ],
)
def test_a_section_builds_its_piece_or_reports_why_not(section, spec, piece, code):
    """A section's check returns its piece of the IR, or None with its diagnostics."""
    a = _analyzer(f"layer: A\n{section}:\n  {spec}\ncall: x\n")
    name, item = next(iter(getattr(a.decl, section).items()))
    check = {"weights": a._check_weight, "ops": a._check_op, "methods": a._check_method}
    built = check[section](name, item)
    if piece is None:
        assert built is None and code in [d.code for d in a.errors]
    else:
        assert type(built).__name__ == piece and built.name == name and not a.errors


def test_a_method_default_arrives_parsed_in_its_piece():
    a = _analyzer("layer: A\nmethods:\n  m: {args: [a, 'b = 1 +  1'], body: return a}\ncall: x\n")
    assert a._check_method("m", a.decl.methods["m"]).args == ("a", "b=1 +  1")


def test_no_snippet_is_looked_up_by_its_yaml_path():
    """The IR is assembled from the pieces the sections built: the analysis keeps no table of
    snippets by YAML path (`("losses", i, "value")`) for ir.py to repeat, and ir.py reads no
    analysis."""
    import ast
    import dataclasses

    from layergen.declaration import analyze, ir

    assert "codes" not in {f.name for f in dataclasses.fields(analyze.Analysis)}
    assert not hasattr(analyze.Analysis, "code")
    source = Path(ir.__file__).read_text()
    tree = ast.parse(source)
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "analyze" not in imported and "Analysis" not in source
    # Nothing in ir.py calls a `.code(...)` lookup.
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert not [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "code"]
    # Nor does the analysis keep, under any name, a mapping keyed by YAML paths.
    a = _analyzer(
        "layer: A\nweights:\n  w: {shape: 'x[-1]'}\nlosses: [ops.mean(x)]\n"
        "noise: {shape: '[1, x[-1]]'}\ncall: x * w\nrandom: true\n"
    )
    checked = a.run()
    for owner in (a, a.result, checked):
        for name, value in vars(owner).items():
            keyed = isinstance(value, dict) and any(isinstance(k, tuple) for k in value)
            assert not keyed, f"{type(owner).__name__}.{name} is keyed by paths"


def test_the_pieces_are_the_snippets_the_sections_parsed():
    """The loss and the noise shape the IR holds are the very snippets that were checked."""
    declared = analysis("""\
        layer: A
        random: true
        losses:
          - {value: ops.mean(x), training_only: true}
        noise: {shape: '[1, x[-1]]'}
        call: x
        """).ir
    assert declared.losses[0].render() == "ops.mean(x)"
    assert {f.name for f in declared.losses[0].free} == {"ops", "x"}  # resolved with the rest
    assert declared.training_only_losses == {0}
    assert declared.noise.shape.code.render() == "[1, x[-1]]"
