"""Which class of a module was renamed, the one reading of it: in its declaration (the
merge, `class_renamed`), in its module by a person (`renamed_in_module`), or back (an undone
run: `update.members.put_back`). It reads module code alone, so the merge (`update`) and
rename following (`renames`) both take it from here."""

from __future__ import annotations

import ast


def module_classes(code: str) -> set[str] | None:
    """The classes a module's code defines at its top (not in a string, not in a function);
    None when it does not parse (conflict markers, a typo: its own run says so)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    return {node.name for node in tree.body if isinstance(node, ast.ClassDef)}


def class_changes(before: str, after: str) -> tuple[set[str], set[str]] | None:
    """The classes of the module code `before` that `after` defines no more, and those it
    defines anew; None when one of them does not parse. The one reading of which class
    was renamed: in its declaration (`class_renamed`, the merge), in its module by a person
    (`renamed_in_module`), or back (an undone run: `update.members.put_back`)."""
    was, now = module_classes(before), module_classes(after)
    if was is None or now is None:
        return None
    return was - now, now - was


def class_renamed(before: str, after: str) -> tuple[str, str] | None:
    """(old name, new name) when one class of `before` is gone in `after` and one is new."""
    changes = class_changes(before, after)
    if changes is None or len(changes[0]) != 1 or len(changes[1]) != 1:
        return None
    (gone,), (new,) = changes
    return gone, new


def renamed_in_module(base: str | None, current: str, declared: str) -> str | None:
    """The name the `declared` class has in the module now when a person renamed it there (an
    IDE's rename): it was generated (`base`), no name in the module is it any more, and
    exactly one class is new. Anything else is no rename of it."""
    changes = class_changes(base or "", current)
    if changes is None or declared not in changes[0] or len(changes[1]) != 1:
        return None
    if declared in {n.id for n in ast.walk(ast.parse(current)) if isinstance(n, ast.Name)}:
        return None  # still named (`Old = New`): no rename of it
    return next(iter(changes[1]))
