"""Read a hand-written Keras layer class for `adopt` (libcst, never imported): what the
declaration can hold (params, inputs, weights, registration) and which members must stay
Python the person owns, each with the reason."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..declaration.literals import PLAIN_TYPES, holding_types, literal_type
from ..diagnostics import Diagnostic
from ..introspect import REQUIRED, Arg, LayerClass, read_classes, walk

# Bases that need no `base:` key (the format's default, however the module imports it).
PLAIN_BASES = ("keras.layers.Layer", "layers.Layer", "Layer", "keras.Layer")
REGISTRARS = ("register_keras_serializable",)


@dataclass
class Weight:
    attribute: str  # `self.<attribute> = self.add_weight(...)`
    name: str | None  # its Keras name, None: Keras names it (`variable`)
    shape: str | None  # a shape expression of the format, None: the code's is not one
    initializer: str | None
    trainable: bool | None
    dtype: str | None
    autocast: bool | None
    line: int
    method: str = ""  # where it is created
    plain: bool = False  # keywords only, of those the format states, a literal initializer
    node: object = None  # its `self.X = self.add_weight(...)` statement
    when: str | None = None  # created only when this param is true (`if self.use_bias:`)
    conditional: bool = False  # created under a condition the format does not state


PLAIN_KEYWORDS = {"name", "shape", "initializer", "trainable", "dtype", "autocast"}


@dataclass
class Found:
    """One layer class of a module, as written."""

    cls: LayerClass  # introspect's reading: args, rank, call args
    node: cst.ClassDef
    line: int
    column: int
    base: str | None  # None: keras.layers.Layer
    package: str | None  # registration package, None: not registered
    registered_name: str | None  # `register_keras_serializable(name=...)`, when given
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    inputs: list[tuple[str, str | None]] = field(default_factory=list)  # (name, default code)
    weights: list[Weight] = field(default_factory=list)
    stored: dict[str, str] = field(default_factory=dict)  # `self.attr = arg` in __init__
    problems: list[Diagnostic] = field(default_factory=list)
    lines: range = range(0)  # the class's lines, decorators included
    module_text: str = ""
    shape_locals: dict[str, str] = field(default_factory=dict)  # build's locals of the shape
    init_code: str | None = None  # statements of `__init__` after the stores (`init`)
    separate: bool = False  # several tensor arguments of `call`: `separate_inputs: true`
    # the keyword tensors (`=None`) right after the tensor inputs among `call`'s positional
    # params, in order: those a test may pass by position in every call
    positional_keywords: list[str] = field(default_factory=list)
    forwarded: list[str] = field(default_factory=list)  # `dtype=dtype` to `super().__init__`
    # `check`'s findings adopt leaves as they are: (code, message) each
    unfixed: list[tuple[str, str]] = field(default_factory=list)
    # generated tests that failed on the code as adopted (trial.py): test -> its failure
    failing: dict[str, str] = field(default_factory=dict)


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def read_module(path: str, text: str) -> list[Found]:
    """Every class of the module with a `call` method (a layer), read."""
    from pathlib import Path

    from ..textfiles import parse_python

    module = parse_python(Path(path), text, "adopt")  # a syntax error is located
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    classes = {c.name: c for c in read_classes(path, text)}
    found = []
    for node in module.body:
        if not isinstance(node, cst.ClassDef):
            continue
        methods = {m.name.value: m for m in node.body.body if isinstance(m, cst.FunctionDef)}
        if "call" not in methods and not _keras_subclass(node, text):
            continue
        start = positions[node.name].start
        item = Found(
            classes[node.name.value], node, start.line, start.column + 1, None, None, None, methods
        )
        first = positions[node.decorators[0]].start.line if node.decorators else start.line
        item.module_text = text
        item.lines = range(first, positions[node].end.line + 1)
        _read_header(path, item, positions)
        _read_call(path, item, positions)
        _read_init(item)
        _read_weights(item, positions)
        found.append(item)
    return found


def _keras_subclass(node: cst.ClassDef, text: str) -> bool:
    """A class with no `call` of its own that derives from a Keras layer other than `Layer`
    (`class ReversibleEmbedding(keras.layers.ReversibleEmbedding): pass`): a layer that
    changes its base only, which a declaration states with `base:` alone."""
    if len(node.bases) != 1 or code(node.bases[0].value) in PLAIN_BASES:
        return False
    dotted = imported_as(text, code(node.bases[0].value))
    return dotted.startswith("keras.layers.") and dotted not in PLAIN_BASES


def _problem(path, item: Found, node, positions, code_: str, message: str, hint: str) -> None:
    start = positions[node].start if node is not None else None
    line, column = (start.line, start.column + 1) if start else (item.line, item.column)
    item.problems.append(Diagnostic(path, line, column, code_, message, hint))


def _read_header(path: str, item: Found, positions) -> None:
    bases = [code(b.value) for b in item.node.bases]
    if len(bases) != 1 or item.node.keywords:
        _problem(
            path,
            item,
            item.node.name,
            positions,
            "adopt-base",
            f"`{item.node.name.value}` has {len(bases)} base classes; a declaration states one",
            "adopt a class with one Keras base class",
        )
    elif bases[0] not in PLAIN_BASES:
        dotted = imported_as(item.module_text, bases[0])
        if not dotted.startswith(("keras.layers.", "keras.")):
            _problem(
                path,
                item,
                item.node.bases[0],
                positions,
                "adopt-base",
                f"the base `{dotted}` is not a Keras class: its arguments and config are unknown here",
                "adopt the base class first (or derive from a `keras.layers` class)",
            )
        item.base = None if dotted in PLAIN_BASES else dotted
    for decorator in item.node.decorators:
        call = decorator.decorator
        if isinstance(call, cst.Call) and code(call.func).endswith(REGISTRARS):
            keywords = {a.keyword.value: a.value for a in call.args if a.keyword}
            positional = [a.value for a in call.args if a.keyword is None]
            package = keywords.get("package", positional[0] if positional else None)
            name = keywords.get("name", positional[1] if len(positional) > 1 else None)
            item.package = _string(package) if package is not None else "Custom"
            if package is not None and item.package is None:
                _problem(
                    path,
                    item,
                    package,
                    positions,
                    "adopt-registration",
                    "the registration package is computed, not a string",
                    "write the package as a string literal, then adopt",
                )
            if name is not None:
                item.registered_name = _string(name)
                if item.registered_name != item.node.name.value:
                    _problem(
                        path,
                        item,
                        name,
                        positions,
                        "adopt-registration",
                        f"registered as `{code(name)}`, not as the class name: a declaration"
                        " registers a class under its own name",
                        "drop `name=` (saved models name the class then), or keep this class hand-written",
                    )


def imported_as(module_text: str, dotted: str) -> str:
    """`dotted` (`layers.Rescaling`, `KerasRescaling`) as the module's imports make it:
    `from keras import layers` binds `layers` to `keras.layers`, `from keras.layers import
    Rescaling as KerasRescaling` binds `KerasRescaling` to `keras.layers.Rescaling`."""
    head, _, rest = dotted.partition(".")
    bound = {}
    for node in ast.parse(module_text).body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
    target = bound.get(head)
    if target is None or not target.startswith("keras."):
        return dotted
    return f"{target}.{rest}" if rest else target


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    return None


def _read_call(path: str, item: Found, positions) -> None:
    function = item.methods.get("call")
    if function is None:  # the base's `call`: its input is the base's
        return
    params = function.params
    starred = isinstance(params.star_arg, cst.Param) or isinstance(params.star_kwarg, cst.Param)
    if starred:
        _problem(
            path,
            item,
            function.name,
            positions,
            "adopt-call",
            "`call` takes `*args` or `**kwargs`: its inputs are not stated",
            "name `call`'s arguments, then adopt",
        )
    for p in [*params.params, *params.kwonly_params][1:]:
        name = p.name.value
        # Keras's own arguments; a `mask` without a default is an input of the layer's own
        # (`call(self, x, mask)`, as keras-hub's audio encoders take it)
        if name == "training" or (name == "mask" and p.default is not None):
            continue
        item.inputs.append((name, code(p.default) if p.default is not None else None))
    tensors = [n for n, d in item.inputs if d is None]
    item.separate = len(tensors) > 1  # `call(self, query, value)`: `separate_inputs`
    for p in params.params[1 + len(tensors) :]:
        if p.default is None or code(p.default) != "None" or p.name.value in ("training", "mask"):
            break
        item.positional_keywords.append(p.name.value)
    if not tensors and not starred:
        _problem(
            path,
            item,
            function.name,
            positions,
            "adopt-call",
            "`call` takes no tensor argument without a default: its input is not stated",
            "give `call`'s input tensor no default, then adopt",
        )


# Keyword arguments of every Keras layer's constructor that a class may name in its own
# `__init__` and pass on to the base unchanged (keras-hub's `dtype=None, name=None`).
LAYER_KEYWORDS = ("dtype", "name", "trainable")


def _read_init(item: Found) -> None:
    init = item.methods.get("__init__")
    if init is None:
        return
    _read_forwarded(item, init)
    for statement in init.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Attribute)
                and code(small.targets[0].target.value) == "self"
                and isinstance(small.value, cst.Name)
            ):
                item.stored[small.targets[0].target.attr.value] = small.value.value


def _read_weights(item: Found, positions) -> None:
    """`self.X = self.add_weight(...)` anywhere in the class, in the order of the code."""
    params = {a.name for a in item.cls.args}
    stored = {attr: arg for attr, arg in item.stored.items() if arg in params}
    for method in item.methods.values():
        conditions = _conditions(method, stored)
        tensor = next((n for n, d in item.inputs if d is None), "x")
        shape_names = _shape_names(method, stored, tensor)
        if method.name.value == "build":
            item.shape_locals = shape_names
        for node in walk(method.body):
            if not (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Attribute)
                and code(node.targets[0].target.value) == "self"
                and isinstance(node.value, cst.Call)
                and code(node.value.func) == "self.add_weight"
            ):
                continue
            args = {a.keyword.value: a.value for a in node.value.args if a.keyword}
            positional = [a.value for a in node.value.args if a.keyword is None]
            for key, value in zip(("shape", "initializer", "dtype", "trainable"), positional):
                args.setdefault(key, value)
            name = _string(args["name"]) if "name" in args else None
            keywords = {a.keyword.value for a in node.value.args if a.keyword}
            plain = (
                not positional
                and keywords <= PLAIN_KEYWORDS
                and name is not None
                and ("initializer" not in args or isinstance(args["initializer"], cst.SimpleString))
                and all(_bool(args[k]) is not None for k in ("trainable", "autocast") if k in args)
                and ("dtype" not in args or _string(args["dtype"]) is not None)
            )
            item.weights.append(
                Weight(
                    attribute=node.targets[0].target.attr.value,
                    name=name,
                    shape=_shape(args.get("shape"), shape_names, stored),
                    initializer=(
                        _initializer(args.get("initializer"), stored)
                        if "initializer" in args
                        else _keras_default(args.get("dtype"))
                    ),
                    trainable=_bool(args.get("trainable")),
                    dtype=_string(args["dtype"]) if "dtype" in args else None,
                    autocast=_bool(args.get("autocast")),
                    line=positions[node].start.line,
                    method=method.name.value,
                    plain=plain,
                    node=node,
                    when=conditions.get(id(node)),
                    conditional=id(node) in conditions and conditions[id(node)] is None,
                )
            )


def _conditions(method: cst.FunctionDef, stored: dict[str, str]) -> dict[int, str | None]:
    """For each statement under a compound statement of the method: the param an
    `if self.<param>:` (no `else`) creates it under, or None for any other condition."""
    out: dict[int, str | None] = {}
    for statement in method.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            continue
        when = None
        if (
            isinstance(statement, cst.If)
            and statement.orelse is None
            and isinstance(statement.test, cst.Attribute)
            and code(statement.test.value) == "self"
            and statement.test.attr.value in stored
        ):
            when = stored[statement.test.attr.value]
        for node in walk(statement):
            if isinstance(node, cst.Assign):
                out[id(node)] = when if isinstance(statement, cst.If) else None
    return out


def _shape_names(method: cst.FunctionDef, stored: dict[str, str], tensor: str) -> dict:
    """How each name a shape may read translates into the format: the method's shape
    parameter is the input `x`, `self.attr` of a stored argument is the param, locals bound
    to the shape's dims (`steps = input_shape[1]`, `batch, dim = shape`) are those dims."""
    names: dict[str, str] = {}
    args = method.params.params
    if method.name.value in ("build", "compute_output_shape") and len(args) > 1:
        names[args[1].name.value] = tensor
    for statement in method.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            target = small.targets[0].target
            value = _translate(small.value, names, stored)
            if value is None:
                continue
            if isinstance(target, cst.Name):
                names[target.value] = value
            elif isinstance(target, cst.Tuple) and value == tensor:
                elements = target.elements
                if not any(isinstance(e, cst.StarredElement) for e in elements):
                    for index, element in enumerate(elements):
                        if isinstance(element.value, cst.Name):
                            names[element.value.value] = f"{tensor}[{index}]"
    return names


