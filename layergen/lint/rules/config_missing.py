"""`config-missing`: `get_config` leaves out a constructor argument."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ..configs import chained_keys, read_config, rebuilt_by_from_config, stored_as
from ..edits import AddGetConfig, AddKeys, AddKeywords, Fix, SetKeysBeforeReturn
from ..source import ClassInfo, SourceFile, self_attribute, self_name, walk
from .base import Finding, Rule, Run, at
from .common import BASE_ARGUMENTS, init_params, keras_parent_config, super_init

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


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    init = cls.methods.get("__init__")
    if init is None:
        return
    call = super_init(init)
    forwarded = _forwarded(init, call)
    # `rank` of BaseConv: every subclass sets it, so it is not the user's to save.
    children = [c for c in run.subclasses.get(id(cls), []) if "__init__" in c.methods]
    set_by_children = (
        set.intersection(*(_bound(init, super_init(c.methods["__init__"])) for c in children))
        if children
        else set()
    )
    rebuilt = rebuilt_by_from_config(init, [cls, *cls.parents])
    params = [
        p
        for p in init_params(init)
        if p not in BASE_ARGUMENTS | forwarded | set_by_children | rebuilt
    ]
    if not params:
        return
    own = cls.methods.get("get_config")
    owners = [cls, *cls.parents]
    written = next((o.methods["get_config"] for o in owners if "get_config" in o.methods), None)
    if written is not None and any(isinstance(n, ast.Raise) for n in written.body):
        return  # not serializable by config, and it says so when asked
    if written is not None:
        keys = _chain_keys(source, owners)
        if keys is None:
            return
    elif keras_parent_config(cls):
        keys = set()  # the parent is a Keras class with its own get_config (Dense, ...)
    elif cls.parent_opaque or cls.kind == "layer":
        # An unknown base may write it; Keras 3 writes a plain Layer's config from its
        # arguments, and Keras 2's raises NotImplementedError naming the class (not silent).
        return
    else:
        keys = set()  # losses, constraints, regularizers, initializers: the base has no keys
    where = own or cls.node
    missing = [
        p
        for p in params
        if p not in keys and not (_unserializable(init, p) or _needless(init, p, cls))
    ]
    if not missing:
        return
    values = [(p, stored_as(source, init, p, [cls, *cls.parents])) for p in missing]
    if own is not None:
        target = _position(source, read_config(own).target)
    else:  # a new get_config; the bases of these kinds have none worth extending (a
        # Regularizer's raises NotImplementedError)
        target = ("method", cls.kind in ("layer", "loss") or keras_parent_config(cls))
    fixable = target is not None and all(v for _, v in values)
    names = ", ".join(f"`{p}`" for p in missing)
    if own is not None:
        message = f"`get_config` leaves out {names}: after `load_model` it is back to its default"
    else:
        message = f"`{cls.name}` takes {names} but has no `get_config` that saves {'it' if len(missing) == 1 else 'them'}"
    hint = "add " + ", ".join(f'"{p}": {v or "..."}' for p, v in values) + " to the config"
    yield at(
        source,
        where,
        "config-missing",
        message,
        hint if all(v for _, v in values) else hint + " (store the argument on `self` first)",
        fix=_fix(cls.name, tuple(values), target) if fixable else None,
    )


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
    names = {n.id for n in walk(call) if isinstance(n, ast.Name)}
    kwarg = init.args.kwarg.arg if init.args.kwarg else None
    for node in walk(init):
        if isinstance(node, ast.Assign) and any(
            (isinstance(t, ast.Name) and t.id == kwarg)
            or (isinstance(t, ast.Subscript) and getattr(t.value, "id", None) == kwarg)
            for t in node.targets
        ):
            names |= {n.id for n in walk(node.value) if isinstance(n, ast.Name)}
    return names


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
