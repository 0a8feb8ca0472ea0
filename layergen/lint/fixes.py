"""`--fix`: libcst rewrites of what can be fixed safely; every other byte stays as it was,
and the lines a fix wrote are then formatted as the project's black would (those only).

Each fix adds something (an argument, a config key, a decorator, a keyword, the import it
needs) and never changes what a correct layer computes. Where it goes was decided by the
check that found the bug (checks.py): a fix only carries it out, at the position it names.
Items are appended in the layout already there: one per line when the list is one per line
with a trailing comma, inline otherwise.
"""

from __future__ import annotations

import difflib

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..config import BLACK_DEFAULTS, BlackStyle


def apply_fixes(text: str, fixes: list[tuple], style: BlackStyle = BLACK_DEFAULTS) -> str:
    module = cst.parse_module(text)
    by_class: dict[str, list[tuple]] = {}
    at: dict[tuple[int, int], tuple] = {}  # (line, column) of a call or dict -> what to add there
    before_return: dict[int, list[tuple]] = {}  # line of a `return` -> `name["key"] = value`
    for fix in fixes:
        if fix[0] in ("sublayer-dtype", "training-not-passed"):
            at[(fix[1], fix[2])] = fix
        elif fix[0] == "config-missing" and fix[4][0] in ("dict", "call"):
            at[(fix[4][1], fix[4][2])] = ("config-key", fix[3])
        elif fix[0] == "config-missing" and fix[4][0] == "name":
            before_return.setdefault(fix[4][2], []).append((fix[4][1], fix[3]))
        else:
            by_class.setdefault(fix[1], []).append(fix)
    fixer = _Fixer(module, by_class, at, before_return)
    fixed = MetadataWrapper(module, unsafe_skip_copy=True).visit(fixer).code
    return _format_new_lines(text, fixed, style)


def _format_new_lines(old: str, new: str, style: BlackStyle) -> str:
    """`new` with the lines a fix wrote formatted as the project's black would, every other
    line as it was: a file black formats as it stands is formatted whole; in any other,
    black formats the changed lines only (`--line-ranges`), and its result is kept when it
    touched no other line."""
    import black

    from ..render.formatting import black_mode

    mode = black_mode(style)
    try:
        if black.format_str(old, mode=mode) == old:
            return black.format_str(new, mode=mode)
        ranges = _changed(old, new)
        formatted = black.format_str(new, mode=mode, lines=ranges)
    except black.InvalidInput:  # syntax black does not read: the fix stays as written
        return new
    inside = {line for start, end in ranges for line in range(start, end + 1)}
    touched = {
        line
        for start, end in _changed(new, formatted, deleted=True)
        for line in range(start, end + 1)
    }
    return formatted if touched <= inside else new


def _changed(old: str, new: str, deleted: bool = False) -> list[tuple[int, int]]:
    """The 1-based line ranges of `new` that differ from `old` (of `old`, with `deleted`)."""
    opcodes = difflib.SequenceMatcher(
        None, old.splitlines(), new.splitlines(), autojunk=False
    ).get_opcodes()
    if deleted:
        return [(i1 + 1, max(i1 + 1, i2)) for tag, i1, i2, _, _ in opcodes if tag != "equal"]
    return [(j1 + 1, j2) for tag, _, _, j1, j2 in opcodes if tag in ("replace", "insert")]


def _has_newline(whitespace) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace)


def _append(items: list, new, opening, closing=None) -> list:
    """`items + [new]`, commas and line breaks laid out like the items already there.

    `opening`/`closing`: the whitespace after the opening bracket and before the closing
    one, where the container keeps it (a dict's braces)."""
    if not items:
        return [new]
    *rest, last = items
    trailing = last.comma
    if isinstance(trailing, cst.Comma) and (
        _has_newline(trailing.whitespace_after) or _has_newline(closing)
    ):
        separator = (
            rest[-1].comma
            if rest and isinstance(rest[-1].comma, cst.Comma)
            else cst.Comma(whitespace_after=opening)
        )
        return [*rest, last.with_changes(comma=separator), new.with_changes(comma=trailing)]
    if (
        isinstance(last, cst.Arg)
        and not isinstance(trailing, cst.Comma)
        and _has_newline(last.whitespace_after_arg)
    ):
        separator = (
            rest[-1].comma
            if rest and isinstance(rest[-1].comma, cst.Comma)
            else cst.Comma(whitespace_after=opening)
        )
        return [
            *rest,
            last.with_changes(comma=separator, whitespace_after_arg=cst.SimpleWhitespace("")),
            new.with_changes(whitespace_after_arg=last.whitespace_after_arg),
        ]
    return [*items, new]


