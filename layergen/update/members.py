"""One member of a module's text, by its qualified name (`Scaler.build`): its code, its line,
or the text with it replaced. For the members a person owns (`hand_written`)."""

from __future__ import annotations

import hashlib
import re

import libcst as cst

from ..textfiles import parsed
from .merge import code, fresh_code, is_docstring


def member(text: str, qualified: str) -> cst.CSTNode | None:
    """The member `Class.name` (a method, or any statement of the class named so) in `text`."""
    owner, _, name = qualified.partition(".")
    for node in parsed(text).body:
        if isinstance(node, cst.ClassDef) and node.name.value == owner:
            for child in node.body.body:
                if _name(child) == name:
                    return child
    return None


def digest(node: cst.CSTNode | None) -> str:
    """A digest of the member's code (its leading comments and blank lines aside)."""
    text = "" if node is None else fresh_code(node.with_changes(leading_lines=())).strip()
    return hashlib.sha256(text.encode()).hexdigest()


def line(text: str, qualified: str) -> int:
    """The line of `def name` of class `Class` in `text` (of `class Class` for its
    `__doc__`; 1 if it is not there)."""
    owner, _, name = qualified.partition(".")
    rows = text.split("\n")
    inside = False
    for number, row in enumerate(rows, 1):
        if re.match(rf"class {re.escape(owner)}\b", row):
            if name == "__doc__":
                return number
            inside = True
        elif inside and re.match(rf"\s+(async\s+)?def {re.escape(name)}\(", row):
            return number
    return 1


def with_member(text: str, qualified: str, new: cst.CSTNode) -> str:
    """`text` with its member `qualified` replaced by `new` (the leading lines of the file's
    kept); added where the class does without it (a docstring first, a method last)."""
    owner, _, name = qualified.partition(".")
    tree = parsed(text)
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
            if not any(_name(child) == name for child in node.body.body):
                members = _added(members, name, new)
            node = node.with_changes(body=node.body.with_changes(body=members))
        body.append(node)
    return tree.with_changes(body=body).code


def _added(members: list, name: str, new: cst.CSTNode) -> list:
    if name != "__doc__":
        return [*members, new]
    rest = members[:1]
    if rest and not rest[0].leading_lines:  # a blank line after the docstring, as black has it
        rest = [rest[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])]
    return [new.with_changes(leading_lines=()), *rest, *members[1:]]


def _name(node: cst.CSTNode) -> str | None:
    """A member's name: a method's, or `__doc__` for the class's docstring."""
    if is_docstring(node):
        return "__doc__"
    return getattr(getattr(node, "name", None), "value", None)


def put_back(old: str, new: str, before: str, current: str) -> str:
    """The base to merge `current` against after a run that moved the base from `old` to
    `new` over a file that was `before`: `old` when the run is undone, that is when every
    member the run changed (added, removed or rewritten) stands in `current` as it stood
    `before`, comments and spacing aside (the rest of the file may have been edited since,
    a comment typed after an editor's undo), so the run's changes are merged again instead
    of reading as hand edits undoing them; else `new`. A member or a
    few of the run's put back, the others kept, is a hand edit like any other: it stays."""
    try:
        trees = [parsed(text) for text in (old, new, before, current)]
    except cst.ParserSyntaxError:  # markers still in it: the merge reports them
        return new
    from ..class_renames import class_changes, module_classes

    gone = (class_changes(old, new) or (set(), set()))[0]
    if gone and gone <= (module_classes(current) or set()) - (module_classes(new) or set()):
        return old  # the run renamed a class, and the file has it by its old name: undone
    was, now, then, here = (_leaves(tree) for tree in trees)

    def same(a: cst.CSTNode | None, b: cst.CSTNode | None, read=code) -> bool:
        return (a is None) == (b is None) and (a is None or read(a) == read(b))

    # What the run changed in the file: a member the file held already as generated now,
    # comments and spacing aside (the person's own edit, `sync` carried), it did not change.
    changed = [
        name
        for name in was.keys() | now.keys()
        if not same(was.get(name), now.get(name))
        and not same(then.get(name), now.get(name), _python)
    ]
    if changed and all(same(here.get(name), then.get(name), _python) for name in changed):
        return old
    return new


def _python(node: cst.CSTNode) -> str:
    """A member's code as Python reads it: comments, blank lines and spacing aside."""
    import ast

    text = code(node).strip()
    try:
        return ast.dump(ast.parse(text))
    except SyntaxError:  # a statement that needs its context: as written
        return text


def _leaves(tree: cst.Module) -> dict[str, cst.CSTNode]:
    """The members of a module by qualified name: its statements, and its classes' members."""
    from .merge import _units

    out = {}
    for key, node in _units(tree.body):
        if isinstance(node, cst.ClassDef):
            out.update({f"{key}.{k}": child for k, child in _units(node.body.body)})
        else:
            out[key] = node
    return out
