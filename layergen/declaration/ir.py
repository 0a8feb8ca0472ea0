"""The declaration as the renderers read it: every choice the YAML syntax allows, made once.

`analyze` checks each section of a declaration and builds its piece of these frozen records
(a `Weight`, the `Body`, the `Example`, ...); `assemble` puts the pieces together. The context builders in render/ read only them: never the YAML model, never a
snippet by its path, and they parse no code (each snippet arrives parsed, its free names found).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..kinds import KINDS, Kind
from .code import Code, bound_names

# Params and their bound words are plain checked data: the IR passes them on as they are.
from .model import BOUNDS as BOUNDS
from .model import OBJECT_TYPES as OBJECT_TYPES
from .model import Param as Param
from .param_types import BY_NAME
from .yamlfile import Pos

if TYPE_CHECKING:
    from .model import Declaration
    from .yamlfile import Document


@dataclass(frozen=True)
class Input:
    """A layer's call argument (for the other kinds: their method's arguments)."""

    name: str
    dtype: str | None = None
    rank: int | None = None
    min_rank: int | None = None
    axes: tuple[int | str, ...] = ()  # dims fixed once built: an int, or an int param
    doc: str | None = None


@dataclass(frozen=True)
class Keyword:
    """A keyword argument of a layer's `call`: a tensor (`type` "tensor") that may be
    None, or a Python value of `type`."""

    name: str
    type: str
    default: Any
    doc: str | None = None
    dtype: str | None = None  # a tensor's declared dtype
    masks: str | None = None  # the tensor input whose steps it hides (a padding mask)
    causal: str | None = None  # the tensor input along which it makes the layer causal
    cache: Cache | None = None  # a cache through which `call` decodes an input step by step


@dataclass(frozen=True)
class Cache:
    """A keyword tensor that is a cache: `call` given it decodes steps of the tensor inputs
    `of` (together, the steps counted along the first), written into it at the keyword
    input `index`, and returns it updated."""

    of: tuple[str, ...]
    index: str
    shape: Shape
    mask: str | None = None  # the keyword input of the causal mask the tests pass


@dataclass(frozen=True)
class Shape:
    """A declared shape: one expression, and its dims when the YAML listed them."""

    code: Code
    dims: tuple[int | Code, ...] | None = None


@dataclass(frozen=True)
class KerasObject:
    """A weight's initializer, regularizer or constraint: exactly one of the three is set."""

    param: str | None = None  # a param holds it
    name: str | None = None  # a Keras name, "zeros"
    code: Code | None = None  # an expression over the params


@dataclass(frozen=True)
class Weight:
    name: str
    shape: Shape
    initializer: KerasObject | None
    regularizer: KerasObject | None
    constraint: KerasObject | None
    trainable: bool
    dtype: str | None
    created: bool | Code  # True: always; False: never; a condition over the params
    autocast: bool = True  # False: never cast to the compute dtype when read
    layout: tuple[str | None, ...] | None = None  # the mesh axis of each dim
    aggregation: str | None = None  # how replicas' values combine (`add_weight(aggregation=)`)
    keras_name: str = ""  # its path's last part: the declared `name`, else the key without `_`


@dataclass(frozen=True)
class Construction:
    """`class_(**args)`: each argument a snippet, or a plain value written as a literal."""

    class_: str
    args: dict[str, Code | Any]


@dataclass(frozen=True)
class Sublayer:
    """A layer the layer holds: one (`class_(**args)`), or a sequence of them in `class_`."""

    name: str
    class_: str
    args: dict[str, Code | Any]  # each argument a snippet, or a plain value
    sequence: tuple[Construction, ...] | None
    reads_input_shapes: bool  # then it is created in `build` (or when declared so)
    # The layouts of its weights by their path inside it; the name Keras gives it leads them.
    layout: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    keras_name: str | None = None
    created: bool | Code = True  # True: always; False: never; a condition (its `when`)
    # The shape its `build` takes, or its build's arguments by name; None: built by the trace.
    build: Shape | dict[str, Shape] | None = None

    @property
    def classes(self) -> list[str]:
        return [self.class_, *(c.class_ for c in self.sequence or ())]


