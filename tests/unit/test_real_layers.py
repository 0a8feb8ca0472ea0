"""What real layers (keras-hub's, Keras's own) need from the format.

Each test declares the smallest piece of a real layer's public API and checks the
generated code (or the located error) without running a backend; the generated tests
of the whole layers run in `tests/e2e/test_keras_hub_layers.py`.
"""

from __future__ import annotations

import textwrap

import pytest

from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError
from layergen.render.context import build_context
from layergen.render.render import render
from layergen.render.tests_context import build_test_context


def analysis(text: str):
    return parse_declaration("layers/real.layer.yaml", textwrap.dedent(text).encode())


def module(text: str) -> str:
    ir = analysis(text).ir
    return render("layer.py.j2", build_context(ir, package="real", source="real.layer.yaml"))


def test_module(text: str) -> str:
    ir = analysis(text).ir
    context = build_test_context(ir, module="layers.real", source="real.layer.yaml")
    return render("layer_test.py.j2", context)


test_module.__test__ = False  # a helper, not a test


def errors(text: str) -> list[tuple[int, int, str, str, str | None]]:
    with pytest.raises(DiagnosticError) as info:
        analysis(text)
    return [(d.line, d.col, d.code, d.message, d.hint) for d in info.value.diagnostics]


def compiled(code: str) -> None:
    compile(code, "<generated>", "exec")


# -- optional inputs and keyword arguments of `call` ---------------------------------

POSITION_EMBEDDING = """\
layer: PositionEmbedding
params:
  sequence_length: {type: int, min: 1}
inputs:
  x: {min_rank: 2}
  start_index: {type: int, default: 0, doc: The position of the first token.}
  positions: {default: null, dtype: int32}
weights:
  table:
    shape: (sequence_length, x[-1])
call: |
  shape = ops.shape(x)
  if positions is not None:
      return ops.broadcast_to(ops.take(table, positions, axis=0), shape)
  return ops.broadcast_to(ops.slice(table, (start_index, 0), (shape[-2], shape[-1])), shape)
example:
  params: {sequence_length: 8}
  input_shape: [2, 5, 4]
  call_args:
    start_index: 2
    positions: [[0, 1, 2, 3, 4], [3, 4, 5, 6, 7]]
  reference: |
    if positions is not None:
        return np.broadcast_to(table[positions], x.shape)
    return np.broadcast_to(table[start_index : start_index + x.shape[-2]], x.shape)
"""


def test_inputs_with_a_default_are_keyword_arguments_of_call():
    code = module(POSITION_EMBEDDING)
    compiled(code)
    assert "def call(self, x, start_index=0, positions=None):" in code
    # build still sees the tensor input alone
    assert "shape=(self.sequence_length, input_shape[-1])" in code


def test_generated_tests_call_each_keyword_argument_the_example_gives():
    code = test_module(POSITION_EMBEDDING)
    compiled(code)
    assert 'CALL_ARGS = {"start_index": 2, "positions": [[0, 1, 2, 3, 4], [3, 4, 5, 6, 7]]}' in code
    assert '"positions": "int32"' in code  # the tensor's declared dtype
    assert "def test_each_keyword_argument_of_call():" in code
    # the reference takes the keyword arguments, with their defaults
    assert "def numpy_reference(x, *, start_index=0, positions=None, table):" in code
    # checked for the default call and each call case, on a layer built by that call
    check = code.split("def test_inference_outputs_match_the_numpy_reference():")[1]
    assert "EXAMPLE, expected, ATOL, make_call_cases()" in check.split("\ndef ")[0]
    assert "numpy_reference(inputs, table=support.numpy(layer.table), **keywords)" in check


def test_a_layer_without_keyword_arguments_gets_no_keyword_test():
    code = test_module(
        POSITION_EMBEDDING.replace(
            "  call_args:\n    start_index: 2\n    positions: [[0, 1, 2, 3, 4], [3, 4, 5, 6, 7]]\n",
            "",
        )
    )
    assert "CALL_ARGS" not in code and "test_each_keyword_argument_of_call" not in code


