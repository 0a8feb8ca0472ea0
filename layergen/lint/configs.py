"""What `get_config` returns, read backwards from its `return`: the keys it writes, whether
it reaches `super().get_config()`, and where `--fix` adds a missing key.

Only what flows into the returned value counts: a lookup table built in the method is not
the config, and a key added to it would not be saved.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .source import is_super_call, walk


@dataclass
class ConfigRead:
    keys: set[str] | None  # None: built in a way this cannot follow
    calls_super: bool
    # Where a key goes: ("dict", node) a dict literal, ("call", node) the keywords of
    # `dict(...)` / `config.update(...)`, ("name", name, node) `name["key"] = ...` before
    # that `return`; None: nowhere safe.
    target: tuple | None


def read_config(function: ast.FunctionDef) -> ConfigRead:
    """Kept on the node: a parent's `get_config` is read for every subclass."""
    read = function.__dict__.get("_config_read")
    if read is None:
        read = function._config_read = _read(function)
    return read


def _read(function: ast.FunctionDef) -> ConfigRead:
    returns = [n for n in walk(function) if isinstance(n, ast.Return) and n.value is not None]
    calls_super = any(is_super_call(n, "get_config") for n in walk(function))
    if not returns:
        return ConfigRead(None, calls_super, None)
    flow = _Flow(function)
    keys: set[str] | None = set()
    for node in returns:
        found = flow.keys(node.value, set())
        keys = None if found is None or keys is None else keys | found
    return ConfigRead(keys, calls_super, flow.target(returns[-1]))


class _Flow:
    """The statements of a method that write into each local name."""

    def __init__(self, function: ast.FunctionDef):
        self.sources: dict[str, list[ast.AST]] = {}  # name -> values merged into it
        self.keys_set: dict[str, set[str]] = {}  # name -> keys set by `name["k"] = ...`
        self.updates: dict[str, list[ast.Call]] = {}  # name -> `name.update(...)` calls
        self.unknown: set[str] = set()  # names written in a way this cannot follow
        for node in walk(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    self._write(target, node.value)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.attr in ("update", "setdefault")
            ):
                name = node.func.value.id
                if node.func.attr == "update":
                    self.updates.setdefault(name, []).append(node)
                elif node.args and _string(node.args[0]) is not None:
                    self.keys_set.setdefault(name, set()).add(_string(node.args[0]))

    def _write(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.sources.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            key = _string(target.slice)
            if key is None:
                self.unknown.add(target.value.id)
            else:
                self.keys_set.setdefault(target.value.id, set()).add(key)

    def keys(self, node: ast.AST, seen: set[str]) -> set[str] | None:
        """The keys of the dict `node` evaluates to; None when it cannot be followed."""
        if isinstance(node, ast.Dict):
            found: set[str] = set()
            for key, value in zip(node.keys, node.values):
                part = {_string(key)} if key is not None else self.keys(value, seen)
                if part is None or None in part:
                    return None
                found |= part
            return found
        if isinstance(node, ast.Name):
            return self._name_keys(node.id, seen)
        if isinstance(node, ast.Call):
            return self._call_keys(node, seen)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.BitOr)):
            left, right = self.keys(node.left, seen), self.keys(node.right, seen)
            return None if left is None or right is None else left | right
        return None

    def _name_keys(self, name: str, seen: set[str]) -> set[str] | None:
        if name in seen:
            return set()
        if name in self.unknown or name not in self.sources:
            return None  # an argument, a global, or written by index
        seen = seen | {name}
        found = set(self.keys_set.get(name, ()))
        for value in self.sources[name]:
            part = self.keys(value, seen)
            if part is None:
                return None
            found |= part
        for call in self.updates.get(name, []):
            part = self._arguments(call, seen)
            if part is None:
                return None
            found |= part
        return found

    def _call_keys(self, node: ast.Call, seen: set[str]) -> set[str] | None:
        func = node.func
        if is_super_call(node, "get_config"):
            return set()  # the parent's keys: read along the parents (checks._chain_keys)
        if isinstance(func, ast.Name) and func.id in ("dict", "list"):
            return self._arguments(node, seen)
        if isinstance(func, ast.Attribute) and func.attr in ("copy", "items") and not node.args:
            return self.keys(func.value, seen)  # `base.copy()`, `list(base.items())`
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "deepcopy"
            and len(node.args) == 1
            and not node.keywords
        ):
            return self.keys(node.args[0], seen)
        return None

    def _arguments(self, call: ast.Call, seen: set[str]) -> set[str] | None:
        """Keys of `dict(a, k=v, **b)` or `name.update(a, k=v, **b)`."""
        found: set[str] = set()
        for part in [*call.args, *(k.value for k in call.keywords if k.arg is None)]:
            keys = self.keys(part, seen)
            if keys is None:
                return None
            found |= keys
        return found | {k.arg for k in call.keywords if k.arg}

    def target(self, returned: ast.Return) -> tuple | None:
        value = returned.value
        if isinstance(value, ast.Dict):
            return ("dict", value)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            return ("call", value) if value.func.id == "dict" else None
        if not isinstance(value, ast.Name) or self._name_keys(value.id, set()) is None:
            return None
        updates = [u for u in self.updates.get(value.id, []) if u.lineno < returned.lineno]
        if updates:
            last = updates[-1]
            if len(last.args) == 1 and isinstance(last.args[0], ast.Dict):
                return ("dict", last.args[0])
            if not last.args:
                return ("call", last)
        return ("name", value.id, returned)


def _string(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
