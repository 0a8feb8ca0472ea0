"""Example inputs for an adopted class, by evidence: the shapes of the inputs the project's
own code calls the layer on, with the values of that same construction (one call's, so they
fit together), else the rank the class's code reads.

A call of the layer is a test helper handed the class and its inputs (Keras's and
keras-hub's `run_layer_test(cls=X, init_kwargs={...}, input_data=...)`), or a layer
`X(...)` (bound to a name, or called at once) called on tensors or built on a shape:
`layer(x)`, `layer(query=q, value=v)`, `layer.build((4, 10))`. A tensor is one made with a
literal shape (`random.uniform(shape=(2, 4, 6))`, `np.ones((2, 4))`), whose dims may be
names the test binds to integers (`batch_size = 2`, `self.seq_len = 5` in `setUp`), or a
slice of one (`data[:, :1, :]`, `data[:, i : i + 1, :]`: one step).

A call that passes keyword inputs of `call` literal values (`layer(x[:, :1], start_index=2)`)
is a call case of the example (`example.call_cases`), on the inputs of that call, where the
example is a call of the same construction: the example is taken from a construction the
project calls so where there is one. A call that passes them values not known here is no
evidence."""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..introspect import REQUIRED
from .evidence import Given, _called, _fits, _sources, _text, _tree
from .reader import Found, code

# Functions that make a tensor of the shape given first (`np.ones((2, 4))`).
MAKERS = {"ones", "zeros", "empty", "full", "uniform", "normal", "randint", "rand", "randn"}
MAKERS |= {"truncated_normal", "random", "integers", "standard_normal"}
INTEGERS = {"randint", "integers"}  # makers of integers (token ids, positions)
UNKNOWN = object()  # a value not known without running the code


class Shape(list):
    """An example input shape, with where it comes from (`source`) and the dtype of each
    input that is not float32 (`dtypes`)."""

    source: str | None = None
    dtypes: dict[str, str] | None = None
    input_range: list[int] | None = None  # of integer inputs, where the call states it
    call_cases: list[tuple[dict[str, Any], str]] | None = None  # (case, where it is from)


class Shapes(dict):
    """One example input shape per separate input, with where they come from."""

    source: str | None = None
    dtypes: dict[str, str] | None = None
    input_range: list[int] | None = None
    call_cases: list[tuple[dict[str, Any], str]] | None = None


@dataclass(frozen=True)
class Called:
    shape: list[int] | dict[str, list[int]]
    values: dict[str, Any]  # the literal arguments of the construction the call is made on
    where: str  # path:line of the call
    dtypes: dict[str, str]  # input -> its dtype, where not float
    input_range: list[int] | None  # [low, high) every input's integers are drawn from
    args: dict[str, Any]  # the literal keyword inputs of `call` it passes
    made: str  # where the construction it calls is


def shaped(root: Path, found: Found, given: dict, person: dict, input_shape):
    """The example's values and input shape: `input_shape` where the person gave one, else
    those of the project's first call of the layer on inputs whose construction agrees with
    the values the person gave and passes what the class requires (the call the values
    were found at first, where it calls the layer); else `given` as it is, with the rank
    the class's code reads."""
    if input_shape:
        return given, input_shape
    params, required = _signature(found)
    # the tensor inputs; none: the base's `call` takes one (a class that changes its base)
    tensors = [name for name, default in found.inputs if default is None] or ["inputs"]
    keywords = [name for name, default in found.inputs if default is not None]
    called = list(_called_on(root, found.cls.name, params, tensors, keywords, found.separate))
    cases: dict[str, list[Called]] = {}  # construction -> its calls with keyword inputs
    for call in called:
        if call.args:
            cases.setdefault(call.made, []).append(call)
    calls = [call for call in called if not call.args]
    at = getattr(given, "source", None) or ""
    # a construction with call cases, then calls on no axis one long, then the values' own
    calls.sort(
        key=lambda c: (c.made not in cases, one_long(c.shape), not at.startswith(f"{c.where},"))
    )
    defaults = {a.name: a.default for a in found.cls.args if a.default is not REQUIRED}
    for call in calls:
        values = {
            k: v for k, v in call.values.items() if k not in defaults or _fits(v, defaults[k])
        }
        if any(values.get(k, v) != v for k, v in person.items()):
            continue
        values.update(person)
        if not required <= values.keys():
            continue
        out = Given(values)
        shape = Shapes(call.shape) if isinstance(call.shape, dict) else Shape(call.shape)
        shape.source = f"{call.where}, a call of the layer"
        shape.dtypes, shape.input_range = call.dtypes, call.input_range
        shape.call_cases = [_case(c) for c in cases.get(call.made, [])] or None
        out.source = shape.source if values.keys() - person.keys() else None
        return out, shape
    return given, _documented(found, given) or _read_rank(found)


