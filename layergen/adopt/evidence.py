"""Example values for an adopted class, from the project's own calls of it: a test or a
model that constructs `ClassName(hidden_dim=64, num_heads=2)` with literal arguments says
what the class takes, in values that fit together (one call's, never mixed across calls)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

SKIPPED = {".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist", ".layergen"}


@dataclass(frozen=True)
class Evidence:
    values: dict[str, Any]  # param -> the literal the call passes
    path: Path
    line: int
    through: list[str] = field(default_factory=list)  # classes that pass the values on


def constructed(
    root: Path,
    name: str,
    params: list[str],
    needed: set[str],
    keywords: set[str] = frozenset(),
    depth: int = 2,
) -> Evidence | None:
    """The first call of `name(...)` in the project (tests first) that passes a literal for
    each param in `needed` (and for a class whose constructor is its base's, one of the
    base's `keywords`), with every literal argument it passes; None when none does.

    A call inside another class's `__init__` that passes that `__init__`'s own arguments on
    (`DeiTEmbeddings(image_size=image_size)` in `DeiTBackbone`) takes their values from a
    call of that class in turn (`DeiTBackbone(image_size=(16, 16))` in its test), or from
    their literal defaults there, up to `depth` classes out."""
    for path, call, outer in _calls(root.resolve(), name):
        values = _literals(call, params, {*params, *keywords})
        if values is None:
            continue
        if needed <= values.keys() and (values or not keywords):
            return Evidence(values, path, call.lineno)
        if outer is None or depth == 0:
            continue
        passed = _passed_on(call, params, {*params, *keywords}, outer)
        missing = needed - values.keys()
        if not missing or not missing <= passed.keys():
            continue
        wanted = {passed[m] for m in missing} - outer.defaults.keys()
        up = constructed(root, outer.name, outer.params, wanted, depth=depth - 1)
        if up is None and wanted:
            continue
        known = {**outer.defaults, **(up.values if up else {})}
        values.update({ours: known[theirs] for ours, theirs in passed.items() if theirs in known})
        where = up or Evidence({}, path, call.lineno)
        return Evidence(values, where.path, where.line, [outer.name, *where.through])
    return None


@dataclass(frozen=True)
class Outer:
    """The class whose `__init__` a call is made in: its arguments and literal defaults."""

    name: str
    params: list[str]
    defaults: dict[str, Any]
    stored: dict[str, str]  # `self.attr = arg` in `__init__`: attr -> arg


def _calls(root: Path, name: str):
    """(path, call, the class whose `__init__` makes it, or None) for each construction of
    `name`: a call of it, its `**kwargs` taken from a dict literal the file assigns to that
    name (`self.init_kwargs = {...}`), or a test helper handed the class and its
    `init_kwargs` (Keras's and keras-hub's `run_layer_test(cls=X, init_kwargs=...)`)."""
    for path in _sources(root):
        text = _text(path)
        if name not in text:
            continue
        tree = _tree(path, text)
        if tree is None:
            continue
        inside: dict[int, Outer] = {}
        dicts: dict[str, ast.Dict] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):  # its methods read its arguments as stored
                for init in node.body:
                    if isinstance(init, ast.FunctionDef) and init.name == "__init__":
                        outer = _outer(node.name, init)
                        inside.update({id(n): outer for n in ast.walk(node)})
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.value, ast.Dict)
            ):
                dicts[ast.unparse(node.targets[0])] = node.value
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            if _called(node.func) == name:
                call = _expanded(node, node.keywords, dicts)
            else:
                call = _handed(node, name, dicts)
            if call is not None:
                yield path, call, inside.get(id(node))


def _expanded(call: ast.Call, keywords: list[ast.keyword], dicts) -> ast.Call:
    """`call` with each `**name` of `keywords` replaced by the items of the dict literal the
    file assigns to that name (left as it is where there is none: then nothing is known)."""
    out = []
    for keyword in keywords:
        found = dicts.get(ast.unparse(keyword.value)) if keyword.arg is None else None
        if isinstance(keyword.value, ast.Dict) and keyword.arg is None:
            found = keyword.value
        if found is None or any(
            not (isinstance(k, ast.Constant) and isinstance(k.value, str)) for k in found.keys
        ):
            out.append(keyword)
            continue
        out += [ast.keyword(arg=k.value, value=v) for k, v in zip(found.keys, found.values)]
    return ast.Call(func=call.func, args=call.args, keywords=out, lineno=call.lineno)


def _handed(call: ast.Call, name: str, dicts) -> ast.Call | None:
    """A call handed the class `name` and `init_kwargs`, as the construction it makes."""
    values = [*call.args, *(k.value for k in call.keywords)]
    init = next((k.value for k in call.keywords if k.arg == "init_kwargs"), None)
    if init is None or not any(
        isinstance(v, (ast.Name, ast.Attribute)) and _called(v) == name for v in values
    ):
        return None
    made = ast.Call(func=ast.Name(name), args=[], keywords=[], lineno=call.lineno)
    return _expanded(made, [ast.keyword(arg=None, value=init)], dicts)


def _outer(name: str, init: ast.FunctionDef) -> Outer:
    args = init.args
    params = [a.arg for a in [*args.posonlyargs, *args.args][1:]]
    defaults = {}
    pairs = [
        *zip(params[len(params) - len(args.defaults) :], args.defaults),
        *((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None),
    ]
    for param, node in pairs:
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        defaults[param] = list(value) if isinstance(value, tuple) else value
    stored = {
        ast.unparse(n.targets[0]).removeprefix("self."): n.value.id
        for n in ast.walk(init)
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and ast.unparse(n.targets[0]).startswith("self.")
        and isinstance(n.value, ast.Name)
    }
    return Outer(name, [*params, *(a.arg for a in args.kwonlyargs)], defaults, stored)


def _passed_on(call: ast.Call, params: list[str], names: set[str], outer: Outer) -> dict:
    """Our params the call passes an argument of the enclosing class's `__init__` as it is,
    by name (`num_heads`) or as `__init__` stored it (`self.num_heads`, in `build`): param ->
    that argument."""
    pairs = [*zip(params, call.args), *((k.arg, k.value) for k in call.keywords)]
    out = {}
    for ours, node in pairs:
        text = ast.unparse(node)
        theirs = outer.stored.get(text.removeprefix("self.")) if text.startswith("self.") else text
        if ours in names and theirs in outer.params:
            out[ours] = theirs
    return out


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _literals(call: ast.Call, params: list[str], names: set[str]) -> dict[str, Any] | None:
    """The literal arguments of the call of `names` (positional ones bound to `params` in
    order); None when it unpacks arguments (`*args`, `**config`) or passes more positional
    ones than `params`: what it passes is not known."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    out = {}
    pairs = [*zip(params, call.args), *((k.arg, k.value) for k in call.keywords)]
    if len(call.args) > len(params):
        return None
    for name, node in pairs:
        if name not in names:
            continue
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def _sources(root: Path) -> tuple[Path, ...]:
    """The project's Python files, tests first (a test's call is made to run)."""
    found = [
        p
        for p in root.rglob("*.py")
        if not SKIPPED & set(p.relative_to(root).parts[:-1]) and p.is_file()
    ]
    return tuple(sorted(found, key=lambda p: (not _is_test(p), str(p))))


def _is_test(path: Path) -> bool:
    return path.name.startswith("test_") or path.stem.endswith("_test") or "tests" in path.parts


def _text(path: Path) -> str:
    try:
        stat = path.stat()
    except OSError:
        return ""
    return _read(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _read(path: Path, mtime_ns: int, size: int) -> str:  # read again once changed
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


@lru_cache(maxsize=512)
def _tree(path: Path, text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class Given(dict):
    """Example values, with where the project's call that gave them is (`source`)."""

    source: str | None = None


def evidenced(root: Path, found, given: dict) -> dict:
    """`given` with the values of the project's first call of the class that passes every
    required argument `given` lacks, where there is one (its place in `.source`)."""
    from ..introspect import REQUIRED

    params = [a.name for a in found.cls.args]
    needed = {a.name for a in found.cls.args if a.default is REQUIRED} - set(given)
    out = Given(given)
    keywords = _base_keywords(found) if "__init__" not in found.methods else set()
    if not needed and not keywords:
        return out
    positional = [] if found.forwarded or keywords else params
    call = constructed(root, found.cls.name, positional, needed, keywords)
    if call is None:
        return out
    defaults = {a.name: a.default for a in found.cls.args if a.default is not REQUIRED}
    out.update(
        {
            k: v
            for k, v in call.values.items()
            if k not in given and (k not in defaults or _fits(v, defaults[k]))
        }
    )
    where = f"{call.path.relative_to(root.resolve()).as_posix()}:{call.line}"
    through = " -> ".join(f"`{name}`" for name in reversed(call.through))
    out.source = (
        f"{where}, a call of {through}, which passes them on"
        if through
        else f"{where}, a call of the class"
    )
    return out


def _base_keywords(found) -> set[str]:
    """The keyword arguments of the Keras base of a class whose constructor is its base's."""
    from ..keras_classes import layer_classes

    if not found.base:
        return set()
    return set(layer_classes().get(found.base) or ()) - {"name", "dtype", "trainable"}


def _fits(value: Any, default: Any) -> bool:
    """`value` is of the type the param's default gives it (an int where a float is)."""
    if default is None:
        return True
    return type(value) is type(default) or (type(value) is int and type(default) is float)
