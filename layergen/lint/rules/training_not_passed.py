"""`training-not-passed`: `training` not passed on to a sublayer that behaves differently in training."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..edits import AddKeywords
from ..source import ClassInfo, SourceFile, self_attribute, self_name, walk
from .base import Finding, Rule, Run, at
from .common import sublayer_classes

# Built-in layers whose output depends on `training`.
TRAINING_LAYERS = frozenset(
    [
        "Dropout",
        "SpatialDropout1D",
        "SpatialDropout2D",
        "SpatialDropout3D",
        "GaussianDropout",
        "GaussianNoise",
        "AlphaDropout",
        "BatchNormalization",
        "MultiHeadAttention",
        "GroupQueryAttention",
        "GroupedQueryAttention",
        "Attention",
        "AdditiveAttention",
        "RNN",
        "LSTM",
        "GRU",
        "SimpleRNN",
        "ConvLSTM1D",
        "ConvLSTM2D",
        "ConvLSTM3D",
        "Bidirectional",
        "TimeDistributed",
        "Sequential",
        "RandomFlip",
        "RandomRotation",
        "RandomZoom",
        "RandomTranslation",
        "RandomContrast",
        "RandomCrop",
        "RandomBrightness",
        "ActivityRegularization",
    ]
)


RULE = Rule(
    "training-not-passed",
    "warning",
    "`training` is not passed to a sublayer that behaves differently in training",
    "Dropout, BatchNormalization, noise and augmentation layers (and layers of this project whose `call` takes\n"
    "`training`) need the flag. Keras 3 fills it in from the outer call only when the outer layer is itself\n"
    "called as a layer; passing it on is what Keras's own layers do and keeps `call` correct when it is called\n"
    "directly (a subclass, a custom train step).",
    "def call(self, x, training=None):\n    return self.dropout(self.dense(x))",
    "def call(self, x, training=None):\n    return self.dropout(self.dense(x), training=training)",
    fixable=True,
    default=False,
    layers_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    call = cls.methods.get("call")
    if call is None:
        return
    me = self_name(call)
    held = {
        attr: names
        for attr, names in sublayer_classes(source, cls, run).items()
        if any(_training_sensitive(*pair, run) for pair in names.items())
    }
    if not held:
        return
    training = next(
        (a.arg for a in [*call.args.args, *call.args.kwonlyargs] if a.arg == "training"), None
    )
    loops: dict[str, str] = {}  # `for block in self.blocks:` -> block: blocks
    for node in walk(call):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            iterated = (
                node.iter.args[0]
                if isinstance(node.iter, ast.Call) and node.iter.args
                else node.iter
            )
            attr = self_attribute(
                iterated.value if isinstance(iterated, ast.Subscript) else iterated, me
            )
            if attr:
                loops[node.target.id] = attr
    for node in walk(call):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.value if isinstance(node.func, ast.Subscript) else node.func
        attr = self_attribute(func, me) or (
            loops.get(func.id) if isinstance(func, ast.Name) else None
        )
        if (
            attr not in held
            or len(node.args) > 1
            or any(k.arg in ("training", None) for k in node.keywords)
        ):
            continue
        hint = (
            f"pass `training={training}`"
            if training
            else "add `training=None` to `call` and pass it on"
        )
        yield at(
            source,
            node,
            "training-not-passed",
            f"`training` is not passed to `{'/'.join(sorted(held[attr]))}`, "
            "which behaves differently in training",
            hint,
            fix=(
                AddKeywords((node.lineno, source.column(node)), (("training", training),))
                if training
                else None
            ),
        )


def _training_sensitive(name: str, cls: ClassInfo | None, run: Run) -> bool:
    if name in TRAINING_LAYERS and cls is None:
        return True
    if cls is None or cls.kind != "layer":
        return False
    for owner in [cls, *cls.parents]:
        call = owner.methods.get("call")
        if call is not None:  # it reads `training` (EinsumDense takes it and ignores it)
            return any(isinstance(n, ast.Name) and n.id == "training" for n in walk(call))
    return False
