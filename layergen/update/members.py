"""One member of a module's text, by its qualified name (`Scaler.build`): its code, its line,
or the text with it replaced. For the members a person owns (`hand_written`)."""

from __future__ import annotations

import hashlib
import re

import libcst as cst

from .merge import code


def member(text: str, qualified: str) -> cst.CSTNode | None:
    """The member `Class.name` (a method, or any statement of the class named so) in `text`."""
    owner, _, name = qualified.partition(".")
    for node in cst.parse_module(text).body:
        if isinstance(node, cst.ClassDef) and node.name.value == owner:
            for child in node.body.body:
                if _name(child) == name:
                    return child
    return None


def digest(node: cst.CSTNode | None) -> str:
    """A digest of the member's code (its leading comments and blank lines aside)."""
    text = "" if node is None else code(node.with_changes(leading_lines=())).strip()
    return hashlib.sha256(text.encode()).hexdigest()


def line(text: str, qualified: str) -> int:
    """The line of `def name` of class `Class` in `text` (1 if it is not there)."""
    owner, _, name = qualified.partition(".")
    rows = text.split("\n")
    inside = False
    for number, row in enumerate(rows, 1):
        if re.match(rf"class {re.escape(owner)}\b", row):
            inside = True
        elif inside and re.match(rf"\s+(async\s+)?def {re.escape(name)}\(", row):
            return number
    return 1


def with_member(text: str, qualified: str, new: cst.CSTNode) -> str:
    """`text` with its member `qualified` replaced by `new` (the leading lines of the file's kept)."""
    owner, _, name = qualified.partition(".")
    tree = cst.parse_module(text)
    body = []
    for node in tree.body:
        if isinstance(node, cst.ClassDef) and node.name.value == owner:
            members = [
                (
                    new.with_changes(leading_lines=child.leading_lines)
                    if _name(child) == name
                    else child
                )
                for child in node.body.body
            ]
            node = node.with_changes(body=node.body.with_changes(body=members))
        body.append(node)
    return tree.with_changes(body=body).code


def _name(node: cst.CSTNode) -> str | None:
    return getattr(getattr(node, "name", None), "value", None)
