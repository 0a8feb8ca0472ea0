"""What a declaration section is (one module each under `sections/`, listed in
`sections/__init__.py`): a frozen row that builds its piece of the IR from its part of the
declaration and a `Scope`, says its render context, names its generated tests and its
template partial. Building is pure: it returns the piece (None when absent or broken) and
its located diagnostics, and touches no analyzer state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from ...diagnostics import Diagnostic, did_you_mean
from ..code import Code, parse, resolve
from ..ir import Shape
from ..yamlfile import Document, Pos

# Names code may read but not assign: layergen writes `self.units` for `units` into it, and
# `ops.`/`keras.` around it.
KEPT_BINDINGS = frozenset(["self", "ops", "keras"])

Raw = TypeVar("Raw")
Piece = TypeVar("Piece")
Built = tuple[Piece | None, tuple[Diagnostic, ...]]


@dataclass(frozen=True)
class Scope:
    """The names of one declaration, resolved once before any section is built: what a
    snippet of a section may read."""

    doc: Document  # where each key and value was written
    inputs: frozenset[str]  # the tensor inputs
    params: frozenset[str]  # with `seed` for a random layer
    members: frozenset[str]  # params, weights, sublayers, ops, methods
    imported: frozenset[str]  # bound by the declaration's `imports`
    known: frozenset[str]  # read anywhere: `ops`, `keras`, `self`, builtins, imported, ignored

    def name_problems(
        self,
        code: Code,
        local: set[str] | frozenset[str],
        members: set[str] | frozenset[str],
        what: str = "name",
        bare_word: tuple[str, str] | None = None,
    ) -> list[Diagnostic]:
        """A resolved snippet's names it may not assign or does not know. `bare_word`:
        (argument, word) where the snippet is one word an argument may have meant as a string."""
        problems = []
        for bound in code.bound:
            if bound.name in KEPT_BINDINGS:
                line, col = code.locate(bound.node)
                problems.append(
                    Diagnostic(
                        self.doc.path,
                        line,
                        col,
                        "reserved-name",
                        f"the code assigns `{bound.name}`, which the generated code around it uses",
                        f"use another name, such as `{bound.name}_`",
                    )
                )
        for free in code.free:
            if free.name in local or free.name in members or free.name in self.known:
                continue
            in_scope = sorted({*local, *members, "ops", "keras", *self.imported})
            line, col = code.locate(free.node)
            hint = did_you_mean(free.name, in_scope) or (
                f"names in scope here: {', '.join(in_scope) or 'none'}"
            )
            if bare_word is not None:
                arg, word = bare_word
                hint += f"; to pass a string, quote it twice: {arg}: \"'{word}'\""
            problems.append(
                Diagnostic(
                    self.doc.path, line, col, "unknown-name", f"unknown {what} `{free.name}`", hint
                )
            )
        return problems

    def shape(
        self, loc: tuple, value: Any, local: frozenset[str], members: frozenset[str]
    ) -> Built[Shape]:
        """The shape written at `loc` (an expression, or a list of dims), its names checked."""
        what = "name in shape"
        if not isinstance(value, list):
            code, problems = self._expression(loc, str(value), local, members, what)
            return (Shape(code) if code is not None else None), problems
        # Each dim is checked where it was written, then the tuple is built from them.
        dims: list[int | Code | None] = []
        problems: tuple[Diagnostic, ...] = ()
        for i, item in enumerate(value):
            if not isinstance(item, str):
                dims.append(item)
                continue
            dim, found = self._expression(
                loc + (i,), item, local, members, what, prefix="(", suffix=",)"
            )
            dims.append(dim)
            problems += found
        if None in dims:
            return None, problems
        text = "(" + "".join(f"{item}\n, " for item in value) + ")"  # a comment ends its line
        where = self.doc.pos(loc)
        whole = parse(text, Pos(where.line, where.col), self.doc.path, expression=True)
        if isinstance(whole, Diagnostic):
            return None, problems + (whole,)
        resolve([whole])  # its names were checked dim by dim
        return Shape(whole, tuple(dims)), problems

    def _expression(
        self,
        loc: tuple,
        text: str,
        local: frozenset[str],
        members: frozenset[str],
        what: str,
        *,
        prefix: str = "",
        suffix: str = "",
    ) -> Built[Code]:
        code = parse(
            text, self.doc.pos(loc), self.doc.path, expression=True, prefix=prefix, suffix=suffix
        )
        if isinstance(code, Diagnostic):
            return None, (code,)
        resolve([code])
        return code, tuple(self.name_problems(code, local, members, what))


@dataclass(frozen=True)
class Section(Generic[Raw, Piece]):
    """One declaration section, in every stage."""

    key: str  # its key in the declaration (`noise:`), the attribute of `model.Declaration`
    # Its piece of the IR from its part of the declaration (None: not declared), or the
    # located problems: a pure function of its arguments.
    build: Callable[[Raw | None, Scope], Built[Piece]]
    # What the generated tests' facts (`render/layer_facts.py`) say of its piece; `shape`
    # writes a declared shape's code as the tests' tuple over the input shapes.
    context: Callable[[Piece | None, Callable[[Code], str]], dict[str, Any]]
    # The builders of its generated tests (`render/test_builders.py`), by name.
    tests: Sequence[str]
    # Its template partial, and the generated code that includes it: `support`, the
    # helpers its generated tests call; `__init__`, lines of the class's `__init__`
    # (included where its piece is not None).
    partial: str
    partial_in: Literal["support", "__init__"] = "support"
    # What its `__init__` partial reads of its piece, beside the class's own context.
    layer: Callable[[Piece], dict[str, Any]] | None = None
