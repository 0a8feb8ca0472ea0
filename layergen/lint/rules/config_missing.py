"""`config-missing`: `get_config` leaves out a constructor argument."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..configs import chained_keys, read_config, rebuilt_by_from_config, stored_as
from ..edits import AddGetConfig, AddKeys, AddKeywords, Fix, SetKeysBeforeReturn
from ..source import ClassInfo, SourceFile, self_attribute, self_name, walk
from .base import Finding, Rule, Run, at
from .common import (
    BASE_ARGUMENTS,
    init_params,
    initializer_only,
    keras_parent_config,
    super_init,
)

RULE = Rule(
    "config-missing",
    "error",
    "`get_config` leaves out a constructor argument",
    "`from_config` rebuilds the object from `get_config()`: an argument missing there comes back as its default\n"
    "after `load_model` (or fails when it has none). A subclass that adds arguments must extend its parent's\n"
    "`get_config`.",
    'def __init__(self, factor=2.0, shift=1.0, **kwargs): ...\n\ndef get_config(self):\n    return {**super().get_config(), "factor": self.factor}',
    'def get_config(self):\n    return {**super().get_config(), "factor": self.factor, "shift": self.shift}',
    fixable=True,
)


STORE_FIRST = " (store the argument on `self` first)"


@dataclass(frozen=True)
class Unsaved:
    """The arguments a class's config leaves out, what saves each (`self.x`, or None when
    the argument is not stored), where to report it (its `get_config`, or the class when
    it has none), the fix's place, whether they only set weights' starting values, and
    which of them can be a functional model's inputs (a Keras tensor: no config holds one)."""

    names: tuple[str, ...]
    values: tuple[tuple[str, str | None], ...]
    where: ast.AST
    has_get_config: bool
    target: tuple | None
    initializers_only: bool
    tensors: tuple[str, ...] = ()

    def finding(self, source: SourceFile, cls: ClassInfo, code: str, message: str) -> Finding:
        stored = all(v for _, v in self.values)
        return at(
            source,
            self.where,
            code,
            message,
            self.hint(),
            fix=_fix(cls.name, self.values, self.target) if stored and self.target else None,
        )

    def hint(self) -> str:
        plain = [(p, v) for p, v in self.values if p not in self.tensors]
        hints = []
        if plain:
            add = ", ".join(f'"{p}": {v or "..."}' for p, v in plain)
            stored = all(v for _, v in plain)
            hints.append(f"add {add} to the config" + ("" if stored else STORE_FIRST))
        if self.tensors:
            tensors = ", ".join(f"`{p}`" for p in self.tensors)
            hints.append(
                f"{tensors} can be the model's inputs, a Keras tensor no config can hold: save"
                ' the input as built instead ("input_shape": self.input_shape[1:]) and make'
                " `keras.Input` from that shape when `from_config` gives it"
            )
        return "; ".join(hints)

    def listed(self) -> str:
        return ", ".join(f"`{p}`" for p in self.names)

    def no_get_config(self, cls: ClassInfo) -> str:
        """The message when the class has no `get_config` at all."""
        them = "it" if len(self.names) == 1 else "them"
        return f"`{cls.name}` takes {self.listed()} but has no `get_config` that saves {them}"


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    found = unsaved(source, cls, run)
    if found is None or found.initializers_only:
        return  # nothing left out, or only starting values: config-missing-initializer
    if found.has_get_config:
        message = f"`get_config` leaves out {found.listed()}: after `load_model` it is back to its default"
    else:
        message = found.no_get_config(cls)
    yield found.finding(source, cls, RULE.code, message)


def unsaved(source: SourceFile, cls: ClassInfo, run: Run) -> Unsaved | None:
    """What the class's config leaves out (config-missing and config-missing-initializer
    both ask: worked out once per class)."""
    if "_unsaved" not in cls.__dict__:
        cls._unsaved = _unsaved(source, cls, run)
    return cls._unsaved


