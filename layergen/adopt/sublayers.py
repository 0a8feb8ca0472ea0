"""Sublayers an adopted class creates in `__init__` (`self.dense = keras.layers.Dense(...)`),
read into the declaration's `sublayers` where the generated `__init__` provably creates the
same ones, in the same order: the same class, the same arguments once bound by name."""

from __future__ import annotations

import ast
import json

import libcst as cst

from ..keras_classes import layer_classes

# The leading positional parameters of the Keras classes whose calls adopt reads with
# positional arguments (`Dense(units)`); `tests/unit/test_adopt.py` checks them against
# the installed Keras. Any other class's positional arguments keep the code the person's.
POSITIONAL = {
    "keras.layers.Dense": ("units", "activation", "use_bias"),
    "keras.layers.Dropout": ("rate", "noise_shape", "seed"),
    "keras.layers.Embedding": ("input_dim", "output_dim"),
    "keras.layers.LayerNormalization": ("axis", "epsilon"),
    "keras.layers.Activation": ("activation",),
}
# Keywords of every layer that a declared sublayer always passes: the generated call
# gives `name=` its key and `dtype=self.dtype_policy` unless its args say; omitted here,
# they are Keras's defaults, `None`.
ALWAYS = ("name", "dtype")


def leading(statements: list[ast.stmt], plain: set[str], params: set[str]) -> list[dict]:
    """The sublayers the first of `statements` create, one each, in order, up to the first
    statement that is not one: `{"attribute", "class", "args"}` with the args as the
    declaration states them. `plain`: params stored as given (`rate` reads as `self.rate`)."""
    out = []
    for statement in statements:
        sub = _sublayer(statement, plain, params)
        if sub is None or sub["attribute"] in {s["attribute"] for s in out}:
            break
        out.append(sub)
    return out


def _sublayer(statement: ast.stmt, plain: set[str], params: set[str], shape=None) -> dict | None:
    """`self.<attribute> = keras.layers.<Class>(...)` read, or None. `shape`: in `build`,
    the format's expression for an argument that is no literal (None: it has none)."""
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Attribute)
        and isinstance(statement.targets[0].value, ast.Name)
        and statement.targets[0].value.id == "self"
        and isinstance(statement.value, ast.Call)
    ):
        return None
    attribute = statement.targets[0].attr
    call = statement.value
    class_ = ast.unparse(call.func)
    if class_ not in layer_classes() or attribute.startswith("__"):
        return None
    bound = bind(call, class_)
    if bound is None:
        return None
    args: dict = {}
    for key, value in bound.items():
        if key == "dtype" and ast.unparse(value) == "self.dtype_policy":
            continue  # what the generated call passes when the args give no dtype
        stated = _value(value, plain, params)
        if stated is _NOT and shape is not None:
            stated = shape(value)
            stated = _NOT if stated is None else stated
        if stated is _NOT:
            return None
        args[key] = stated
    for key in ALWAYS:
        if key not in bound:
            args[key] = None
    return {"attribute": attribute, "class": class_, "args": args}


_NOT = object()


def _value(node: ast.expr, plain: set[str], params: set[str]):
    """The declaration's value for an argument: a param's name (the generated `__init__`
    reads `self.<param>`), a literal; else _NOT."""
    if isinstance(node, ast.Name) and node.id in plain:
        return node.id
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr in params
    ):
        return node.attr
    if isinstance(node, ast.Constant) and (
        node.value is None or type(node.value) in (bool, int, float)
    ):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return repr(node.value)  # an expression: the string literal
    return _NOT


def bind(call: ast.Call, class_: str) -> dict[str, ast.expr] | None:
    """The call's arguments by name (positional ones bound by POSITIONAL), or None."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    names = POSITIONAL.get(class_, ())
    if len(call.args) > len(names):
        return None
    bound = dict(zip(names, call.args))
    for keyword in call.keywords:
        if keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    return bound


def normalized(text: str, plain: set[str]) -> str:
    """The tree of a method with each Keras layer call's arguments bound by name, in one
    order, `name`/`dtype` given as their defaults when omitted, and a plain param read as
    its stored attribute inside such calls (where both are the same value): equal for the
    person's `__init__` and the generated one exactly where they create the same sublayers."""
    tree = ast.parse(text.strip())

    class Bind(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            class_ = ast.unparse(node.func)
            if class_ not in layer_classes():
                return node
            bound = bind(node, class_)
            if bound is None:
                return node
            for key in ALWAYS:
                bound.setdefault(key, ast.Constant(None))
            keywords = [
                ast.keyword(arg=k, value=_attribute(v, plain)) for k, v in sorted(bound.items())
            ]
            return ast.Call(func=node.func, args=[], keywords=keywords)

    return ast.dump(Bind().visit(tree))


def _attribute(node: ast.expr, plain: set[str]) -> ast.expr:
    if isinstance(node, ast.Name) and node.id in plain:
        return ast.Attribute(value=ast.Name("self", ast.Load()), attr=node.id, ctx=ast.Load())
    return node


def yaml_lines(subs: list[dict]) -> list[str]:
    lines = ["sublayers:"]
    for sub in subs:
        args = ", ".join(f"{k}: {json.dumps(v)}" for k, v in sub["args"].items())
        where = sub.get("create", "init")
        built = f", build: {json.dumps(sub['build'])}" if "build" in sub else ""
        lines.append(
            f"  {sub['attribute']}: {{class: {sub['class']}, args: {{{args}}},"
            f" create: {where}{built}}}"
        )
    return lines


def in_build(text: str, shape_names: dict[str, str], stored: dict[str, str]) -> list[dict]:
    """The sublayers a `build(self, shape)` creates and builds, each created then built at
    once (`self.d = keras.layers.Dense(...)`, `self.d.build(shape)`), its arguments and
    build shape in the format's terms; empty when it does anything else (but set
    `self.built`, which Keras does after it anyway)."""
    from .reader import _translate

    def shape(node: ast.expr) -> str | None:
        return _translate(cst.parse_expression(ast.unparse(node)), shape_names, stored)

    body = _without_built(ast.parse(text.strip()).body[0].body)
    if len(body) % 2:
        return []
    out = []
    for made, built in zip(body[::2], body[1::2]):
        sub = _sublayer(made, set(), set(stored.values()), shape)
        if (
            sub is None
            or not isinstance(built, ast.Expr)
            or not isinstance(built.value, ast.Call)
            or ast.unparse(built.value.func) != f"self.{sub['attribute']}.build"
            or len(built.value.args) != 1
            or built.value.keywords
            or sub["attribute"] in {s["attribute"] for s in out}
        ):
            return []
        stated = shape(built.value.args[0])
        if stated is None:
            return []
        out.append({**sub, "create": "build", "build": stated})
    return out


def _without_built(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and ast.unparse(body[-1]) == "self.built = True":
        return body[:-1]
    return body


def normalized_build(text: str, parameter: str) -> str | None:
    """The tree of a `build` with its shape parameter named `parameter` (as the generated
    one names it) and the Keras layer calls bound as `normalized` binds them, less a last
    `self.built = True`; None where `parameter` already names something else in it."""
    tree = ast.parse(text.strip())
    function = tree.body[0]
    args = function.args.args
    if len(args) != 2:
        return None
    mine = args[1].arg
    if mine != parameter and any(
        isinstance(n, ast.Name) and n.id == parameter for n in ast.walk(function)
    ):
        return None
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == mine:
            node.id = parameter
    args[1].arg = parameter
    function.body = _without_built(function.body) or [ast.Pass()]
    return normalized(ast.unparse(tree), set())
