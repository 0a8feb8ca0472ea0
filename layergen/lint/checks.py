"""The rules, each a function of one class: `check_class` yields the findings of every rule.

Each check reads the `ast` of the class (see source.py) and is conservative: when the
code does something it cannot follow (a config built in a loop, a base class it cannot
read, weights reached through `getattr`), it stays silent rather than guess.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .configs import chained_keys, read_config, rebuilt_by_from_config, stored_as
from .kinds import find_class, keras_base
from .reload import forwarded_values, missing_keys
from .rules import KERAS3_ONLY, RULES
from .source import ClassInfo, SourceFile, is_super_call, self_attribute, self_name, walk
from .tensors import Tensors, backend_op

BASE_ARGUMENTS = {
    "name",
    "dtype",
    "trainable",
    "autocast",
    "input_shape",
    "input_dim",
    "batch_size",
    "batch_input_shape",
    "activity_regularizer",
    "reduction",
    "weights",
}
# Built-in layers whose output depends on `training`.
TRAINING_LAYERS = frozenset(
    [
        "Dropout",
        "SpatialDropout1D",
        "SpatialDropout2D",
        "SpatialDropout3D",
        "GaussianDropout",
        "GaussianNoise",
        "AlphaDropout",
        "BatchNormalization",
        "MultiHeadAttention",
        "GroupQueryAttention",
        "GroupedQueryAttention",
        "Attention",
        "AdditiveAttention",
        "RNN",
        "LSTM",
        "GRU",
        "SimpleRNN",
        "ConvLSTM1D",
        "ConvLSTM2D",
        "ConvLSTM3D",
        "Bidirectional",
        "TimeDistributed",
        "Sequential",
        "RandomFlip",
        "RandomRotation",
        "RandomZoom",
        "RandomTranslation",
        "RandomContrast",
        "RandomCrop",
        "RandomBrightness",
        "ActivityRegularization",
    ]
)
PREPROCESSING = frozenset(
    [
        "StringLookup",
        "IntegerLookup",
        "IndexLookup",
        "Hashing",
        "HashedCrossing",
        "CategoryEncoding",
        "TextVectorization",
        "Discretization",
        "Normalization",
        "Resizing",
        "Rescaling",
        "CenterCrop",
        "DataLayer",
        "TFDataLayer",
        "BaseImagePreprocessingLayer",
        "PreprocessingLayer",  # keras-hub's: tokenizers, packers, preprocessors
    ]
)
# Built-in layers that own variables (a weightless one, such as Dropout, loads unbuilt fine).
WEIGHTED_LAYERS = frozenset(
    [
        "Dense",
        "EinsumDense",
        "Embedding",
        "Conv1D",
        "Conv2D",
        "Conv3D",
        "Conv1DTranspose",
        "Conv2DTranspose",
        "Conv3DTranspose",
        "DepthwiseConv1D",
        "DepthwiseConv2D",
        "SeparableConv1D",
        "SeparableConv2D",
        "BatchNormalization",
        "LayerNormalization",
        "GroupNormalization",
        "RMSNormalization",
        "MultiHeadAttention",
        "GroupedQueryAttention",
        "SimpleRNN",
        "LSTM",
        "GRU",
        "ConvLSTM1D",
        "ConvLSTM2D",
        "ConvLSTM3D",
        "PReLU",
    ]
)
WEIGHT_MAKERS = ("add_weight", "add_variable")


@dataclass
class Finding:
    code: str
    line: int
    col: int
    message: str
    hint: str | None = None
    fix: tuple | None = None  # what fixes.py needs; None when the finding is not fixable


@dataclass
class Run:
    """What the checks need to know about the other files of the run."""

    classes: dict[str, list[tuple[SourceFile, ClassInfo]]]  # by name (see kinds.find_class)
    registrars: set[str]  # decorator names that register (configured or found)
    package: str
    subclasses: dict[int, list[ClassInfo]]  # by the id of their direct parent
    homes: dict[int, SourceFile]  # the file of each class, by its id
    select: frozenset[str] = frozenset(RULES)  # the rules to run (a rule off costs nothing)


RELOAD_RULES = {"forwarded-value": forwarded_values, "config-key-mismatch": missing_keys}
# The rules `_call_checks` finds (one walk of `call` for all of them).
CALL_RULES = {"python-if-on-tensor", "numpy-in-call", "backend-op-in-call", "state-rebound"}
WEIGHT_RULES = {"weight-in-call", "weight-in-init", "untracked-variable"}
CONFIG_RULES = {"config-missing", "config-missing-initializer"}


def not_run(source: SourceFile, cls: ClassInfo, run: Run) -> frozenset[str]:
    """The selected rules `check_class` does not run on a class, which it checks: those for
    Keras 3 only, on a Keras 2 class."""
    if cls.kind is None or cls.keras3 or _keras_internal(source, cls):
        return frozenset()
    return run.select & KERAS3_ONLY


def check_class(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if cls.kind is None or _keras_internal(source, cls):
        return
    on = run.select - not_run(source, cls, run)
    if "init-kwargs" in on:
        yield from _init_kwargs(source, cls)
    if CONFIG_RULES & on:
        yield from (f for f in _config_missing(source, cls, run) if f.code in on)
    if "unregistered" in on:
        yield from _unregistered(source, cls, run)
    for code, rule in RELOAD_RULES.items():
        if code in on:
            for node, message, hint in rule(source, cls):
                yield _at(source, node, code, message, hint)
    if cls.kind != "layer":
        return
    weights = _weights(cls)
    if WEIGHT_RULES & on:
        yield from _weights_made_in_wrong_place(source, cls)
    if "sublayer-dtype" in on:
        yield from _sublayer_dtype(source, cls, run)
    if "unused-weight" in on:
        yield from _unused_weights(source, cls, weights)
    call = cls.methods.get("call")
    if call is not None and CALL_RULES & on:
        yield from _call_checks(source, cls, call, weights)
    if call is not None and "training-not-passed" in on:
        yield from _training_not_passed(source, cls, call, run)
    if "unbuilt-sublayer" in on:
        yield from _unbuilt_sublayers(source, cls, run)


def _at(
    source: SourceFile, node: ast.AST, code: str, message: str, hint: str | None = None, fix=None
) -> Finding:
    return Finding(code, node.lineno, source.column(node), message, hint, fix)


def _init_params(init: ast.FunctionDef) -> list[str]:
    args = init.args
    return [a.arg for a in [*args.posonlyargs, *args.args][1:] + args.kwonlyargs]


def _super_init(init: ast.FunctionDef) -> ast.Call | None:
    return next((n for n in walk(init) if is_super_call(n, "__init__")), None)


def _init_kwargs(source: SourceFile, cls: ClassInfo) -> Iterator[Finding]:
    init = cls.methods.get("__init__")
    if init is None or cls.kind not in ("layer", "loss"):
        return
    params, kwarg, call = _init_params(init), init.args.kwarg, _super_init(init)
    # What the base's config holds: a Loss's is `name` and `reduction` (Loss.from_config is
    # `cls(**config)`), a layer's `name`, `dtype`, `trainable`.
    base = {"name", "reduction"} if cls.kind == "loss" else {"name", "dtype"}
    if base <= set(params):
        return  # takes the base arguments one by one
    if any("from_config" in owner.methods for owner in [cls, *cls.parents]):
        return  # its own `from_config` decides what reaches `__init__`
    if kwarg is None:
        if not _config_has_base_keys(source, cls):
            return  # `from_config` never passes `name=`: a choice, not a bug that waits for loading
        # `super().__init__(dtype="float32")`: `**kwargs` beside it would take `dtype`
        # from `from_config` too, and pass it twice.
        fixed = (
            sorted(k.arg for k in call.keywords if k.arg in BASE_ARGUMENTS and k.arg not in params)
            if call is not None
            else []
        )
        hint = "add `**kwargs` and pass it to `super().__init__`"
        if fixed:
            hint += f" (after popping {', '.join(f'`{k}`' for k in fixed)} from it, which you pass yourself)"
        yield _at(
            source,
            init,
            "init-kwargs",
            (
                f"`{cls.name}.__init__` takes no `**kwargs`: `name=`, `dtype=` and "
                "`trainable=` cannot be passed, and `from_config` fails"
                if cls.kind != "loss"
                else f"`{cls.name}.__init__` takes no `**kwargs`: "
                + " and ".join(f"`{k}=`" for k in sorted(base - set(params)))
                + " from its config cannot be passed back, and `from_config` fails"
            ),
            hint,
            fix=(
                ("init-kwargs", cls.name, cls.node.lineno)
                if call is not None and not fixed
                else None
            ),
        )
        return
    used = any(isinstance(n, ast.Name) and n.id == kwarg.arg for n in walk(init))
    # `**kwargs` read in any way (popped, passed elsewhere) is a choice; dropped, it loses
    # what `from_config` passes back (`name`, `dtype`: the mixed-precision policy).
    if call is None or used or not _config_has_base_keys(source, cls):
        return
    named = {k.arg for k in call.keywords if k.arg}
    # The base keys a config holds: a Keras 3 loss's has `dtype` too, a layer's `trainable`.
    held = (
        base
        | ({"dtype"} if cls.keras3 else set())
        | ({"trainable"} if cls.kind == "layer" else set())
    )
    if held <= named:
        # `super().__init__(name=name, reduction=NONE)`: the config's copies have nowhere
        # else to go; `**kwargs` only swallows the `reduction` the loss fixes on purpose.
        return
    # `**kwargs` beside `reduction="none"` would pass the config's `reduction` twice.
    fixable = not (named & BASE_ARGUMENTS - set(params))
    yield _at(
        source,
        call,
        "init-kwargs",
        f"`**{kwarg.arg}` is not passed on to `super().__init__`: `name=` and "
        "`dtype=` are dropped",
        f"pass it on: `super().__init__(..., **{kwarg.arg})`",
        fix=("init-kwargs", cls.name, cls.node.lineno) if fixable else None,
    )


def _config_has_base_keys(source: SourceFile, cls: ClassInfo) -> bool:
    """Whether the config holds the base class's keys (`name`, ...), which `from_config`
    passes back to `__init__`: its `get_config` extends the base's, or Keras 3 writes it."""
    written = [o.methods["get_config"] for o in [cls, *cls.parents] if "get_config" in o.methods]
    if written:
        return read_config(written[0]).calls_super  # False: a config of its own keys only
    return cls.kind == "loss" or cls.keras3 or _keras_parent_config(cls)


