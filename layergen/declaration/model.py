"""The declaration format (spec-format.md, v1) as pydantic models.

These models check structure and types only; names and code are resolved
afterwards (`analyze.py`). They also produce the JSON Schema for editors.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from .. import kinds
from .param_types import NAMES, PARAM_TYPES

ParamType = Literal[NAMES]  # one row each in param_types.py
# Types whose value is an object the caller makes (not a literal): see ParamType.
OBJECT_TYPES = frozenset(row.name for row in PARAM_TYPES if row.made)
ShapeValue = str | int | list[str | int]
# A weight's layout: the device mesh axis each of its dims is split over (None: not split).
Layout = list[str | None]
# How the replicas' values of a weight are combined under a distribution strategy (Keras's
# `add_weight(aggregation=...)`).
Aggregation = Literal["none", "mean", "sum", "only_first_replica"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


class Param(Strict):
    """A constructor argument. `default` absent: required; `null`: optional."""

    type: ParamType
    default: Any = None
    min: int | float | None = None
    max: int | float | None = None
    gt: int | float | None = None  # exclusive bounds, beside the inclusive min and max
    lt: int | float | None = None
    choices: list[Any] | None = None
    # stored converted to its type, `self.units = int(units)`, as keras-hub stores its sizes
    cast: bool = False
    doc: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"type": value} if isinstance(value, str) else value

    @property
    def required(self) -> bool:
        return "default" not in self.model_fields_set

    @property
    def bounds(self) -> list[tuple[str, int | float]]:
        """The declared bounds as (key, value): `min`, `gt`, `max`, `lt`, in that order."""
        return [(k, getattr(self, k)) for k in BOUNDS if getattr(self, k) is not None]


# Each bound key: the comparison a valid value passes, and how it reads in a message.
BOUNDS = {
    "min": (">=", "at least"),
    "gt": (">", "greater than"),
    "max": ("<=", "at most"),
    "lt": ("<", "less than"),
}


class Cache(Strict):
    """A key/value cache that `call` takes and returns updated, for autoregressive decoding:
    given it, `call` decodes steps of the tensor input `of` written into it at
    the keyword input `index`; `shape` is the cache's for the whole of `of` (an empty one is
    zeros). The generated tests decode `of` a step at a time through it. `of` may list
    several tensor inputs decoded step by step together (self-attention's `[query, value]`),
    the steps counted along the first."""

    of: str | list[str]
    index: str
    shape: ShapeValue
    # An attention layer is causal only through its mask: the keyword input of a
    # (batch, steps, cache length) mask through which the tests let each step see the
    # steps up to it.
    mask: str | None = None


class Input(Strict):
    """A call argument. With `default` it is a keyword argument of `call`, after the
    tensor inputs: a tensor that may be None (`padding_mask: {default: null}`), or a
    Python value of `type` (`start_index: {type: int, default: 0}`)."""

    rank: int | None = None
    min_rank: int | None = None
    dtype: str | None = None
    type: Literal["tensor", "int", "float", "bool", "str"] = "tensor"
    default: Any = None
    axes: list[int | str] | None = None  # dims fixed once built: an int, or an int param
    masks: str | None = None  # a keyword mask: the tensor input whose steps it hides
    causal: str | None = None  # a bool that, true, makes the layer causal along this input
    cache: Cache | None = None  # a keyword tensor: a cache that decodes this input step by step
    doc: str | None = None

    @property
    def keyword(self) -> bool:
        return "default" in self.model_fields_set


class Weight(Strict):
    shape: ShapeValue
    # Its Keras name, the last part of its path (what checkpoints and layout maps read),
    # where it differs from the key, which is the attribute code reads.
    name: str | None = None
    initializer: str | None = None
    regularizer: str | None = None
    constraint: str | None = None
    trainable: bool = True
    dtype: str | None = None
    when: str | bool | None = None
    layout: Layout | None = None
    aggregation: Aggregation | None = None
    autocast: bool = True  # false: read in its own dtype under mixed precision

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return value if isinstance(value, dict) else {"shape": value}


class LayerCall(Strict):
    class_: str = Field(alias="class")
    args: dict[str, Any] = {}


class Sublayer(Strict):
    class_: str | None = Field(default=None, alias="class")
    args: dict[str, Any] = {}
    layers: list[LayerCall] | None = None
    # The layouts of its weights, by their path inside it (`kernel`, `dense_a/kernel`).
    layout: dict[str, Layout] | None = None
    # Where it is created: in `build` when its args read an input's shape, else in
    # `__init__`, unless this says so (a checkpoint's order follows the reference's).
    create: Literal["init", "build"] | None = None
    # Created only when true (else the attribute is None): over the params, and the tensor
    # inputs' shapes, None for a keyword input `build` is not given.
    when: str | bool | None = None
    # The shape its `build` takes, or its build's arguments (`query_shape: x`): it is then
    # built from them in `build`, in declared order, instead of by tracing `call`.
    build: ShapeValue | dict[str, ShapeValue] | None = None


class Output(Strict):
    """A named output with a condition: returned only when `when` holds (a call argument,
    `return_attention_scores`, or a cache given)."""

    shape: ShapeValue
    when: str | bool | None = None


class Op(Strict):
    args: list[str]
    forward: str
    gradient: str | dict[str, str]


class Branches(Strict):
    train: str
    infer: str


class Method(Strict):
    args: list[str] = []
    body: str


class Loss(Strict):
    """A loss added with `add_loss`: `value` may read names bound in `call`."""

    value: str
    training_only: bool = False  # added on training calls only (an inference call adds none)


class Noise(Strict):
    """What a layer random in training promises of its noise; the generated tests check it."""

    unbiased: bool = False  # the mean of training outputs is the inference output
    shape: ShapeValue | None = None  # one draw per cell: shared along the axes of size 1


class Tests(Strict):
    """What the declaration says of its generated tests."""

    skip: dict[str, str] = {}  # test name -> why it does not apply


class Statistic(Strict):
    """A statistic of a random layer's training output: `of`, per element, has mean `mean`."""

    of: str
    mean: int | float


Array = int | float | list[Any]  # nested lists of numbers
Arrays = Array | dict[str, Array] | None  # one, or a mapping per input / output


class CallCase(Strict):
    """A call of the layer with keyword arguments on inputs of its own (`reverse: true`
    takes hidden states, not token ids); what it leaves out is the example's."""

    args: dict[str, Any] = {}
    input_shape: list[int] | dict[str, list[int]] | None = None
    input_dtype: str | dict[str, str] | None = None
    input_range: list[int | float] | None = None


class Example(Strict):
    params: dict[str, Any] = {}
    input_shape: list[int] | dict[str, list[int]] | None = None
    # Values of `call`'s keyword arguments that are not tensors: each test call uses them.
    call_args: dict[str, Any] = {}
    call_cases: list[CallCase] = []
    input_dtype: str | dict[str, str] | None = None
    input_range: list[int | float] | None = None
    # Numbers the user states: outputs for given inputs (and weights), or a NumPy reference.
    inputs: Arrays = None
    weights: dict[str, Array] = {}
    expected: Arrays = None
    expected_training: Arrays = None
    reference: str | None = None
    atol: int | float = 1.0e-5
    statistics: list[Statistic] = []
    # The class this declaration twins (`package.module.Class`): its outputs are the goldens.
    original: str | None = None


# One optional key per kind (`layer: Name`, `loss: Name`, ...), from the kinds table.
KindKeys = create_model(
    "KindKeys", __base__=Strict, **{kind: (str | None, None) for kind in kinds.KINDS}
)


class Declaration(KindKeys, Strict):  # Strict again: tools see a pydantic model
    """One declaration file: exactly one of the kind keys names the class."""

    doc: str | None = None
    # False: not registered (a class Keras finds by its module path, in keras_hub and the like)
    package: str | Literal[False] | None = None
    base: str | None = None
    params: dict[str, Param] = {}
    inputs: dict[str, Input | None] | None = None
    # Several tensor inputs as arguments of their own (`call(self, query, value)`), not a list.
    separate_inputs: bool = False
    weights: dict[str, Weight] = {}
    sublayers: dict[str, Sublayer] = {}
    ops: dict[str, Op] = {}
    call: str | Branches | None = None
    losses: list[str | Loss] = []
    updates: dict[str, str] = {}
    random: bool = False
    masking: bool | str | None = None
    imports: list[str] = []
    init: str | None = None
    methods: dict[str, Method] = {}
    output_shape: ShapeValue | None = None
    outputs: dict[str, ShapeValue | Output] | None = None
    output_type: Literal["tuple", "dict"] | None = None  # how a layer with `outputs` returns them
    compute_dtype: Literal["float32"] | None = None
    noise: Noise | None = None
    no_jit: str | None = None  # why XLA cannot compile the layer (`sections/no_jit.py`)
    example: Example = Example()
    tests: Tests = Tests()
    # Members of the class that a person owns (`layergen sync` lists those it cannot
    # write back into the declaration): generate keeps them as they are in the module.
    hand_written: list[str] = []

    @property
    def kind(self) -> str:
        return next(k for k in kinds.KINDS if getattr(self, k) is not None)

    @property
    def name(self) -> str:
        return getattr(self, self.kind)