@dataclass(frozen=True)
class Op:
    """A custom-gradient op: a gradient for all arguments, or one per argument (None: zeros)."""

    name: str
    args: tuple[str, ...]
    forward: Code
    gradient: Code | None
    gradients: dict[str, Code | None]


@dataclass(frozen=True)
class Method:
    name: str
    args: tuple[str, ...]  # each `name` or `name=default`, as `def` writes it
    body: Code

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(arg.split("=", 1)[0] for arg in self.args)


@dataclass(frozen=True)
class Branches:
    train: Code
    infer: Code


@dataclass(frozen=True)
class Noise:
    """What a layer random in training promises of its noise (the tests check it)."""

    unbiased: bool  # the mean of training outputs is the inference output
    shape: Shape | None  # one draw per cell: shared along the axes of size 1


@dataclass(frozen=True)
class Side:
    """The example's layer with one bool param flipped (`args`): the declared `when`s it
    turns, each attribute made or left out (`made`), and its key (`weights.bias.when`)."""

    args: dict[str, bool]
    made: dict[str, bool]
    keys: dict[str, str]
    # Where an output's `when` turns: the declared outputs `call` then returns, in order.
    returns: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Unreached:
    """A declared `when` (`key`: `weights.bias`) no flip of a bool param turns: the tests
    build only the side the example is on (`value`, None where it cannot be told); the
    params it reads (`params`) are what to set in `example.params`. `pos`: its `when:` key."""

    key: str
    when: str
    value: Any
    params: tuple[str, ...]
    pos: Pos


@dataclass(frozen=True)
class Unvaried:
    """A keyword input of `call` no generated test passes a value other than its default
    of: the tests can make up none of its `type` (a tensor, a str), nor does the example
    give one. `pos`: its key under `inputs`."""

    name: str
    type: str
    pos: Pos
    why: str | None = None  # the declaration's reason (`tests.skip`), where it states one


@dataclass(frozen=True)
class Skip:
    """A generated test the declaration turns off, with the reason shown in every run."""

    test: str
    reason: str
    pos: Pos  # of the test's name in the YAML file


@dataclass(frozen=True)
class Statistic:
    what: str  # as written
    of: Code
    mean: float


@dataclass(frozen=True)
class CallCase:
    """A call with keyword arguments on inputs of its own; what it leaves out is the example's."""

    args: dict[str, Any]  # values of keyword inputs (nested lists for a tensor)
    input_shapes: dict[str, tuple[int, ...]]
    input_dtypes: dict[str, str]  # of the inputs and of the keyword tensors in `args`
    input_range: tuple[int | float, int | float] | None


@dataclass(frozen=True)
class Example:
    """What the generated tests and the docstring's example use."""

    given: bool  # the declaration has an `example` key
    params: dict[str, Any]  # as given
    args: dict[str, Any]  # every param's value: given, else default, else a sensible one
    input_shape: tuple[int, ...] | None  # the one shape given for all inputs, if so
    # the tensor inputs', then the keyword tensors every call passes (`every_call`)
    input_shapes: dict[str, tuple[int, ...]]
    input_dtypes: dict[str, str]
    # keyword tensors `input_shape` names: the tests pass them in every call, by position
    # after the tensor inputs (an `attention_mask=None` that `call` reads unconditionally)
    every_call: tuple[str, ...]
    call_args: dict[str, Any]  # values of keyword inputs (nested lists for a tensor)
    call_cases: tuple[CallCase, ...]  # calls with keyword arguments on inputs of their own
    input_range: tuple[int | float, int | float] | None
    inputs: dict[str, Any] | None  # stated input values, by input
    weights: dict[str, Any]
    expected: Any
    expected_training: Any
    reference: Code | None
    atol: float
    statistics: tuple[Statistic, ...]


