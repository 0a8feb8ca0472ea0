"""Which classes are Keras layers, losses, constraints, regularizers or initializers.

A base is resolved through the file's imports; a base defined in a file of the same
run (a project's own layer, imported from anywhere) is followed to its own bases.
"""

from __future__ import annotations

from .source import ClassInfo, SourceFile

# Keras package prefixes (after tf.keras / tf_keras are folded into `keras.`) -> kind.
FAMILIES = (
    (
        ("keras.layers.", "keras.src.layers.", "keras.engine.", "keras.src.engine."),
        "layer",
        "Layer",
    ),
    (("keras.losses.", "keras.src.losses."), "loss", "Loss"),
    (("keras.constraints.", "keras.src.constraints."), "constraint", "Constraint"),
    (("keras.regularizers.", "keras.src.regularizers."), "regularizer", "Regularizer"),
    (("keras.initializers.", "keras.src.initializers."), "initializer", "Initializer"),
)
TOP_LEVEL = {
    "keras.Layer": "layer",
    "keras.Model": "layer",
    "keras.Sequential": "layer",
    "keras.models.Model": "layer",
    "keras.models.Sequential": "layer",
    "keras.Loss": "loss",
    "keras.Initializer": "initializer",
    "keras.Regularizer": "regularizer",
    "keras.Constraint": "constraint",
}
KERAS2_PREFIXES = ("tensorflow.python.keras.", "tensorflow.keras.", "tf_keras.")


def keras_base(name: str) -> tuple[str, bool, bool] | None:
    """`keras.layers.Dense` -> (kind, plain, keras3); plain: the bare base class (Layer, Loss, ...)."""
    keras3 = True
    for prefix in KERAS2_PREFIXES:
        if name.startswith(prefix):
            name, keras3 = "keras." + name[len(prefix) :], False
    if name in TOP_LEVEL:
        return TOP_LEVEL[name], True, keras3
    for prefixes, kind, plain in FAMILIES:
        if name.startswith(prefixes):
            return kind, name.rsplit(".", 1)[-1] == plain, keras3
    return None


def classify(files: list[SourceFile]) -> None:
    """Set kind, keras3, parents and parent_opaque on every class of the run."""
    by_name: dict[str, list[tuple[SourceFile, ClassInfo]]] = {}
    for source in files:
        for cls in source.classes:
            by_name.setdefault(cls.name, []).append((source, cls))
    done: set[int] = set()

    def visit(source: SourceFile, cls: ClassInfo, active: set[int]) -> None:
        if id(cls) in done or id(cls) in active:
            return
        active.add(id(cls))
        unknown = False
        for base in cls.bases:
            known = keras_base(base)
            # A class read in this run wins (Keras's own source too), except Keras's bare bases.
            parent = None if known and known[1] else _find(by_name, source, base)
            known = known if parent is None else None
            if known:
                kind, plain, keras3 = known
                cls.kind = cls.kind or kind
                cls.keras3 = cls.keras3 and keras3
                cls.parent_opaque |= not plain
                continue
            if parent is None:
                unknown |= base not in ("", "object", "abc.ABC", "typing.Generic")
                continue
            visit(*parent, active)
            parent_cls = parent[1]
            cls.parents.append(parent_cls)
            cls.parents.extend(p for p in parent_cls.parents if p not in cls.parents)
            if parent_cls.kind:
                cls.kind = cls.kind or parent_cls.kind
                cls.keras3 = cls.keras3 and parent_cls.keras3
                cls.parent_opaque |= parent_cls.parent_opaque
        if unknown:
            cls.parent_opaque = True
            cls.keras3 = cls.keras3 and not source.keras2  # a base we cannot read: the file's Keras
            # A base we cannot read: a layer if it looks like one (Keras's call + build or get_config).
            if (
                cls.kind is None
                and "call" in cls.methods
                and ({"build", "get_config"} & cls.methods.keys())
            ):
                cls.kind = "layer"
        active.discard(id(cls))
        done.add(id(cls))

    for source in files:
        for cls in source.classes:
            visit(source, cls, set())


def _find(by_name, source: SourceFile, base: str):
    """A class of the run that `base` names: the same file first, then anywhere by its last name."""
    short = base.rsplit(".", 1)[-1]
    candidates = by_name.get(short, [])
    for pair in candidates:
        if pair[0] is source and "." not in base:
            return pair
    if base.startswith(
        ("keras.", "tensorflow.", "tf_keras.", "torch.", "flax.", "jax.")
    ) and not base.startswith("keras.src."):
        return None
    others = [pair for pair in candidates if pair[0] is not source or "." in base]
    return others[0] if others else None