# --- get_config ---------------------------------------------------------------------------


def _config_missing(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    init = cls.methods.get("__init__")
    if init is None:
        return
    call = _super_init(init)
    forwarded = _forwarded(init, call)
    # `rank` of BaseConv: every subclass sets it, so it is not the user's to save.
    children = [c for c in run.subclasses.get(id(cls), []) if "__init__" in c.methods]
    set_by_children = (
        set.intersection(*(_bound(init, _super_init(c.methods["__init__"])) for c in children))
        if children
        else set()
    )
    rebuilt = rebuilt_by_from_config(init, [cls, *cls.parents])
    params = [
        p
        for p in _init_params(init)
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
    elif _keras_parent_config(cls):
        keys = set()  # the parent is a Keras class with its own get_config (Dense, ...)
    elif cls.parent_opaque or cls.kind in ("layer", "regularizer"):
        # An unknown base may write it; Keras 3 writes a plain Layer's config from its
        # arguments, and Keras 2's (and every Regularizer's) raises NotImplementedError
        # naming the class: saving fails loudly, nothing is silent.
        return
    else:
        keys = set()  # losses, constraints, regularizers, initializers: the base has no keys
    where = own or cls.node
    restored = _restored_through_kwargs(init, keys - set(params))
    missing = [
        p
        for p in params
        if p not in keys | restored and not (_unserializable(init, p) or _needless(init, p, cls))
    ]
    if not missing:
        return
    values = [(p, stored_as(source, init, p, [cls, *cls.parents])) for p in missing]
    if own is not None:
        target = _position(source, read_config(own).target)
    else:  # a new get_config; the bases of these kinds have none worth extending (a
        # Regularizer's raises NotImplementedError)
        target = ("method", cls.kind in ("layer", "loss") or _keras_parent_config(cls))
    fixable = target is not None and all(v for _, v in values)
    names = ", ".join(f"`{p}`" for p in missing)
    # Only starting values of weights: a loaded model takes its weights from the file, so
    # only a layer rebuilt from its config alone (clone_model) shows it. An opt-in rule.
    code = (
        "config-missing-initializer"
        if all(_initializer_only(init, p, owners) for p in missing)
        else "config-missing"
    )
    if own is not None and code == "config-missing-initializer":
        message = (
            f"`get_config` leaves out {names}, which only set{'s' if len(missing) == 1 else ''} "
            "a weight's starting value: a layer rebuilt from its config alone (`clone_model`) "
            "starts from the default"
        )
    elif own is not None:
        message = f"`get_config` leaves out {names}: after `load_model` it is back to its default"
    else:
        message = f"`{cls.name}` takes {names} but has no `get_config` that saves {'it' if len(missing) == 1 else 'them'}"
    hint = "add " + ", ".join(f'"{p}": {v or "..."}' for p, v in values) + " to the config"
    yield _at(
        source,
        where,
        code,
        message,
        hint if all(v for _, v in values) else hint + " (store the argument on `self` first)",
        fix=(
            ("config-missing", cls.name, cls.node.lineno, tuple(values), target)
            if fixable
            else None
        ),
    )


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


def _initializer_only(init: ast.FunctionDef, param: str, owners: list[ClassInfo]) -> bool:
    """Whether the code uses `param` only to make weights' starting values: every read of
    it reaches `initializer=` of `add_weight` or a `*_initializer=` of a sublayer, directly,
    through a call (`initializers.Constant(param)`), or through a local or `self.` attribute
    (or an `if` that only sets them) used that way in turn."""
    functions = [f for owner in owners for f in owner.methods.values()]
    todo: list[tuple] = [("local", init, param)]
    seen: set[tuple] = set()
    fed = False
    while todo:
        held = todo.pop()
        key = (held[0], id(held[1]) if held[0] == "local" else None, held[2])
        if key in seen:
            continue
        seen.add(key)
        for function in [held[1]] if held[0] == "local" else functions:
            me = self_name(function)
            for node in walk(function):
                read = (
                    isinstance(node, ast.Name) and node.id == held[2]
                    if held[0] == "local"
                    else isinstance(node, ast.Attribute) and self_attribute(node, me) == held[2]
                )
                if not read or not isinstance(node.ctx, ast.Load):
                    continue
                reached = _feeds(function, node)
                if reached is None:
                    return False
                if reached == "initializer":
                    fed = True
                else:
                    todo.extend(reached)
    return fed


def _feeds(function: ast.FunctionDef, node: ast.AST) -> str | list[tuple] | None:
    """Where the value read at `node` goes: "initializer" (a keyword that takes one), the
    locals and `self.` attributes an assignment (or an `if` of assignments) sets from it,
    or None (anything else: a shape, a condition in `call`, another argument)."""
    parents = function.__dict__.get("_parents")
    if parents is None:
        parents = function._parents = {
            id(child): parent for parent in walk(function) for child in ast.iter_child_nodes(parent)
        }
    child = node
    while (parent := parents.get(id(child))) is not None:
        maker = isinstance(parent, ast.Call) and getattr(parent.func, "attr", None) in WEIGHT_MAKERS
        if isinstance(parent, ast.keyword):
            call = parents[id(parent)]
            weight = getattr(call.func, "attr", None) in WEIGHT_MAKERS
            if parent.arg and (
                parent.arg.endswith("_initializer") or (parent.arg == "initializer" and weight)
            ):
                return "initializer"
            if weight:
                return None  # a weight's shape, dtype, ...
        elif maker:
            return None  # a positional argument of add_weight
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if isinstance(child, ast.Tuple) or child is not parent.value:
                return None
            return _assigned(targets, function)
        elif isinstance(parent, ast.Tuple) and isinstance(parents.get(id(parent)), ast.Assign):
            assign = parents[id(parent)]
            target = assign.targets[0]
            if (
                assign.value is parent
                and len(assign.targets) == 1
                and isinstance(target, ast.Tuple)
                and len(target.elts) == len(parent.elts)
            ):  # `self.axis, self.initializer = axis, initializer`
                return _assigned([target.elts[parent.elts.index(child)]], function)
            return None
        elif isinstance(parent, ast.If) and child is parent.test:
            body = [*parent.body, *parent.orelse]
            if not all(isinstance(s, ast.Assign) for s in body):
                return None
            return _assigned([t for s in body for t in s.targets], function)
        elif isinstance(parent, ast.stmt):
            return None
        child = parent
    return None


def _assigned(targets: list[ast.AST], function: ast.FunctionDef) -> list[tuple] | None:
    """The locals and `self.` attributes `targets` name; None for anything else."""
    held, me = [], self_name(function)
    for target in targets:
        if isinstance(target, ast.Name):
            held.append(("local", function, target.id))
        elif self_attribute(target, me):
            held.append(("attr", None, self_attribute(target, me)))
        else:
            return None
    return held


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


def _keras_internal(source: SourceFile, cls: ClassInfo) -> bool:
    """A class of Keras (or tf_keras) itself that it does not export: an internal helper,
    never saved by itself (the exported ones are what users save)."""
    return _keras_package(source.path) in ("keras", "tf_keras") and not any(
        d.endswith("keras_export") for d in cls.decorators
    )


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


# Keras layers that define no `get_config` of their own (Keras 2's AbstractRNNCell, Keras
# 3's ELU and Identity): Layer's runs, which auto-configs a subclass's arguments as it does
# for the bare Layer.
AUTO_CONFIG_LAYERS = frozenset(["AbstractRNNCell", "ELU", "Identity"])


def _keras_parent_config(cls: ClassInfo) -> bool:
    """Whether a base is a Keras class other than the bare Layer, Loss, ... that has a
    get_config of its own."""
    for owner in [cls, *cls.parents]:
        for base in owner.bases:
            known = keras_base(base)
            if (
                known
                and not known[1]
                and not (known[0] == "layer" and base.rsplit(".", 1)[-1] in AUTO_CONFIG_LAYERS)
            ):
                return True
    return False


# --- registration -------------------------------------------------------------------------


def _unregistered(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if not (cls.keras3 and _imports_keras(source)) or _keras_package(source.path):
        # Keras 2 saves to a SavedModel by default, which restores a layer without its class
        # (and a file that imports no Keras may be either); Keras's own packages are found
        # by module path (serialization_lib.py).
        return
    if (
        cls.name.startswith(("_", "Base", "Abstract"))
        or cls.name in source.registered_names
        or id(cls) in run.subclasses
    ):
        return  # private, abstract or a base of other classes here: not saved by its own name
    for decorator in cls.decorators:
        short = decorator.rsplit(".", 1)[-1]
        if (
            short == "register_keras_serializable"
            or decorator in run.registrars
            or short in run.registrars
            or decorator == "keras.src.api_export.keras_export"
        ):
            return
    call = cls.methods.get("call")
    if call is not None and any(isinstance(n, ast.Raise) for n in call.body):
        return  # an abstract base
    spelling, needs_import = _registrar(source)
    decorator = f'{spelling}(package="{run.package}")'
    yield _at(
        source,
        cls.node,
        "unregistered",
        f"`{cls.name}` is not registered: `load_model` cannot find it",
        f"add `@{decorator}`",
        fix=("unregistered", cls.name, cls.node.lineno, decorator, needs_import),
    )


def _imports_keras(source: SourceFile) -> bool:
    return any(n == "keras" or n.startswith("keras.") for n in source.imports.values())


# Keras's loader imports the classes of these packages by their module path.
KERAS_PACKAGES = frozenset(["keras", "keras_hub", "keras_cv", "keras_nlp", "tf_keras"])


@functools.lru_cache(maxsize=4096)
def _keras_package(path: str) -> str | None:
    """The one of those packages the file is in (a folder of that name with an
    `__init__.py`; the folders below it may have none, as in a wheel)."""
    return next(
        (
            folder.name
            for folder in Path(path).parents
            if folder.name in KERAS_PACKAGES and (folder / "__init__.py").is_file()
        ),
        None,
    )


def _registrar(source: SourceFile) -> tuple[str, bool]:
    """How this file spells `register_keras_serializable`, and whether `import keras` must
    be added for it."""
    for local, name in source.imports.items():
        if name.endswith("register_keras_serializable"):
            return local, False
    for local, name in source.imports.items():
        if name == "keras":
            return f"{local}.saving.register_keras_serializable", False
    return "keras.saving.register_keras_serializable", True


# --- weights ------------------------------------------------------------------------------


def _weight_calls(function: ast.FunctionDef) -> Iterator[ast.Call]:
    me = self_name(function)
    for node in walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in WEIGHT_MAKERS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == me
        ):
            yield node


def _weights(cls: ClassInfo) -> dict[str, ast.Call]:
    """`self.NAME = self.add_weight(...)` in the class and its parents read in this run."""
    if "_weights" in cls.__dict__:  # several rules ask
        return cls.__dict__["_weights"]
    weights: dict[str, ast.Call] = cls.__dict__.setdefault("_weights", {})
    for owner in [*reversed(cls.parents), cls]:
        for function in owner.methods.values():
            me = self_name(function)
            for node in walk(function):
                if (
                    isinstance(node, (ast.Assign, ast.AnnAssign))
                    and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Attribute)
                    and node.value.func.attr in WEIGHT_MAKERS
                ):
                    for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                        attr = self_attribute(target, me)
                        if attr:
                            weights[attr] = node.value
    return weights


def _made_once(function: ast.FunctionDef) -> set[int]:
    """The weight calls under `if self.w is None:`: made at the first call only, which
    Keras 2 allows (its first call runs eagerly or in the first trace)."""
    me = self_name(function)
    once: set[int] = set()
    for node in walk(function):
        test = node.test if isinstance(node, ast.If) else None
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.ops[0], ast.Is)
            and self_attribute(test.left, me)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            once |= {id(n) for statement in node.body for n in walk(statement)}
    return once


