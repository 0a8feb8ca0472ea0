"""`init-kwargs`: a constructor that drops `name`, `dtype` and the other base arguments."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..configs import read_config
from ..edits import AddKwargs
from ..source import ClassInfo, SourceFile, walk
from .base import Finding, Rule, Run, at
from .common import BASE_ARGUMENTS, init_params, keras_parent_config, super_init

RULE = Rule(
    "init-kwargs",
    "error",
    "`__init__` drops `name`, `dtype` and the other base arguments",
    "A constructor without `**kwargs` passed on to `super().__init__` cannot take `name=`, `dtype=` or\n"
    "`trainable=`, so mixed precision cannot be set and `from_config` fails on the keys the base config holds.",
    "class Scale(keras.layers.Layer):\n    def __init__(self, factor):\n        super().__init__()\n        self.factor = factor",
    "class Scale(keras.layers.Layer):\n    def __init__(self, factor, **kwargs):\n        super().__init__(**kwargs)\n        self.factor = factor",
    fixable=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    init = cls.methods.get("__init__")
    if init is None or cls.kind not in ("layer", "loss"):
        return
    params, kwarg, call = init_params(init), init.args.kwarg, super_init(init)
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
        yield at(
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
            fix=AddKwargs(cls.name) if call is not None and not fixed else None,
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
    yield at(
        source,
        call,
        "init-kwargs",
        f"`**{kwarg.arg}` is not passed on to `super().__init__`: `name=` and "
        "`dtype=` are dropped",
        f"pass it on: `super().__init__(..., **{kwarg.arg})`",
        fix=AddKwargs(cls.name) if fixable else None,
    )


def _config_has_base_keys(source: SourceFile, cls: ClassInfo) -> bool:
    """Whether the config holds the base class's keys (`name`, ...), which `from_config`
    passes back to `__init__`: its `get_config` extends the base's, or Keras 3 writes it."""
    written = [o.methods["get_config"] for o in [cls, *cls.parents] if "get_config" in o.methods]
    if written:
        return read_config(written[0]).calls_super  # False: a config of its own keys only
    if cls.kind == "loss" or keras_parent_config(cls):
        return True
    return cls.keras3 and not _object_argument(cls)


def _object_argument(cls: ClassInfo) -> bool:
    """An argument `__init__` reads fields of (`config.hidden_size`): Keras 3 writes a
    plain Layer's config from its arguments only when they serialize, and refuses (raises)
    for an object, so `from_config` is never reached."""
    init = cls.methods["__init__"]
    params = set(init_params(init))
    called = {id(n.func) for n in walk(init) if isinstance(n, ast.Call)}
    return any(
        isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id in params
        and id(n) not in called  # `options.get(...)`: a dict, perhaps
        for n in walk(init)
    )
