"""The declaration's call contract against a `call` the person owns (`hand_written: [call]`).

The generated `call` takes what the declaration says it is called with: its tensor inputs,
then its keyword inputs (`start_index=0`, masks, caches). A person's `call` may be written
any way that takes them: the tensors by position (under any name), each keyword by name or
through `**kwargs`. `training` and `mask` are Keras's to pass, and only to a call that takes
them, so leaving them out is the person's choice. Whatever else the person's call does not
take is said on every run, since the layer fails when called as its declaration (and the
generated docstring and tests) say.
"""

from __future__ import annotations

import libcst as cst

from . import members

PASSED_BY_KERAS = frozenset({"training", "mask"})  # only to a call whose signature takes them


def untaken(generated: str, current: str, qualified: str) -> list[str]:
    """The arguments of the generated `qualified` (`Scaler.call`) that the person's, in
    `current`, does not take; none where either is not a function (or `current` does not
    parse: it holds conflict markers, which are reported on their own)."""
    try:
        mine = members.member(current, qualified)
    except cst.ParserSyntaxError:
        return []
    declared = members.member(generated, qualified)
    if not isinstance(mine, cst.FunctionDef) or not isinstance(declared, cst.FunctionDef):
        return []
    theirs, wanted = mine.params, declared.params
    by_position = [*theirs.posonly_params, *theirs.params][1:]  # after self
    by_name = {p.name.value for p in [*theirs.params, *theirs.kwonly_params]}
    ordered = [*wanted.posonly_params, *wanted.params][1:]
    missing = []
    for index, param in enumerate([*ordered, *wanted.kwonly_params]):
        name = param.name.value
        if index < len(ordered) and param.default is None:  # a tensor: passed by position
            taken = isinstance(theirs.star_arg, cst.Param) or index < len(by_position)
        else:  # a keyword: passed by name
            taken = name in by_name or theirs.star_kwarg is not None or name in PASSED_BY_KERAS
        if not taken:
            missing.append(name)
    return missing


def unstated(generated: str, current: str, qualified: str) -> list[str]:
    """The arguments the person's `__init__` (`qualified`, in `current`) takes that the
    generated one does not: params the declaration lacks, so `get_config` and the tests
    leave them out (`sync` declares them). The base's own (`dtype`, `name`), which the
    generated one takes through `**kwargs`, aside."""
    from ..kinds import KINDS

    try:
        mine = members.member(current, qualified)
    except cst.ParserSyntaxError:
        return []
    declared = members.member(generated, qualified)
    if not isinstance(mine, cst.FunctionDef) or not isinstance(declared, cst.FunctionDef):
        return []
    base = set().union(*(kind.reserved for kind in KINDS.values()))

    def names(params: cst.Parameters) -> list[str]:
        return [
            p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]
        ][1:]

    wanted = set(names(declared.params))
    return [n for n in names(mine.params) if n not in wanted and n not in base]
