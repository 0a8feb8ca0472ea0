"""`unbuilt-sublayer`: a sublayer with weights not built in `build`, where loading needs it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..source import ClassInfo, SourceFile, is_super_call, self_attribute, self_name, walk
from .base import Finding, Rule, Run, at
from .common import sublayer_classes, weight_calls

RULE = Rule(
    "unbuilt-sublayer",
    "error",
    "a sublayer with weights is not built in `build`, and `compute_output_shape` is defined",
    "`load_model` builds each layer from its saved input shape, then loads the weights. A layer that defines\n"
    "`compute_output_shape` is not run on the way, so a sublayer its `build` leaves alone has no variables yet\n"
    "and loading fails (\"Layer 'dense' was never built\"). Keras warns about it at load time.",
    "def __init__(self, units, **kwargs):\n    super().__init__(**kwargs)\n    self.dense = keras.layers.Dense(units, dtype=self.dtype_policy)\n\n"
    "def call(self, x):\n    return self.dense(x)\n\ndef compute_output_shape(self, input_shape):\n    return (*input_shape[:-1], self.units)",
    "def build(self, input_shape):\n    self.dense.build(input_shape)",
    keras3_only=True,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    """Sublayers with weights that `build` never builds, in a layer that defines its output
    shape: loading then never runs `call` either, so their weights have nowhere to go."""
    owners = [cls, *cls.parents]
    if not cls.keras3 or cls.parent_opaque:
        return  # a Keras parent other than Layer (or one we cannot read) may build them
    if not any({"compute_output_shape", "compute_output_spec"} & o.methods.keys() for o in owners):
        return  # Keras traces `call` when it loads the model, which builds every sublayer
    builds = [o.methods["build"] for o in owners if "build" in o.methods]
    built, reflective = _run_on_load(owners)
    init = cls.methods.get("__init__")
    for node in walk(init) if init is not None else ():  # built where it is made
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "build"
        ):
            built.add(self_attribute(node.func.value, self_name(init)))
    if reflective:
        return
    unbuilt = {
        attr: created
        for attr, created in sublayer_classes(source, cls, run).items()
        if attr not in built and any(_has_weights(*pair, run) for pair in created.items())
    }
    if unbuilt:
        first, *more = sorted(unbuilt)
        names = ", ".join(f"`{attr}`" for attr in [first, *more])
        yield at(
            source,
            builds[0] if builds and builds[0] in cls.methods.values() else cls.node,
            "unbuilt-sublayer",
            f"sublayer{'s' if more else ''} {names} {'are' if more else 'is'} never built in "
            f"`build`: `load_model` cannot restore {'their' if more else 'its'} weights "
            "(it defines its output shape, so loading does not run `call`)",
            f"build it in `build(input_shape)`, such as `self.{first}.build(input_shape)`",
        )


# Built-in layers that own variables (a weightless one, such as Dropout, loads unbuilt fine).
WEIGHTED_LAYERS = frozenset(
    [
        "Dense",
        "EinsumDense",
        "Embedding",
        "Conv1D",
        "Conv2D",
        "Conv3D",
        "Conv1DTranspose",
        "Conv2DTranspose",
        "Conv3DTranspose",
        "DepthwiseConv1D",
        "DepthwiseConv2D",
        "SeparableConv1D",
        "SeparableConv2D",
        "BatchNormalization",
        "LayerNormalization",
        "GroupNormalization",
        "RMSNormalization",
        "MultiHeadAttention",
        "GroupedQueryAttention",
        "SimpleRNN",
        "LSTM",
        "GRU",
        "ConvLSTM1D",
        "ConvLSTM2D",
        "ConvLSTM3D",
        "PReLU",
    ]
)


OUTPUT_SHAPE = ("compute_output_shape", "compute_output_spec")


def _run_on_load(owners: list[ClassInfo]) -> tuple[set[str], bool]:
    """What loading builds: every attribute `build` reads, and what the methods it runs
    read (`self.call(...)`, and the parent's through `super().call(...)`); of
    `compute_output_shape`, only what it runs (`self.call(zeros)` builds every sublayer
    `call` uses, `self.dense(x)` builds `dense`; `self.dense.compute_output_shape(...)`
    builds nothing). Also whether one of them reads `self` by name (`getattr`)."""

    def method(name: str, after: int = -1):
        """The owner index and function `self.name` (or, from owner `after`, `super().name`) runs."""
        return next(
            ((i, o.methods[name]) for i, o in enumerate(owners) if i > after and name in o.methods),
            None,
        )

    built, reflective, seen = set(), False, set()
    todo = [(i, o.methods["build"], True) for i, o in enumerate(owners) if "build" in o.methods]
    todo += [
        (i, o.methods[m], False)
        for i, o in enumerate(owners)
        for m in OUTPUT_SHAPE
        if m in o.methods
    ]
    while todo:
        index, function, reads = todo.pop()
        if (id(function), reads) in seen:
            continue
        seen.add((id(function), reads))
        me = self_name(function)
        calls = {id(c.func): c for c in walk(function) if isinstance(c, ast.Call)}
        for node in walk(function):
            if isinstance(node, ast.Name) and node.id in ("getattr", "vars", "setattr"):
                reflective = reflective or reads
            if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
                continue
            attr = self_attribute(node, me)
            call = calls.get(id(node))
            if attr and (reads or call is not None):
                built.add(attr)
                runs = method(attr)
            else:
                runs = method(node.attr, index) if is_super_call(call, node.attr) else None
            if runs is not None:
                todo.append((*runs, True))
    return built, reflective


def _has_weights(name: str, cls: ClassInfo | None, run: Run, seen: frozenset = frozenset()) -> bool:
    """Whether a layer class owns variables; False when we cannot tell."""
    if name in WEIGHTED_LAYERS and cls is None:
        return True
    if cls is None or cls.kind != "layer" or id(cls) in seen:
        return False
    owners = [cls, *cls.parents]
    if any(  # weights made in `__init__` exist before any build
        next(weight_calls(f), None) for o in owners for m, f in o.methods.items() if m != "__init__"
    ):
        return True
    held = sublayer_classes(run.homes[id(cls)], cls, run)
    return any(
        _has_weights(*pair, run, seen | {id(cls)})
        for created in held.values()
        for pair in created.items()
    )