@dataclass(frozen=True)
class Declared:
    """One declaration, resolved: what every renderer reads."""

    kind: Kind
    name: str
    doc: str | None
    package: str | Literal[False] | None  # False: not registered
    base: str | None  # a custom base class
    params: dict[str, Param]  # with `seed` for a random layer
    inputs: tuple[Input, ...]
    keywords: tuple[Keyword, ...]
    members: tuple[str, ...]  # what becomes `self.<name>`
    weights: tuple[Weight, ...]
    sublayers: tuple[Sublayer, ...]
    ops: tuple[Op, ...]
    methods: tuple[Method, ...]
    imports: tuple[str, ...]
    init: Code | None
    random: bool
    float32_compute: bool  # computed in float32 under any dtype policy
    # The forward pass: one snippet, a training branch, or None (the base class's call as is).
    call: Code | Branches | None
    call_written_by_layergen: bool  # the identity, or the base class's call, plus state
    losses: tuple[Code, ...]
    training_only_losses: frozenset[int]  # indexes of the losses added on training calls only
    losses_read_call: bool  # a loss reads a name `call` binds: all are added before it returns
    updates: dict[str, Code]
    masking: bool
    compute_mask: Code | None
    output_shape: Shape | None
    outputs: dict[str, Shape] | None
    outputs_by_name: bool  # the layer returns a dict of `outputs`
    example: Example
    hand_written: frozenset[str] = field(default_factory=frozenset)
    # Outputs returned only when their condition holds (over the call's keyword inputs).
    output_when: dict[str, Code | bool] = field(default_factory=dict)
    # The pieces of the sections of `sections/`, by key (None: not declared).
    sections: dict[str, Any] = field(default_factory=dict)
    skips: tuple[Skip, ...] = ()
    # The tensor inputs are arguments of `call` of their own, not one list.
    separate_inputs: bool = False
    # The sides of the declared `when`s the tests build by flipping a bool param, and the
    # `when`s none turns (`declaration/branches.py`): the one place both are decided.
    sides: tuple[Side, ...] = ()
    unreached: tuple[Unreached, ...] = ()
    # A value other than its default for each call input no other test passes one of,
    # and the inputs the tests can make none for (`declaration/branches.py` too).
    other_values: dict[str, Any] = field(default_factory=dict)
    unvaried: tuple[Unvaried, ...] = ()

    @property
    def noise(self) -> Noise | None:
        return self.sections.get("noise")

    @property
    def input_names(self) -> list[str]:
        return [i.name for i in self.inputs]

    @property
    def build_traces_call(self) -> bool:
        """Whether `build` traces `call`: to build the sublayers that state no shapes to build
        from, and the layers params hold."""
        unbuilt = any(s.build is None for s in self.sublayers)
        return unbuilt or any(p.type == "layer" for p in self.params.values())

    @property
    def tensor_keywords(self) -> list[str]:
        """Keyword inputs that are tensors: `build` may be given their shapes."""
        return [k.name for k in self.keywords if k.type == "tensor"]

    @property
    def output_shapes_read_keywords(self) -> bool:
        """Whether the output shapes (or which outputs there are) depend on `call`'s keyword
        inputs: `compute_output_shape` and `compute_output_spec` then take those they read."""
        return bool(self.output_when) or bool(self.output_keywords)

    @property
    def output_keywords(self) -> list[Keyword]:
        """The keyword inputs the output shapes and their `when`s read, in `call`'s order."""
        shapes = [self.output_shape] if self.output_shape else list((self.outputs or {}).values())
        codes = [s.code for s in shapes] + [
            c for c in self.output_when.values() if isinstance(c, Code)
        ]
        read = {f.name for c in codes for f in c.free}
        return [k for k in self.keywords if k.name in read]

    @property
    def build_reads_keywords(self) -> bool:
        """Whether what `build` creates reads a tensor keyword input's shape (keras-hub's
        cross-attention, made when an `encoder_sequence` shape is given): `build` then takes
        every tensor input's shape by name, as Keras passes them."""
        keywords = set(self.tensor_keywords)
        codes = [w.shape.code for w in self.weights]
        codes += [w.created for w in self.weights if isinstance(w.created, Code)]
        for sub in self.sublayers:
            for c in [Construction(sub.class_, sub.args), *(sub.sequence or ())]:
                codes += [v for v in c.args.values() if isinstance(v, Code)]
            codes += [sub.created] if isinstance(sub.created, Code) else []
            built = sub.build.values() if isinstance(sub.build, dict) else [sub.build]
            codes += [shape.code for shape in built if shape is not None]
        return any(f.name in keywords for code in codes for f in code.free)

    def input(self, name: str) -> Input:
        return next(i for i in self.inputs if i.name == name)

    @property
    def method_names(self) -> set[str]:
        return {m.name for m in self.methods}

    @property
    def weight_names(self) -> list[str]:
        return [w.name for w in self.weights]

    @property
    def layouts(self) -> dict[str, tuple[str | None, ...]]:
        """Every declared layout, by the weight's path inside the layer (`kernel`,
        `router/kernel`): what the package's LayoutMap shards."""
        found = {w.keras_name: w.layout for w in self.weights if w.layout is not None}
        for sub in self.sublayers:
            found.update({f"{sub.keras_name}/{path}": axes for path, axes in sub.layout.items()})
        return found


