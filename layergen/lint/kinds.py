"""Which classes are Keras layers, losses, constraints, regularizers or initializers.

A base is resolved through the file's imports; a base defined in a file of the same
run, in the module its import names (see `_find`), is followed to its own bases.
"""

from __future__ import annotations

import functools
from pathlib import PurePath

from ..kinds import KINDS
from .source import ClassInfo, SourceFile

# Where Keras keeps a kind's classes besides its base's package (kinds.py's rows), and the
# classes of a kind besides its base that Keras exports at its top.
_ALSO_UNDER = {"layer": ("keras.engine.", "keras.src.engine.")}
_ALSO_TOP_LEVEL = {
    "keras.Model": "layer",
    "keras.Sequential": "layer",
    "keras.models.Model": "layer",
    "keras.models.Sequential": "layer",
}


def _families() -> tuple[tuple[tuple[str, ...], str, str], ...]:
    """(package prefixes, kind, base class) for each kind of kinds.py: `keras.layers.Dense`
    (after tf.keras / tf_keras are folded into `keras.`) is a layer."""
    found = []
    for kind in KINDS.values():
        package, base = kind.base.rsplit(".", 1)  # keras.layers, Layer
        inner = f"keras.src.{package.removeprefix('keras.')}."
        found.append(((f"{package}.", inner, *_ALSO_UNDER.get(kind.name, ())), kind.name, base))
    return tuple(found)


FAMILIES = _families()
TOP_LEVEL = {f"keras.{base}": kind for _, kind, base in FAMILIES} | _ALSO_TOP_LEVEL
KERAS2_PREFIXES = ("tensorflow.python.keras.", "tensorflow.keras.", "tf_keras.")
PUBLIC = ("keras.", "tensorflow.", "tf_keras.", "torch.", "flax.", "jax.")
# Classes of these are not Keras classes, whatever methods they have (after keras_base).
OTHER_FRAMEWORKS = ("torch.", "tensorflow.", "jax.", "flax.", "haiku.", "equinox.", "numpy.")


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


def classify(files: list[SourceFile]) -> dict[int, list[ClassInfo]]:
    """Set kind, keras3, parents and parent_opaque on every class of the run; return the
    direct subclasses of each class read (by its id: two classes may share a name)."""
    subclasses: dict[int, list[ClassInfo]] = {}
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
            parent = None if known and known[1] else find_class(by_name, source, base)
            known = known if parent is None else None
            if known:
                kind, plain, keras3 = known
                cls.kind = cls.kind or kind
                cls.keras3 = cls.keras3 and keras3
                cls.parent_opaque |= not plain
                continue
            if parent is None:
                unknown |= base not in ("", "object", "abc.ABC", "typing.Generic") and not (
                    base.startswith(OTHER_FRAMEWORKS)  # torch.nn.Module, tf.Module: not Keras
                )
                continue
            visit(*parent, active)
            parent_cls = parent[1]
            subclasses.setdefault(id(parent_cls), []).append(cls)
            cls.parents.append(parent_cls)
            cls.parents.extend(p for p in parent_cls.parents if p not in cls.parents)
            if parent_cls.kind:
                cls.kind = cls.kind or parent_cls.kind
                cls.keras3 = cls.keras3 and parent_cls.keras3
                cls.parent_opaque |= parent_cls.parent_opaque
        if unknown:
            cls.parent_opaque = True
            cls.keras3 = cls.keras3 and not source.keras2  # a base we cannot read: the file's Keras
            # A base we cannot read: a layer if it looks like one (Keras's call + build or
            # get_config), in a file of Keras, not one that only imports another framework.
            if (
                cls.kind is None
                and "call" in cls.methods
                and ({"build", "get_config"} & cls.methods.keys())
                and not _other_framework(source)
            ):
                cls.kind = "layer"
        active.discard(id(cls))
        done.add(id(cls))

    for source in files:
        for cls in source.classes:
            visit(source, cls, set())
    return subclasses


def _other_framework(source: SourceFile) -> bool:
    """The file imports PyTorch, JAX or Flax, and neither Keras nor TensorFlow."""
    tops = {name.split(".")[0] for name in source.imports.values()}
    return bool(tops & {"torch", "jax", "flax", "haiku", "equinox"}) and not (
        tops & {"keras", "tensorflow", "tf_keras"}
    )


def find_class(by_name, source: SourceFile, base: str):
    """The class of the run that `base` names, by what its import names: the class of that
    name in the module it names (`from pkg.blocks import Block`, `blocks.Block`, `.blocks.Block`),
    else in a module of the package it names (`from pkg import Block`, re-exported), nearest
    first; a class of the same name elsewhere is another class. An undotted name is the
    file's own class, or one of its `import *`."""
    if "." not in base:
        for pair in by_name.get(base, []):
            if pair[0] is source:
                return pair
        star = source.imports.get("*")
        if star is None:
            return None
        base = f"{star[:-2]}.{base}"
    if base.startswith(PUBLIC) and not base.startswith("keras.src."):
        return None  # Keras's (or another framework's) public name: not a file of the run
    *wanted, short = _absolute(source, base)
    wanted = tuple(wanted)
    best = None
    for pair in by_name.get(short, []):
        parts = module_parts(pair[0].path)
        for start in range(len(parts) - len(wanted), -1, -1):
            if parts[start : start + len(wanted)] == wanted:
                below = len(parts) - start - len(wanted)  # 0: the very module named
                if best is None or below < best[0]:
                    best = (below, pair)
                break
    return best[1] if best else None


@functools.lru_cache(maxsize=1 << 16)
def module_parts(path: str) -> tuple[str, ...]:
    """`/src/pkg/blocks.py` -> ("src", "pkg", "blocks"); a package's `__init__.py` is the package."""
    pure = PurePath(path).with_suffix("")
    parts = pure.parts[1:] if pure.anchor else pure.parts
    return parts[:-1] if parts and parts[-1] == "__init__" else parts


def _absolute(source: SourceFile, name: str) -> tuple[str, ...]:
    return absolute(source.path, name)


def absolute(path: str, name: str) -> tuple[str, ...]:
    """`.blocks.Block` in pkg/layer.py -> (..., "pkg", "blocks", "Block"), as module_parts
    spell it. Parts, never a dotted string: a folder's name may hold a dot (`proj-1.0`)."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return tuple(name.split("."))
    package = module_parts(path)
    if not path.endswith("__init__.py"):
        package = package[:-1]
    package = package[: len(package) - (level - 1)]
    return (*package, *name[level:].split("."))
