"""The typed fixes of `layergen check --fix`: each a small frozen dataclass that says where
it applies (`node`, the libcst node type, and `anchor`, which one of them) and what it does
there (`apply`). The rule that finds the bug picks the fix and its place; `fixes.apply_fixes`
carries out any of them the same way, with no branch for a rule.

A rule that needs a new kind of edit defines its own `Fix` subclass beside it. Each kind is
registered by name, so the check cache can store findings' fixes as plain JSON.

No libcst at import: `layergen check` without `--fix` never loads it.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import libcst as cst

Position = tuple[int, int]  # (line, column), both from 1, of a node's first character
Items = tuple[tuple[str, str], ...]  # (name, code) pairs: keywords, config keys


class Fix:
    """An edit at one node of the file. `node`: the libcst node type it edits ("Call",
    "Dict", "ClassDef", "SimpleStatementLine"); `anchor`: which one, by its position, or
    by the class name for a "ClassDef"; `imports`: modules to import for it."""

    node: ClassVar[str]
    kinds: ClassVar[dict[str, type[Fix]]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        Fix.kinds[cls.__name__] = cls

    @property
    def anchor(self) -> Position | str | int:
        raise NotImplementedError

    @property
    def imports(self) -> tuple[str, ...]:
        return ()

    def apply(self, node: cst.CSTNode, module: cst.Module):
        """The node with the edit made (or a `FlattenSentinel` of statements)."""
        raise NotImplementedError


def as_json(fix: Fix) -> list:
    return [type(fix).__name__, *astuple(fix)]


def from_json(data: list) -> Fix:
    kind, *values = data
    return Fix.kinds[kind](*(_tuples(v) for v in values))


def _tuples(value):
    """JSON gives back lists where the fix had tuples."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


@dataclass(frozen=True)
class AddKeywords(Fix):
    """Keyword arguments added to the call at `position` (before its `**kwargs`)."""

    node: ClassVar[str] = "Call"
    position: Position
    keywords: Items

    @property
    def anchor(self) -> Position:
        return self.position

    def apply(self, node, module):
        from .rewrites import add_keyword

        for name, value in self.keywords:
            node = add_keyword(node, name, value)
        return node


@dataclass(frozen=True)
class AddKeys(Fix):
    """`"key": value` entries added to the dict display at `position`."""

    node: ClassVar[str] = "Dict"
    position: Position
    items: Items

    @property
    def anchor(self) -> Position:
        return self.position

    def apply(self, node, module):
        from .rewrites import add_keys

        return add_keys(node, self.items)


@dataclass(frozen=True)
class SetKeysBeforeReturn(Fix):
    """`name["key"] = value` statements added before the `return` on `line`."""

    node: ClassVar[str] = "SimpleStatementLine"
    line: int
    name: str
    items: Items

    @property
    def anchor(self) -> int:
        return self.line

    def apply(self, node, module):
        import libcst as cst

        if not isinstance(node.body[0], cst.Return):
            return node
        statements = [
            cst.parse_statement(f'{self.name}["{key}"] = {value}\n', module.config_for_parsing)
            for key, value in self.items
        ]
        return cst.FlattenSentinel([*statements, node])


@dataclass(frozen=True)
class AddKwargs(Fix):
    """`**kwargs` added to the class's `__init__` and passed on to `super().__init__`."""

    node: ClassVar[str] = "ClassDef"
    class_name: str

    @property
    def anchor(self) -> str:
        return self.class_name

    def apply(self, node, module):
        from .rewrites import with_kwargs

        return with_kwargs(node)


@dataclass(frozen=True)
class AddGetConfig(Fix):
    """A `get_config` returning `items` added to the class (on the parent's, `with_super`)."""

    node: ClassVar[str] = "ClassDef"
    class_name: str
    items: Items
    with_super: bool

    @property
    def anchor(self) -> str:
        return self.class_name

    def apply(self, node, module):
        from .rewrites import with_get_config

        return with_get_config(node, module, self.items, self.with_super)


@dataclass(frozen=True)
class AddDecorator(Fix):
    """`@decorator` added above the class (and `import keras`, `needs_keras`)."""

    node: ClassVar[str] = "ClassDef"
    class_name: str
    decorator: str
    needs_keras: bool = False

    @property
    def anchor(self) -> str:
        return self.class_name

    @property
    def imports(self) -> tuple[str, ...]:
        return ("keras",) if self.needs_keras else ()

    def apply(self, node, module):
        import libcst as cst

        decorator = cst.Decorator(cst.parse_expression(self.decorator))
        return node.with_changes(decorators=[decorator, *node.decorators])