def one_long(shape: list | dict | None) -> bool:
    """An input of the call has an axis one long after its batch (a sequence of one step, one
    channel): every softmax, sum and broadcast along it is an identity, so a softmax over
    one key is 1 whatever the query, and the query's weights get no gradient there. Such a
    call tests less of the code than one on longer axes; it is the example only where the
    project makes no other."""
    shapes = shape.values() if isinstance(shape, dict) else [shape or []]
    return any(1 in list(dims)[1:] for dims in shapes)


def _case(call: Called) -> tuple[dict[str, Any], str]:
    """A call with keyword inputs as `example.call_cases` takes it, and where it is."""
    case = {"args": call.args, "input_shape": call.shape}
    if call.dtypes:
        one = len(call.dtypes) == 1 and not isinstance(call.shape, dict)
        case["input_dtype"] = next(iter(call.dtypes.values())) if one else call.dtypes
    if call.input_range:
        case["input_range"] = call.input_range
    return case, f"{call.where}, a call of the layer"


def _signature(found: Found) -> tuple[list[str], set[str]]:
    """The constructor's params in order and those it requires: the class's, or for a class
    whose constructor is its Keras base's, the base's (Keras is imported for these only)."""
    if "__init__" in found.methods or not found.base:
        params = [a.name for a in found.cls.args]
        return params, {a.name for a in found.cls.args if a.default is REQUIRED}
    import importlib

    module, _, name = found.base.rpartition(".")
    try:
        base = getattr(importlib.import_module(module), name)
        signature = inspect.signature(base.__init__)
    except (ImportError, AttributeError, ValueError, TypeError):
        return [], set()
    named = [
        p
        for p in list(signature.parameters.values())[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    return [p.name for p in named], {p.name for p in named if p.default is p.empty}


def _called_on(root: Path, name: str, params, tensors, keywords, separate: bool):
    """Each call of the layer `name` on inputs in the project (tests first); `keywords`: the
    keyword inputs of its `call`."""
    for path in _sources(root.resolve()):
        text = _text(path)
        if name not in text:
            continue
        tree = _tree(path, text)
        if tree is None:
            continue
        where = path.relative_to(root.resolve()).as_posix()
        for scope, ints in _scopes(tree):
            for call in _calls(scope, ints, name, params, tensors, keywords, separate):
                if call is not None:
                    shape, values, line, dtypes, ranges, args, made = call
                    ranged = [ranges.get(t) for t in tensors]
                    same = ranged[0] if all(r == ranged[0] for r in ranged) else None
                    made = f"{where}:{made}"
                    yield Called(shape, values, f"{where}:{line}", dtypes, same, args, made)


def _scopes(tree: ast.Module):
    """Each function of the module, with the integers its names and `self.` attributes are
    bound to (its own, its class's, the module's)."""
    module = _ints(n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef)))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            attributes = _ints(ast.walk(node), attributes=True)
            for function in node.body:
                if isinstance(function, ast.FunctionDef):
                    yield function, {**module, **attributes, **_ints(ast.walk(function))}
    for function in tree.body:
        if isinstance(function, ast.FunctionDef):
            yield function, {**module, **_ints(ast.walk(function))}


