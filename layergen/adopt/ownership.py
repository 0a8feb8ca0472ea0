"""Who owns each member of an adopted class: the declaration where what it generates is
provably what the code does, the person (`hand_written`, kept byte for byte) everywhere else."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field

import libcst as cst

from ..declaration.analyze_names import CASTS
from ..declaration.model import Param
from ..introspect import REQUIRED
from ..render.context import KERAS_OBJECT_TYPES, param_config, param_store
from .reader import Found, code, plain_type

# Members layergen writes for a layer that adopt leaves to the person when the class has them:
# what the declaration generates in their place is not provably the same.
KEPT_WHEN_PRESENT = ("build", "call", "compute_output_shape", "compute_output_spec", "compute_mask")


@dataclass
class Ownership:
    declared: list[str] = field(default_factory=list)  # generated from the declaration
    hand_written: list[str] = field(default_factory=list)  # `hand_written` in the declaration
    why: dict[str, str] = field(default_factory=dict)  # a member kept by hand -> the reason
    types: dict[str, str] = field(default_factory=dict)  # param -> declaration type
    casts: set[str] = field(default_factory=set)  # params stored converted: `int(units)`
    call: str | None = None  # the `call` key, where it generates the class's `call`
    output_shape: str | None = None  # the `output_shape` key, from `compute_output_shape`
    # sublayers `__init__` creates, declared (adopt/sublayers.py), and the `init` code
    # after them, which then takes the place of the reader's `init_code`
    sublayers: list[dict] = field(default_factory=list)
    init_rest: str | None = None

    def handing(self, member: str, why: str) -> Ownership:
        """This ownership with `member` the person's, for `why`."""
        from dataclasses import replace

        return replace(
            self,
            declared=[m for m in self.declared if m != member],
            hand_written=[*self.hand_written, member],
            why={**self.why, member: why},
        )

    def declaring(self, member: str, **keys) -> Ownership:
        """This ownership with `member` generated from the declaration's `keys`."""
        from dataclasses import replace

        return replace(
            self,
            declared=[*self.declared, member],
            hand_written=[m for m in self.hand_written if m != member],
            why={k: v for k, v in self.why.items() if k != member},
            **keys,
        )


def decide(found: Found) -> Ownership:
    # The class's docstring, or its want of one, is the person's: the generated one is
    # written from the declaration, and a param declared later would rewrite it.
    out = Ownership(hand_written=["__doc__"])
    out.why["__doc__"] = (
        "the class's own docstring"
        if found.node.get_docstring() is not None
        else "the class has none: none is generated"
    )
    for arg in found.cls.args:
        out.types[arg.name] = plain_type(arg) or "float"
    init_plain = (
        docstring_in(found, "__init__")
        or _forwards(found)
        or _plain_init(found, out.types, out.casts)
    )
    if "__init__" in found.methods:
        if init_plain is None:
            out.declared.append("__init__")
        else:
            out.hand_written.append("__init__")
            out.why["__init__"] = init_plain
    if "get_config" in found.methods:
        # A config listing each argument as the format's does is that code generated,
        # whoever writes `__init__` (keras-hub's store `self.hidden_dim = int(hidden_dim)`).
        config_plain = docstring_in(found, "get_config") or _plain_config(found, out.types)
        if config_plain is None:
            out.declared.append("get_config")
        else:
            out.hand_written.append("get_config")
            out.why["get_config"] = config_plain
    if "build" in found.methods:
        build_plain = docstring_in(found, "build") or _plain_build(found)
        if build_plain is None:
            out.declared.append("build")
        else:
            out.hand_written.append("build")
            out.why["build"] = build_plain
    for name in KEPT_WHEN_PRESENT:
        if name in found.methods and name not in out.declared + out.hand_written:
            out.hand_written.append(name)
            out.why[name] = "the format does not state it as this code does"
    return out


COMMENTED = "it has comments, which the generated method would drop"


def person_words(found: Found, member: str) -> str | None:
    """Why `member` stays the person's when it holds a docstring or comments: its generated
    version would not (the comments above it stay either way); else None."""
    return docstring_in(found, member) or (COMMENTED if has_comments(found, member) else None)


def docstring_in(found: Found, member: str) -> str | None:
    """Why `member` stays the person's when it holds a docstring (a generated method has
    none: a docstring is a statement, not a comment a merge puts back); else None."""
    function = found.methods.get(member)
    if function is not None and function.get_docstring() is not None:
        return "it has a docstring, which the generated method would drop"
    return None


