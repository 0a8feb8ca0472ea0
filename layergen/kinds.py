"""The kinds of class a declaration can generate: one row each, and every stage reads it.

A declaration names its class under its kind's key (`loss: SmoothL1`), lives in a file with
the kind as suffix (`smooth_l1.loss.yaml`), and renders through the row's templates. Adding a
kind means one row here and its test template (tests/unit/test_kinds.py adds one that way).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .keras_names import LAYER_ATTRIBUTES

# The rows' templates ship inside the package, as package data.
TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Kind:
    name: str  # the declaration's key and the file suffix: `*.<name>.yaml`
    base: str  # the Keras class the generated one extends
    method: str  # what the declaration's `call` becomes
    arguments: tuple[str, ...]  # the names that method takes (a layer declares its inputs)
    signature: str  # how the method's `def` writes them
    reserved: frozenset[str]  # attributes the base class has: no param may shadow them
    base_kwargs: str | None  # the base constructor's own arguments, passed on; None: none
    template: str
    test_template: str
    test_shape: tuple[int, ...]  # the example input of the generated tests
    summary: str  # for the JSON Schema: what the key generates
    extra_methods: frozenset[str] = frozenset()  # written beside __init__, method, get_config

    @property
    def generated_methods(self) -> frozenset[str]:
        """What the template writes: a declared method of one of these names replaces it."""
        return frozenset(["__init__", self.method, "get_config"]) | self.extra_methods

    @property
    def suffix(self) -> str:
        return f".{self.name}.yaml"


_OBJECT_METHODS = frozenset(["get_config", "from_config"])

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in [
        Kind(
            name="layer",
            base="keras.layers.Layer",
            method="call",
            arguments=(),
            signature="",
            reserved=LAYER_ATTRIBUTES,
            base_kwargs="`name`, `dtype` and the like",
            template="layer.py.j2",
            test_template="layer_test.py.j2",
            test_shape=(4, 8),
            summary="Generate a keras.layers.Layer subclass of this name (PascalCase).",
            extra_methods=frozenset(
                ["build", "compute_mask", "compute_output_shape", "compute_output_spec"]
            ),
        ),
        Kind(
            name="loss",
            base="keras.losses.Loss",
            method="call",
            arguments=("y_true", "y_pred"),
            signature="y_true, y_pred",
            reserved=_OBJECT_METHODS | {"name", "reduction", "dtype", "call"},
            base_kwargs="`name`, `reduction` and `dtype` of `keras.losses.Loss`",
            template="object.py.j2",
            test_template="loss_test.py.j2",
            test_shape=(4, 10),
            summary="Generate a keras.losses.Loss subclass of this name; `call` sees y_true, y_pred.",
        ),
        Kind(
            name="constraint",
            base="keras.constraints.Constraint",
            method="__call__",
            arguments=("w",),
            signature="w",
            reserved=_OBJECT_METHODS,
            base_kwargs=None,
            template="object.py.j2",
            test_template="constraint_test.py.j2",
            test_shape=(3, 3),
            summary="Generate a keras.constraints.Constraint of this name; `call` sees w.",
        ),
        Kind(
            name="regularizer",
            base="keras.regularizers.Regularizer",
            method="__call__",
            arguments=("x",),
            signature="x",
            reserved=_OBJECT_METHODS,
            base_kwargs=None,
            template="object.py.j2",
            test_template="regularizer_test.py.j2",
            test_shape=(3, 3),
            summary="Generate a keras.regularizers.Regularizer of this name; `call` sees x.",
        ),
        Kind(
            name="initializer",
            base="keras.initializers.Initializer",
            method="__call__",
            arguments=("shape", "dtype"),
            signature="shape, dtype=None",
            reserved=_OBJECT_METHODS | {"clone"},
            base_kwargs=None,
            template="object.py.j2",
            test_template="initializer_test.py.j2",
            test_shape=(3, 3),
            summary=(
                "Generate a keras.initializers.Initializer of this name;"
                " `call` sees shape, dtype."
            ),
        ),
    ]
}


# The declaration keys only a layer takes (another kind's declaration with one is an error).
LAYER_ONLY_KEYS = (
    "inputs",
    "weights",
    "sublayers",
    "losses",
    "updates",
    "masking",
    "output_shape",
    "outputs",
    "noise",
    "output_type",
)


def declaration_files_pattern() -> str:
    """The regular expression of every file a `generate --check` depends on (pre-commit, watch)."""
    return rf"\.({'|'.join(KINDS)})\.yaml$|\.py$|(^|/)pyproject\.toml$"
