"""Six parts of the declaration format, one section each: sublayers sized from the input, named
sublayers, outputs by name, exclusive bounds, a method that replaces a generated one, and
docstrings like keras-hub's.

Each part is checked where it is decided (the generated source, the located error) and,
end to end (`e2e`), on held-out layers written as real ones are: each declaration is generated,
imported, compared with a NumPy reference written here independently of the generated code,
saved and loaded, and its generated tests are run on TensorFlow and JAX.
"""

from __future__ import annotations

import ast
import json

import pytest

from layergen.config import BlackStyle
from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.render.context import build_context
from layergen.render.render import format_code, render_source


def analysis(text: str, path: str = "a.layer.yaml"):
    return parse_declaration(path, text.encode())


def module_source(text: str) -> str:
    """The generated module of a declaration, formatted."""
    context = build_context(analysis(text).ir, package="demo", source="a.layer.yaml")
    return format_code(render_source("layer.py.j2", context))


def errors(text: str, path: str = "a.layer.yaml") -> list:
    with pytest.raises(DiagnosticError) as info:
        analysis(text, path)
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


# -- 3. outputs by name ------------------------------------------------------------------------

HEADS = """\
layer: Heads
weights:
  k: {shape: "(x[-1], 2)"}
call: |
  y = ops.matmul(x, k)
  return y, -y
outputs:
  mean: (*x[:-1], 2)
  log_var: (*x[:-1], 2)
output_type: dict
"""


def test_outputs_by_name_return_a_dict_with_matching_shapes_and_specs():
    source = module_source(HEADS)
    assert 'return {"mean": y, "log_var": -y}' in method(source, "call")
    assert '"mean": (*input_shape[:-1], 2)' in method(source, "compute_output_shape")
    spec = method(source, "compute_output_spec")
    assert "self.compute_output_shape(x.shape)" in spec and "for name, shape in" in spec


def test_a_returned_value_that_is_no_written_tuple_is_zipped_with_the_names():
    source = module_source(HEADS.replace("return y, -y", "return tuple([y, -y])"))
    call = " ".join(method(source, "call").split())
    assert (
        "return { name: named_output for name, named_output in "
        'zip(("mean", "log_var"), tuple([y, -y])) }' in call
    )


def test_outputs_by_name_computed_in_float32_are_each_cast_back():
    call = method(module_source(HEADS + "compute_dtype: float32\n"), "call")
    assert call.endswith(
        "return {\n"
        '            "mean": ops.cast(y, self.compute_dtype),\n'
        '            "log_var": ops.cast(-y, self.compute_dtype),\n'
        "        }"
    )


def test_without_output_type_the_outputs_stay_a_tuple():
    source = module_source(HEADS.replace("output_type: dict\n", ""))
    assert "return y, -y" in method(source, "call")
    assert "compute_output_spec" not in source


@pytest.mark.parametrize(
    "call, where",
    [
        ('call: |\n  y = x\n  return {"mean": y, "var": y}\n', (3, 10)),
        ("call: '{\"mean\": x}'\n", (1, 8)),
        (
            'call:\n  train: |\n    return x, x\n  infer: |\n    return {"mean": x, "log_var": x, "z": x}\n',
            (5, 12),
        ),
    ],
)
def test_a_dict_returned_under_output_type_dict_needs_the_declared_keys(call, where):
    """A dict keyed by exactly the outputs is fine; other keys are not."""
    text = "layer: A\n" + call + "outputs: {mean: x, log_var: x}\noutput_type: dict\n"
    (found,) = errors(text)
    line, col = where
    assert (found.line, found.col, found.code) == (line + 1, col, "bad-return")
    assert "(mean, log_var)" in found.message
    assert "missing log_var" in found.hint or "not declared" in found.hint


def test_a_dict_inside_a_nested_function_or_a_tuple_is_fine():
    text = HEADS.replace("return y, -y", "def f(v):\n      return {'v': v}\n  return y, -f(y)['v']")
    assert "def f(v):" in module_source(text)


def test_output_type_needs_outputs():
    (found,) = errors("layer: A\noutput_type: dict\n")
    assert (found.line, found.col, found.code) == (2, 1, "missing-key")
    assert "outputs:" in found.hint