def _ints(nodes, attributes: bool = False) -> dict[str, Any]:
    """`name = <literal>` (`self.name = ...` with `attributes`; `a, b = 2, 4` too): name ->
    the value."""
    out = {}
    for node in nodes:
        for statement in ast.walk(node) if not attributes else [node]:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
                continue
            target = ast.unparse(statement.targets[0])
            if attributes != target.startswith("self."):
                continue
            try:
                value = ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            out[target] = value
            names = statement.targets[0]
            unpacked = isinstance(names, ast.Tuple) and isinstance(value, tuple)
            if unpacked and len(names.elts) == len(value):  # `a, b = 2, 4`
                out.update(zip(map(ast.unparse, names.elts), value))
    return out


def _calls(scope: ast.FunctionDef, ints: dict, name: str, params, tensors, keywords, separate):
    """(shape, values, line, dtypes, ranges, keyword inputs, line of the construction) of
    each call of the layer in the function."""
    bound: dict[str, ast.Call] = {}  # `layer = X(...)`
    made: dict[str, ast.expr] = {}  # `x = random.uniform(shape=...)`
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = ast.unparse(node.targets[0])
            if isinstance(node.value, ast.Call) and _called(node.value.func) == name:
                bound[target] = node.value
            else:
                made[target] = node.value

    dtypes: dict[str, str] = {}  # of the inputs of the call last read
    ranges: dict[str, list[int]] = {}  # `randint(minval=0, maxval=5)`: [0, 5)

    def shape_of(name: str, node) -> list[int] | None:
        if isinstance(node, (ast.Name, ast.Attribute)) and ast.unparse(node) in made:
            node = made[ast.unparse(node)]
        if isinstance(node, ast.Subscript):  # `data[:, :1, :]`
            return _sliced(shape_of(name, node.value), node.slice, ints)
        if not isinstance(node, ast.Call) or _called(node.func) == "Input":
            return None
        keywords = {k.arg: k.value for k in node.keywords}
        dims = keywords.get("shape", keywords.get("size"))
        if dims is None and node.args and _called(node.func) in MAKERS:
            dims = node.args[0]
        dtype = keywords.get("dtype")
        if isinstance(dtype, ast.Constant) and ("int" in str(dtype.value) or dtype.value == "bool"):
            dtypes[name] = str(dtype.value)
        elif _called(node.func) in INTEGERS:
            dtypes[name] = "int32"
        bounds = [keywords.get(k) for k in ("minval", "maxval")]
        if None in bounds:  # NumPy's `randint(low, high, size)`
            bounds = [keywords.get("low"), keywords.get("high")]
        low, high = (_int(b, ints) for b in bounds)
        if _called(node.func) in INTEGERS and low is not None and high is not None:
            ranges[name] = [low, high]
        return _dims(dims, ints)

    def inputs(args: list[ast.expr], keywords: list[ast.keyword]):
        if len(args) == 1 and isinstance(args[0], ast.Dict) and separate:
            items = zip(args[0].keys, args[0].values)
            pairs = [(k.value, v) for k, v in items if isinstance(k, ast.Constant)]
        else:
            pairs = [*zip(tensors, args), *((k.arg, k.value) for k in keywords)]
        dtypes.clear()
        ranges.clear()
        shapes = {n: shape_of(n, v) for n, v in pairs if n in tensors}
        if set(shapes) != set(tensors) or None in shapes.values():
            return None
        return shapes if separate else shapes[tensors[0]]

    for node in ast.walk(scope):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        keywords = {k.arg: k.value for k in node.keywords}
        if "input_data" in keywords and any(_is(v, name) for v in keywords.values()):
            made_by = keywords.get("init_kwargs")
            if isinstance(made_by, ast.Name) and made_by.id in made:
                made_by = made[made_by.id]
            shape = inputs([keywords["input_data"]], [])
            made_as = ast.Call(func, [], [ast.keyword(None, made_by)], lineno=node.lineno)
            yield _found(shape, made_as, node, params, dtypes, ranges, {}, ints)
            continue
        maker = None
        if isinstance(func, ast.Call) and _called(func.func) == name:
            maker = func  # `X(...)(x)`
        elif isinstance(func, ast.Name) and func.id in bound:
            maker = bound[func.id]  # `layer(x)`
        if maker is not None:
            shape = inputs(node.args, [k for k in node.keywords if k.arg in tensors])
            given = [*zip(keywords, node.args[len(tensors) :])]
            given += [(k.arg, k.value) for k in node.keywords if k.arg in keywords]
            args = {k: _literal(v, ints) for k, v in given}
            if any(v is UNKNOWN for v in args.values()):  # a value not known here
                continue
            yield _found(shape, maker, node, params, dtypes, ranges, args, ints)
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "build"
            and ast.unparse(func.value) in bound
            and len(node.args) == 1
            and not separate
        ):
            shape = _dims(node.args[0], ints)
            maker = bound[ast.unparse(func.value)]
            yield _found(shape, maker, node, params, {}, {}, {}, ints)