def _weights_made_in_wrong_place(source: SourceFile, cls: ClassInfo) -> Iterator[Finding]:
    call = cls.methods.get("call")
    if call is not None:
        once = set() if cls.keras3 else _made_once(call)  # Keras 3 traces `call`: never
        for node in _weight_calls(call):
            if id(node) in once:
                continue
            yield _at(
                source,
                node,
                "weight-in-call",
                "a weight is created in `call`",
                "create it in `build(input_shape)`",
            )
    init = cls.methods.get("__init__")
    if init is not None:
        for node in _weight_calls(init):
            shape = next(
                (k.value for k in node.keywords if k.arg == "shape"),
                node.args[0] if node.args else None,
            )
            guessed = shape is not None and any(
                isinstance(n, ast.Constant) and type(n.value) is int and n.value > 1
                for n in walk(shape)
            )
            if guessed:
                yield _at(
                    source,
                    node,
                    "weight-in-init",
                    "a weight is created in `__init__` with a hard-coded size",
                    "create it in `build(input_shape)` from `input_shape[-1]`",
                )
    for function in cls.methods.values():
        for node in walk(function):
            if isinstance(node, ast.Call) and cls.keras3:
                name = source.resolve(node.func) or ""
                if name in (
                    "tensorflow.Variable",
                    "keras.backend.variable",
                    "tensorflow.keras.backend.variable",
                ):
                    yield _at(
                        source,
                        node,
                        "untracked-variable",
                        f"`{source.segment(node.func)}` "
                        "makes a variable Keras does not track, train on every backend, or save",
                        "use `self.add_weight(shape=..., initializer=...)`",
                    )


