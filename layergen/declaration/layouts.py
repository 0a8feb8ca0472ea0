"""Declared layouts: the device mesh axis each dim of a weight is split over.

A weight's `layout` lists one mesh axis (or null: not split) per dim of its shape; a
sublayer's maps the paths of its weights (`kernel`, `dense_a/kernel`) to such lists. The
axes are the project's (`[tool.layergen] mesh-axes`). A layout becomes a key of the
package's `keras.distribution.LayoutMap`, a pattern over the variable paths Keras gives a
layer's weights: `<parents>/<layer name>/<path in the layer>`, the layer's name being the
one Keras gives it by default (`moe_block`, `moe_block_1`, ...).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..diagnostics import did_you_mean
from ..keras_classes import layer_classes

# The module of a folder of declarations that holds its `get_layout_map`.
LAYOUT_MODULE = "layout_map"

# A weight's path inside a layer: names Keras gives variables and layers, joined by `/`.
_SEGMENT = re.compile(r"\w+")

# A problem found in a layout: where (below the layout's key), code, message, hint.
Problem = tuple[tuple, str, str, str | None]


def axis_problems(layout: list[str | None], axes: tuple[str, ...]) -> list[Problem]:
    """Axes that are not the mesh's, or split two dims (a mesh axis splits one dim)."""
    problems: list[Problem] = []
    for i, axis in enumerate(layout):
        if axis is None:
            continue
        if axis not in axes:
            problems.append(
                (
                    (i,),
                    "unknown-axis",
                    f"unknown mesh axis `{axis}`",
                    did_you_mean(axis, axes)
                    or f"the mesh axes ([tool.layergen] mesh-axes): {', '.join(axes)}",
                )
            )
        elif axis in layout[:i]:
            problems.append(
                (
                    (i,),
                    "bad-layout",
                    f"mesh axis `{axis}` already splits another dim of this weight",
                    "a mesh axis splits one dim; write null for the dims it does not split",
                )
            )
    return problems


def rank_problem(layout: list[str | None], rank: int | None) -> Problem | None:
    """A weight's layout has one entry per dim of its declared shape."""
    if rank is None:
        return (
            (),
            "bad-layout",
            "the weight's shape does not say how many dims it has, so no layout can fit it",
            "write the shape's dims out, such as `(x[-1], units)`",
        )
    if len(layout) != rank:
        return (
            (),
            "bad-layout",
            f"the layout has {len(layout)} entries for a weight of {rank}"
            f" dim{'' if rank == 1 else 's'}",
            "one mesh axis (or null) per dim of the weight's shape",
        )
    return None


def path_problem(path: str) -> Problem | None:
    """A sublayer's layout names its weights by their path inside it."""
    if all(_SEGMENT.fullmatch(part) for part in path.split("/")):
        return None
    return (
        (path,),
        "bad-layout",
        f"`{path}` is not the path of a weight inside the sublayer",
        "names joined by `/`, as Keras writes them: `kernel`, `dense_a/kernel`",
    )


def sublayer_name(key: str, args: dict[str, Any]) -> str | None:
    """The name Keras gives a sublayer: its `name` argument when that is a string literal,
    else its key without a leading `_` (layergen passes `name=<key>`, as keras-hub names
    `self._feedforward_output_dense` `feedforward_output_dense`); None when the argument
    is computed."""
    if "name" not in args:
        return key.lstrip("_")
    value = args["name"]
    try:
        value = ast.literal_eval(value) if isinstance(value, str) else value
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) and "/" not in value else None


def default_name(class_name: str) -> str:
    """The name Keras gives a layer of this class by default, before `_1`, `_2`, ... are
    appended (`keras.src.utils.naming.to_snake_case`, copied: generating imports no Keras)."""
    name = re.sub(r"\W+", "", class_name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def name_pattern(class_name: str) -> str:
    """The names Keras gives the layers of a class, one after another: `moe_block`,
    `moe_block_1`, ... (`keras.src.utils.naming.uniquify`)."""
    return re.escape(default_name(class_name)) + r"(?:_\d+)?"


def layout_key(class_name: str, path: str) -> str:
    """The LayoutMap key of a weight with a declared layout. Keras matches keys against a
    variable's path with `re.fullmatch`: this one matches the weight at `path` inside a
    layer of the class named by default, at any depth of a model, and nothing else."""
    inside = "/".join(re.escape(part) for part in path.split("/"))
    return f"(?:.*/)?{name_pattern(class_name)}/{inside}"


def keras_layer_clash(class_name: str) -> str | None:
    """The Keras layer whose layers Keras could name as it names this class's (`Dense` and
    `keras.layers.Dense`: `dense`, `dense_1`, ...), or None."""
    ours = default_name(class_name)
    for dotted in sorted(layer_classes()):
        theirs = default_name(dotted.rpartition(".")[2])
        if re.fullmatch(name_pattern(class_name), theirs) or re.fullmatch(
            re.escape(theirs) + r"(?:_\d+)?", ours
        ):
            return dotted
    return None
