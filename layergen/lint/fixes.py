"""`--fix`: libcst rewrites of what can be fixed safely; every other byte stays as it was.

Each fix adds something (an argument, a config key, a decorator, a keyword) and never
changes what a correct layer computes. Items are appended in the layout already there:
one per line when the list is one per line with a trailing comma, inline otherwise.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider


def apply_fixes(text: str, fixes: list[tuple]) -> str:
    module = cst.parse_module(text)
    by_class: dict[str, list[tuple]] = {}
    by_call: dict[tuple[int, int], tuple] = {}
    for fix in fixes:
        if fix[0] in ("sublayer-dtype", "training-not-passed"):
            by_call[(fix[1], fix[2])] = fix
        else:
            by_class.setdefault(fix[1], []).append(fix)
    fixer = _Fixer(module, by_class, by_call)
    if by_call:
        return MetadataWrapper(module, unsafe_skip_copy=True).visit(fixer).code
    return module.visit(fixer).code


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


class _Fixer(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, by_class, by_call):
        super().__init__()
        self.module = module
        self.by_class = by_class
        self.by_call = by_call
        self.needs_keras = False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not self.by_call:
            return updated
        start = self.get_metadata(PositionProvider, original).start
        fix = self.by_call.get((start.line, start.column + 1))
        if fix is None:
            return updated
        if fix[0] == "sublayer-dtype":
            return _add_keyword(updated, "dtype", f"{fix[3]}.dtype_policy")
        return _add_keyword(updated, "training", fix[3])

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        for fix in self.by_class.get(updated.name.value, []):
            if fix[0] == "init-kwargs":
                updated = self._init_kwargs(updated)
            elif fix[0] == "config-missing":
                updated = self._config(updated, fix[3])
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

    def _config(self, cls: cst.ClassDef, values: tuple) -> cst.ClassDef:
        index, get_config = self._method(cls, "get_config")
        if get_config is None:
            entries = ", ".join(f'"{key}": {value}' for key, value in values)
            indent = self.module.default_indent
            code = (
                f"def get_config(self):\n{indent}config = super().get_config()\n"
                f"{indent}config.update({{{entries}}})\n{indent}return config\n"
            )
            method = cst.parse_statement(code, config=self.module.config_for_parsing)
            method = method.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
            return cls.with_changes(body=cls.body.with_changes(body=[*cls.body.body, method]))
        adder = _AddKeys(values)
        get_config = get_config.visit(adder)
        return self._replace(cls, index, get_config) if adder.done else cls


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


class _AddKeys(cst.CSTTransformer):
    """Adds the keys to the dict `get_config` builds: the first dict literal (or `dict(...)` /
    `.update(...)` call with keywords) that holds string keys, or else the one merged with
    `super().get_config()`."""

    def __init__(self, values: tuple):
        super().__init__()
        self.values = values
        self.done = False
        self.depth = 0

    def visit_Dict(self, node: cst.Dict) -> None:
        self.depth += 1

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.BaseExpression:
        self.depth -= 1
        if self.done or self.depth:
            return updated
        self.done = True
        elements = list(updated.elements)
        for key, value in self.values:
            element = cst.DictElement(cst.SimpleString(f'"{key}"'), cst.parse_expression(value))
            elements = _append(
                elements, element, updated.lbrace.whitespace_after, updated.rbrace.whitespace_before
            )
        return updated.with_changes(elements=elements)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.done or not isinstance(updated.func, (cst.Name, cst.Attribute)):
            return updated
        callee = (
            updated.func.value if isinstance(updated.func, cst.Name) else updated.func.attr.value
        )
        if callee not in ("dict", "update") or not any(a.keyword for a in updated.args):
            return updated
        self.done = True
        for key, value in self.values:
            updated = _add_keyword(updated, key, value)
        return updated