@pytest.mark.parametrize(
    "inputs, expected",
    [
        (  # a tensor input after a keyword one
            "  start_index: {type: int, default: 0}\n  x: {min_rank: 2}\n",
            [(4, 3, "param-order")],
        ),
        (  # a Python value needs a default
            "  x: {}\n  start_index: {type: int}\n",
            [(4, 17, "missing-key")],
        ),
        (  # a tensor's default is null
            "  x: {}\n  mask_value: {default: 0}\n",
            [(4, 25, "bad-default")],
        ),
        (  # a default of the wrong type
            "  x: {}\n  reverse: {type: bool, default: 1}\n",
            [(4, 34, "bad-default")],
        ),
        (  # rank is of tensors
            "  x: {}\n  start_index: {type: int, default: 0, rank: 0}\n",
            [(4, 40, "conflicting-keys")],
        ),
        (  # only keyword inputs
            "  x: {type: int, default: 0}\n",
            [(2, 1, "missing-key")],
        ),
    ],
)
def test_keyword_inputs_are_checked(inputs, expected):
    found = errors(f"layer: A\ninputs:\n{inputs}call: x\n")
    assert [e[:3] for e in found] == expected


def test_example_call_args_are_checked():
    found = errors(
        "layer: A\ninputs:\n  x: {}\n  start_index: {type: int, default: 0}\n"
        "  padding_mask: {default: null}\n"
        "example:\n  call_args: {start_idx: 1, start_index: a}\n"
    )
    codes = [e[2] for e in found]
    assert "unknown-input" in codes and "bad-example" in codes
    assert any(e[4] == "did you mean `start_index`?" for e in found)
    found = errors(
        "layer: A\ninputs:\n  x: {}\n  padding_mask: {default: null}\n"
        "example:\n  call_args: {padding_mask: [[1], [1, 2]]}\n"
    )
    assert [e[2:4] for e in found] == [
        (
            "bad-example",
            "`padding_mask` is a tensor: give an array (nested lists of numbers or booleans)",
        )
    ]


def test_a_method_argument_may_have_a_default():
    code = module(
        "layer: A\nmethods:\n  rotate:\n    args: [x, start_index=0, positions=None]\n"
        "    body: return x + start_index\ncall: rotate(x)\n"
    )
    compiled(code)
    assert "def rotate(self, x, start_index=0, positions=None):" in code


def test_a_method_argument_without_a_default_after_one_with_is_located():
    found = errors(
        "layer: A\nmethods:\n  rotate:\n    args: [start_index=0, x]\n    body: return x\n"
    )
    assert found == [
        (
            4,
            27,
            "param-order",
            "method argument `x` comes after `start_index`, which has a default",
            "move `x` above `start_index`, or give it a default: `x=None`",
        )
    ]


# -- errors at generate time ----------------------------------------------------------


def test_default_none_gets_the_yaml_null_hint():
    found = errors("layer: A\nparams:\n  activation: {type: activation, default: None}\n")
    assert [(e[2], e[4]) for e in found] == [
        ("bad-default", "YAML spells None `null`: write `default: null`")
    ]


def test_an_unknown_keras_layer_class_is_located_at_generate_time():
    found = errors(
        "layer: A\nsublayers:\n  attention:\n    class: keras.layers.MultiHeadAttn\n"
        "    args: {num_heads: 2, key_dim: 4}\ncall: attention(x, x)\n"
    )
    assert found == [
        (
            4,
            12,
            "unknown-class",
            "Keras has no layer `keras.layers.MultiHeadAttn`",
            "did you mean `MultiHeadAttention`?",
        )
    ]


def test_a_keyword_a_keras_layer_does_not_take_is_located_at_generate_time():
    found = errors(
        "layer: A\nsublayers:\n  dense: {class: keras.layers.Dense, args: {unit: 4}}\n"
        "  ffn:\n    layers:\n      - {class: keras.layers.Dense, args: {units: 4, use_bais: true}}\n"
        "call: ffn(dense(x))\n"
    )
    assert [e[:4] for e in found] == [
        (3, 45, "unknown-arg", "`keras.layers.Dense` takes no argument `unit`"),
        (6, 54, "unknown-arg", "`keras.layers.Dense` takes no argument `use_bais`"),
    ]
    assert [e[4] for e in found] == ["did you mean `units`?", "did you mean `use_bias`?"]


def test_classes_outside_keras_layers_are_not_checked():
    module(
        "layer: A\nimports: [from keras.layers import Dense]\nsublayers:\n"
        "  dense: {class: Dense, args: {anything: 4}}\ncall: dense(x)\n"
    )


