"""`forwarded-value`: an argument passed on to `super().__init__` under another value."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..configs import read_config, string_value
from ..source import ClassInfo, SourceFile, is_super_call, self_attribute, self_name, walk
from .base import Finding, Rule, Run, at

RULE = Rule(
    "forwarded-value",
    "error",
    "an argument is passed on to `super().__init__` under another value",
    "The parent's `get_config` saves the value it was given, not the argument: `from_config` then builds\n"
    "the object with that value in the argument's place, and a reloaded layer behaves differently (a\n"
    '`padding="symmetric"` passed on as `"valid"` comes back as `"valid"`).',
    'def __init__(self, filters, padding="symmetric", **kwargs):\n    super().__init__(filters, 3, padding="valid", **kwargs)\n    self.mode = padding',
    'def get_config(self):\n    return {**super().get_config(), "padding": self.mode}',
    default=False,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    """`super().__init__(padding="valid")` in an `__init__` that takes `padding` and keeps
    it (`self.mode = padding`): the parent's config saves "valid", so a reloaded object is
    built with padding="valid", unless the class's own `get_config` saves the argument."""
    init = cls.methods.get("__init__")
    call = next((n for n in walk(init) if is_super_call(n, "__init__")), None) if init else None
    if call is None or "from_config" in cls.methods:
        return  # (its own from_config may give the argument back its own way)
    params = {a.arg for a in [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]}
    own = _own_keys(cls)
    if own is None:
        return  # its own get_config may save anything
    read = {n.id for n in walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    me = self_name(init)
    set_after = {  # attributes `__init__` sets once the parent's `__init__` has run
        self_attribute(t, me)
        for n in walk(init)
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.lineno > call.end_lineno
        for target in (n.targets if isinstance(n, ast.Assign) else [n.target])
        for t in (target.elts if isinstance(target, ast.Tuple) else [target])
    }
    for keyword in call.keywords:
        name = keyword.arg
        if name not in params or name in own or name not in read:
            continue  # not an argument, saved by the class itself, or only replaced
        if _parent_reads(cls, name) & set_after:
            continue  # the parent's get_config reads what the subclass set: the argument
        if any(isinstance(n, ast.Name) and n.id == name for n in walk(keyword.value)):
            continue  # passed on, perhaps normalized: what comes back is what it makes
        shown = source.segment(keyword.value)
        yield at(
            source,
            keyword,
            RULE.code,
            f"`{name}` is passed on to `super().__init__` as `{shown}`: the config saves "
            f"that, so a reloaded object is built with `{name}={shown}`, not the argument",
            f'save the argument in `get_config` (`"{name}": ...`) and read it back in '
            "`from_config`, or give the parent's argument another name",
        )


def _parent_reads(cls: ClassInfo, key: str) -> set[str]:
    """The `self.` attributes the parents' `get_config` read for `key`: in its value
    (`{"key": serialize(self.attr)}`, `config["key"] = ...`, `update(key=...)`), or the
    attribute of that name when it reads attributes by a computed name (spektral's
    `getattr(self, key)` for each of its keyword arguments)."""
    attrs: set[str] = set()
    for parent in cls.parents:
        method = parent.methods.get("get_config")
        if method is None:
            continue
        me = self_name(method)
        values = []
        for node in walk(method):
            if isinstance(node, ast.Dict):
                values += [v for k, v in zip(node.keys, node.values) if string_value(k) == key]
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and string_value(target.slice) == key:
                        values.append(node.value)
            elif isinstance(node, ast.Call):
                values += [k.value for k in node.keywords if k.arg == key]
                if (
                    getattr(node.func, "id", None) == "getattr"
                    and len(node.args) >= 2
                    and getattr(node.args[0], "id", None) == me
                    and string_value(node.args[1]) is None
                ):
                    attrs.add(key)
        attrs |= {self_attribute(n, me) for v in values for n in walk(v)} - {None}
    return attrs


def _own_keys(cls: ClassInfo) -> set[str] | None:
    """The keys the class's own `get_config` writes; None when it cannot be read."""
    method = cls.methods.get("get_config")
    return set() if method is None else read_config(method).keys