def _add_keyword(call: cst.Call, name: str, value: str) -> cst.Call:
    arg = cst.Arg(
        keyword=cst.Name(name),
        value=cst.parse_expression(value),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    splat = next((i for i, a in enumerate(call.args) if a.star == "**"), None)
    if splat is not None:  # keywords go before `**kwargs`
        args = list(call.args)
        return call.with_changes(
            args=[
                *args[:splat],
                arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                *args[splat:],
            ]
        )
    return call.with_changes(args=_append(list(call.args), arg, call.whitespace_before_args))


def _add_keys(node: cst.Dict, values: tuple) -> cst.Dict:
    elements = list(node.elements)
    for key, value in values:
        element = cst.DictElement(cst.SimpleString(f'"{key}"'), cst.parse_expression(value))
        elements = _append(
            elements, element, node.lbrace.whitespace_after, node.rbrace.whitespace_before
        )
    return node.with_changes(elements=elements)


class _Fixer(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, by_class, at, before_return):
        super().__init__()
        self.module = module
        self.by_class = by_class
        self.at = at
        self.before_return = before_return
        self.needs_keras = False

    def _fix_at(self, node: cst.CSTNode) -> tuple | None:
        if not self.at:
            return None
        start = self.get_metadata(PositionProvider, node).start
        return self.at.get((start.line, start.column + 1))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        fix = self._fix_at(original)
        if fix is None:
            return updated
        if fix[0] == "sublayer-dtype":
            return _add_keyword(updated, "dtype", f"{fix[3]}.dtype_policy")
        if fix[0] == "training-not-passed":
            return _add_keyword(updated, "training", fix[3])
        for key, value in fix[1]:  # config keys as keywords: dict(...) or config.update(...)
            updated = _add_keyword(updated, key, value)
        return updated

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.Dict:
        fix = self._fix_at(original)
        return updated if fix is None else _add_keys(updated, fix[1])

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if not self.before_return:
            return updated
        body = []
        for statement, old in zip(updated.body, original.body):
            line = self.get_metadata(PositionProvider, old).start.line
            for name, values in self.before_return.get(line, []):
                if isinstance(old, cst.SimpleStatementLine) and isinstance(old.body[0], cst.Return):
                    body.extend(
                        cst.parse_statement(
                            f'{name}["{key}"] = {value}\n', config=self.module.config_for_parsing
                        )
                        for key, value in values
                    )
            body.append(statement)
        return updated.with_changes(body=body)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        for fix in self.by_class.get(updated.name.value, []):
            if fix[0] == "init-kwargs":
                updated = self._init_kwargs(updated)
            elif fix[0] == "config-missing":  # no get_config of its own: one is added
                updated = self._new_config(updated, fix[3], with_super=fix[4][1])
            elif fix[0] == "unregistered":
                updated = updated.with_changes(
                    decorators=[cst.Decorator(cst.parse_expression(fix[3])), *updated.decorators]
                )
                self.needs_keras |= fix[4]
        return updated

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if not self.needs_keras:
            return updated
        body = list(updated.body)
        last_import = max(
            (
                i
                for i, s in enumerate(body)
                if isinstance(s, cst.SimpleStatementLine)
                and isinstance(s.body[0], (cst.Import, cst.ImportFrom))
            ),
            default=-1,
        )
        if last_import < 0 and updated.get_docstring() is not None:
            last_import = 0  # after the module docstring
        line = cst.parse_statement("import keras\n", config=updated.config_for_parsing)
        return updated.with_changes(body=[*body[: last_import + 1], line, *body[last_import + 1 :]])

    def _method(self, cls: cst.ClassDef, name: str):
        for i, member in enumerate(cls.body.body):
            if isinstance(member, cst.FunctionDef) and member.name.value == name:
                return i, member
        return None, None

    def _replace(self, cls: cst.ClassDef, index: int, member) -> cst.ClassDef:
        body = list(cls.body.body)
        body[index] = member
        return cls.with_changes(body=cls.body.with_changes(body=body))

    def _init_kwargs(self, cls: cst.ClassDef) -> cst.ClassDef:
        index, init = self._method(cls, "__init__")
        params = init.params
        if not isinstance(params.star_kwarg, cst.Param):
            new = cst.Param(cst.Name("kwargs"), star="**")
            everything = [
                *params.params,
                *([params.star_arg] if isinstance(params.star_arg, cst.Param) else []),
                *params.kwonly_params,
            ]
            appended = _append(everything, new, init.whitespace_before_params)
            if everything:
                params = _replace_param(params, everything[-1], appended[-2])
            params = params.with_changes(star_kwarg=appended[-1])
        kwarg = params.star_kwarg.name.value
        init = init.with_changes(params=params, body=init.body.visit(_PassKwargs(kwarg)))
        return self._replace(cls, index, init)

    def _new_config(self, cls: cst.ClassDef, values: tuple, with_super: bool) -> cst.ClassDef:
        entries = ", ".join(f'"{key}": {value}' for key, value in values)
        indent = self.module.default_indent
        if with_super:
            code = (
                f"def get_config(self):\n{indent}config = super().get_config()\n"
                f"{indent}config.update({{{entries}}})\n{indent}return config\n"
            )
        else:  # a Regularizer's base get_config raises; a Constraint's, an Initializer's are empty
            code = f"def get_config(self):\n{indent}return {{{entries}}}\n"
        method = cst.parse_statement(code, config=self.module.config_for_parsing)
        method = method.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        return cls.with_changes(body=cls.body.with_changes(body=[*cls.body.body, method]))


def _replace_param(params: cst.Parameters, old: cst.Param, new: cst.Param) -> cst.Parameters:
    for field in ("params", "kwonly_params"):
        items = list(getattr(params, field))
        if any(p is old for p in items):
            return params.with_changes(**{field: [new if p is old else p for p in items]})
    if params.star_arg is old:
        return params.with_changes(star_arg=new)
    return params


class _PassKwargs(cst.CSTTransformer):
    """Adds `**kwargs` to `super().__init__(...)`."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__"):
            return updated
        owner = func.value
        is_super = (
            isinstance(owner, cst.Call)
            and isinstance(owner.func, cst.Name)
            and owner.func.value == "super"
        )
        if not is_super or any(a.star == "**" for a in updated.args):
            return updated
        arg = cst.Arg(cst.Name(self.name), star="**")
        return updated.with_changes(
            args=_append(list(updated.args), arg, updated.whitespace_before_args)
        )