def _found(shape, maker: ast.Call, node: ast.Call, params, dtypes, ranges, args, ints):
    if shape is None:
        return None
    values = _values(maker, params, ints)
    found = (shape, values, node.lineno, dict(dtypes), dict(ranges), args, maker.lineno)
    return None if values is None else found


def _literal(node: ast.expr, ints: dict) -> Any:
    """A literal value (tuples as lists), or a name bound to one; else `UNKNOWN`."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = ints.get(ast.unparse(node), UNKNOWN)
    return list(value) if isinstance(value, tuple) else value


def _sliced(dims: list[int] | None, index: ast.expr, ints: dict) -> list[int] | None:
    """The dims of a tensor of dims `dims` indexed by `index` (`[:, :1, :]`, `[:, i : i +
    1]`, `[0]`), None where they are not known."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    if dims is None or len(items) > len(dims):
        return None
    out = []
    for dim, item in zip(dims, items):
        if not isinstance(item, ast.Slice):
            if _int(item, ints) is None:
                return None
            continue  # an integer index drops its axis
        if item.step is not None:
            return None
        lower = 0 if item.lower is None else _int(item.lower, ints)
        upper = dim if item.upper is None else _int(item.upper, ints)
        if (  # `i : i + 1`
            isinstance(item.upper, ast.BinOp)
            and isinstance(item.upper.op, ast.Add)
            and item.lower is not None
            and ast.unparse(item.upper.left) == ast.unparse(item.lower)
        ):
            lower, upper = 0, _int(item.upper.right, ints)
        if lower is None or upper is None:
            return None
        lower, upper = (v + dim if v < 0 else v for v in (lower, upper))
        out.append(min(upper, dim) - max(lower, 0))
    out += dims[len(items) :]
    return out if all(d >= 1 for d in out) else None


def _int(node, ints: dict) -> int | None:
    """A literal integer, or a name bound to one."""
    if node is None:
        return None
    value = node.value if isinstance(node, ast.Constant) else ints.get(ast.unparse(node))
    return value if type(value) is int else None


def _values(call: ast.Call, params: list[str], ints: dict) -> dict[str, Any] | None:
    """The literal arguments of a construction (`**{...}` of a dict literal included, names
    bound to literals); None where it passes what is not known (`*args`, `**config`)."""
    if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    pairs = list(zip(params, call.args))
    for keyword in call.keywords:
        if keyword.arg is not None:
            pairs.append((keyword.arg, keyword.value))
        elif isinstance(keyword.value, ast.Dict) and all(
            isinstance(k, ast.Constant) for k in keyword.value.keys
        ):
            pairs += [(k.value, v) for k, v in zip(keyword.value.keys, keyword.value.values)]
        elif keyword.value is not None:
            return None
    out = {}
    for name, node in pairs:
        value = _literal(node, ints)
        if value is not UNKNOWN:
            out[name] = value
    return out