def _unsaved(source: SourceFile, cls: ClassInfo, run: Run) -> Unsaved | None:
    init = cls.methods.get("__init__")
    if init is None:
        return None
    call = super_init(init)
    forwarded = _forwarded(init, call)
    # An argument a subclass fixes in its own `super().__init__` call (`rank` of BaseConv,
    # `has_generator=False`): were the base to save it, that subclass's `from_config` would
    # pass it twice ("got multiple values"), so it is not the base's to save.
    children = [c for c in run.subclasses.get(id(cls), []) if "__init__" in c.methods]
    set_by_children = set().union(
        *(_bound(init, super_init(c.methods["__init__"])) for c in children)
    )
    rebuilt = rebuilt_by_from_config(init, [cls, *cls.parents])
    # A functional model's arguments that only make its inputs (`input_tensor`): covered by
    # a config that saves the inputs as built; otherwise no fix (a tensor is no config value).
    values = _assigned(init)
    built_inputs = (
        _inputs_only(init, call, values)
        if _saves_built_inputs(init, [cls, *cls.parents])
        else set()
    )
    params = [
        p
        for p in init_params(init)
        if p not in BASE_ARGUMENTS | forwarded | set_by_children | rebuilt | built_inputs
    ]
    if not params:
        return None
    own = cls.methods.get("get_config")
    owners = [cls, *cls.parents]
    written = next((o.methods["get_config"] for o in owners if "get_config" in o.methods), None)
    if written is not None and any(isinstance(n, ast.Raise) for n in written.body):
        return None  # not serializable by config, and it says so when asked
    if written is not None:
        keys = _chain_keys(source, owners)
        if keys is None:
            return None
    elif keras_parent_config(cls):
        keys = set()  # the parent is a Keras class with its own get_config (Dense, ...)
    elif cls.parent_opaque or cls.kind in ("layer", "regularizer"):
        # An unknown base may write it; Keras 3 writes a plain Layer's config from its
        # arguments, and Keras 2's (and every Regularizer's) raises NotImplementedError
        # naming the class: saving fails loudly, nothing is silent.
        return None
    else:
        keys = set()  # losses, constraints, initializers: the base has no keys
    restored = _restored_through_kwargs(init, keys - set(params))
    missing = [
        p
        for p in params
        if p not in keys | restored and not (_unserializable(init, p) or _needless(init, p, cls))
    ]
    if not missing:
        return None
    by_position = {n.id for a in _computed(call) for n in walk(a) if isinstance(n, ast.Name)}
    tensors = _given_as_inputs(call, values) & set(missing)
    if by_position & set(missing) or tensors or any(_plain_object(init, p) for p in missing):
        # A plain Python object (`likelihood: Likelihood`) is no value Keras can serialize:
        # written into the config, it would make `model.save` raise where it saved before.
        # A config of its own would hold the argument beside the parent's key for its
        # result, which `__init__` does not take: no fix is known safe.
        target = None
    elif own is not None:
        target = _position(source, read_config(own).target)
    else:  # a new get_config; the bases of these kinds have none worth extending
        target = ("method", cls.kind in ("layer", "loss") or keras_parent_config(cls))
    return Unsaved(
        tuple(missing),
        tuple((p, stored_as(source, init, p, owners)) for p in missing),
        own or cls.node,
        own is not None,
        target,
        # Only starting values of weights: a loaded model takes its weights from the file.
        all(initializer_only(init, p, owners) for p in missing),
        tuple(p for p in missing if p in tensors),
    )


# What a functional model holds of its inputs once built.
BUILT_INPUTS = frozenset(["input_shape", "inputs", "input", "_inputs"])


def _saves_built_inputs(init: ast.FunctionDef, owners: list[ClassInfo]) -> bool:
    """Whether a `get_config` saves a functional model's inputs as built
    (`"input_shape": self.input_shape[1:]`): that shape rebuilds the same input, whatever
    made it (Keras clones a tensor given as `inputs` into a new `Input`)."""
    me = self_name(init)
    own = {
        self_attribute(t, me) for n in walk(init) if isinstance(n, ast.Assign) for t in n.targets
    }
    return any(
        self_attribute(n, self_name(o.methods["get_config"])) in BUILT_INPUTS - own
        for o in owners
        if "get_config" in o.methods
        for n in walk(o.methods["get_config"])
        if isinstance(n, ast.Attribute)
    )


def _assigned(init: ast.FunctionDef) -> dict[str, list[ast.expr]]:
    """Each local name of `init` -> the values assigned to it."""
    values: dict[str, list[ast.expr]] = {}
    for node in walk(init):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
    return values


def _inputs(call: ast.Call | None) -> ast.expr | None:
    """What a functional model's `super().__init__(inputs=..., outputs=...)` gets as inputs."""
    return next((k.value for k in call.keywords if k.arg == "inputs"), None) if call else None


