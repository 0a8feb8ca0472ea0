"""What an expression of the project's code evaluates to, from values known to one call:
a safe evaluator over literals, names bound to known values, subscripts, arithmetic,
comparisons, tuples and a few pure builtins (`int`, `len`, `range`...). Anything else
(a call of the project's code, an attribute of an object, a name not known) is unknown:
never guessed, never executed."""

from __future__ import annotations

import ast
import operator
from typing import Any


class Unknown(Exception):
    """The expression's value is not known from the values given."""


class Known:
    """A function whose value `evaluate` may compute from its arguments: one of the
    project's own, read by its body, or a pure getter of Keras's configuration."""

    def __init__(self, function):
        self.function = function

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)


BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
PURE = {
    "int": int,
    "float": float,
    "bool": bool,
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "sum": sum,
    "len": len,
    "tuple": tuple,
    "list": list,
    "range": range,
    "enumerate": enumerate,
    "zip": zip,
}
TYPES = {t.__name__: t for t in (int, float, bool, str, tuple, list, dict)}
LARGEST = 10**12  # a number or length beyond is no example value: unknown
SEQUENCES = (tuple, list, str, range, dict)


def evaluate(node: ast.expr, known: dict[str, Any]) -> Any:
    """The value of `node`, names (`width`, `self.width`) read from `known`; raises Unknown."""
    value = _evaluate(node, known)
    _check(value)
    return value


