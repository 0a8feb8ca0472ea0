"""Merge a new generation into a file a person may have edited, member by member.

Three versions of a file meet here: `base`, what layergen generated last time
(kept in the lock file); `current`, the file as it is on disk; and `new`, what
layergen generates now. Each named member (an import, a function, a class, and
inside a class each method, its docstring and its header) is handled alone:

- untouched since `base`: the new version replaces it;
- edited by a person, unchanged by the generator: the person's version stays;
- changed on both sides: a line-based 3-way merge, or else a conflict, in which
  case the person's version stays and the generated one is reported;
- added by a person: it stays, where it was;
- new in the generation: it is added after the member it follows in `new`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import libcst as cst

from .diff3 import merge3

Prefer = Literal["merge", "generated", "current"]
_EMPTY = cst.Module([])


@dataclass(frozen=True)
class Conflict:
    member: str  # "ScaledDense.call", "import keras", ...
    line: int  # where the person's version starts in the current file
    generated: str  # the generated version, for the .rej file


@dataclass
class Merged:
    text: str
    conflicts: list[Conflict] = field(default_factory=list)


def code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def _key(node: cst.CSTNode, in_class: bool) -> str:
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
        statement = node.body[0]
        if isinstance(statement, cst.Expr) and isinstance(statement.value, (cst.SimpleString, cst.ConcatenatedString)):
            return "<docstring>"  # only ever the first statement in generated code
    return code(node.with_changes(leading_lines=())).strip()


def _units(body) -> list[tuple[str, cst.CSTNode]]:
    units, seen = [], set()
    for node in body:
        key = _key(node, False)
        while key in seen:  # a repeated statement keeps its own place
            key += "'"
        seen.add(key)
        units.append((key, node))
    return units


def merge(base: str | None, current: str, new: str, *, prefer: Prefer = "merge") -> Merged:
    """The merged text of a file; `prefer` settles conflicts ("merge": keep the person's, report)."""
    if current == new:
        return Merged(current)
    if current == base:
        return Merged(new)  # nobody touched the file since it was generated
    if base is None:
        base = ""  # never generated before: everything in the file is the person's
    try:
        current_tree = cst.parse_module(current)
    except cst.ParserSyntaxError:
        if prefer == "generated":
            return Merged(new)
        return Merged(current, [Conflict("<file>", 1, new)])
    merger = _Merger(prefer)
    base_tree = cst.parse_module(base) if base else cst.parse_module("")
    new_tree = cst.parse_module(new)
    body = merger.members(_units(base_tree.body), _units(current_tree.body), _units(new_tree.body), "")
    result = current_tree.with_changes(body=body)
    if base_tree.header != new_tree.header and current_tree.header == base_tree.header:
        result = result.with_changes(header=new_tree.header)
    merged = Merged(result.code, merger.conflicts)
    if merger.conflicts:
        merged.conflicts = [_with_line(c, current_tree, result) for c in merger.conflicts]
    return merged


def _with_line(conflict: Conflict, current_tree: cst.Module, result: cst.Module) -> Conflict:
    """Find the line of the conflicting member in the merged file (only on conflicts)."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(result, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    name = conflict.member.split(".")
    for node, position in positions.items():
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name[-1]:
            return Conflict(conflict.member, position.start.line, conflict.generated)
    return conflict


class _Merger:
    def __init__(self, prefer: Prefer):
        self.prefer = prefer
        self.conflicts: list[Conflict] = []

    def members(self, base_units, current_units, new_units, owner: str) -> list:
        base, new = dict(base_units), dict(new_units)
        current_keys = {k for k, _ in current_units}
        out: list[tuple[str, cst.CSTNode]] = []
        for key, node in current_units:
            if key in new:
                out.append((key, self.one(owner + key, base.get(key), node, new[key])))
            elif key in base and code(node) == code(base[key]):
                continue  # the generator dropped it and nobody had touched it
            else:
                out.append((key, node))  # a person's member, or one a person edited
        for index, (key, node) in enumerate(new_units):
            if key in current_keys:
                continue
            if key in base and code(base[key]) == code(node):
                continue  # a person deleted a generated member: it stays deleted
            if key in base:
                self.conflict(owner + key, node)  # deleted by hand, changed by the generator
                continue
            after = next((k for k, _ in reversed(new_units[:index]) if any(k == o for o, _ in out)), None)
            position = 0 if after is None else next(i for i, (o, _) in enumerate(out) if o == after) + 1
            out.insert(position, (key, node))
        return [node for _, node in out]

    def one(self, name: str, base, current, new):
        if code(current) == code(new):
            return current
        if base is not None and code(current) == code(base):
            return new  # untouched by hand
        if base is not None and code(new) == code(base):
            return current  # only the person changed it
        if isinstance(current, cst.ClassDef) and isinstance(new, cst.ClassDef):
            return self.class_(name, base, current, new)
        return self.text(name, base, current, new)

    def class_(self, name: str, base, current: cst.ClassDef, new: cst.ClassDef) -> cst.ClassDef:
        """A class merges member by member, its header (decorators, bases) as one more member."""
        header = lambda c: c.with_changes(body=cst.IndentedBlock([]))
        merged_header = self.one(name + ".<header>", header(base) if base is not None else None, header(current), header(new))
        members = self.members(
            _units(base.body.body) if base is not None else [],
            _units(current.body.body),
            _units(new.body.body),
            name + ".",
        )
        return merged_header.with_changes(body=current.body.with_changes(body=members))

    def text(self, name: str, base, current, new):
        if self.prefer == "generated":
            return new
        if self.prefer == "current" or base is None:
            if self.prefer == "merge":
                self.conflict(name, new)
            return current
        merged = merge3(
            code(base).splitlines(keepends=True), code(current).splitlines(keepends=True), code(new).splitlines(keepends=True)
        )
        if merged is not None:
            try:
                (node,) = cst.parse_module("".join(merged)).body
                return node
            except (cst.ParserSyntaxError, ValueError):
                pass
        self.conflict(name, new)
        return current

    def conflict(self, name: str, generated) -> None:
        self.conflicts.append(Conflict(name, 1, code(generated)))