# -- a dict returned by name -----------------------------------------------------------

HEADS = """\
layer: Heads
inputs:
  x: {min_rank: 2}
call: |
  y = x * 2.0
  return {"log_var": -y, "mean": y}
outputs: {mean: x, log_var: x}
output_type: dict
"""


def test_call_may_return_a_dict_keyed_by_the_declared_outputs():
    code = module(HEADS)
    compiled(code)
    assert 'return {"log_var": -y, "mean": y}' in code
    code = module(HEADS + "compute_dtype: float32\n")
    assert '"log_var": ops.cast(-y, self.compute_dtype)' in code


def test_a_dict_with_unpacking_is_refused_with_its_reason():
    (found,) = errors(HEADS.replace('"mean": y}', '**{"mean": y}}'))
    assert found[2] == "bad-return" and "string literal" in found[4]


# -- `layergen new` states the formula it scaffolds ------------------------------------


def test_new_writes_the_numpy_reference_of_its_formula_with_weights_away_from_their_init():
    from layergen.scaffold import declaration

    text = declaration("ScaledDense", ["kernel", "scale", "bias"], {}, [])
    ir = analysis(text).ir
    assert ir.example.reference.render() == "(np.matmul(x, kernel) + bias) * scale"
    weights = ir.example.weights
    assert set(weights) == {"scale", "bias"}  # the kernel's random init is not 0 or 1
    assert all(v not in (0.0, 1.0) for values in weights.values() for v in values)
    tests = test_module(text)
    # the reference test sets them before it compares: `(x @ kernel - bias) / scale` fails
    check = tests.split("def test_inference_outputs_match_the_numpy_reference():")[1]
    assert "support.assert_matches_numpy_reference(EXAMPLE, expected, ATOL, weights=WEIGHTS)" in (
        check.split("\ndef ")[0]
    )


# -- weights read in float32 under mixed precision --------------------------------------

NORM = """\
layer: Norm
weights:
  gamma: {shape: "x[-1]", initializer: ones}
  beta: {shape: "x[-1]", initializer: zeros, autocast: false}
call: x * gamma + beta
"""


def test_a_weight_may_opt_out_of_autocasting():
    code = module(NORM)
    gamma, beta = code.split("self.gamma = ")[1].split("self.beta = ")
    assert "autocast" not in gamma and "autocast=False" in beta


def test_compute_dtype_float32_reads_every_weight_in_float32():
    """Keras casts a weight read in `call` to the compute dtype whenever the layer's
    policy is mixed, whatever `self.autocast` says (TensorFlow then refuses
    float32 + float16); only the variable's own `autocast=False` prevents it."""
    code = module(NORM + "compute_dtype: float32\n")
    assert code.count("autocast=False") == 2
    assert "self.autocast = False" in code


# -- input_spec axes, docstring ranks, sublayer args in `__init__` ----------------------


def test_input_spec_fixes_the_declared_axes_once_built():
    code = module("layer: A\ninputs:\n  x: {min_rank: 2, axes: [-1]}\ncall: x\n")
    compiled(code)
    assert "self.input_spec = keras.InputSpec(min_ndim=2)\n" in code  # before build
    build = code.split("def build(self, input_shape):")[1].split("def ")[0]
    assert "self.input_spec = keras.InputSpec(min_ndim=2, axes={-1: input_shape[-1]})" in build


def test_the_docstring_states_a_declared_rank():
    code = module("layer: A\ninputs:\n  x: {rank: 4}\ncall: x\n")
    assert "4D tensor with shape `(batch_size, d1, d2, input_dim)`." in code
    assert "N-D" not in code


def test_sublayer_args_in_init_see_the_keras_objects_of_params():
    code = module(
        "layer: A\nparams:\n  activation: {type: activation, default: relu}\n"
        "  units: {type: int, default: 4}\n"
        "sublayers:\n  dense: {class: keras.layers.Dense, args: {units: units, activation: activation}}\n"
        "call: dense(x)\n"
    )
    init = code.split("def __init__")[1].split("def ")[0]
    assert "self.activation = keras.activations.get(activation)" in init
    assert (
        "keras.layers.Dense(\n            units=self.units,\n            activation=self.activation,"
        in init
    )


# -- checkpoints of real layers load ----------------------------------------------------

