"""The adopted module: the person's module as it was (after the `check` fixes), with each
member the declaration now owns replaced by its generated version (the person's comments in
it kept); every other byte stays."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..update.merge import with_comments
from .ownership import Ownership


@dataclass
class Share:
    """Lines of the adopted class: generated from the declaration, and the person's."""

    declared: int
    person: int

    @property
    def percent(self) -> int:
        total = self.declared + self.person
        return round(100 * self.declared / total) if total else 0


def adopted_module(original: str, name: str, generated: str, owner: Ownership) -> str:
    module = cst.parse_module(original)
    made = _members(_class(cst.parse_module(generated), name))

    class Replace(cst.CSTTransformer):
        def leave_ClassDef(self, node, updated):
            if node.name.value != name:
                return updated
            body = []
            for member in updated.body.body:
                # A declared member the generated class has no need of (an `__init__` that
                # only calls the base's) stays as the person wrote it.
                if isinstance(member, cst.FunctionDef) and member.name.value in made.keys() & {
                    *owner.declared
                }:
                    # its comments kept in it, as a merge keeps a hand edit's (the same code)
                    member = with_comments(member, made[member.name.value]).with_changes(
                        leading_lines=member.leading_lines
                    )
                body.append(member)
            return updated.with_changes(body=updated.body.with_changes(body=body))

        def visit_ClassDef(self, node):
            return False  # nested classes are the class's own code

    return module.visit(Replace()).code


def share(text: str, name: str, owner: Ownership) -> Share:
    """Lines of the class `name` in `text`: its members the declaration owns (and its
    decorator line, the registration), against everything else in it."""
    module = cst.parse_module(text)
    node = _class(module, name)
    total = len(module.code_for_node(node).strip().splitlines())
    declared = len(node.decorators)
    for member in node.body.body:
        if isinstance(member, cst.FunctionDef) and member.name.value in owner.declared:
            declared += len(
                module.code_for_node(member.with_changes(leading_lines=())).strip().splitlines()
            )
    return Share(declared, total - declared)


def _class(module: cst.Module, name: str) -> cst.ClassDef:
    return next(n for n in module.body if isinstance(n, cst.ClassDef) and n.name.value == name)


def _members(node: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    return {m.name.value: m for m in node.body.body if isinstance(m, cst.FunctionDef)}
