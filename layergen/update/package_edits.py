"""The edits a run makes to a package's `__init__.py`, queued in `InitEdits` and made by one
libcst transformer (as libcst's `AddImportsVisitor` adds the imports a codemod queued): every
other statement, comment and blank line stays as the person wrote it."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class InitEdits:
    """What a run changes in a package's `__init__.py`."""

    add: tuple[tuple[str, str], ...]  # (module, class) to import, in this order
    remove: frozenset[tuple[str, str]]  # (module, class) imported no more
    # The new `__all__` statement, formatted as the project's black writes it; None: the
    # person's `__all__` is built otherwise and stays as written.
    exported: str | None
    # Modules deleted with their declarations: `from .module import *` of them goes.
    stars: frozenset[str] = frozenset()

    def applied(self, module: cst.Module) -> str:
        edited = module.visit(_ApplyEdits(self))
        if edited.body and not edited.has_trailing_newline:  # an empty file given a line
            edited = edited.with_changes(has_trailing_newline=True)
        return edited.code


class _ApplyEdits(cst.CSTTransformer):
    def __init__(self, edits: InitEdits):
        super().__init__()
        self.edits = edits

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        config = updated.config_for_parsing
        body = _kept(updated.body, self._without_removed)
        new = [
            cst.parse_statement(f"from .{module} import {name}\n", config)
            for module, name in self.edits.add
        ]
        at_all = next((i for i, s in enumerate(body) if _is_all(s)), None)
        last = max((i for i, s in enumerate(body) if _is_relative_import(s)), default=None)
        if new and last is not None:  # after the last import of a class
            body[last + 1 : last + 1] = new
        elif new and at_all is not None:  # before `__all__` (its class's import was the only one)
            above = at_all > 0 or bool(updated.header)
            new[0] = new[0].with_changes(leading_lines=[cst.EmptyLine()] if above else [])
            body[at_all] = body[at_all].with_changes(leading_lines=[cst.EmptyLine()])
            body[at_all:at_all] = new
        else:
            if new and body and not _is_import(body[-1]):  # apart from the code above
                new[0] = new[0].with_changes(leading_lines=[cst.EmptyLine()])
            body.extend(new)
        if self.edits.exported is None:
            return updated.with_changes(body=body)
        exported = cst.parse_statement(self.edits.exported, config)
        at_all = next((i for i, s in enumerate(body) if _is_all(s)), None)
        if at_all is not None:
            body[at_all] = exported.with_changes(leading_lines=body[at_all].leading_lines)
        else:
            body.append(exported.with_changes(leading_lines=[cst.EmptyLine()]))
        return updated.with_changes(body=body)

    def _without_removed(self, statement: cst.BaseStatement) -> cst.BaseStatement | None:
        if _is_star_import(statement, self.edits.stars):
            return None
        if not _is_relative_import(statement):
            return statement
        node = statement.body[0]
        module = node.module.value
        kept = [a for a in node.names if (module, a.name.value) not in self.edits.remove]
        if len(kept) == len(node.names):
            return statement
        if not kept:
            return None
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return statement.with_changes(body=[node.with_changes(names=kept)])


def _kept(statements, edit) -> list[cst.BaseStatement]:
    """`statements` edited; a removed statement's comment lines above it stay, above the next
    statement (a comment above a group of imports is the group's)."""
    kept: list[cst.BaseStatement] = []
    comments: list[cst.EmptyLine] = []
    for statement in statements:
        edited = edit(statement)
        if edited is None:
            if any(line.comment is not None for line in statement.leading_lines):
                comments += statement.leading_lines
            continue
        if comments:
            edited = edited.with_changes(leading_lines=[*comments, *edited.leading_lines])
            comments = []
        kept.append(edited)
    return kept


def _is_import(statement: cst.BaseStatement) -> bool:
    node = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    return isinstance(node, cst.Import | cst.ImportFrom)


def _is_star_import(statement: cst.BaseStatement, modules: frozenset[str]) -> bool:
    """`from .module import *` of one of `modules`."""
    node = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    return (
        isinstance(node, cst.ImportFrom)
        and len(node.relative) == 1
        and isinstance(node.module, cst.Name)
        and node.module.value in modules
        and isinstance(node.names, cst.ImportStar)
    )


def _is_relative_import(statement: cst.BaseStatement) -> bool:
    """`from .module import Name, ...`."""
    node = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    return (
        isinstance(node, cst.ImportFrom)
        and len(node.relative) == 1
        and isinstance(node.module, cst.Name)
        and not isinstance(node.names, cst.ImportStar)
    )


def _is_all(statement: cst.BaseStatement) -> bool:
    """`__all__ = ...` or `__all__: ... = ...`."""
    node = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    if isinstance(node, cst.AnnAssign):
        target = node.target
    elif isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
    else:
        return False
    return isinstance(target, cst.Name) and target.value == "__all__"
