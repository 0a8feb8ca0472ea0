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
        passed = _passed_on(call, params, {*params, *keywords}, set(outer.params))
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


def _calls(root: Path, name: str):
    """(path, call, the class whose `__init__` makes it, or None) for each call of `name`."""
    for path in _sources(root):
        text = _text(path)
        if f"{name}(" not in text:
            continue
        tree = _tree(path, text)
        if tree is None:
            continue
        inside: dict[int, Outer] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for init in node.body:
                    if isinstance(init, ast.FunctionDef) and init.name == "__init__":
                        outer = _outer(node.name, init)
                        inside.update({id(n): outer for n in ast.walk(init)})
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called(node.func) == name:
                yield path, node, inside.get(id(node))


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
    return Outer(name, [*params, *(a.arg for a in args.kwonlyargs)], defaults)


def _passed_on(call: ast.Call, params: list[str], names: set[str], outer: set[str]) -> dict:
    """Our params the call passes an argument of the enclosing `__init__` as it is, by name:
    param -> that argument."""
    pairs = [*zip(params, call.args), *((k.arg, k.value) for k in call.keywords)]
    return {
        ours: node.id
        for ours, node in pairs
        if ours in names and isinstance(node, ast.Name) and node.id in outer
    }


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
    out.update({k: v for k, v in call.values.items() if k not in given})
    out.source = f"{call.path.relative_to(root.resolve()).as_posix()}:{call.line}" + "".join(
        f", through `{name}`" for name in reversed(call.through)
    )
    return out


def _base_keywords(found) -> set[str]:
    """The keyword arguments of the Keras base of a class whose constructor is its base's."""
    from ..keras_classes import layer_classes

    if not found.base:
        return set()
    return set(layer_classes().get(found.base) or ()) - {"name", "dtype", "trainable"}