def _translate(node, names: dict[str, str], stored: dict[str, str]) -> str | None:
    """The format's expression for `node`, or None when it reads anything else."""
    text = code(node)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None

    class Rewrite(ast.NodeTransformer):
        ok = True

        def visit_Attribute(self, n):
            if isinstance(n.value, ast.Name) and n.value.id == "self":
                if n.attr in stored:
                    return ast.copy_location(ast.Name(stored[n.attr], ast.Load()), n)
                self.ok = False
                return n
            return self.generic_visit(n)

        def visit_Name(self, n):
            if n.id in names:
                return ast.copy_location(ast.parse(names[n.id], mode="eval").body, n)
            self.ok = False
            return n

        def visit_Call(self, n):
            self.ok = False
            return n

    rewrite = Rewrite()
    result = rewrite.visit(tree)
    return ast.unparse(result) if rewrite.ok else None


def output_shape(function: cst.FunctionDef, found: Found) -> str | None:
    """The shape expression `compute_output_shape` returns, in the format's terms (its shape
    parameter the input, `self.x` the param), where its body is locals of the shape and one
    `return`; else None."""
    params = {a.name for a in found.cls.args}
    stored = {attr: arg for attr, arg in found.stored.items() if arg in params}
    tensor = next((n for n, d in found.inputs if d is None), "x")
    names = _shape_names(function, stored, tensor)
    body = function.body.body
    edited = _edited_copy(function)
    if edited is not None:
        return _translate(cst.parse_expression(edited), names, stored)
    last = body[-1] if body else None
    if not (
        isinstance(last, cst.SimpleStatementLine)
        and isinstance(last.body[0], cst.Return)
        and last.body[0].value is not None
    ):
        return None
    for statement in body[:-1]:
        if not (
            isinstance(statement, cst.SimpleStatementLine)
            and isinstance(statement.body[0], cst.Assign)
        ):
            return None
    value = last.body[0].value
    if isinstance(value, cst.Name) and names.get(value.value) == tensor:
        return None  # the input's shape: the format's default already
    return _translate(value, names, stored)


