"""The attributes of `self` a class's code sets, and those a member reads."""

from __future__ import annotations

import libcst as cst


def attributes_set(node: cst.CSTNode) -> set[str]:
    """The attributes of `self` the class's code assigns anywhere."""
    names: set[str] = set()

    class Assigned(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            _self_attributes(target.target, names)

        def visit_AnnAssign(self, statement: cst.AnnAssign) -> None:
            _self_attributes(statement.target, names)

        def visit_AugAssign(self, statement: cst.AugAssign) -> None:
            _self_attributes(statement.target, names)

    node.visit(Assigned())
    return names


def _self_attributes(target: cst.BaseExpression, names: set[str]) -> None:
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _self_attributes(element.value, names)
    elif (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
    ):
        names.add(target.attr.value)


def attributes_read(node: cst.CSTNode) -> set[str]:
    """The attributes of `self` a member mentions."""
    names: set[str] = set()

    class Read(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> None:
            if isinstance(attribute.value, cst.Name) and attribute.value.value == "self":
                names.add(attribute.attr.value)

    node.visit(Read())
    return names