def _dims(node, ints: dict) -> list[int] | None:
    """A literal shape (its dims literal, or names bound to integers), else None."""
    if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(
        ints.get(ast.unparse(node)), tuple
    ):
        return list(ints[ast.unparse(node)])
    if not isinstance(node, (ast.Tuple, ast.List)) or not node.elts:
        return None
    dims = []
    for element in node.elts:
        value = (
            ints.get(ast.unparse(element))
            if not isinstance(element, ast.Constant)
            else element.value
        )
        if type(value) is not int or value < 1:
            return None
        dims.append(value)
    return dims


def _is(node: ast.expr, name: str) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute)) and _called(node) == name


def _documented(found: Found, values: dict) -> Shape | Shapes | None:
    """The shape `call`'s docstring states of each tensor input (`x: Input tensor of shape
    (batch_size, input_dim).`), its dims the example's values where they are params of it
    (`input_dim`), literal ones as written, the others 2 for the batch, else 4."""
    call = found.methods.get("call")
    tensors = [name for name, default in found.inputs if default is None]
    doc = ast.get_docstring(ast.parse(code(call).strip()).body[0]) if call else None
    if not doc or not tensors:
        return None
    shapes = {}
    for name in tensors:
        said = re.search(
            rf"^\s*{name}:(?:(?!^\s*\w+:).)*?shape\s*(?:of\s*)?[\(\[]([^\)\]]*)[\)\]]",
            doc,
            flags=re.MULTILINE | re.DOTALL,
        )
        if said is None:
            return None
        dims = []
        for index, dim in enumerate(d.strip() for d in said.group(1).split(",") if d.strip()):
            value = values.get(dim, int(dim) if dim.isdigit() else None)
            if type(value) is not int or value < 1:
                value = 2 if index == 0 else 4
            dims.append(value)
        shapes[name] = dims
    shape = Shapes(shapes) if found.separate else Shape(shapes[tensors[0]])
    shape.source = f"the shape `call`'s docstring states of `{'`, `'.join(tensors)}`"
    return shape


def _read_rank(found: Found) -> Shape | None:
    """The shape of the rank the class's code reads of its input, where it reads more than
    `introspect` does (`len(shape) != 4` in `call`, `batch, steps, dim = ops.shape(x)`)."""
    call = found.methods.get("call")
    tensors = [name for name, default in found.inputs if default is None]
    if call is None or not tensors:
        return None
    exact, least, said = found.cls.rank, found.cls.min_rank or 0, None
    tree = ast.parse(code(call).strip())
    shapes = {f"ops.shape({tensors[0]})", f"keras.ops.shape({tensors[0]})", f"{tensors[0]}.shape"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and ast.unparse(node.value) in shapes:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                shapes.add(target.id)
            elif isinstance(target, ast.Tuple) and not any(
                isinstance(e, ast.Starred) for e in target.elts
            ):
                exact, said = len(target.elts), ast.unparse(node)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Call)
            and ast.unparse(node.left.func) == "len"
            and node.left.args
            and ast.unparse(node.left.args[0]) in shapes
            and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
            and isinstance(node.comparators[0], ast.Constant)
            and type(node.comparators[0].value) is int
        ):
            exact, said = node.comparators[0].value, ast.unparse(node)
        elif (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) in shapes
            and isinstance(node.slice, (ast.Constant, ast.UnaryOp))
        ):
            try:
                index = ast.literal_eval(node.slice)
            except ValueError:
                continue
            if type(index) is int and (index + 1 if index >= 0 else -index) > least:
                least, said = (index + 1 if index >= 0 else -index), ast.unparse(node)
    rank = exact or (least if least >= 2 else None)
    if rank is None or said is None:
        return None
    shape = Shape([2, *([4] * (rank - 1))])
    shape.source = f"the rank `call` reads (`{said}`)"
    return shape