def _edited_copy(function: cst.FunctionDef) -> str | None:
    """keras-hub's `shape = list(input_shape)`, `shape[-1] = self.units`, `return shape`
    (or its `tuple`) as the one expression it returns: `(*input_shape[:-1], self.units)`;
    None for any other body."""
    try:
        body = ast.parse(code(function).strip()).body[0].body
    except SyntaxError:
        return None
    if len(body) != 3:
        return None
    copy, edit, back = body
    if not (
        isinstance(copy, ast.Assign)
        and len(copy.targets) == 1
        and isinstance(copy.targets[0], ast.Name)
        and isinstance(copy.value, ast.Call)
        and ast.unparse(copy.value.func) == "list"
        and len(copy.value.args) == 1
        and not copy.value.keywords
    ):
        return None
    name, source = copy.targets[0].id, ast.unparse(copy.value.args[0])
    if not (
        isinstance(edit, ast.Assign)
        and len(edit.targets) == 1
        and isinstance(edit.targets[0], ast.Subscript)
        and ast.unparse(edit.targets[0].value) == name
        and isinstance(back, ast.Return)
        and back.value is not None
        and ast.unparse(back.value) in (name, f"tuple({name})")
    ):
        return None
    try:
        index = ast.literal_eval(edit.targets[0].slice)
    except ValueError:
        return None
    value = ast.unparse(edit.value)
    if index == -1:
        return f"(*{source}[:-1], {value})"
    if index == 0:
        return f"({value}, *{source}[1:])"
    if isinstance(index, int) and index > 0:
        return f"(*{source}[:{index}], {value}, *{source}[{index + 1}:])"
    return None


