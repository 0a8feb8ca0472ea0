"""Example values for an adopted class, from the project's own calls of it: a test or a
model that constructs `ClassName(hidden_dim=64, num_heads=2)` with literal arguments says
what the class takes, in values that fit together (one call's, never mixed across calls)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .values import Known, Unknown, bind, evaluate, first, forget, plain

SKIPPED = {".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist", ".layergen"}


@dataclass(frozen=True)
class Evidence:
    values: dict[str, Any]  # param -> the value the call passes
    path: Path
    line: int
    through: list[str] = field(default_factory=list)  # classes that pass the values on


@dataclass(frozen=True)
class Signature:
    """How a call's arguments bind to a constructor's params."""

    positional: tuple[str, ...]  # in order, `self` left out
    names: frozenset[str]  # every param a keyword may name


def constructed(
    root: Path,
    name: str,
    signature: Signature,
    needed: set[str],
    keywords: set[str] = frozenset(),
    depth: int = 3,
) -> Evidence | None:
    """The first construction of `name` in the project (tests first) that passes a value
    for each param in `needed` (and for a class whose constructor is its base's, one of
    the base's `keywords`), with every value it passes; None when none does.

    A construction inside another class (`Embedding(image_size=height)` in a backbone's
    `__init__`, after `height, width = image_shape[0], image_shape[1]`) passes what its
    arguments evaluate to from that class's own: those a construction of it in turn passes
    (its test's `Backbone(16, 64)`), else its literal defaults, up to `depth` classes out.
    One construction's values, never mixed across constructions."""
    for found in _constructions(root.resolve(), name, signature, depth, {}):
        if needed <= found.values.keys() and (found.values or not keywords):
            return found
    return None


@dataclass(frozen=True)
class Outer:
    """The class whose method a construction is made in: its constructor and defaults."""

    name: str
    signature: Signature
    defaults: dict[str, Any]
    init: ast.FunctionDef


@dataclass(frozen=True)
class Site:
    """Where a construction is made: the function around it, and its class's `__init__`."""

    function: ast.FunctionDef | None
    outer: Outer | None


def _constructions(root: Path, name: str, signature: Signature, depth: int, memo: dict):
    """Every construction of `name` whose arguments bind to `signature`, as Evidence."""
    key = (name, signature, depth)
    if key not in memo:
        memo[key] = []  # a class built inside itself: no evidence from there
        memo[key] = [
            Evidence(values, path, line, through)
            for path, call, site in _calls(root, name)
            for known, path, line, through in _scopes(root, path, call, site, depth, memo)
            if (values := _arguments(call, signature, known)) is not None
        ]
    return memo[key]


def _scopes(root: Path, path: Path, call: ast.Call, site: Site, depth: int, memo: dict):
    """(the names known at the call, where their values come from, the classes between)
    for each construction of the class the call is made in, then for its defaults alone;
    for a call in no such class, what the function around it binds before the call."""
    outer, at = site.outer, getattr(call, "original", call)  # the node in the tree
    module = _module(root, path, memo)
    if outer is None:
        known: dict[str, Any] = dict(module)
        if site.function is not None:
            _run(site.function.body, at, known)
        yield known, path, call.lineno, []
        return
    ups = _constructions(root, outer.name, outer.signature, depth - 1, memo) if depth else []
    for up in [*ups, Evidence({}, path, call.lineno)]:
        known = {**module, **outer.defaults, **up.values}
        if site.function is outer.init:
            _run(outer.init.body, at, known)
        else:  # `build` or another method: after `__init__`, what it stored
            _run(outer.init.body, None, known)
            _run(site.function.body, at, known)
        yield known, up.path, up.line, [outer.name, *up.through]


def _run(body: list[ast.stmt], call: ast.Call | None, known: dict[str, Any]) -> None:
    """The assignments of `body` made before `call` (all of them for None) into `known`,
    down the blocks that hold the call: a loop binds its first item (the first layer it
    builds), an `if` the branch its test takes. A name bound where the value is not known
    is forgotten, so a stale value never stands for it."""
    for statement in body:
        holds = call is not None and _within(call, statement)
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and not holds:
            _assign(statement, known)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            if not holds:
                forget(statement, known)
                continue
            try:
                bind(statement.target, first(evaluate(statement.iter, known)), known)
            except Unknown:
                forget(statement.target, known)
            _run(statement.body, call, known)
        elif isinstance(statement, ast.If):
            try:
                branch = statement.body if evaluate(statement.test, known) else statement.orelse
            except Unknown:
                if not holds:  # what either branch leaves: the values both agree on
                    _agreed(statement, known)
                    continue
                branch = statement.body if _inside(call, statement.body) else statement.orelse
            _run(branch, call, known)
        elif isinstance(statement, (ast.With, ast.Try)) and holds:
            _run(statement.body, call, known)
        elif not holds:
            forget(statement, known)
        if holds:
            _comprehended(statement, call, known)
            return


KERAS_GETTERS = ("config.image_data_format", "backend.image_data_format")


def _module(root: Path, path: Path, memo: dict, depth: int = 3) -> dict[str, Known]:
    """The functions a module's code may call that `evaluate` computes: the project's own
    it defines or imports by name (read by their bodies), and Keras's configuration
    getters (what they return in this process)."""
    key = ("module", path, depth)
    if key in memo:
        return memo[key]
    memo[key] = out = {}
    import keras

    for name in KERAS_GETTERS:
        getter = Known(lambda name=name: _keras_getter(keras, name))
        out[f"keras.{name}"] = getter
    tree = _tree(path, _text(path)) if depth else None
    for node in tree.body if tree is not None else []:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = _function(root, path, node, memo, depth)
        elif isinstance(node, ast.ImportFrom):
            source = _imported(root, path, node)
            found = _tree(source, _text(source)) if source is not None else None
            defined = {
                f.name: f for f in (found.body if found else []) if isinstance(f, ast.FunctionDef)
            }
            for alias in node.names:
                if alias.name in defined:
                    function = _function(root, source, defined[alias.name], memo, depth - 1)
                    out[alias.asname or alias.name] = function
    return out


def _keras_getter(keras, name: str) -> Any:
    value = keras
    for part in name.split("."):
        value = getattr(value, part)
    return value()


def _imported(root: Path, path: Path, node: ast.ImportFrom) -> Path | None:
    """The project's file a `from X import name` reads, or None (not the project's)."""
    if node.level:
        base = path.parent
        for _ in range(node.level - 1):
            base = base.parent
    else:
        base = root
    stem = base.joinpath(*(node.module or "").split(".")) if node.module else base
    for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
        if candidate.is_file() and candidate.resolve().is_relative_to(root):
            return candidate.resolve()
    return None


def _function(root: Path, path: Path, node: ast.FunctionDef, memo: dict, depth: int) -> Known:
    """`node`, evaluated by its body on its arguments: assignments, the `if` its test takes,
    `return`; anything else (a loop, a raise, a call not known) is Unknown."""

    def call(*args, **kwargs):
        if depth <= 0 or node.args.vararg or node.args.kwonlyargs:
            raise Unknown(node.name)
        known = dict(_module(root, path, memo, depth - 1))
        params = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
        defaults = dict(zip(params[len(params) - len(node.args.defaults) :], node.args.defaults))
        if len(args) > len(params) or (kwargs.keys() - set(params) and not node.args.kwarg):
            raise Unknown(node.name)
        bound = {**dict(zip(params, args)), **kwargs}
        for param in params:
            if param not in bound:
                if param not in defaults:
                    raise Unknown(param)
                bound[param] = evaluate(defaults[param], known)
        known.update(bound)
        return _returned(node.body, known)

    return Known(call)


def _returned(body: list[ast.stmt], known: dict[str, Any]) -> Any:
    for statement in body:
        if isinstance(statement, ast.Return):
            return None if statement.value is None else evaluate(statement.value, known)
        if isinstance(statement, ast.If):
            branch = statement.body if evaluate(statement.test, known) else statement.orelse
            if any(isinstance(n, ast.Return) for b in branch for n in ast.walk(b)):
                return _returned(branch, known)
            for inner in branch:
                _step(inner, known)
        else:
            _step(statement, known)
    return None


def _step(statement: ast.stmt, known: dict[str, Any]) -> None:
    """One statement of a function read for its value: an assignment, or a docstring."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        _assign(statement, known)
    elif not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)):
        raise Unknown(type(statement).__name__)


def _agreed(statement: ast.If, known: dict[str, Any]) -> None:
    """After an `if` whose test is not known: a name keeps the value both branches give
    it (`height = image_shape[0]` either way), and is forgotten where they differ."""
    body, orelse = dict(known), dict(known)
    _run(statement.body, None, body)
    _run(statement.orelse, None, orelse)
    for name in known.keys() | body.keys() | orelse.keys():
        if name in body and name in orelse and _same(body[name], orelse[name]):
            known[name] = body[name]
        else:
            known.pop(name, None)


def _same(one: Any, other: Any) -> bool:
    return type(one) is type(other) and (one is other or one == other)


def _assign(statement: ast.stmt, known: dict[str, Any]) -> None:
    if isinstance(statement, ast.AugAssign):
        value_node = ast.BinOp(left=statement.target, op=statement.op, right=statement.value)
        targets = [statement.target]
    else:
        value_node = statement.value
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    try:
        value = evaluate(value_node, known) if value_node is not None else None
    except Unknown:
        for target in targets:
            forget(target, known)
        return
    for target in targets:
        bind(target, value, known)


def _comprehended(statement: ast.stmt, call: ast.Call, known: dict[str, Any]) -> None:
    """The loop variables of the comprehensions around `call`, at their first item."""
    for node in ast.walk(statement):
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            if not _within(call, node):
                continue
            for generator in node.generators:
                try:
                    bind(generator.target, first(evaluate(generator.iter, known)), known)
                except Unknown:
                    forget(generator.target, known)


def _within(call: ast.AST, node: ast.AST) -> bool:
    return any(inner is call for inner in ast.walk(node))


def _inside(call: ast.AST, body: list[ast.stmt]) -> bool:
    return any(_within(call, statement) for statement in body)


def _calls(root: Path, name: str):
    """(path, call, where it is made) for each construction of `name`: a call of it, its
    `**kwargs` taken from a dict literal the file assigns to that name
    (`self.init_kwargs = {...}`), or a test helper handed the class and its `init_kwargs`
    (Keras's and keras-hub's `run_layer_test(cls=X, init_kwargs=...)`)."""
    for path in _sources(root):
        text = _text(path)
        if name not in text:
            continue
        tree = _tree(path, text)
        if tree is None:
            continue
        sites: dict[int, Site] = {}
        dicts: dict[str, ast.Dict] = {}
        for node in ast.walk(tree):  # outer functions first: the innermost one stays
            if isinstance(node, ast.ClassDef):
                init = next(
                    (
                        f
                        for f in node.body
                        if isinstance(f, ast.FunctionDef) and f.name == "__init__"
                    ),
                    None,
                )
                outer = _outer(node.name, init) if init is not None else None
                for method in node.body:
                    if isinstance(method, ast.FunctionDef):
                        sites.update({id(n): Site(method, outer) for n in ast.walk(method)})
            elif isinstance(node, ast.FunctionDef) and id(node) not in sites:
                sites.update({id(n): Site(node, None) for n in ast.walk(node)})
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
                yield path, call, sites.get(id(node), Site(None, None))


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
    made = ast.Call(func=call.func, args=call.args, keywords=out, lineno=call.lineno)
    made.original = getattr(call, "original", call)  # the node of the tree, for `_within`
    return made


def _handed(call: ast.Call, name: str, dicts) -> ast.Call | None:
    """A call handed the class `name` and `init_kwargs`, as the construction it makes."""
    values = [*call.args, *(k.value for k in call.keywords)]
    init = next((k.value for k in call.keywords if k.arg == "init_kwargs"), None)
    if init is None or not any(
        isinstance(v, (ast.Name, ast.Attribute)) and _called(v) == name for v in values
    ):
        return None
    made = ast.Call(func=ast.Name(name), args=[], keywords=[], lineno=call.lineno)
    made.original = call
    return _expanded(made, [ast.keyword(arg=None, value=init)], dicts)


def _outer(name: str, init: ast.FunctionDef) -> Outer:
    args = init.args
    positional = tuple(a.arg for a in [*args.posonlyargs, *args.args][1:])
    names = frozenset([*positional, *(a.arg for a in args.kwonlyargs)])
    pairs = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults),
        *((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None),
    ]
    defaults = {}
    for param, node in pairs:
        try:
            defaults[param] = evaluate(node, {})
        except Unknown:
            continue
    return Outer(name, Signature(positional, names), defaults, init)


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _arguments(call: ast.Call, signature: Signature, known: dict) -> dict[str, Any] | None:
    """The values of the call's arguments known from `known`, by param (positional ones
    bound in order; none where it unpacks `*args`, whose length is not known); None when it
    passes more positional arguments than the constructor takes. A keyword the call names
    is certain even beside `**kwargs`: Python refuses the same argument twice."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        pairs = []
    elif len(call.args) > len(signature.positional):
        return None
    else:
        pairs = list(zip(signature.positional, call.args))
    pairs += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
    out = {}
    for name, node in pairs:
        if name not in signature.names:
            continue
        try:
            value = evaluate(node, known)
            plain(value)  # what an example can hold; kept as it is for the classes inside
        except Unknown:
            continue
        out[name] = value
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

    params = {a.name for a in found.cls.args}
    needed = {a.name for a in found.cls.args if a.default is REQUIRED} - set(given)
    out = Given(given)
    keywords = _base_keywords(found) if "__init__" not in found.methods else set()
    if not needed and not keywords:
        return out
    call = constructed(root, found.cls.name, _signature(found, keywords), needed, keywords)
    if call is None:
        return out
    defaults = {a.name: a.default for a in found.cls.args if a.default is not REQUIRED}
    out.update(
        {
            k: v
            for k, v in ((k, plain(v)) for k, v in call.values.items())
            if k in params | keywords
            and k not in given
            and (k not in defaults or _fits(v, defaults[k]))
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


def _signature(found, keywords: set[str]) -> Signature:
    """The class's constructor as written (its forwarded `dtype` and `name` included, so a
    positional argument binds to its own param), or its base's keywords where it has none."""
    init = found.methods.get("__init__")
    if init is None:
        return Signature((), frozenset(keywords))
    params = init.params
    positional = tuple(p.name.value for p in [*params.posonly_params, *params.params][1:])
    return Signature(
        positional, frozenset([*positional, *(p.name.value for p in params.kwonly_params)])
    )


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