def _attribute_reads(source: SourceFile) -> tuple[set[str], bool]:
    """Every attribute name the file reads, and whether it reaches attributes by name (getattr)."""
    cached = source.tree.__dict__.get("_reads")
    if cached is None:
        loaded = {
            n.attr
            for n in walk(source.tree)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
        }
        reflective = any(
            isinstance(n, ast.Name) and n.id in ("getattr", "vars", "setattr")
            for n in walk(source.tree)
        )
        cached = source.tree._reads = (loaded, reflective)
    return cached


def _unused_weights(
    source: SourceFile, cls: ClassInfo, weights: dict[str, ast.Call]
) -> Iterator[Finding]:
    if cls.parent_opaque:
        return  # a parent we cannot read may read the weight
    own = {
        name: call
        for name, call in _weights(ClassInfo(cls.name, cls.node, [], [], cls.methods)).items()
    }
    if not own:
        return
    loaded, reflective = _attribute_reads(source)
    if reflective or loaded & {
        "weights",
        "trainable_weights",
        "trainable_variables",
        "variables",
        "__dict__",
    }:
        return
    for name, call in own.items():
        trainable = next((k.value for k in call.keywords if k.arg == "trainable"), None)
        if trainable is not None or name in loaded:
            continue  # trainable=False, or decided at run time
        yield _at(
            source,
            call,
            "unused-weight",
            f"weight `{name}` is never read: it gets no gradient",
            "use it in `call`, or create it with `trainable=False`",
        )