@dataclass(frozen=True)
class Body:
    """What the sections of a class's body built (`analyze`), each piece as the renderers
    read it; the other kinds have a `call` and an `init` only. Where a check reported a
    problem its piece may be None: such a body is never assembled."""

    call: Code | Branches | None
    init: Code | None
    weights: tuple[Weight, ...] = ()
    sublayers: tuple[Sublayer, ...] = ()
    losses: tuple[Code, ...] = ()
    updates: dict[str, Code] = field(default_factory=dict)
    compute_mask: Code | None = None
    output_shape: Shape | None = None
    outputs: dict[str, Shape] | None = None
    output_when: dict[str, Code | bool] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)  # by key, `sections/`


def assemble(
    doc: Document,
    decl: Declaration,
    *,
    params: dict[str, Param],
    inputs: tuple[Input, ...],
    keywords: tuple[Keyword, ...],
    members: tuple[str, ...],
    body: Body,
    ops: tuple[Op, ...],
    methods: tuple[Method, ...],
    example: Example,
) -> Declared:
    """The declaration from the pieces its sections built: the choices left are flags."""
    # Names the `call` block binds that are not its inputs or params: a loss reading one is
    # added where they are bound.
    bound: set[str] = set()
    if isinstance(decl.call, str) and decl.losses:
        bound = bound_names(decl.call) - {i.name for i in inputs} - set(params)
    return Declared(
        kind=KINDS[decl.kind],
        name=decl.name,
        doc=decl.doc,
        package=decl.package,
        base=decl.base,
        params=dict(params),
        inputs=inputs,
        keywords=keywords,
        members=members,
        weights=body.weights,
        sublayers=body.sublayers,
        ops=ops,
        methods=methods,
        imports=tuple(decl.imports),
        init=body.init,
        random=decl.random,
        float32_compute=decl.compute_dtype == "float32",
        call=body.call,
        call_written_by_layergen=decl.call is None and body.call is not None,
        losses=body.losses,
        training_only_losses=frozenset(
            i
            for i, loss in enumerate(decl.losses)
            if not isinstance(loss, str) and loss.training_only
        ),
        losses_read_call=any(f.name in bound for loss in body.losses for f in loss.free),
        updates=body.updates,
        masking=decl.masking not in (None, False),
        compute_mask=body.compute_mask,
        output_shape=body.output_shape,
        outputs=body.outputs,
        output_when=body.output_when,
        outputs_by_name=decl.output_type == "dict",
        example=example,
        hand_written=frozenset(decl.hand_written),
        sections=body.sections,
        skips=tuple(
            Skip(test, reason, doc.pos(("tests", "skip", test), key=True))
            for test, reason in decl.tests.skip.items()
        ),
        separate_inputs=decl.separate_inputs,
    )


def example_value(param: Param) -> Any:
    """A sensible value for a required param the example does not give."""
    if param.choices:
        return param.choices[0]
    low, high = param.min, param.max
    if param.type == "int":  # exclusive bounds of ints: the next whole number inside
        if param.gt is not None:
            low = math.floor(param.gt) + 1
        if param.lt is not None:
            high = math.ceil(param.lt) - 1
        value = 4 if low is None else max(math.ceil(low), 4)
        return value if high is None else min(value, math.floor(high))
    if param.type == "float":
        value = 0.5
        value = value if low is None else max(float(low), value)
        value = value if high is None else min(float(high), value)
        low = param.gt if param.gt is not None else low
        high = param.lt if param.lt is not None else high
        if (param.gt is not None and value <= low) or (param.lt is not None and value >= high):
            if low is not None and high is not None:
                return (low + high) / 2
            return low + 1.0 if low is not None else high - 1.0
        return value
    return BY_NAME[param.type].example_value()