ENCODER = """\
layer: Encoder
params:
  units: {type: int, default: 4}
sublayers:
  _self_attention_layer:
    class: keras.layers.MultiHeadAttention
    args: {num_heads: 2, key_dim: units}
    create: build
  _output_dense:
    class: keras.layers.Dense
    args: {units: "x[-1]"}
  _dropout: {class: keras.layers.Dropout, args: {rate: 0.1}, create: build}
weights:
  _scale: {shape: "x[-1]", initializer: ones}
call: _output_dense(_dropout(_self_attention_layer(x, x) * _scale))
"""


def test_attributes_may_start_with_an_underscore_and_are_created_in_declared_order():
    code = module(ENCODER)
    compiled(code)
    build = code.split("def build(self, input_shape):")[1].split("def call")[0]
    order = [
        build.index(f"self.{n} = ") for n in ("_self_attention_layer", "_output_dense", "_dropout")
    ]
    assert order == sorted(order)  # all in build, as declared: get_weights() order
    assert 'name="self_attention_layer"' in build and 'name="scale"' in build
    assert "self._dropout(self._self_attention_layer(x, x) * self._scale)" in code


def test_a_keras_private_attribute_or_a_dunder_is_refused():
    found = errors(ENCODER.replace("_dropout", "_layers"))
    assert (
        "reserved-name",
        "sublayer `_layers` would overwrite Keras's own private attribute `_layers`",
    ) in [e[2:4] for e in found]
    found = errors(ENCODER.replace("_scale", "__scale"))
    assert [e[2] for e in found][:1] == ["reserved-name"]


def test_create_init_for_a_sublayer_sized_from_the_input_is_an_error():
    found = errors(
        ENCODER.replace(
            '    args: {units: "x[-1]"}\n', '    args: {units: "x[-1]"}\n    create: init\n'
        )
    )
    assert [e[2:4] for e in found] == [
        ("conflicting-keys", "its args read an input's shape, known only in `build`")
    ]


# -- losses from `call` ------------------------------------------------------------------

ROUTER = """\
layer: Router
params:
  coef: {type: float, default: 0.02}
weights:
  kernel: {shape: "(x[-1], 4)"}
call: |
  logits = ops.matmul(x, kernel)
  probs = ops.softmax(logits)
  return x * ops.sum(probs, axis=-1, keepdims=True)
losses:
  - value: coef * ops.mean(ops.square(logits))
    training_only: true
  - ops.mean(probs)
"""


def test_losses_may_read_names_call_binds_and_be_added_in_training_only():
    code = module(ROUTER)
    compiled(code)
    call = code.split("def call(")[1].split("def compute_output_shape")[0]
    # computed once, where call binds them, before it returns
    assert call.index("logits = ops.matmul") < call.index("self.add_loss(self.coef")
    assert (
        "if training:\n            self.add_loss(self.coef * ops.mean(ops.square(logits)))" in call
    )
    assert call.rstrip().endswith(
        "self.add_loss(ops.mean(probs))\n        return x * ops.sum(probs, axis=-1, keepdims=True)"
    )


def test_a_training_only_loss_over_the_inputs_is_added_first_under_training():
    code = module(
        "layer: A\ncall: x * 2.0\nlosses:\n  - {value: ops.mean(x), training_only: true}\n"
    )
    call = code.split("def call(")[1]
    assert call.index("if training:\n            self.add_loss(ops.mean(x))") < call.index("return")


def test_the_docstring_lists_the_keyword_arguments_of_call():
    code = module(POSITION_EMBEDDING)
    assert (
        "    Call arguments:\n"
        "        start_index: The position of the first token. Defaults to `0`.\n"
        "        positions: a tensor, or None. Defaults to `None`.\n"
    ) in code


def test_a_long_config_entry_is_split_as_keras_hub_splits_it():
    """keras-hub's Llama layers have `rope_frequency_adjustment_factor`: its `get_config`
    entry would pass the line, which black cannot split without parentheses."""
    code = module("""\
        layer: Rope
        params:
          rope_frequency_adjustment_factor: {type: float, default: null}
        call: x
        """)
    assert (
        '                "rope_frequency_adjustment_factor": (\n'
        "                    self.rope_frequency_adjustment_factor\n"
        "                ),\n"
    ) in code
    assert max(len(line) for line in code.splitlines()) <= 88