def test_output_type_is_tuple_or_dict():
    (found,) = errors(HEADS.replace("output_type: dict", "output_type: list"))
    assert (found.line, found.col, found.code) == (10, 14, "unknown-type")
    assert found.hint == "types: tuple, dict"


# -- 4. exclusive bounds -----------------------------------------------------------------------


def param_text(spec: str, example: str = "") -> str:
    return f"layer: A\nparams:\n  rate: {spec}\n" + example


@pytest.mark.parametrize(
    "spec, example, where, code, message",
    [
        (
            "{type: float, min: 0.0, gt: 0.0}",
            "",
            (3, 33),
            "conflicting-keys",
            "give `min` or `gt`, not both",
        ),
        (
            "{type: float, lt: 1.0, max: 1.0}",
            "",
            (3, 23),
            "conflicting-keys",
            "give `max` or `lt`, not both",
        ),
        (
            "{type: float, gt: 1.0, lt: 1.0}",
            "",
            (3, 27),
            "bad-bound",
            "no value is greater than 1.0 and less than 1.0",
        ),
        (
            "{type: str, lt: 1}",
            "",
            (3, 9),
            "bad-bound",
            "`lt` applies to int and float params, not str",
        ),
        (
            "{type: float, default: 1.0, lt: 1.0}",
            "",
            (3, 32),
            "bad-default",
            "default of `rate` is not less than 1.0 (`lt`): 1.0",
        ),
        (
            "{type: int, gt: 0}",
            "example:\n  params: {rate: 0}\n",
            (5, 18),
            "bad-example",
            "example value of `rate` is not greater than 0 (`gt`): 0",
        ),
    ],
)
def test_a_wrong_exclusive_bound_is_a_located_error(spec, example, where, code, message):
    (found,) = errors(param_text(spec, example))
    assert ((found.line, found.col), found.code, found.message) == (where, code, message)


def test_exclusive_bounds_are_checked_in_init_with_keras_wording():
    source = module_source(param_text("{type: float, default: 0.1, min: 0.0, lt: 1.0}"))
    init = method(source, "__init__")
    assert "if not 0.0 <= rate < 1.0:" in init
    assert "expected at least 0.0 and less than 1.0. " in init
    assert 'f"Received: rate={rate}"' in init


def test_one_exclusive_bound_alone():
    init = method(module_source(param_text("{type: int, gt: 0}")), "__init__")
    assert "if rate <= 0:" in init and "expected greater than 0. " in init


# -- 5. overriding a generated method ----------------------------------------------------------

OVERRIDE = """\
layer: Scale
params:
  units: int
weights:
  kernel: (x[-1], units)
call: ops.matmul(x, kernel)
methods:
  build:
    args: [input_shape]
    body: |
      self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], units))
  get_config:
    body: |
      return {**super().get_config(), "units": units}
  helper:
    body: return 1
"""


def defined_methods(source: str) -> list[str]:
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    return [n.name for n in cls.body if isinstance(n, ast.FunctionDef)]


def test_a_method_named_like_a_generated_one_replaces_it_in_its_place():
    source = module_source(OVERRIDE)
    assert defined_methods(source) == [
        "__init__",
        "build",
        "call",
        "helper",
        "compute_output_shape",
        "get_config",
    ]
    assert 'name="kernel", shape=(input_shape[-1], self.units)' in method(source, "build")
    assert method(source, "get_config").endswith(
        'return {**super().get_config(), "units": self.units}'
    )


def test_a_call_method_replaces_the_generated_call():
    text = OVERRIDE.replace("call: ops.matmul(x, kernel)\n", "") + (
        "  call:\n    args: [x, training]\n    body: return ops.matmul(x, kernel)\n"
    )
    source = module_source(text)
    assert defined_methods(source).count("call") == 1
    assert method(source, "call").startswith("def call(self, x, training):")


def test_call_and_a_method_named_call_is_an_error():
    text = OVERRIDE + "  call:\n    args: [x]\n    body: return x\n"
    (found,) = errors(text)
    assert (found.line, found.col, found.code) == (17, 3, "conflicting-keys")
    assert found.message == "both `call` and a method named `call` give the forward pass"