def _shape(node, names: dict[str, str], stored: dict[str, str]) -> str | None:
    if node is None:
        return None
    if isinstance(node, (cst.Tuple, cst.List)):
        parts = [_translate(e.value, names, stored) for e in node.elements]
        if any(p is None for p in parts) or any(
            isinstance(e, cst.StarredElement) for e in node.elements
        ):
            return None
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    one = _translate(node, names, stored)
    return one


def _initializer(node, stored: dict[str, str]) -> str | None:
    if node is None:
        return None
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Attribute) and code(node.value) == "self" and node.attr.value in stored:
        return stored[node.attr.value]
    return None


def _keras_default(dtype) -> str | None:
    """The initializer Keras's `add_weight` uses when given none: glorot_uniform for a float
    weight, zeros for another (None: the dtype is computed)."""
    if dtype is None:
        return "glorot_uniform"
    text = _string(dtype)
    if text is None:
        return None
    return "glorot_uniform" if "float" in text else "zeros"


def _bool(node) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def plain_type(arg: Arg) -> str | None:
    """The declaration type that stores `arg` as given, or None when the code does not say."""
    if arg.annotation in PLAIN_TYPES:
        return arg.annotation
    value = arg.default
    written = value is not REQUIRED and value is not None and arg.literal
    # the docstring's type, unless the code's own default says otherwise (`int.` with -1.0)
    if arg.doc_type in PLAIN_TYPES and (not written or arg.doc_type in holding_types(value)):
        return arg.doc_type
    return literal_type(value) if written else None


def _read_forwarded(item: Found, init: cst.FunctionDef) -> None:
    """The arguments of `__init__` it passes on to the base's as they are, by their own
    name (`super().__init__(dtype=dtype, name=name, **kwargs)`), of the base's own keyword
    arguments: a declaration leaves those to `**kwargs`, so they are no params of it."""
    with_default = {a.name for a in item.cls.args if a.default is not REQUIRED}
    for node in walk(init.body):
        if not (isinstance(node, cst.Call) and code(node.func).endswith(".__init__")):
            continue
        if not code(node.func).startswith("super("):
            continue
        for arg in node.args:
            if (
                arg.keyword is not None
                and arg.keyword.value in LAYER_KEYWORDS
                and arg.keyword.value in with_default
                and isinstance(arg.value, cst.Name)
                and arg.value.value == arg.keyword.value
            ):
                item.forwarded.append(arg.keyword.value)
    if item.forwarded:  # the base's: no params of the declaration
        item.cls.args = [a for a in item.cls.args if a.name not in item.forwarded]
