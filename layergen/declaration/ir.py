"""The declaration as the renderers read it: every choice the YAML syntax allows, made once.

`build_ir` turns a checked declaration (its pydantic model and parsed snippets) into these
frozen records. The context builders in render/ read only them: never the YAML model, never a
snippet by its path, and they parse no code (each snippet arrives parsed, its free names found).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..kinds import KINDS, Kind
from .code import Code, bound_names, parse, resolve
from .layouts import sublayer_name

# Params and their bound words are plain checked data: the IR passes them on as they are.
from .model import BOUNDS as BOUNDS
from .model import OBJECT_TYPES as OBJECT_TYPES
from .model import Output as OutputSpec
from .model import Param as Param
from .yamlfile import Pos

if TYPE_CHECKING:
    from .analyze import Analysis


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
    """A keyword tensor that is a cache: `call` given it decodes steps of the tensor input
    `of`, written into it at the keyword input `index`, and returns it updated."""

    of: str
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
class Example:
    """What the generated tests and the docstring's example use."""

    given: bool  # the declaration has an `example` key
    params: dict[str, Any]  # as given
    args: dict[str, Any]  # every param's value: given, else default, else a sensible one
    input_shape: tuple[int, ...] | None  # the one shape given for all inputs, if so
    input_shapes: dict[str, tuple[int, ...]]
    input_dtypes: dict[str, str]
    call_args: dict[str, Any]  # values of keyword inputs (nested lists for a tensor)
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
    package: str | None
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
    noise: Noise | None = None
    skips: tuple[Skip, ...] = ()
    # The tensor inputs are arguments of `call` of their own, not one list.
    separate_inputs: bool = False

    @property
    def input_names(self) -> list[str]:
        return [i.name for i in self.inputs]

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


def build_ir(a: Analysis) -> Declared:
    decl = a.decl
    kind = KINDS[decl.kind]
    specs = decl.inputs or {}
    inputs = tuple(
        (
            Input(n, s.dtype, s.rank, s.min_rank, tuple(s.axes or ()), s.doc)
            if (s := specs.get(n))
            else Input(n)
        )
        for n in a.inputs
    )
    keywords = tuple(
        Keyword(
            n,
            s.type,
            s.default,
            s.doc,
            s.dtype,
            s.masks,
            s.causal,
            (
                Cache(
                    s.cache.of,
                    s.cache.index,
                    _shape(a, ("inputs", n, "cache", "shape"), s.cache.shape),
                    s.cache.mask,
                )
                if s.cache is not None
                else None
            ),
        )
        for n, s in a.keywords.items()
    )
    members = [*a.params, *decl.weights, *decl.sublayers, *decl.ops, *decl.methods]
    call, written = _call(a)
    losses = tuple(
        a.code("losses", i) if isinstance(loss, str) else a.code("losses", i, "value")
        for i, loss in enumerate(decl.losses)
    )
    bound = _call_bound(a)
    return Declared(
        kind=kind,
        name=decl.name,
        doc=decl.doc,
        package=decl.package,
        base=decl.base,
        params=dict(a.params),
        inputs=inputs,
        keywords=keywords,
        members=tuple(members + (["seed_generator"] if decl.random else [])),
        weights=tuple(_weight(a, name) for name in decl.weights),
        sublayers=tuple(_sublayer(a, name) for name in decl.sublayers),
        ops=tuple(_op(a, name) for name in decl.ops),
        methods=tuple(
            Method(
                name,
                tuple(_argument(a, name, i, arg) for i, arg in enumerate(m.args)),
                a.code("methods", name, "body"),
            )
            for name, m in decl.methods.items()
        ),
        imports=tuple(decl.imports),
        init=a.code("init") if decl.init is not None else None,
        random=decl.random,
        float32_compute=decl.compute_dtype == "float32",
        call=call,
        call_written_by_layergen=written,
        losses=losses,
        training_only_losses=frozenset(
            i
            for i, loss in enumerate(decl.losses)
            if not isinstance(loss, str) and loss.training_only
        ),
        losses_read_call=any(f.name in bound for loss in losses for f in loss.free),
        updates={name: a.code("updates", name) for name in decl.updates},
        masking=decl.masking not in (None, False),
        compute_mask=a.code("masking") if isinstance(decl.masking, str) else None,
        output_shape=_shape(a, ("output_shape",), decl.output_shape),
        outputs=(
            {
                n: (
                    _shape(a, ("outputs", n, "shape"), s.shape)
                    if isinstance(s, OutputSpec)
                    else _shape(a, ("outputs", n), s)
                )
                for n, s in decl.outputs.items()
            }
            if decl.outputs is not None
            else None
        ),
        output_when={
            n: a.code("outputs", n, "when") if isinstance(s.when, str) else s.when
            for n, s in (decl.outputs or {}).items()
            if isinstance(s, OutputSpec) and s.when is not None and s.when is not True
        },
        outputs_by_name=decl.output_type == "dict",
        example=_example(a, inputs, keywords),
        hand_written=frozenset(decl.hand_written),
        noise=(
            Noise(decl.noise.unbiased, _shape(a, ("noise", "shape"), decl.noise.shape))
            if decl.noise is not None
            else None
        ),
        skips=tuple(
            Skip(test, reason, a.doc.pos(("tests", "skip", test), key=True))
            for test, reason in decl.tests.skip.items()
        ),
        separate_inputs=decl.separate_inputs,
    )


