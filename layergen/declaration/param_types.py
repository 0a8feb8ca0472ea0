"""The param types of a declaration (`params: {rate: {type: float}}`, spec-format.md `params`):
one frozen row each, which every stage reads. The pydantic model takes the names, the
example and `new --params` the values, the generated class stores, saves and documents a
param by its row, and `sync`, `adopt` and `tests` read a literal type back from Python code
(`literals.py`, over the rows that are literal). A new param type is a new row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..keras_names import ACTIVATIONS, CONSTRAINTS, INITIALIZERS, REGULARIZERS


@dataclass(frozen=True)
class ParamKind:
    name: str  # as a declaration writes it
    doc: str = ""  # how the class's docstring says it ("": its name)
    # A required param's value in the generated example, a list as a tuple (None for the
    # numbers: their bounds decide it, `ir.example_value`).
    example: Any = None
    # A literal type: the kinds of Python value it holds (`int`, `float`, `bool`, `str`; of its
    # items, for a list type), stored as given (`self.rate = rate`), saved as they are, and read
    # back from a Python default by them (`literals.literal_type`). `float` holds ints too, as
    # Keras's float arguments take `1` for `1.0`; no type holds a bool as a number.
    holds: frozenset[str] = frozenset()
    items: bool = False  # a list of such values (a tuple in Python code reads as one)
    # The Keras module that gets and saves it (`keras.activations`): stored with its `get`,
    # saved with its `serialize`, the module `check` reads a config's helper from; and the
    # names of it a declaration may write (`keras_names.py`: generating never imports Keras).
    keras_module: str | None = None
    names: frozenset[str] = frozenset()
    # An object the caller makes (a layer, a function), not a literal: saved with
    # `keras.saving.serialize_keras_object` (as `keras.layers.Wrapper` does), which
    # `from_config` undoes; its example is code, its only default null.
    made: bool = False

    @property
    def literal(self) -> bool:
        return bool(self.holds)

    @property
    def said(self) -> str:
        return self.doc or self.name

    def example_value(self) -> Any:
        """The example's value, a new list for a list type (the row stays as it is)."""
        return list(self.example) if isinstance(self.example, tuple) else self.example

    def stored(self, name: str) -> str:
        """What `__init__` keeps of the argument `name`."""
        return f"keras.{self.keras_module}.get({name})" if self.keras_module else name

    def saved(self, name: str) -> str:
        """What `get_config` writes of the attribute `name`."""
        if self.keras_module:
            return f"keras.{self.keras_module}.serialize(self.{name})"
        if self.made:
            return f"keras.saving.serialize_keras_object(self.{name})"
        return f"self.{name}"


PARAM_TYPES = (
    ParamKind("int", holds=frozenset({"int"})),
    ParamKind("float", holds=frozenset({"int", "float"})),
    ParamKind("bool", example=True, holds=frozenset({"bool"})),
    ParamKind("str", example="a", holds=frozenset({"str"})),
    ParamKind("list[int]", example=(4, 4), holds=frozenset({"int"}), items=True),
    ParamKind("list[float]", example=(0.5, 0.5), holds=frozenset({"int", "float"}), items=True),
    ParamKind("list[str]", example=("a",), holds=frozenset({"str"}), items=True),
    ParamKind("list[bool]", example=(True, False), holds=frozenset({"bool"}), items=True),
    # Whatever a narrower list says nothing of: lists of lists, `None`s (keras-hub's
    # Gemma3n `sscp_conv_kernel_size=[[3, 3], [3, 3]]`, Gemma4's `output_shape=[None, 2, 4]`).
    ParamKind(
        "list",
        "list (of numbers, `None`s or such lists)",
        ((1, 1),),
        holds=frozenset({"int", "float", "None", "list"}),
        items=True,
    ),
    ParamKind(
        "activation",
        "activation function; `None` means linear",
        "relu",
        keras_module="activations",
        names=ACTIVATIONS,
    ),
    ParamKind(
        "initializer",
        "initializer",
        "glorot_uniform",
        keras_module="initializers",
        names=INITIALIZERS,
    ),
    ParamKind(
        "regularizer",
        "regularizer, or `None`",
        "l2",
        keras_module="regularizers",
        names=REGULARIZERS,
    ),
    ParamKind(
        "constraint",
        "constraint, or `None`",
        "non_neg",
        keras_module="constraints",
        names=CONSTRAINTS,
    ),
    ParamKind("dtype", example="float32"),
    ParamKind("layer", "a Keras layer", made=True),
    ParamKind("callable", "a callable", made=True),
)
BY_NAME = {row.name: row for row in PARAM_TYPES}
NAMES = tuple(BY_NAME)
# The types a Keras module gets and saves, each with the names of it a declaration may write.
IDENTIFIERS = {row.name: row.names for row in PARAM_TYPES if row.keras_module}