def _evaluate(node: ast.expr, known: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Name, ast.Attribute)):
        key = ast.unparse(node)
        if key in known and not isinstance(known[key], Known):
            return known[key]
        raise Unknown(key)
    if isinstance(node, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise Unknown("starred")
        items = (evaluate(e, known) for e in node.elts)
        return tuple(items) if isinstance(node, ast.Tuple) else list(items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Unknown("**")
        return {evaluate(k, known): evaluate(v, known) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Subscript):
        container = evaluate(node.value, known)
        index = _index(node.slice, known)
        if not isinstance(container, SEQUENCES):
            raise Unknown("subscript")
        try:
            return container[index]
        except (IndexError, KeyError, TypeError) as error:
            raise Unknown("subscript") from error
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = evaluate(node.left, known), evaluate(node.right, known)
        if isinstance(node.op, ast.Pow) and _number(right) and abs(right) > 64:
            raise Unknown("power")
        return _apply(BINARY[type(node.op)], left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return _apply(UNARY[type(node.op)], evaluate(node.operand, known))
    if isinstance(node, ast.BoolOp):
        value = evaluate(node.values[0], known)
        for other in node.values[1:]:
            if isinstance(node.op, ast.And) != bool(value):
                return value
            value = evaluate(other, known)
        return value
    if isinstance(node, ast.Compare):
        left = evaluate(node.left, known)
        for op, right_node in zip(node.ops, node.comparators):
            right = evaluate(right_node, known)
            if not _apply(COMPARE[type(op)], left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        test = evaluate(node.test, known)
        return evaluate(node.body if test else node.orelse, known)
    if isinstance(node, ast.Call) and isinstance(known.get(ast.unparse(node.func)), Known):
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise Unknown("call")
        args = [evaluate(a, known) for a in node.args]
        kwargs = {k.arg: evaluate(k.value, known) for k in node.keywords}
        return _apply(known[ast.unparse(node.func)], *args, **kwargs)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return [evaluate(node.elt, scope) for scope in _scopes(node.generators, known)]
    if isinstance(node, ast.DictComp):
        return {
            evaluate(node.key, scope): evaluate(node.value, scope)
            for scope in _scopes(node.generators, known)
        }
    if _called(node, "isinstance") and len(node.args) == 2 and not node.keywords:
        return isinstance(evaluate(node.args[0], known), _types(node.args[1], known))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PURE:
        if node.keywords:
            raise Unknown("call")
        if node.func.id in known:  # shadowed by the code: not the builtin
            raise Unknown(node.func.id)
        return _apply(PURE[node.func.id], *_positional(node.args, known))
    raise Unknown(type(node).__name__)


def _scopes(generators: list[ast.comprehension], known: dict[str, Any]):
    """The names a comprehension's element sees, for each item its loops bind."""
    if not generators:
        yield known
        return
    head, *rest = generators
    items = evaluate(head.iter, known)
    if not isinstance(items, SEQUENCES) or isinstance(items, (str, dict)):
        raise Unknown("comprehension")
    for item in items:
        scope = dict(known)
        bind(head.target, item, scope)
        if not all(evaluate(test, scope) for test in head.ifs):
            continue
        yield from _scopes(rest, scope)


def _positional(args: list[ast.expr], known: dict[str, Any]) -> list[Any]:
    """A call's positional arguments, `*items` spread where `items` is known."""
    out = []
    for arg in args:
        if isinstance(arg, ast.Starred):
            items = evaluate(arg.value, known)
            if not isinstance(items, (tuple, list)):
                raise Unknown("starred")
            out += items
        else:
            out.append(evaluate(arg, known))
    return out


def _called(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _types(node: ast.expr, known: dict[str, Any]) -> tuple[type, ...]:
    """The builtin types `isinstance`'s second argument names (`int`, `(list, tuple)`)."""
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    if not all(isinstance(n, ast.Name) and n.id in TYPES and n.id not in known for n in names):
        raise Unknown("isinstance")
    return tuple(TYPES[n.id] for n in names)


def _index(node: ast.expr, known: dict[str, Any]) -> Any:
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else evaluate(p, known) for p in parts))
    return evaluate(node, known)


def _apply(function, *args, **kwargs) -> Any:
    try:
        value = function(*args, **kwargs)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, IndexError) as error:
        raise Unknown(str(error)) from error
    if isinstance(value, (enumerate, zip)):
        value = tuple(value) if _small(args) else None
        if value is None:
            raise Unknown("too long")
    return value


def _small(args) -> bool:
    return all(not hasattr(a, "__len__") or len(a) <= 10_000 for a in args)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check(value: Any) -> None:
    if _number(value) and abs(value) > LARGEST:
        raise Unknown("too large")
    if isinstance(value, (str, tuple, list, range, dict)) and len(value) > 10_000:
        raise Unknown("too long")


def plain(value: Any) -> Any:
    """`value` as an example holds it (tuples as lists); Unknown for what YAML cannot say."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: plain(v) for k, v in value.items()}
    raise Unknown(type(value).__name__)


def first(iterable: Any) -> Any:
    """The first item a loop over `iterable` binds (the first layer a loop builds)."""
    if not isinstance(iterable, SEQUENCES) or isinstance(iterable, dict) or not iterable:
        raise Unknown("loop")
    return iterable[0]


def bind(target: ast.expr, value: Any, known: dict[str, Any]) -> None:
    """`target = value` into `known` (tuples unpacked); a target not bound is forgotten."""
    if isinstance(target, (ast.Name, ast.Attribute)):
        known[ast.unparse(target)] = value
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        items = list(value) if isinstance(value, (tuple, list)) else None
        if items is None or len(items) != len(target.elts):
            forget(target, known)
            return
        for element, item in zip(target.elts, items):
            bind(element, item, known)
        return
    forget(target, known)


def forget(node: ast.AST, known: dict[str, Any]) -> None:
    """No value is known any more for what `node` binds or may change: its assignment
    targets (`x`, `self.x`, the `x` of `x[0] = ...`) and the objects it calls a method of
    (`dims.append(...)`)."""
    for inner in ast.walk(node):
        if isinstance(inner, (ast.Name, ast.Attribute)) and isinstance(
            inner.ctx, (ast.Store, ast.Del)
        ):
            known.pop(ast.unparse(inner), None)
        elif isinstance(inner, ast.Subscript) and isinstance(inner.ctx, (ast.Store, ast.Del)):
            known.pop(ast.unparse(inner.value), None)
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
            known.pop(ast.unparse(inner.func.value), None)