def _call_bound(a: Analysis) -> set[str]:
    """Names the `call` block binds that are not its inputs or params (a loss reading one
    is added where they are bound)."""
    if not isinstance(a.decl.call, str) or not a.decl.losses:
        return set()
    return bound_names(a.decl.call) - set(a.inputs) - set(a.params)


def _argument(a: Analysis, method: str, index: int, arg: str) -> str:
    """A method argument as `def` writes it: `name`, or `name=default` (the default parsed)."""
    if "=" not in arg:
        return arg
    name = arg.split("=", 1)[0].strip()
    return f"{name}={a.code('methods', method, 'args', index).render()}"


def _shape(a: Analysis, loc: tuple, value: Any) -> Shape | None:
    if value is None:
        return None
    if not isinstance(value, list):
        return Shape(a.code(*loc))
    dims = tuple(a.code(*loc, i) if isinstance(d, str) else d for i, d in enumerate(value))
    return Shape(a.code(*loc), dims)


def _keras_object(a: Analysis, loc: tuple, value: str | None) -> KerasObject | None:
    if value is None:
        return None
    if not value.isidentifier():
        return KerasObject(code=a.code(*loc))
    return KerasObject(param=value) if value in a.params else KerasObject(name=value)


def _weight(a: Analysis, name: str) -> Weight:
    w = a.decl.weights[name]
    loc = ("weights", name)
    created = w.when if isinstance(w.when, bool) else True
    if isinstance(w.when, str):
        created = a.code(*loc, "when")
    return Weight(
        name=name,
        shape=_shape(a, (*loc, "shape"), w.shape),
        initializer=_keras_object(a, (*loc, "initializer"), w.initializer),
        regularizer=_keras_object(a, (*loc, "regularizer"), w.regularizer),
        constraint=_keras_object(a, (*loc, "constraint"), w.constraint),
        trainable=w.trainable,
        dtype=w.dtype,
        created=created,
        autocast=w.autocast and a.decl.compute_dtype != "float32",
        layout=tuple(w.layout) if w.layout is not None else None,
        aggregation=w.aggregation,
        keras_name=w.name or name.lstrip("_"),
    )


def _construction(a: Analysis, loc: tuple, class_: str, args: dict[str, Any]) -> Construction:
    return Construction(
        class_,
        {k: a.code(*loc, "args", k) if isinstance(v, str) else v for k, v in args.items()},
    )


def _sublayer(a: Analysis, name: str) -> Sublayer:
    sub = a.decl.sublayers[name]
    loc = ("sublayers", name)
    own = _construction(a, loc, sub.class_ or "keras.Sequential", sub.args)
    sequence = None
    if sub.layers is not None:
        sequence = tuple(
            _construction(a, (*loc, "layers", i), item.class_, item.args)
            for i, item in enumerate(sub.layers)
        )
    created = sub.when if isinstance(sub.when, bool) else True
    if isinstance(sub.when, str):
        created = a.code(*loc, "when")
    inputs = set(a.shaped)
    codes = [
        value
        for c in (sequence if sequence is not None else [own])
        for value in c.args.values()
        if isinstance(value, Code)
    ] + ([created] if isinstance(created, Code) else [])
    reads = any(f.name in inputs for code in codes for f in code.free)
    layout = {path: tuple(axes) for path, axes in (sub.layout or {}).items()}
    return Sublayer(
        name,
        own.class_,
        own.args,
        sequence,
        reads or sub.create == "build",
        layout,
        sublayer_name(name, sub.args),
        created,
        (
            {k: _shape(a, (*loc, "build", k), v) for k, v in sub.build.items()}
            if isinstance(sub.build, dict)
            else _shape(a, (*loc, "build"), sub.build)
        ),
    )