def _given_as_inputs(call: ast.Call | None, values: dict[str, list[ast.expr]]) -> set[str]:
    """The names whose value itself can be a functional model's inputs (`inputs = ... if
    input_tensor is None else input_tensor`): a Keras tensor, which no fix may write into a
    config."""
    found, todo = set(), [_inputs(call)] if _inputs(call) is not None else []
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and node.id not in found:
            found.add(node.id)
            todo.extend(values.get(node.id, []))
        elif isinstance(node, ast.IfExp):
            todo += [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            todo += node.values
        elif isinstance(node, (ast.Tuple, ast.List)):
            todo += node.elts
        elif isinstance(node, ast.Starred):
            todo.append(node.value)
    return found


def _inputs_only(
    init: ast.FunctionDef, call: ast.Call | None, values: dict[str, list[ast.expr]]
) -> set[str]:
    """The arguments of a functional model (`super().__init__(inputs=..., outputs=...)`)
    read only to make its inputs (`input_tensor`, through `inputs = ... else input_tensor`
    or a helper's call), never to describe an `Input(...)` (its shape is saved as built,
    its `dtype=` or `sparse=` is not)."""
    inputs = _inputs(call)
    if inputs is None:
        return set()
    described = {
        id(n)
        for c in walk(init)
        if isinstance(c, ast.Call) and getattr(c.func, "id", getattr(c.func, "attr", "")) == "Input"
        for a in [*c.args, *(k.value for k in c.keywords if k.arg != "tensor")]
        for n in walk(a)
    }
    feeding, todo, seen = set(), [inputs], set()
    while todo:  # the expressions whose value can become the inputs
        expression = todo.pop()
        for node in walk(expression):
            feeding.add(id(node))
            if isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                todo.extend(values.get(node.id, []))
    reads = {}
    for node in walk(init):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads.setdefault(node.id, []).append(id(node) in feeding and id(node) not in described)
    return {p for p in init_params(init) if reads.get(p) and all(reads[p])}


def _restored_through_kwargs(init: ast.FunctionDef, keys: set[str]) -> set[str]:
    """The parameters a class restores its own way through a config key that is no
    parameter: `shape = kwargs.pop("values_shape", None)` with `values_shape` in the config,
    then `if values is not None: shape = ...` (the values come back with the weights)."""
    kwarg = init.args.kwarg.arg if init.args.kwarg else None
    if kwarg is None or not keys:
        return set()
    read_back = set()  # locals that hold a config key read from **kwargs
    for node in walk(init):
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            holder, key = value.func.value, value.args[0] if value.args else None
            if value.func.attr not in ("pop", "get"):
                holder = None
        elif isinstance(value, ast.Subscript):
            holder, key = value.value, value.slice
        else:
            continue
        if (
            isinstance(holder, ast.Name)
            and holder.id == kwarg
            and isinstance(key, ast.Constant)
            and key.value in keys
        ):
            read_back.add(node.targets[0].id)
    restored = set()
    for node in walk(init):
        if isinstance(node, ast.If) and any(
            isinstance(t, ast.Name) and t.id in read_back
            for n in walk(node)
            if isinstance(n, ast.Assign)
            for t in n.targets
        ):
            restored |= {n.id for n in walk(node.test) if isinstance(n, ast.Name)}
    return restored


def _fix(name: str, values: tuple, target: tuple) -> Fix:
    """Where the missing keys go: the dict `get_config` returns, its `dict(...)` or
    `config.update(...)` call, `config["key"] = ...` before its `return config`, or a new
    `get_config` (`target`, from configs.read_config through `_position`)."""
    kind = target[0]
    if kind == "dict":
        return AddKeys((target[1], target[2]), values)
    if kind == "call":
        return AddKeywords((target[1], target[2]), values)
    if kind == "name":
        return SetKeysBeforeReturn(target[2], target[1], values)
    return AddGetConfig(name, values, target[1])


def _position(source: SourceFile, target: tuple | None) -> tuple | None:
    """A fix target of configs.read_config as plain data: the node's line and column."""
    if target is None:
        return None
    node = target[-1]
    return (*target[:-1], node.lineno, source.column(node))


def _chain_keys(source: SourceFile, owners: list[ClassInfo]) -> set[str] | None:
    """The keys the first `get_config` of `owners` writes, with those of every parent's
    `get_config` its `super().get_config()` reaches; None when one cannot be followed."""
    return chained_keys(owners)[0]


# What a config cannot hold: an input spec, a layer, a class or a function.
UNSERIALIZABLE = re.compile(r"\bInputSpec\b|\bLayer\b|\bCallable\b|\btype\[")


def _forwarded(init: ast.FunctionDef, call: ast.Call | None) -> set[str]:
    """The names `super().__init__(...)` is given, directly or through the `**kwargs` it
    passes on (`kwargs = {**kwargs, "groups": groups}`): the parent's config saves them."""
    if call is None:
        return set()
    computed = {id(n) for a in _computed(call) for n in walk(a)}
    names = {n.id for n in walk(call) if isinstance(n, ast.Name) and id(n) not in computed}
    kwarg = init.args.kwarg.arg if init.args.kwarg else None
    for node in walk(init):
        if isinstance(node, ast.Assign) and any(
            (isinstance(t, ast.Name) and t.id == kwarg)
            or (isinstance(t, ast.Subscript) and getattr(t.value, "id", None) == kwarg)
            for t in node.targets
        ):
            names |= {n.id for n in walk(node.value) if isinstance(n, ast.Name)}
    return names


def _computed(call: ast.Call | None) -> list[ast.expr]:
    """Arithmetic passed by position (`num_embeddings + offset`): the parent's config saves
    its result under the parent's own name, and the argument itself is not given back."""
    return [a for a in call.args if isinstance(a, ast.BinOp)] if call is not None else []


# Annotations of values a config holds, or Keras serializes (`keras.initializers.get`, ...).
PLAIN_TYPES = re.compile(
    r"^(int|float|complex|str|bytes|bool|None|list|tuple|dict|set|frozenset|Optional|Union"
    r"|List|Tuple|Dict|Set|Sequence|Mapping|Iterable|Literal|Any|typing|Text)$"
    r"|Initializer|Regularizer|Constraint|Activation|Layer|Model|Loss|Metric|Optimizer"
    r"|Policy|DType|Shape|Tensor|Array|Variable|Keras"
)


def _plain_object(init: ast.FunctionDef, param: str) -> bool:
    """An argument annotated with a class of its own (`likelihood: Likelihood`): an object
    Keras has no serializer for."""
    arg = next(
        a
        for a in [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]
        if a.arg == param
    )
    if arg.annotation is None:
        return False
    names = [
        n.id if isinstance(n, ast.Name) else n.attr
        for n in walk(arg.annotation)
        if isinstance(n, (ast.Name, ast.Attribute))
    ]
    names += [
        n.value
        for n in walk(arg.annotation)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    return any(name[:1].isupper() and not PLAIN_TYPES.search(name) for name in names)


def _needless(init: ast.FunctionDef, param: str, cls: ClassInfo) -> bool:
    """A parameter a config need not hold: `__init__` never reads it, or only to check it
    (`if groups != 1: raise ...`), or it is called (`norm_layer(...)`, or `self.norm_layer(...)`
    in any method after `self.norm_layer = norm_layer`): a class or a function."""
    checks = {
        id(n)
        for node in walk(init)
        if isinstance(node, ast.If) and all(isinstance(b, ast.Raise) for b in node.body)
        for n in walk(node.test)
    }
    called = {id(n.func) for n in walk(init) if isinstance(n, ast.Call)}
    reads = [
        n
        for n in walk(init)
        if isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load)
    ]
    me = self_name(init)
    stored = {
        self_attribute(t, me)
        for n in walk(init)
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id == param
        for t in n.targets
    } - {None}
    called_attrs = {
        self_attribute(n.func, self_name(f))
        for f in cls.methods.values()
        for n in walk(f)
        if isinstance(n, ast.Call)
    }
    return (
        all(id(n) in checks for n in reads)
        or any(id(n) in called for n in reads)
        or bool(stored & called_attrs)
    )


def _unserializable(init: ast.FunctionDef, param: str) -> bool:
    """A parameter whose annotation or default says a config cannot hold it
    (`input_specs: InputSpec = InputSpec(...)`, `norm_layer=keras.layers.LayerNormalization`)."""
    args = init.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(
        zip([a.arg for a in positional][len(positional) - len(args.defaults) :], args.defaults)
    )
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    arg = next(a for a in [*positional, *args.kwonlyargs] if a.arg == param)
    default = defaults.get(param)
    texts = [ast.unparse(arg.annotation) if arg.annotation is not None else ""]
    if isinstance(default, ast.Call):
        texts.append(ast.unparse(default.func))
    elif isinstance(default, ast.Attribute) and default.attr[:1].isupper():
        texts.append("type[")  # a class, such as keras.layers.LayerNormalization
    return any(UNSERIALIZABLE.search(text) for text in texts)


def _bound(init: ast.FunctionDef, call: ast.Call | None) -> set[str]:
    """The parameters of `init` that a subclass's `super().__init__(...)` call sets, by
    keyword or by position (`super().__init__(tf.reduce_mean, ...)`)."""
    if call is None:
        return set()
    positional = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            break
        positional.append(arg)
    named = [a.arg for a in [*init.args.posonlyargs, *init.args.args][1:]]
    return {k.arg for k in call.keywords if k.arg} | set(named[: len(positional)])