def has_comments(found: Found, member: str) -> bool:
    """Whether `member` holds comments (the comments above it aside)."""
    function = found.methods.get(member)
    if function is None:
        return False
    tokens = tokenize.generate_tokens(
        io.StringIO(code(function.with_changes(leading_lines=()))).readline
    )
    return any(token.type == tokenize.COMMENT for token in tokens)


def _forwards(found: Found) -> str | None:
    """Why an `__init__` that names the base's own keyword arguments stays the person's:
    the generated one takes them through `**kwargs` only."""
    if not found.forwarded:
        return None
    names = ", ".join(f"`{n}`" for n in found.forwarded)
    return f"it passes {names} on to the base (the declaration leaves them to `**kwargs`)"


def _statements(function) -> list[ast.stmt]:
    tree = ast.parse(code(function).strip())
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body


def _stored_as(name: str, value: str) -> tuple[str, bool] | None:
    """The declaration type whose generated `__init__` stores `name` as `value` reads
    (`keras.activations.get(activation)`: an activation; "": stored as given), and whether
    it is stored cast (`int(units)`: an int, `cast: true`); or None."""
    for kind in KERAS_OBJECT_TYPES:
        if value == param_store(name, Param(type=kind)):
            return kind, False
    for kind in CASTS:
        if value == param_store(name, Param(type=kind, cast=True)):
            return kind, True
    return ("", False) if value == name else None


def _castable(default, kind: str) -> bool:
    """Whether a param stored as `kind(arg)` is the format's `cast`: its default (if any) is
    of that type already (`int(None)` raises; `int(2.5)` is not the default's value)."""
    if default is REQUIRED:
        return True
    types = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,)}[kind]
    return type(default) in types


def _plain_init(found: Found, types: dict[str, str], casts: set[str]) -> str | None:
    """None when the generated `__init__` is this one: `super().__init__(**kwargs)` and each
    argument stored as given (or cast, `int(units)`, where it has a default other than
    None) under its own name, nothing else; else why not."""
    function = found.methods.get("__init__")
    if function is None:
        return None
    if not found.cls.has_kwargs:
        return "it takes no `**kwargs`"
    params = function.params
    if isinstance(params.star_arg, cst.Param):
        return "it takes `*args`"
    if params.kwonly_params or params.posonly_params:
        return "it takes keyword-only or positional-only arguments"
    for arg in found.cls.args:
        if arg.default is not REQUIRED and not arg.literal:
            return f"the default of `{arg.name}` is computed (`{arg.default_code}`)"
        if isinstance(arg.default, tuple):  # the declaration's lists would make it a list
            return f"the default of `{arg.name}` is a tuple"
    names = {a.name for a in found.cls.args}
    defaults = {a.name: a.default for a in found.cls.args}
    stored, calls_super = set(), False
    for index, statement in enumerate(_statements(function)):
        text = ast.unparse(statement)
        if text == "super().__init__(**kwargs)" and not calls_super and not stored:
            calls_super = True
        elif (
            calls_super
            and isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and ast.unparse(statement.targets[0]).startswith("self.")
            and ast.unparse(statement.targets[0]).removeprefix("self.") in names - stored
            and (
                stored_as := _stored_as(
                    ast.unparse(statement.targets[0]).removeprefix("self."),
                    ast.unparse(statement.value),
                )
            )
            is not None
            and (not stored_as[1] or _castable(defaults[statement.targets[0].attr], stored_as[0]))
        ):
            name = ast.unparse(statement.targets[0]).removeprefix("self.")
            kind, cast = stored_as
            if kind:
                types[name] = kind
            if cast:
                casts.add(name)
            stored.add(name)
        elif calls_super and stored == names:
            return _extras(found, function, index, types)
        else:
            return f"it does more than store its arguments (`{text.splitlines()[0]}`)"
    if not calls_super or stored != names:
        return "it does not store every argument as given"
    return None


def _plain_build(found: Found) -> str | None:
    """None when `build` only creates its weights as the generated one does (each named, by
    keyword, with a literal initializer, in the declared order); else why not."""
    function = found.methods["build"]
    if len(function.params.params) != 2 or function.decorators:
        return "its signature is not `build(self, input_shape)`"
    if any(w.method != "build" for w in found.weights):
        return "weights are created outside `build` too"
    weights = {id(w.node): w for w in found.weights}
    first = function.body.body[0] if function.body.body else None
    for statement in function.body.body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return "it does more than create its weights"
        small = statement.body[0]
        text = code(small)
        if id(small) in weights:
            weight = weights[id(small)]
            if weight.name is None:
                return (
                    f"the weight `{weight.attribute}` has no name (Keras calls it `variable`);"
                    " a declared weight is named"
                )
            if not weight.plain or weight.shape is None:
                return (
                    f"the weight `{weight.attribute}` is created otherwise than the format states"
                )
        elif isinstance(small, cst.Assign) and all(
            isinstance(t.target, (cst.Name, cst.Tuple)) for t in small.targets
        ):
            bound = [n.value for n in _walk_names(small.targets[0].target)]
            if not bound or any(b not in found.shape_locals for b in bound):
                return f"it does more than create its weights (`{text.splitlines()[0]}`)"
        elif (
            text in ("self.built = True",)
            or text.startswith("super().build(")
            or (
                statement is first
                and isinstance(small, cst.Expr)
                and isinstance(small.value, cst.SimpleString)
            )
        ):
            continue
        else:
            return f"it does more than create its weights (`{text.splitlines()[0]}`)"
    return None