def test_an_object_overrides_get_config_and_keeps_its_call():
    text = (
        "constraint: Clip\nparams:\n  limit: float\ncall: ops.clip(w, -limit, limit)\n"
        "methods:\n  get_config:\n    body: |\n      return {'limit': limit}\n"
    )
    context = build_context(analysis(text, "a.constraint.yaml").ir, package="demo", source="a")
    source = format_code(render_source("object.py.j2", context))
    assert defined_methods(source) == ["__init__", "__call__", "get_config"]
    (found,) = errors(text.replace("get_config:", "__call__:"), "a.constraint.yaml")
    assert (found.line, found.col, found.code) == (6, 3, "conflicting-keys")


def test_no_generated_class_defines_a_method_twice():
    from layergen.declaration.load import load_declaration

    from helpers import ACCEPTANCE, OWN_EXAMPLES

    spec = "methods:\n  compute_output_spec:\n    args: [x]\n    body: return x\n"
    texts = [OVERRIDE, SIZED, HEADS + spec, OVERRIDE.replace("helper:", "compute_output_shape:")]
    sources = [module_source(text) for text in texts]
    for path in sorted(OWN_EXAMPLES.glob("*.yaml")) + sorted(ACCEPTANCE.glob("*.yaml")):
        a = load_declaration(path)
        template = "layer.py.j2" if a.decl.kind == "layer" else "object.py.j2"
        context = build_context(a.ir, package="demo", source=path.name)
        sources.append(render_source(template, context))
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                names = [n.name for n in node.body if isinstance(n, ast.FunctionDef)]
                assert len(names) == len(set(names)), (node.name, names)


# -- 6. docstrings like keras-hub's ------------------------------------------------------------

DENSE = """\
layer: ScaledDense
doc: Dense layer with a learnable per-unit output scale, written out at some length so that it wraps.
params:
  units: {type: int, min: 1, doc: "dimensionality of the output space, which is also the number of scales"}
  use_bias: {type: bool, default: true}
inputs:
  x: {min_rank: 2}
weights:
  kernel: {shape: "(x[-1], units)"}
call: ops.matmul(x, kernel)
output_shape: (*x[:-1], units)
example:
  params: {units: 8}
  input_shape: [2, 5]
"""


def docstring(source: str) -> str:
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    return ast.get_docstring(cls)


def test_shapes_are_described_in_words():
    doc = docstring(module_source(DENSE))
    assert "Input shape:\n    N-D tensor (N >= 2) with shape `(batch_size, ..., input_dim)`." in doc
    assert "Output shape:\n    N-D tensor with shape `(batch_size, ..., units)`." in doc
    assert "x[" not in doc  # not the declaration's expression


@pytest.mark.parametrize(
    "inputs, shape, words",
    [
        ("x: {rank: 3}", "(x[0], x[2])", "2D tensor with shape `(batch_size, input_dim)`"),
        ("x: {rank: 2}", "(x[0],)", "1D tensor with shape `(batch_size,)`"),
        ("x: {}", "(*x[1:], 4)", "N-D tensor with shape `(..., 4)`"),
        ("x: {}", "x", "N-D tensor with shape `(batch_size, ..., input_dim)`"),
        ("x: {}", "()", "A scalar tensor"),
        ("x: {}", "(x[0], units * 2)", "2D tensor with shape `(batch_size, units * 2)`"),
        ("x: {}", "\n  - x[0]\n  - units", "2D tensor with shape `(batch_size, units)`"),
    ],
)
def test_shape_words(inputs, shape, words):
    text = f"layer: A\nparams:\n  units: int\ninputs:\n  {inputs}\noutput_shape: {shape}\n"
    assert f"Output shape:\n    {words}." in docstring(module_source(text))


def test_several_inputs_and_named_outputs_each_get_a_line():
    text = HEADS.replace("layer: Heads", "layer: Heads\ninputs: {x: {}, y: {rank: 2}}")
    doc = docstring(module_source(text))
    assert "`x`: N-D tensor with shape `(batch_size, ..., x_dim)`.\n" in doc
    assert "`y`: 2D tensor with shape `(batch_size, y_dim)`.\n" in doc
    assert "A dict keyed by name:\n    `mean`: N-D tensor with shape `(batch_size, ..., 2)`." in doc