def _op(a: Analysis, name: str) -> Op:
    op = a.decl.ops[name]
    loc = ("ops", name)
    if isinstance(op.gradient, str):
        gradient, gradients = a.code(*loc, "gradient"), {}
    else:
        gradient = None
        gradients = {
            arg: a.code(*loc, "gradient", arg) if arg in op.gradient else None for arg in op.args
        }
    return Op(name, tuple(op.args), a.code(*loc, "forward"), gradient, gradients)


def _call(a: Analysis) -> tuple[Code | Branches | None, bool]:
    """The forward pass, and whether layergen wrote it (no `call` key)."""
    decl = a.decl
    if isinstance(decl.call, str):
        return a.code("call"), False
    if decl.call is not None:
        return Branches(a.code("call", "train"), a.code("call", "infer")), False
    if decl.kind != "layer" or (decl.base is not None and not (decl.updates or decl.losses)):
        return None, False  # the base class's call is used as it is
    arg = "inputs" if len(a.inputs) > 1 else a.inputs[0]
    forward = f"super().call({arg})" if decl.base is not None else arg
    code = parse(forward, Pos(1, 1), a.path, expression=True)
    resolve([code])
    return code, True


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
    return {
        "bool": True,
        "str": "a",
        "list[int]": [4, 4],
        "list[float]": [0.5, 0.5],
        "list[str]": ["a"],
        "activation": "relu",
        "initializer": "glorot_uniform",
        "regularizer": "l2",
        "constraint": "non_neg",
        "dtype": "float32",
    }[param.type]


def _example(a: Analysis, inputs: tuple[Input, ...], keywords: tuple[Keyword, ...]) -> Example:
    example, decl = a.decl.example, a.decl
    given = example.params
    args = {}
    for name, param in a.params.items():
        if name in given and isinstance(given[name], str) and param.type in OBJECT_TYPES:
            args[name] = a.code("example", "params", name)  # the code that makes the object
        elif name in given:
            args[name] = given[name]
        elif not param.required:
            args[name] = param.default
        else:
            args[name] = example_value(param)
    if decl.random and args.get("seed") is None:
        args["seed"] = 1337  # reproducible random tests
    args.update({k: v for k, v in given.items() if k not in a.params})  # base class arguments

    shapes = example.input_shape
    if isinstance(shapes, dict):
        input_shapes = {i.name: tuple(shapes[i.name]) for i in inputs}
    elif shapes is not None:
        input_shapes = {inputs[0].name: tuple(shapes)}
    else:
        input_shapes = {
            i.name: (2,) + (4,) * (max(i.rank or i.min_rank or 2, 1) - 1) for i in inputs
        }
    dtype = example.input_dtype
    input_dtypes = {
        i.name: (
            dtype[i.name]
            if isinstance(dtype, dict) and i.name in dtype
            else dtype if isinstance(dtype, str) else i.dtype or "float32"
        )
        for i in inputs
    }
    for k in keywords:  # a tensor keyword's stated value: its declared dtype
        if k.type == "tensor" and k.name in example.call_args:
            input_dtypes[k.name] = a.keywords[k.name].dtype or "float32"
    stated = example.inputs
    if stated is not None and len(inputs) == 1:
        stated = {inputs[0].name: stated}
    return Example(
        given="example" in a.doc.data,
        params=dict(given),
        args=args,
        input_shape=tuple(shapes) if isinstance(shapes, list) else None,
        input_shapes=input_shapes,
        input_dtypes=input_dtypes,
        call_args=dict(example.call_args),
        input_range=tuple(example.input_range) if example.input_range is not None else None,
        inputs=stated,
        weights=dict(example.weights),
        expected=example.expected,
        expected_training=example.expected_training,
        reference=a.code("example", "reference") if example.reference is not None else None,
        atol=example.atol,
        statistics=tuple(
            Statistic(s.of, a.code("example", "statistics", i, "of"), s.mean)
            for i, s in enumerate(example.statistics)
        ),
    )