def _walk_names(node):
    if isinstance(node, cst.Name):
        yield node
    for child in node.children:
        yield from _walk_names(child)


# Names the declaration's `init` reads as the module does (when the module imports them so).
IMPORTED = {"keras": "import keras", "ops": "from keras import ops"}


def _extras(found: Found, function, index: int, types: dict[str, str]) -> str | None:
    """The statements after the stores become the declaration's `init` (appended to the
    generated `__init__` after the stores, as here) when they read nothing but `self`, the
    arguments, builtins and `keras`/`ops` as the module imports them; else why not."""
    import builtins

    rest = _statements(function)[index:]
    # a param held as a Keras object reads, in `init`, as the object, not as the argument
    plain = {a.name for a in found.cls.args if types.get(a.name) not in KERAS_OBJECT_TYPES}
    allowed = plain | {"self"} | set(dir(builtins))
    allowed |= {n for n, line in IMPORTED.items() if line in found.module_text}
    for statement in rest:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and (
                not isinstance(node.ctx, ast.Load) or node.id not in allowed
            ):
                return f"it does more than store its arguments (`{node.id}`)"
            if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.comprehension)):
                return "it defines functions or comprehensions"
    found.init_code = "\n".join(ast.unparse(s) for s in rest)
    return None


def _plain_config(found: Found, types: dict[str, str]) -> str | None:
    """None when `get_config` is the base config plus each argument as stored; else why not."""
    keys: dict[str, str] = {}
    statements = _statements(found.methods["get_config"])
    config = None
    for statement in statements:
        text = ast.unparse(statement)
        if isinstance(statement, ast.Assign) and ast.unparse(statement.value) in (
            "super().get_config()",
            f"super({found.node.name.value}, self).get_config()",
        ):
            config = ast.unparse(statement.targets[0])
        elif isinstance(statement, ast.Expr) and text.startswith(f"{config}.update(") and config:
            call = statement.value
            if len(call.args) != 1 or not isinstance(call.args[0], ast.Dict):
                return "its config is not a literal mapping"
            if not _pairs(call.args[0], keys):
                return "its config holds more than the arguments as stored"
        elif (
            isinstance(statement, ast.Assign)
            and config
            and isinstance(statement.targets[0], ast.Subscript)
            and ast.unparse(statement.targets[0].value) == config
            and isinstance(statement.targets[0].slice, ast.Constant)
        ):
            keys[statement.targets[0].slice.value] = ast.unparse(statement.value)
        elif isinstance(statement, ast.Return):
            value = statement.value
            if config and value is not None and ast.unparse(value) == config:
                continue
            if (  # dict(super().get_config(), key=self.key, ...)
                isinstance(value, ast.Call)
                and ast.unparse(value.func) == "dict"
                and [ast.unparse(a) for a in value.args] in (["super().get_config()"], [config])
                and all(k.arg is not None for k in value.keywords)
            ):
                keys.update({k.arg: ast.unparse(k.value) for k in value.keywords})
                continue
            if isinstance(value, ast.Dict):
                rest = [(k, v) for k, v in zip(value.keys, value.values) if k is not None]
                spread = [ast.unparse(v) for k, v in zip(value.keys, value.values) if k is None]
                if spread not in (["super().get_config()"], [config]) or not _pairs(
                    ast.Dict([k for k, _ in rest], [v for _, v in rest]), keys
                ):
                    return "its config holds more than the arguments as stored"
                continue
            return "it returns something other than the config it built"
        else:
            return f"it does more than list the arguments (`{text.splitlines()[0]}`)"
    names = {a.name for a in found.cls.args}
    if set(keys) != names or any(
        v != param_config(k, Param(type=types[k])) for k, v in keys.items()
    ):
        return "its keys are not exactly the arguments, as stored"
    return None


def _pairs(node: ast.Dict, keys: dict[str, str]) -> bool:
    for key, value in zip(node.keys, node.values):
        if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            return False
        keys[key.value] = ast.unparse(value)
    return True