def test_the_example_section_is_built_from_example():
    doc = docstring(module_source(DENSE))
    assert doc.endswith(
        "Example:\n\n```python\nlayer = ScaledDense(units=8)\n"
        "x = keras.random.normal((2, 5))\noutputs = layer(x)\n```"
    )
    assert "Example:" not in docstring(module_source(DENSE.split("example:")[0]))


def test_docstrings_are_wrapped_to_the_line_length():
    for width in (60, 88, 100):
        context = build_context(analysis(DENSE).ir, package="demo", source="a", line_length=width)
        source = format_code(render_source("layer.py.j2", context), BlackStyle(line_length=width))
        end = source.index('    """\n', source.index("class "))
        assert max(len(line) for line in source[:end].splitlines()) <= width, width


def test_generate_wraps_to_the_configured_line_length(tmp_path):
    from helpers import layergen_in_process

    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n[tool.black]\nline-length = 60\n"
    )
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "scaled_dense.layer.yaml").write_text(DENSE)
    result = layergen_in_process("generate", "layers", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    source = (tmp_path / "layers" / "scaled_dense.py").read_text()
    doc_lines = source[: source.index('    """\n', source.index("class "))].splitlines()
    assert max(len(line) for line in doc_lines) <= 60
    # The test module's docstring too (it wrapped at 88 whatever the project said).
    tests = (tmp_path / "tests" / "test_scaled_dense.py").read_text()
    assert max(len(line) for line in tests[: tests.index('"""\n\n')].splitlines()) <= 60


# -- end to end: held-out layers ---------------------------------------------------------------

HELD_OUT = {
    # Squeeze-and-excitation (Hu et al., 2018): sublayers sized from the input, named.
    "squeeze_excite_block.layer.yaml": """\
layer: SqueezeExciteBlock
doc: Squeeze-and-excitation over the channels of an image.
params:
  ratio: {type: float, default: 0.25, gt: 0.0, max: 1.0}
inputs:
  images: {rank: 4}
sublayers:
  squeeze:
    class: keras.layers.Dense
    args: {units: "max(1, int(images[-1] * ratio))", activation: "'relu'"}
  excite:
    class: keras.layers.Dense
    args: {units: "images[-1]", activation: "'sigmoid'"}
call: |
  pooled = ops.mean(images, axis=(1, 2), keepdims=True)
  return images * excite(squeeze(pooled))
example:
  params: {ratio: 0.5}
  # A batch of 8: with 2 images all 4 ReLU units of `squeeze` were sometimes dead for both,
  # and then no gradient reaches `squeeze` in the generated fit test (a 1-in-16 flake).
  input_shape: [8, 5, 5, 8]
""",
    # A VAE encoder's two heads, returned by name.
    "latent_heads.layer.yaml": """\
layer: LatentHeads
doc: The mean and the clipped log-variance of a latent Gaussian.
params:
  latent_dim: {type: int, gt: 0}
sublayers:
  mean_head:
    class: keras.layers.Dense
    args: {units: latent_dim}
  log_var_head:
    class: keras.layers.Dense
    args: {units: latent_dim}
call: |
  return mean_head(x), ops.clip(log_var_head(x), -10.0, 10.0)
outputs:
  mean: (*x[:-1], latent_dim)
  log_var: (*x[:-1], latent_dim)
output_type: dict
example:
  params: {latent_dim: 3}
  input_shape: [4, 6]
""",
    # Stochastic depth (Huang et al., 2016): an exclusive bound keeps 1 / (1 - rate) finite.
    "drop_path.layer.yaml": """\
layer: DropPath
doc: Drops each example's residual branch with probability `rate` in training.
params:
  rate: {type: float, default: 0.2, min: 0.0, lt: 1.0}
inputs:
  shortcut: {}
  residual: {}
random: true
call:
  train: |
    keep = 1.0 - rate
    shape = (ops.shape(residual)[0],) + (1,) * (len(residual.shape) - 1)
    kept = ops.cast(keras.random.uniform(shape, seed=seed_generator) < keep, residual.dtype)
    return shortcut + residual * kept / keep
  infer: shortcut + residual
example:
  params: {rate: 0.5}
  input_shape: {shortcut: [32, 3], residual: [32, 3]}
""",
    # Patches of an image as a sequence: the output shape needs its own method (a dim may be None).
    "flatten_patches.layer.yaml": """\
layer: FlattenPatches
doc: Turns a grid of patch embeddings into a sequence of them.
inputs:
  patches: {rank: 4}
call: |
  rows, cols, dim = patches.shape[1:]
  return ops.reshape(patches, (-1, rows * cols, dim))
methods:
  compute_output_shape:
    args: [input_shape]
    body: |
      batch, rows, cols, dim = input_shape
      return (batch, None if rows is None or cols is None else rows * cols, dim)
example:
  input_shape: [2, 3, 4, 5]
""",
}

# Runs in the generated project on one backend: each layer against NumPy, then saved and loaded.
CHECK = r"""
import inspect, re, sys
import keras
import numpy as np
from keras import ops
import heldout
from heldout import DropPath, FlattenPatches, LatentHeads, SqueezeExciteBlock

rng = np.random.default_rng(0)
def np_(t):
    return ops.convert_to_numpy(t)
def sigmoid(v):
    return 1 / (1 + np.exp(-v))
def saved_and_loaded(layer, shapes, inputs, tmp):
    ins = [keras.Input(shape=s[1:]) for s in shapes]
    model = keras.Model(ins, layer(ins if len(ins) > 1 else ins[0]))
    before = model.predict(inputs, verbose=0)
    model.save(tmp)
    after = keras.saving.load_model(tmp).predict(inputs, verbose=0)
    for key in (before if isinstance(before, dict) else [None]):
        a = before[key] if key is not None else before
        b = after[key] if key is not None else after
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    return model

# Squeeze-and-excitation, against NumPy; named sublayers; save and load.
images = rng.standard_normal((2, 5, 5, 8)).astype("float32")
se = SqueezeExciteBlock(ratio=0.5, name="squeeze_excite")
got = np_(se(images))
paths = sorted(w.path for w in se.weights)
assert paths == sorted(f"squeeze_excite/{s}/{v}" for s in ("squeeze", "excite") for v in ("kernel", "bias")), paths
w = {w.path.split("/", 1)[1]: np_(w) for w in se.weights}
assert w["squeeze/kernel"].shape == (8, 4) and w["excite/kernel"].shape == (4, 8)
s = np.maximum(images.mean(axis=(1, 2)) @ w["squeeze/kernel"] + w["squeeze/bias"], 0)
e = sigmoid(s @ w["excite/kernel"] + w["excite/bias"])
np.testing.assert_allclose(got, images * e[:, None, None, :], rtol=1e-5, atol=1e-5)
saved_and_loaded(SqueezeExciteBlock(), [(2, 5, 5, 8)], images, "se.keras")
clone = SqueezeExciteBlock.from_config(se.get_config())
clone(images)
clone.set_weights(se.get_weights())
np.testing.assert_allclose(np_(clone(images)), got, rtol=1e-6)
mixed = SqueezeExciteBlock(ratio=0.5, dtype="mixed_float16")
assert keras.backend.standardize_dtype(mixed(images).dtype) == "float16"
assert all(keras.backend.standardize_dtype(v.dtype) == "float32" for v in mixed.weights)
for bad in (0.0, 1.5):
    try:
        SqueezeExciteBlock(ratio=bad)
    except ValueError as exc:
        assert f"Received: ratio={bad}" in str(exc), exc
    else:
        raise AssertionError(f"ratio={bad} accepted")

# Heads returned by name, against NumPy; a model compiles with a loss per name.
x = (rng.standard_normal((4, 6)) * 20).astype("float32")
heads = LatentHeads(latent_dim=3)
out = heads(x)
assert isinstance(out, dict) and list(out) == ["mean", "log_var"]
hw = {w.path.split("/", 1)[1]: np_(w) for w in heads.weights}
np.testing.assert_allclose(np_(out["mean"]), x @ hw["mean_head/kernel"] + hw["mean_head/bias"], rtol=1e-5, atol=1e-4)
log_var = np.clip(x @ hw["log_var_head/kernel"] + hw["log_var_head/bias"], -10, 10)
np.testing.assert_allclose(np_(out["log_var"]), log_var, rtol=1e-5, atol=1e-4)
spec = heads.compute_output_spec(keras.KerasTensor((None, 6)))
assert {k: tuple(v.shape) for k, v in spec.items()} == {"mean": (None, 3), "log_var": (None, 3)}
assert heads.compute_output_shape((None, 6)) == {"mean": (None, 3), "log_var": (None, 3)}
model = saved_and_loaded(LatentHeads(latent_dim=3), [(4, 6)], x, "heads.keras")
model.compile(optimizer="sgd", loss={"mean": "mse", "log_var": "mae"})
history = model.fit(x, {"mean": np.zeros((4, 3)), "log_var": np.ones((4, 3))}, verbose=0)
assert {"mean_loss", "log_var_loss"} <= set(history.history), history.history
try:
    LatentHeads(latent_dim=0)
except ValueError as exc:
    assert "expected greater than 0. Received: latent_dim=0" in str(exc), exc
else:
    raise AssertionError("latent_dim=0 accepted")

# Stochastic depth: the exclusive bound, inference exact, each example's branch dropped or scaled.
short = rng.standard_normal((256, 3)).astype("float32")
res = rng.standard_normal((256, 3)).astype("float32") + 3.0
layer = DropPath(rate=0.25, seed=7)
np.testing.assert_allclose(np_(layer([short, res], training=False)), short + res, rtol=1e-6)
added = (np_(layer([short, res], training=True)) - short) / res
kept = np.isclose(added, 1 / 0.75, rtol=1e-4).all(axis=1)
dropped = np.isclose(added, 0.0, atol=1e-5).all(axis=1)
assert np.all(kept | dropped), added
assert abs(dropped.mean() - 0.25) < 5 * np.sqrt(0.25 * 0.75 / 256), dropped.mean()
DropPath(rate=0.0)
try:
    DropPath(rate=1.0)
except ValueError as exc:
    assert "expected at least 0.0 and less than 1.0. Received: rate=1.0" in str(exc), exc
else:
    raise AssertionError("rate=1.0 accepted")
saved_and_loaded(DropPath(), [(32, 3), (32, 3)], [short[:32], res[:32]], "drop.keras")

# A declared compute_output_shape: an unknown dim stays unknown.
patches = rng.standard_normal((2, 3, 4, 5)).astype("float32")
flat = FlattenPatches()
np.testing.assert_array_equal(np_(flat(patches)), patches.reshape(2, 12, 5))
assert flat.compute_output_shape((None, None, 4, 5)) == (None, None, 5)
saved_and_loaded(FlattenPatches(), [(2, 3, 4, 5)], patches, "flat.keras")

# Every docstring's Example runs as written.
for cls in (SqueezeExciteBlock, LatentHeads, DropPath, FlattenPatches):
    code = re.search(r"```python\n(.*?)```", inspect.getdoc(cls), re.S).group(1)
    namespace = {"keras": keras, cls.__name__: cls}
    exec(code, namespace)
    assert namespace["outputs"] is not None
print("checked on", keras.backend.backend())
"""


@pytest.fixture(scope="module")
def held_out(tmp_path_factory):
    from helpers import layergen, make_project

    source = tmp_path_factory.mktemp("declarations")
    for name, text in HELD_OUT.items():
        (source / name).write_text(text)
    root = make_project(tmp_path_factory.mktemp("held_out"), {"heldout": source})
    result = layergen("generate", "heldout", cwd=root)
    assert result.returncode == 0, result.stderr
    return root


def test_held_out_layers_generate_without_a_method_twice(held_out):
    for name in HELD_OUT:
        source = (held_out / "heldout" / f"{name.split('.')[0]}.py").read_text()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                names = [n.name for n in node.body if isinstance(n, ast.FunctionDef)]
                assert len(names) == len(set(names)), names


@pytest.mark.e2e
@pytest.mark.parametrize("backend", ["tensorflow", "jax"])
def test_held_out_layers_match_numpy_save_load_and_pass_their_tests(held_out, backend, tmp_path):
    import os
    import subprocess
    import sys

    from helpers import run_pytest

    env = {
        **os.environ,
        "KERAS_BACKEND": backend,
        "KERAS_HOME": str(tmp_path / ".keras"),
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONPATH": os.pathsep.join([str(held_out), os.environ.get("PYTHONPATH", "")]),
    }
    check = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert check.returncode == 0, check.stderr[-3000:]
    assert f"checked on {backend}" in check.stdout
    outcomes = run_pytest(held_out, backend)
    # A layer without trainable weights skips the fit test (its gradient test checks it).
    weightless_fit = "::test_compiled_fit_step_trains_every_weight"
    failed = [
        name
        for name, outcome in outcomes.items()
        if outcome != "passed" and not (outcome == "skipped" and name.endswith(weightless_fit))
    ]
    assert len(outcomes) >= 4 * 8 and not failed, failed


@pytest.mark.e2e
def test_outputs_by_name_are_recorded_and_checked_as_goldens(tmp_path):
    from helpers import layergen, make_project, run_pytest

    source = tmp_path / "declarations"
    source.mkdir()
    (source / "latent_heads.layer.yaml").write_text(HELD_OUT["latent_heads.layer.yaml"])
    root = make_project(tmp_path / "project", {"heldout": source})
    result = layergen("generate", "heldout", "--record", cwd=root)
    assert result.returncode == 0, result.stderr
    golden = json.loads((root / "tests" / "test_latent_heads.golden.json").read_text())
    assert len(golden["runs"]["outputs"]) == 2  # both heads
    outcomes = run_pytest(root, "jax", "tests/test_latent_heads.py")
    assert outcomes["test_latent_heads::test_outputs_match_the_recorded_golden"] == "passed"
    assert set(outcomes.values()) == {"passed"}, outcomes


@pytest.mark.parametrize(
    "extra, takes",
    [
        ("call: x * 2\n", False),  # as Keras's own Dense: no `training` it never reads
        (
            "call: x * 2\nsublayers:\n  drop: {class: keras.layers.Dropout, args: {rate: 0.5}}\n",
            False,
        ),
        ("call: |\n  if training:\n      return x * 2\n  return x\n", True),
        ("call: {train: 'return x * 2', infer: 'return x'}\n", True),
        (
            "weights:\n  seen: {shape: 'x[-1]', trainable: false}\n"
            "call: x + seen\nupdates:\n  seen: seen + 1.0\n",
            True,
        ),  # the updates run on training calls only
        ("base: keras.layers.Dropout\ncall: super().call(x) * 2\n", True),  # as the base's
    ],
)
def test_call_takes_training_only_when_the_layer_reads_it(extra, takes):
    source = module_source("layer: Foo\n" + extra)
    signature = method(source, "call").splitlines()[0]
    assert ("training=None" in signature) is takes, signature


CAST = """\
layer: Widen
params:
  hidden_dim: {type: int, cast: true, min: 1}
call: ops.tile(x, (1, hidden_dim))
output_shape: (x[0], x[1] * hidden_dim)
"""


def test_a_param_declared_cast_is_stored_converted_to_its_type():
    """keras-hub stores its sizes as `self.hidden_dim = int(hidden_dim)` (a NumPy int or a
    whole float from a config becomes the int)."""
    code = module_source(CAST)
    assert "self.hidden_dim = int(hidden_dim)" in code
    assert "if hidden_dim < 1:" in code  # the bound is checked on the argument, as before
    assert "self.hidden_dim = hidden_dim\n" in module_source(CAST.replace(", cast: true", ""))


@pytest.mark.parametrize(
    "param, col",
    [("{type: activation, cast: true}", 34), ("{type: int, default: null, cast: true}", 42)],
)
def test_cast_of_a_type_it_cannot_convert_to_or_of_a_null_default_is_an_error(param, col):
    text = CAST.replace("{type: int, cast: true, min: 1}", param)
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    assert [(d.line, d.col, d.code) for d in info.value.diagnostics] == [
        (3, col, "conflicting-keys")
    ]
