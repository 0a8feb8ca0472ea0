"""Example values for an adopted class, from the project's own calls of it: a test or a
model that constructs `ClassName(hidden_dim=64, num_heads=2)` with literal arguments says
what the class takes, in values that fit together (one call's, never mixed across calls)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

SKIPPED = {".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist", ".layergen"}


@dataclass(frozen=True)
class Evidence:
    values: dict[str, Any]  # param -> the literal the call passes
    path: Path
    line: int


def constructed(
    root: Path, name: str, params: list[str], needed: set[str], keywords: set[str] = frozenset()
) -> Evidence | None:
    """The first call of `name(...)` in the project (tests first) that passes a literal for
    each param in `needed` (and for a class whose constructor is its base's, one of the
    base's `keywords`), with every literal argument it passes; None when none does."""
    for path in _sources(root.resolve()):
        text = _text(path)
        if f"{name}(" not in text:
            continue
        tree = _tree(path, text)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or _called(node.func) != name:
                continue
            values = _literals(node, params, {*params, *keywords})
            if values is not None and needed <= values.keys() and (values or not keywords):
                return Evidence(values, path, node.lineno)
    return None


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
    out.source = f"{call.path.relative_to(root.resolve()).as_posix()}:{call.line}"
    return out


def _base_keywords(found) -> set[str]:
    """The keyword arguments of the Keras base of a class whose constructor is its base's."""
    from ..keras_classes import layer_classes

    if not found.base:
        return set()
    return set(layer_classes().get(found.base) or ()) - {"name", "dtype", "trainable"}