# --- sublayers ----------------------------------------------------------------------------


def _layer_class(
    source: SourceFile, func: ast.AST, run: Run
) -> tuple[str, ClassInfo | None] | None:
    """(class name, its ClassInfo when read in this run) when `func` names a layer class."""
    name = source.resolve(func)
    if not name:
        return None
    short = name.rsplit(".", 1)[-1]
    found = find_class(run.classes, source, name)  # the class the import names, not a namesake
    if found is not None and found[1].kind == "layer":
        return short, found[1]
    known = keras_base(name)
    if (
        known
        and known[0] == "layer"
        and short[:1].isupper()
        and short not in ("Layer", "Input", "InputLayer", "InputSpec", "Model", "Sequential")
    ):
        return short, None
    return None


def _sublayer_dtype(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if not cls.keras3:
        return
    for method, function in cls.methods.items():
        me = self_name(function)
        if (
            method in ("get_config", "from_config", "call")
            or me is None
            or any(
                isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                for d in function.decorator_list
            )
        ):
            continue
        # Before `super().__init__()` there is no `self.dtype_policy` to pass (keras's RNN
        # makes its cell there): not a finding a fix could settle.
        ready = _super_init(function) if method == "__init__" else None
        for node in walk(function):
            found = _layer_class(source, node.func, run) if isinstance(node, ast.Call) else None
            if (
                found
                and not any(k.arg in ("dtype", None) for k in node.keywords)
                and not _preprocessing(*found)
                and (ready is None or node.lineno > ready.end_lineno)
            ):
                short = found[0]
                yield _at(
                    source,
                    node,
                    "sublayer-dtype",
                    f"sublayer `{short}` is created without the layer's dtype policy",
                    f"pass `dtype={me}.dtype_policy`",
                    fix=("sublayer-dtype", node.lineno, source.column(node), me),
                )


def _preprocessing(name: str, cls: ClassInfo | None) -> bool:
    """Preprocessing layers work on strings, integers or images, in `tf.data` on every
    backend (as Keras's own): they keep their own dtype and may use TensorFlow."""
    names = {name}
    for owner in [cls, *cls.parents] if cls else []:
        names |= {owner.name, *(base.rsplit(".", 1)[-1] for base in owner.bases)}
    return any(n in PREPROCESSING or n.startswith("Random") for n in names)


def _sublayer_classes(
    source: SourceFile, cls: ClassInfo, run: Run
) -> dict[str, dict[str, ClassInfo | None]]:
    """`self.NAME` -> the layer classes it holds (directly, in a list or in a dict), by
    name, each with its ClassInfo when read in this run."""
    if "_sublayers" in cls.__dict__:  # several rules ask, and other classes' rules
        return cls.__dict__["_sublayers"]
    held: dict[str, dict[str, ClassInfo | None]] = cls.__dict__.setdefault("_sublayers", {})
    for owner in [*reversed(cls.parents), cls]:
        home = run.homes.get(id(owner), source)  # a parent's names are its own file's
        for function in owner.methods.values():
            me = self_name(function)
            for node in walk(function):
                target = None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("append", "extend")
                    and node.args
                ):
                    target, value = node.func.value, node.args[0]
                elif (
                    isinstance(node, ast.Assign) is False
                    and isinstance(node, ast.AnnAssign)
                    and node.value
                ):
                    target, value = node.target, node.value
                if isinstance(target, ast.Subscript):
                    target = target.value
                attr = self_attribute(target, me) if target is not None else None
                if attr is None:
                    continue
                for inner in walk(value):
                    if isinstance(inner, ast.Call):
                        found = _layer_class(home, inner.func, run)
                        if found:
                            held.setdefault(attr, {}).setdefault(*found)
    return held


