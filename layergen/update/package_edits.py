"""The edits a run makes to a package's `__init__.py`, queued in `InitEdits` and made by one
libcst transformer (as libcst's `AddImportsVisitor` adds the imports a codemod queued): every
other statement, comment and blank line stays as the person wrote it."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..config import BLACK_DEFAULTS, IMPORT_DEFAULTS, BlackStyle, ImportStyle
from ..isort_order import import_key, relative_imports


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
    style: BlackStyle = BLACK_DEFAULTS  # the project's black: a long import is wrapped so
    imports: ImportStyle = IMPORT_DEFAULTS  # the project's isort: the imports are written so

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
        by_module: dict[str, list[str]] = {}
        for module, name in self.edits.add:
            by_module.setdefault(module, []).append(name)
        for module, names in by_module.items():
            at = None if self.edits.imports.single_line else _import_of(body, module)
            if at is not None:  # isort's one statement for the module's names
                body[at] = _joined(body[at], names, self.edits, config)
                continue
            pairs = [(module, name) for name in names]
            for text in relative_imports(pairs, self.edits.imports, self.edits.style):
                new = cst.parse_statement(text, config)
                _insert_import(body, new, _relative_key(new))
        if self.edits.exported is None:
            return updated.with_changes(body=body)
        exported = cst.parse_statement(self.edits.exported, config)
        at_all = next((i for i, s in enumerate(body) if _is_all(s)), None)
        if at_all is not None:  # its comments, above and after it, kept
            was = body[at_all]
            body[at_all] = exported.with_changes(
                leading_lines=was.leading_lines, trailing_whitespace=was.trailing_whitespace
            )
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


def _insert_import(body: list[cst.BaseStatement], new, key: tuple) -> None:
    """`new` (a relative import) where isort, as ruff runs it, places it: among the relative
    imports of the import block that has them, in isort's order (their section, the last);
    else after the top block of imports, as a section of its own; else at the top, below the
    docstring. A block is set apart from the code around it by a blank line, as isort asks."""
    imports = [i for i, statement in enumerate(body) if _is_import(statement)]
    relative = [i for i in imports if _relative_key(body[i]) is not None]
    if relative:  # the block holding the last relative import: local imports go there
        start = _block_start(body, relative[-1])
        local = [i for i in relative if i >= start]
        after = next((i for i in local if _relative_key(body[i]) > key), None)
        if after is None:
            body.insert(local[-1] + 1, new)
        elif after == local[0]:  # first of its section: the blank line above is the section's
            above = body[after].leading_lines
            body[after] = body[after].with_changes(leading_lines=[])
            body.insert(after, new.with_changes(leading_lines=above))
        else:
            body.insert(after, new)
        return
    if imports:  # a section of its own, after the top block
        at = imports[0]
        while at + 1 < len(body) and _is_import(body[at + 1]):
            at += 1
        body.insert(at + 1, new.with_changes(leading_lines=[cst.EmptyLine()]))
        _apart(body, at + 2)
        return
    at = 1 if body and _is_docstring(body[0]) else 0
    body.insert(at, new.with_changes(leading_lines=[cst.EmptyLine()] if at else []))
    _apart(body, at + 1)


def _apart(body: list[cst.BaseStatement], at: int) -> None:
    """The statement at `at` set apart from the imports above by a blank line."""
    if at < len(body) and not body[at].leading_lines:
        body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine()])


def _block_start(body: list[cst.BaseStatement], at: int) -> int:
    while at > 0 and _is_import(body[at - 1]):
        at -= 1
    return at


def _relative_key(statement: cst.BaseStatement) -> tuple | None:
    """isort's order of a relative `from` import (None for any other statement)."""
    node = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    if not (isinstance(node, cst.ImportFrom) and node.relative):
        return None
    module = cst.Module([]).code_for_node(node.module) if node.module else ""
    first = "" if isinstance(node.names, cst.ImportStar) else node.names[0].evaluated_name
    return import_key(len(node.relative), module, first)


def _import_of(body: list[cst.BaseStatement], module: str) -> int | None:
    """The top-level `from .module import A, ...` a name of `module` can join, if any (one
    with comments among its names stays as written)."""
    for at, statement in enumerate(body):
        node = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        if (
            _is_relative_import(statement)
            and node.module.value == module
            and "#" not in cst.Module([]).code_for_node(node)
        ):
            return at
    return None


def _joined(statement: cst.SimpleStatementLine, names: list[str], edits: InitEdits, config):
    """`statement` (`from .module import A, ...`) importing `names` too, as isort writes it."""
    node = statement.body[0]
    code = cst.Module([]).code_for_node
    bound = [code(alias).rstrip(", ") for alias in node.names]
    last = node.names[-1].comma
    [text] = relative_imports(
        [(node.module.value, name) for name in [*bound, *names]],
        ImportStyle(single_line=False),
        edits.style,
        trailing_comma=isinstance(last, cst.Comma) and node.lpar is not None,
    )
    joined = cst.parse_statement(text, config)
    return statement.with_changes(body=joined.body)


def _is_docstring(statement: cst.BaseStatement) -> bool:
    node = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    return isinstance(node, cst.Expr) and isinstance(
        node.value, cst.SimpleString | cst.ConcatenatedString
    )


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