def build_example(
    decl: Declaration,
    params: dict[str, Param],
    inputs: tuple[Input, ...],
    keywords: tuple[Keyword, ...],
    *,
    given_key: bool,
    objects: dict[str, Code],
    reference: Code | None,
    statistics: tuple[Statistic, ...],
) -> Example:
    """The example: what it gives, the rest filled in. `given_key`: the file has an `example`
    key; `objects`: the code that makes an object param's example value, by param."""
    example = decl.example
    given = example.params
    args = {}
    for name, param in params.items():
        if name in given and isinstance(given[name], str) and param.type in OBJECT_TYPES:
            args[name] = objects[name]  # the code that makes the object
        elif name in given:
            args[name] = given[name]
        elif not param.required:
            args[name] = param.default
        else:
            args[name] = example_value(param)
    if decl.random and args.get("seed") is None:
        args["seed"] = 1337  # reproducible random tests
    args.update({k: v for k, v in given.items() if k not in params})  # base class arguments

    input_shapes, input_dtypes = _example_inputs(
        inputs, keywords, example.input_shape, example.input_dtype, example.call_args
    )
    every_call = tuple(name for name in input_shapes if name not in {i.name for i in inputs})
    call_cases = []
    for case in example.call_cases:
        shapes, dtypes = _example_inputs(
            inputs,
            keywords,
            case.input_shape or dict(input_shapes),
            case.input_dtype or {n: input_dtypes[n] for n in input_shapes},
            case.args,
        )
        given_range = case.input_range or example.input_range
        call_cases.append(
            CallCase(
                args=dict(case.args),
                input_shapes=shapes,
                input_dtypes=dtypes,
                input_range=tuple(given_range) if given_range is not None else None,
            )
        )
    shapes = example.input_shape
    stated = example.inputs
    if stated is not None and len(input_shapes) == 1:
        stated = {inputs[0].name: stated}
    return Example(
        given=given_key,
        params=dict(given),
        args=args,
        input_shape=tuple(shapes) if isinstance(shapes, list) else None,
        input_shapes=input_shapes,
        input_dtypes=input_dtypes,
        every_call=every_call,
        call_args=dict(example.call_args),
        call_cases=tuple(call_cases),
        input_range=tuple(example.input_range) if example.input_range is not None else None,
        inputs=stated,
        weights=dict(example.weights),
        expected=example.expected,
        expected_training=example.expected_training,
        reference=reference,
        atol=example.atol,
        statistics=statistics,
    )


def _example_inputs(inputs, keywords, shapes, dtype, call_args):
    """The example shape and dtype of each input, and of each keyword tensor `shapes`
    names (passed in every call), filling in what `shapes` and `dtype` leave out; a keyword
    tensor given a value in `call_args` takes its declared dtype."""
    every_call = [k for k in keywords if isinstance(shapes, dict) and k.name in shapes]
    if isinstance(shapes, dict):
        input_shapes = {i.name: tuple(shapes[i.name]) for i in [*inputs, *every_call]}
    elif shapes is not None:
        input_shapes = {inputs[0].name: tuple(shapes)}
    else:
        input_shapes = {
            i.name: (2,) + (4,) * (max(i.rank or i.min_rank or 2, 1) - 1) for i in inputs
        }
    input_dtypes = {
        i.name: (
            dtype[i.name]
            if isinstance(dtype, dict) and i.name in dtype
            else dtype if isinstance(dtype, str) and i in inputs else i.dtype or "float32"
        )
        for i in [*inputs, *every_call]
    }
    for k in keywords:  # a tensor keyword's stated value: its declared dtype
        if k.type == "tensor" and k.name in call_args:
            input_dtypes[k.name] = k.dtype or "float32"
    return input_shapes, input_dtypes
