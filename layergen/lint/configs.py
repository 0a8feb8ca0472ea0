"""What `get_config` returns, read backwards from its `return`: the keys it writes, whether
it reaches `super().get_config()`, and where `--fix` adds a missing key; and what a missing
key should hold (`stored_as`), unless `from_config` rebuilds the argument itself.

Only what flows into the returned value counts: a lookup table built in the method is not
the config, and a key added to it would not be saved.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..declaration.param_types import PARAM_TYPES
from .source import ClassInfo, SourceFile, is_super_call, self_attribute, self_name, walk

# The Keras modules whose `serialize` saves what their `get` made: one a param type's.
CONFIG_HELPERS = tuple(row.keras_module for row in PARAM_TYPES if row.keras_module)


@dataclass
class ConfigRead:
    keys: set[str] | None  # None: built in a way this cannot follow
    calls_super: bool
    # Where a key goes: ("dict", node) a dict literal, ("call", node) the keywords of
    # `dict(...)` / `config.update(...)`, ("name", name, node) `name["key"] = ...` before
    # that `return`; None: nowhere safe.
    target: tuple | None


def chained_keys(owners) -> tuple[set[str] | None, bool]:
    """The keys the first `get_config` of `owners` (ClassInfo, a class then its parents)
    writes, with those of each parent's its `super().get_config()` reaches; None when one
    cannot be read. And whether the chain goes on past the last owner (each one called
    `super().get_config()`)."""
    keys: set[str] = set()
    for owner in owners:
        method = owner.methods.get("get_config")
        if method is None:
            continue
        read = read_config(method)
        if read.keys is None:
            return None, False
        keys |= read.keys
        if not read.calls_super:
            return keys, False
    return keys, True


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
                elif node.args and string_value(node.args[0]) is not None:
                    self.keys_set.setdefault(name, set()).add(string_value(node.args[0]))

    def _write(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.sources.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            key = string_value(target.slice)
            if key is None:
                self.unknown.add(target.value.id)
            else:
                self.keys_set.setdefault(target.value.id, set()).add(key)

    def keys(self, node: ast.AST, seen: set[str]) -> set[str] | None:
        """The keys of the dict `node` evaluates to; None when it cannot be followed."""
        if isinstance(node, ast.Dict):
            found: set[str] = set()
            for key, value in zip(node.keys, node.values):
                part = {string_value(key)} if key is not None else self.keys(value, seen)
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
            return set()  # the parent's keys: read along the parents (rules/config_missing.py)
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


# --- what a key holds ---------------------------------------------------------------------


def stored_as(
    source: SourceFile, init: ast.FunctionDef, param: str, owners: list[ClassInfo]
) -> str | None:
    """The code that gives back an `__init__` argument: `self.units`, or
    `keras.activations.serialize(self.activation)` for `self.activation = keras.activations.get(activation)`,
    or `keras.initializers.serialize(self.init)` for `self.init = init` read only where Keras
    takes an initializer (`add_weight(initializer=self.init)`): a config holds it as Keras
    writes it, which JSON can hold and `get` reads back.
    """
    me = self_name(init)
    found = None
    for node in walk(init):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        attr = self_attribute(node.targets[0], me)
        value = node.value
        if attr is None:
            continue
        if isinstance(value, ast.Name) and value.id == param:
            helper = _helper_of(attr, owners)
            if helper is None:
                return f"self.{attr}"
            module = _keras_module(source, helper)  # None: no way to spell it, no fix
            return f"{module}.serialize(self.{attr})" if module else None
        if (
            isinstance(value, ast.Call)
            and len(value.args) == 1
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id == param
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "get"
        ):
            module = source.resolve(value.func.value) or ""
            if module.rsplit(".", 1)[-1] in CONFIG_HELPERS and module.startswith(
                ("keras", "tensorflow")
            ):
                found = found or f"{source.segment(value.func.value)}.serialize(self.{attr})"
    return found


KERAS_TAKES = {
    "initializer": "initializers",
    "regularizer": "regularizers",
    "constraint": "constraints",
}


def _helper_of(attr: str, owners: list[ClassInfo]) -> str | None:
    """`initializers` when every read of `self.<attr>` is a keyword where Keras takes an
    initializer (`initializer=`, `kernel_initializer=`), and so on; None otherwise."""
    kinds, reads, passed = set(), 0, 0
    for owner in owners:
        for function in owner.methods.values():
            me = self_name(function)
            for node in walk(function):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    reads += self_attribute(node, me) == attr
                elif isinstance(node, ast.Call):
                    for keyword in node.keywords:
                        if keyword.arg and self_attribute(keyword.value, me) == attr:
                            passed += 1
                            kinds.add(
                                next(
                                    (h for k, h in KERAS_TAKES.items() if keyword.arg.endswith(k)),
                                    None,
                                )
                            )
    return kinds.pop() if reads and reads == passed and len(kinds) == 1 else None


def _keras_module(source: SourceFile, helper: str) -> str | None:
    """How the file spells `keras.<helper>` (`keras.initializers`, `initializers`,
    `tf.keras.initializers`); None when it imports none of them."""
    for local, name in source.imports.items():
        if name in (f"keras.{helper}", f"tensorflow.keras.{helper}", f"tf_keras.{helper}"):
            return local
    for local, name in source.imports.items():
        if name in ("keras", "tf_keras", "tensorflow.keras"):
            return f"{local}.{helper}"
        if name == "tensorflow":
            return f"{local}.keras.{helper}"
    return None


def rebuilt_by_from_config(init: ast.FunctionDef, owners: list[ClassInfo]) -> set[str]:
    """The arguments a `from_config` of the class passes to the constructor itself
    (`cls(layer, **config)`): it rebuilds them from the config its own way, so a key of
    their name is not what it needs (and would be passed twice)."""
    method = next((o.methods["from_config"] for o in owners if "from_config" in o.methods), None)
    if method is None:
        return set()
    maker = self_name(method)  # `cls`
    named = [a.arg for a in [*init.args.posonlyargs, *init.args.args][1:]]
    rebuilt: set[str] = set()
    for node in walk(method):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == maker:
            positional = []
            for arg in node.args:
                if isinstance(arg, ast.Starred):
                    break
                positional.append(arg)
            rebuilt |= set(named[: len(positional)]) | {k.arg for k in node.keywords if k.arg}
            for k in node.keywords:  # `cls(**config)` after `config["spec"] = ...`
                if k.arg is None and isinstance(k.value, ast.Name):
                    rebuilt |= _keys_written(method, k.value.id)
    return rebuilt


def _keys_written(function: ast.FunctionDef, name: str) -> set[str]:
    """The keys `function` writes into the dict `name`: `name["k"] = ...`,
    `name.update(k=...)`, `name.update({"k": ...})`, `name.setdefault("k", ...)`; not
    `name["k"] = get(name.get("k"))`, which converts what the config saved."""
    written: set[str] = set()
    for node in walk(function):
        if isinstance(node, ast.Assign):
            read = {
                string_value(n.slice if isinstance(n, ast.Subscript) else n.args[0])
                for n in walk(node.value)
                if (isinstance(n, ast.Subscript) and getattr(n.value, "id", None) == name)
                or (
                    isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)
                    and n.func.attr in ("get", "pop")
                    and getattr(n.func.value, "id", None) == name
                    and n.args
                )
            }
            for target in node.targets:
                if isinstance(target, ast.Subscript) and getattr(target.value, "id", None) == name:
                    written.add(
                        None if string_value(target.slice) in read else string_value(target.slice)
                    )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and getattr(node.func.value, "id", None) == name
        ):
            if node.func.attr == "update":
                written |= {k.arg for k in node.keywords if k.arg}
                for arg in node.args:
                    if isinstance(arg, ast.Dict):
                        written |= {string_value(key) for key in arg.keys if key is not None}
            elif node.func.attr == "setdefault" and node.args:
                written.add(string_value(node.args[0]))
    return written - {None}


def string_value(node: ast.AST | None) -> str | None:
    """The text of a string constant (a config key); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