def _unbuilt_sublayers(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    """Sublayers with weights that `build` never builds, in a layer that defines its output
    shape: loading then never runs `call` either, so their weights have nowhere to go."""
    owners = [cls, *cls.parents]
    if not cls.keras3 or cls.parent_opaque:
        return  # a Keras parent other than Layer (or one we cannot read) may build them
    if not any({"compute_output_shape", "compute_output_spec"} & o.methods.keys() for o in owners):
        return  # Keras traces `call` when it loads the model, which builds every sublayer
    methods = {name: f for o in reversed(owners) for name, f in o.methods.items()}
    builds = [o.methods["build"] for o in owners if "build" in o.methods]
    built, reflective = set(), False
    todo, seen = list(builds), set()
    while todo:  # what `build` and the methods it calls read from `self`
        function = todo.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        me = self_name(function)
        for node in walk(function):
            attr = self_attribute(node, me) if isinstance(node, ast.Attribute) else None
            if attr and isinstance(node.ctx, ast.Load):
                built.add(attr)
                if attr in methods:
                    todo.append(methods[attr])
            elif isinstance(node, ast.Name) and node.id in ("getattr", "vars", "setattr"):
                reflective = True
    init = cls.methods.get("__init__")
    for node in walk(init) if init is not None else ():  # built where it is made
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "build"
        ):
            built.add(self_attribute(node.func.value, self_name(init)))
    if reflective:
        return
    unbuilt = {
        attr: created
        for attr, created in _sublayer_classes(source, cls, run).items()
        if attr not in built and any(_has_weights(*pair, run) for pair in created.items())
    }
    if unbuilt:
        first, *more = sorted(unbuilt)
        names = ", ".join(f"`{attr}`" for attr in [first, *more])
        yield _at(
            source,
            builds[0] if builds and builds[0] in cls.methods.values() else cls.node,
            "unbuilt-sublayer",
            f"sublayer{'s' if more else ''} {names} {'are' if more else 'is'} never built in "
            f"`build`: `load_model` cannot restore {'their' if more else 'its'} weights "
            "(it defines its output shape, so loading does not run `call`)",
            f"build it in `build(input_shape)`, such as `self.{first}.build(input_shape)`",
        )


