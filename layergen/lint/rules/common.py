"""What several rules read of a class: its constructor, its weights, its sublayers, and
whether it is Keras's own. Each is conservative: what it cannot follow, it does not claim."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

from ...keras_names import FOUND_BY_PATH
from ..kinds import find_class, keras_base
from ..source import ClassInfo, SourceFile, is_super_call, self_attribute, self_name, walk
from ..tensors import Tensors
from .base import Run

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


WEIGHT_MAKERS = ("add_weight", "add_variable")


def init_params(init: ast.FunctionDef) -> list[str]:
    args = init.args
    return [a.arg for a in [*args.posonlyargs, *args.args][1:] + args.kwonlyargs]


def super_init(init: ast.FunctionDef) -> ast.Call | None:
    return next((n for n in walk(init) if is_super_call(n, "__init__")), None)


def keras_internal(source: SourceFile, cls: ClassInfo) -> bool:
    """A class of Keras (or tf_keras) itself that it does not export: an internal helper,
    never saved by itself (the exported ones are what users save)."""
    return keras_package(source.path) in ("keras", "tf_keras") and not any(
        d.endswith("keras_export") for d in cls.decorators
    )


# Keras layers that define no `get_config` of their own (Keras 2's AbstractRNNCell, Keras
# 3's ELU and Identity): Layer's runs, which auto-configs a subclass's arguments as it does
# for the bare Layer.
AUTO_CONFIG_LAYERS = frozenset(["AbstractRNNCell", "ELU", "Identity"])


def keras_parent_config(cls: ClassInfo) -> bool:
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


# Keras's loader imports the classes of these packages by their module path (tf_keras's
# own loader, those of its package).
KERAS_PACKAGES = FOUND_BY_PATH | {"tf_keras"}


@functools.lru_cache(maxsize=4096)
def keras_package(path: str) -> str | None:
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


def weight_calls(function: ast.FunctionDef) -> Iterator[ast.Call]:
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


def weights_of(cls: ClassInfo) -> dict[str, ast.Call]:
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


def layer_class(source: SourceFile, func: ast.AST, run: Run) -> tuple[str, ClassInfo | None] | None:
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


def preprocessing(name: str, cls: ClassInfo | None) -> bool:
    """Preprocessing layers work on strings, integers or images, in `tf.data` on every
    backend (as Keras's own): they keep their own dtype and may use TensorFlow."""
    names = {name}
    for owner in [cls, *cls.parents] if cls else []:
        names |= {owner.name, *(base.rsplit(".", 1)[-1] for base in owner.bases)}
    return any(n in PREPROCESSING or n.startswith("Random") for n in names)


def sublayer_classes(
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
                        found = layer_class(home, inner.func, run)
                        if found:
                            held.setdefault(attr, {}).setdefault(*found)
    return held


def call_tensors(source: SourceFile, cls: ClassInfo, call: ast.FunctionDef) -> Tensors:
    """Which expressions of the class's `call` hold tensors (several rules ask)."""
    if "_tensors" not in cls.__dict__:
        cls._tensors = Tensors(
            source,
            call,
            set(weights_of(cls)),
            {m for owner in [cls, *cls.parents] for m in owner.methods},
        )
    return cls._tensors


def initializer_only(init: ast.FunctionDef, param: str, owners: list[ClassInfo]) -> bool:
    """Whether the code uses `param` only to make weights' starting values: every read of
    it reaches `initializer=` of `add_weight` or a `*_initializer=` of a sublayer, directly,
    through a call (`initializers.Constant(param)`), or through a local or `self.` attribute
    (or an `if` that only sets them) used that way in turn; or it is read only on the first
    call, under `if not self.initialized:` where `initialized` is a saved weight that branch
    sets (a data-dependent initialisation: a loaded model takes the flag from the file too)."""
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
                reached = _feeds(function, node, functions)
                if reached is None:
                    return False
                if reached == "initializer":
                    fed = True
                else:
                    todo.extend(reached)
    return fed


def _feeds(
    function: ast.FunctionDef, node: ast.AST, functions: list[ast.FunctionDef]
) -> str | list[tuple] | None:
    """Where the value read at `node` goes: "initializer" (a keyword that takes one, or a
    first-call branch: `_first_call`), the locals and `self.` attributes an assignment (or
    an `if` of assignments) sets from it, or None (anything else: a shape, a condition in
    `call`, another argument)."""
    parents = function.__dict__.get("_parents")
    if parents is None:
        parents = function._parents = {
            id(child): parent for parent in walk(function) for child in ast.iter_child_nodes(parent)
        }
    above = node
    while (above := parents.get(id(above))) is not None:
        if isinstance(above, ast.If) and _first_call(above, function, functions):
            return "initializer"
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


def _first_call(branch: ast.If, function: ast.FunctionDef, functions) -> bool:
    """`if not self.initialized: ...; self.initialized.assign(True)`: a branch that runs until
    it sets a non-trainable weight its test reads, so never again once the weights are loaded."""
    me = self_name(function)
    tested = {self_attribute(n, me) for n in walk(branch.test)} - {None}
    set_here = {
        self_attribute(n.func.value, me)
        for statement in branch.body
        for n in walk(statement)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "assign"
    }
    return bool(tested & set_here & _saved_flags(functions))


def _saved_flags(functions: list[ast.FunctionDef]) -> set[str]:
    """The `self.` attributes made by `add_weight(..., trainable=False)`: state the weights
    file saves and a load restores."""
    found = set()
    for function in functions:
        me = self_name(function)
        for node in walk(function):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "attr", None) in WEIGHT_MAKERS
                and any(
                    k.arg == "trainable"
                    and isinstance(k.value, ast.Constant)
                    and k.value.value is False
                    for k in node.value.keywords
                )
            ):
                found |= {self_attribute(t, me) for t in node.targets} - {None}
    return found


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
