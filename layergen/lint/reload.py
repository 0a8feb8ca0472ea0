"""What a reloaded object gets back: `from_config(get_config())` must rebuild what was made.

Two silent bugs that only a reload shows, each read from the class alone (see checks.py
for the rules that share these helpers): an argument passed on to the parent under another
value (the parent saves that value, and the reloaded object gets it in place of the
argument), and a `from_config` that reads a key no `get_config` of the class writes (a
KeyError on every reload). Each yields (node, message, hint); checks.check_class places it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .configs import chained_keys, read_config
from .source import ClassInfo, SourceFile, is_super_call, self_attribute, self_name, walk

# What Keras's own base classes write into every config (Layer: name, trainable, dtype;
# Loss: name, reduction), which `super().get_config()` reaching them adds.
BASE_KEYS = {"layer": {"name", "trainable", "dtype"}, "loss": {"name", "reduction"}}


def forwarded_values(source: SourceFile, cls: ClassInfo) -> Iterator[tuple]:
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
        yield (
            keyword,
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
                values += [v for k, v in zip(node.keys, node.values) if _string(k) == key]
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and _string(target.slice) == key:
                        values.append(node.value)
            elif isinstance(node, ast.Call):
                values += [k.value for k in node.keywords if k.arg == key]
                if (
                    getattr(node.func, "id", None) == "getattr"
                    and len(node.args) >= 2
                    and getattr(node.args[0], "id", None) == me
                    and _string(node.args[1]) is None
                ):
                    attrs.add(key)
        attrs |= {self_attribute(n, me) for v in values for n in walk(v)} - {None}
    return attrs


def _own_keys(cls: ClassInfo) -> set[str] | None:
    """The keys the class's own `get_config` writes; None when it cannot be read."""
    method = cls.methods.get("get_config")
    return set() if method is None else read_config(method).keys


def missing_keys(source: SourceFile, cls: ClassInfo) -> Iterator[tuple]:
    """`config.pop("hash_config")` or `config["hash_config"]` in the class's own
    `from_config` where no `get_config` of the class writes that key: a KeyError on every
    reload. Keys read with a default (`get`, `pop(k, d)`, `in`) or written first are fine."""
    method = cls.methods.get("from_config")
    args = [*method.args.posonlyargs, *method.args.args] if method else []
    if len(args) < 2:
        return
    config = args[1].arg
    written = _written_keys(cls)
    if written is None:
        return
    assigned = {
        key
        for n in walk(method)
        if isinstance(n, (ast.Assign, ast.AugAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if (key := _subscript_key(t, config)) is not None
    }
    for node in walk(method):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = _subscript_key(node, config)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "pop"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == config
            and len(node.args) == 1
            and not node.keywords
        ):
            key = _string(node.args[0])
        if key is None or key in written or key in assigned:
            continue
        yield (
            node,
            f'`from_config` reads `"{key}"`, which `get_config` never writes: every reload '
            "raises KeyError",
            f'write `"{key}"` in `get_config`, or read the key it writes',
        )


def _written_keys(cls: ClassInfo) -> set[str] | None:
    """Every key the class's config holds: its `get_config` and those its `super()` calls
    reach, down to Keras's base; None when one of them cannot be read, or a parent is a
    class of Keras (other than the base) or one this run cannot read."""
    keys, goes_on = chained_keys([cls, *cls.parents])
    if keys is None or not goes_on:
        return keys
    if cls.parent_opaque or cls.kind not in BASE_KEYS:
        return None  # the rest comes from a parent we cannot read
    return keys | BASE_KEYS[cls.kind]


def _subscript_key(node: ast.AST, config: str) -> str | None:
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == config
    ):
        return _string(node.slice)
    return None


def _string(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