def _has_weights(name: str, cls: ClassInfo | None, run: Run, seen: frozenset = frozenset()) -> bool:
    """Whether a layer class owns variables; False when we cannot tell."""
    if name in WEIGHTED_LAYERS and cls is None:
        return True
    if cls is None or cls.kind != "layer" or id(cls) in seen:
        return False
    owners = [cls, *cls.parents]
    if any(  # weights made in `__init__` exist before any build
        next(_weight_calls(f), None)
        for o in owners
        for m, f in o.methods.items()
        if m != "__init__"
    ):
        return True
    held = _sublayer_classes(run.homes[id(cls)], cls, run)
    return any(
        _has_weights(*pair, run, seen | {id(cls)})
        for created in held.values()
        for pair in created.items()
    )


def _training_sensitive(name: str, cls: ClassInfo | None, run: Run) -> bool:
    if name in TRAINING_LAYERS and cls is None:
        return True
    if cls is None or cls.kind != "layer":
        return False
    for owner in [cls, *cls.parents]:
        call = owner.methods.get("call")
        if call is not None:  # it reads `training` (EinsumDense takes it and ignores it)
            return any(isinstance(n, ast.Name) and n.id == "training" for n in walk(call))
    return False


def _training_not_passed(
    source: SourceFile, cls: ClassInfo, call: ast.FunctionDef, run: Run
) -> Iterator[Finding]:
    me = self_name(call)
    held = {
        attr: names
        for attr, names in _sublayer_classes(source, cls, run).items()
        if any(_training_sensitive(*pair, run) for pair in names.items())
    }
    if not held:
        return
    training = next(
        (a.arg for a in [*call.args.args, *call.args.kwonlyargs] if a.arg == "training"), None
    )
    loops: dict[str, str] = {}  # `for block in self.blocks:` -> block: blocks
    for node in walk(call):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            iterated = (
                node.iter.args[0]
                if isinstance(node.iter, ast.Call) and node.iter.args
                else node.iter
            )
            attr = self_attribute(
                iterated.value if isinstance(iterated, ast.Subscript) else iterated, me
            )
            if attr:
                loops[node.target.id] = attr
    for node in walk(call):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.value if isinstance(node.func, ast.Subscript) else node.func
        attr = self_attribute(func, me) or (
            loops.get(func.id) if isinstance(func, ast.Name) else None
        )
        if (
            attr not in held
            or len(node.args) > 1
            or any(k.arg in ("training", None) for k in node.keywords)
        ):
            continue
        hint = (
            f"pass `training={training}`"
            if training
            else "add `training=None` to `call` and pass it on"
        )
        yield _at(
            source,
            node,
            "training-not-passed",
            f"`training` is not passed to `{'/'.join(sorted(held[attr]))}`, "
            "which behaves differently in training",
            hint,
            fix=(
                ("training-not-passed", node.lineno, source.column(node), training)
                if training
                else None
            ),
        )


