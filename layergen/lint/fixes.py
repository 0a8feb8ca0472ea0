"""`--fix`: libcst rewrites of what can be fixed safely; every other byte stays as it was,
and the lines a fix wrote are then formatted as the project's black would (those only).

Each fix adds something (an argument, a config key, a decorator, a keyword, the import it
needs) and never changes what a correct layer computes. What and where was decided by the
rule that found the bug (a typed fix of edits.py): the one fixer below finds the node each
fix names and lets the fix edit it, whatever the rule (the edits are in rewrites.py).
"""

from __future__ import annotations

import difflib
import sys

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..config import BLACK_DEFAULTS, BlackStyle
from .source import BOM


def apply_fixes(text: str, fixes: list, style: BlackStyle = BLACK_DEFAULTS) -> str:
    """`text` with every fix (an `edits.Fix`) made, at the node each names; then the lines
    they wrote formatted. A byte-order mark (libcst drops it) is written back."""
    mark = BOM if text.startswith(BOM) else ""
    text = text.removeprefix(mark)
    module = cst.parse_module(text)
    fixer = _Fixer(module, fixes)
    fixed = MetadataWrapper(module, unsafe_skip_copy=True).visit(fixer).code
    return mark + _format_new_lines(text, fixed, style)


def _format_new_lines(old: str, new: str, style: BlackStyle) -> str:
    """`new` with the lines a fix wrote formatted as the project's black would, every other
    line as it was: a file black formats as it stands is formatted whole; in any other,
    black formats the changed lines only (`--line-ranges`), and its result is kept when it
    touched no other line."""
    import black

    from ..render.formatting import black_mode

    mode = black_mode(style)
    try:
        whole = black.format_str(old, mode=mode) == old  # then formatted whole
        ranges = _changed(old, new)
        formatted = black.format_str(new, mode=mode, **({} if whole else {"lines": ranges}))
        wrapped = _wrap_long_values(formatted, _changed(old, formatted), style.line_length)
        if wrapped != formatted:  # black splits a value in parentheses, not a bare one
            ranges = _changed(old, wrapped)
            formatted = black.format_str(wrapped, mode=mode, **({} if whole else {"lines": ranges}))
    except black.InvalidInput:  # syntax black does not read: the fix stays as written
        return new
    if whole:
        return formatted
    inside = {line for start, end in ranges for line in range(start, end + 1)}
    touched = {
        line
        for start, end in _changed(new, formatted, deleted=True)
        for line in range(start, end + 1)
    }
    return formatted if touched <= inside else new


def _wrap_long_values(text: str, ranges: list[tuple[int, int]], limit: int) -> str:
    """`text` with the value of each dict entry on a line a fix wrote (`ranges`) that is
    longer than `limit` put in parentheses: black leaves `"key": self.long_attribute,` over
    the limit (it splits no bare name), and splits it once parenthesized."""
    lines = text.splitlines()
    long = {
        n
        for start, end in ranges
        for n in range(start, end + 1)
        if n <= len(lines) and len(lines[n - 1]) > limit
    }
    if not long:
        return text

    class Wrap(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def leave_DictElement(self, original, updated):
            line = self.get_metadata(PositionProvider, original).start.line
            if line not in long or updated.value.lpar:
                return updated
            return updated.with_changes(
                value=updated.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            )

    return MetadataWrapper(cst.parse_module(text)).visit(Wrap()).code


def _changed(old: str, new: str, deleted: bool = False) -> list[tuple[int, int]]:
    """The 1-based line ranges of `new` that differ from `old` (of `old`, with `deleted`)."""
    opcodes = difflib.SequenceMatcher(
        None, old.splitlines(), new.splitlines(), autojunk=False
    ).get_opcodes()
    if deleted:
        return [(i1 + 1, max(i1 + 1, i2)) for tag, i1, i2, _, _ in opcodes if tag != "equal"]
    return [(j1 + 1, j2) for tag, _, _, j1, j2 in opcodes if tag in ("replace", "insert")]


class _Fixer(cst.CSTTransformer):
    """Makes each fix at its node: found by the node's type and anchor (its position; a
    class by its name; a statement by its line), then adds the imports the fixes made need."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, fixes: list):
        super().__init__()
        self.module = module
        self.fixes: dict[tuple[str, object], list] = {}  # (node type, anchor) -> its fixes
        for fix in fixes:
            self.fixes.setdefault((fix.node, fix.anchor), []).append(fix)
        self.imports: dict[str, None] = {}  # queued, added once at the end

    def _fixed(self, original: cst.CSTNode, updated: cst.CSTNode):
        kind = type(original).__name__
        if not self.fixes:
            return updated
        if kind == "ClassDef":
            anchor = original.name.value
        else:
            start = self.get_metadata(PositionProvider, original).start
            anchor = start.line if kind == "SimpleStatementLine" else (start.line, start.column + 1)
        for fix in self.fixes.get((kind, anchor), ()):
            updated = fix.apply(updated, self.module)
            self.imports.update(dict.fromkeys(fix.imports))
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        return self._fixed(original, updated)

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.Dict:
        return self._fixed(original, updated)

    def leave_SimpleStatementLine(self, original, updated):
        return self._fixed(original, updated)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        return self._fixed(original, updated)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        for name in self.imports:
            updated = _with_import(updated, name)
        return updated


def _with_import(module: cst.Module, name: str) -> cst.Module:
    """`import name` (a third-party module) where isort puts it, as ruff's defaults do: in
    the third-party imports, `import` statements first, in order of the module; where the
    module has none of those, after its last import (else after its docstring, else first)."""
    body = list(module.body)
    imports = [i for i, s in enumerate(body) if _import_of(s) is not None]
    line = cst.parse_statement(f"import {name}\n", config=module.config_for_parsing)
    third = [i for i in imports if _third_party(_import_of(body[i]))]
    for i in third:
        statement = _import_of(body[i])
        if isinstance(statement, cst.ImportFrom) or _dotted(statement.names[0].name) > name:
            line = line.with_changes(leading_lines=body[i].leading_lines)  # its section's gap
            body[i] = body[i].with_changes(leading_lines=())
            return module.with_changes(body=[*body[:i], line, *body[i:]])
    last = third[-1] if third else max(imports, default=-1)
    if last < 0 and module.get_docstring() is not None:
        last = 0  # after the module docstring
    return module.with_changes(body=[*body[: last + 1], line, *body[last + 1 :]])


def _import_of(statement: cst.CSTNode) -> cst.Import | cst.ImportFrom | None:
    if isinstance(statement, cst.SimpleStatementLine) and isinstance(
        statement.body[0], (cst.Import, cst.ImportFrom)
    ):
        return statement.body[0]
    return None


def _third_party(statement: cst.Import | cst.ImportFrom) -> bool:
    """Not `__future__`, the standard library's, nor relative (the project's own)."""
    if isinstance(statement, cst.ImportFrom):
        if statement.relative or statement.module is None:
            return False
        top = _dotted(statement.module).split(".")[0]
    else:
        top = _dotted(statement.names[0].name).split(".")[0]
    return top != "__future__" and top not in sys.stdlib_module_names


def _dotted(node: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(node)
