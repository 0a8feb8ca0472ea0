"""The libcst edits the typed fixes of edits.py make: each adds something (a keyword, dict
keys, `**kwargs`, a `get_config`) and lays it out like what is already there: one item per
line when the list is one per line with a trailing comma, inline otherwise."""

from __future__ import annotations

import libcst as cst


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


def add_keyword(call: cst.Call, name: str, value: str) -> cst.Call:
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


def add_keys(node: cst.Dict, values: tuple) -> cst.Dict:
    elements = list(node.elements)
    for key, value in values:
        element = cst.DictElement(cst.SimpleString(f'"{key}"'), cst.parse_expression(value))
        elements = _append(
            elements, element, node.lbrace.whitespace_after, node.rbrace.whitespace_before
        )
    return node.with_changes(elements=elements)


def _method(cls: cst.ClassDef, name: str):
    for i, member in enumerate(cls.body.body):
        if isinstance(member, cst.FunctionDef) and member.name.value == name:
            return i, member
    return None, None


def with_kwargs(cls: cst.ClassDef) -> cst.ClassDef:
    """The class with `**kwargs` in its `__init__`, passed on to `super().__init__`."""
    index, init = _method(cls, "__init__")
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
    body = list(cls.body.body)
    body[index] = init
    return cls.with_changes(body=cls.body.with_changes(body=body))


def with_get_config(
    cls: cst.ClassDef, module: cst.Module, values: tuple, with_super: bool
) -> cst.ClassDef:
    """The class with a `get_config` of its own that saves `values` ((key, code) pairs)."""
    entries = ", ".join(f'"{key}": {value}' for key, value in values)
    indent = module.default_indent
    if with_super:
        code = (
            f"def get_config(self):\n{indent}config = super().get_config()\n"
            f"{indent}config.update({{{entries}}})\n{indent}return config\n"
        )
    else:  # a Regularizer's base get_config raises; a Constraint's, an Initializer's are empty
        code = f"def get_config(self):\n{indent}return {{{entries}}}\n"
    method = cst.parse_statement(code, config=module.config_for_parsing)
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