# --- call ---------------------------------------------------------------------------------


def _call_checks(
    source: SourceFile, cls: ClassInfo, call: ast.FunctionDef, weights: dict[str, ast.Call]
) -> Iterator[Finding]:
    me = self_name(call)
    tensors = Tensors(
        source, call, set(weights), {m for owner in [cls, *cls.parents] for m in owner.methods}
    )
    made_here = set(_weight_calls(call))
    for node in walk(call):
        if (
            isinstance(node, (ast.If, ast.While, ast.IfExp))
            and cls.keras3  # Keras 2 runs `call` through AutoGraph, which converts these
            and tensors.depends(node.test)
        ):
            word = "while" if isinstance(node, ast.While) else "if"
            yield _at(
                source,
                node.test,
                "python-if-on-tensor",
                f"Python `{word}` on a tensor",
                "use `ops.where` or `ops.cond`",
            )
        elif isinstance(node, ast.Call):
            name = source.resolve(node.func) or ""
            if name.split(".")[0] == "numpy" and tensors.depends_any(node):
                yield _at(
                    source,
                    node,
                    "numpy-in-call",
                    f"`{source.segment(node.func)}` on a tensor " "in `call`",
                    "use the `keras.ops` function of the same name",
                )
            elif (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "numpy"
                and tensors.depends(node.func.value)
            ):
                yield _at(
                    source,
                    node,
                    "numpy-in-call",
                    "`.numpy()` on a tensor in `call` (eager only)",
                    "keep it a tensor and use `keras.ops`",
                )
            elif cls.keras3 and backend_op(name) and not _preprocessing(cls.name, cls):
                yield _at(
                    source,
                    node,
                    "backend-op-in-call",
                    f"`{source.segment(node.func)}` works " "on TensorFlow only",
                    "use `keras.ops` (or `keras.random`)",
                )
        elif isinstance(node, (ast.Assign, ast.AugAssign)) and node.value not in made_here:
            # `self.w = self.add_weight(...)` in `call` creates the weight (weight-in-call),
            # it does not replace one.
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                attr = self_attribute(target, me)
                if attr in weights:
                    yield _at(
                        source,
                        target,
                        "state-rebound",
                        f"weight `{attr}` is replaced in `call`",
                        f"update it with `{me}.{attr}.assign(...)`",
                    )
