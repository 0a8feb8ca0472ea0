"""The pytest plugin `layergen adopt` runs a project's own tests with (`-p
layergen.adopt.observer`, the class in `LAYERGEN_OBSERVE`): it wraps the class's `__new__`
and `__call__` to record its first construction's literal arguments and the input shapes
and dtypes of a call of an instance (one on no axis one long, concrete, where there is
one) with its construction's arguments, writes them to a JSON file, and stops the session
after the test that completed them."""

from __future__ import annotations

import importlib
import inspect
import json
import os

TARGET = json.loads(os.environ.get("LAYERGEN_OBSERVE") or "null")
seen: dict = {"values": None, "inputs": None, "concrete": False, "where": None}
state = {"test": None, "done": False, "rank": None}
made: dict[int, dict] = {}  # instance id -> the literal arguments it was constructed with


def pytest_sessionstart(session) -> None:
    if TARGET is None:
        return
    try:
        cls = getattr(importlib.import_module(TARGET["module"]), TARGET["name"])
    except Exception as exc:  # the project's own import: said, as the reason
        seen["error"] = f"importing `{TARGET['module']}` raised {type(exc).__name__}: {exc}"
        _write()
        return
    _wrap(cls)


def pytest_runtest_setup(item) -> None:
    state["test"] = item.nodeid


def pytest_runtest_teardown(item) -> None:
    if state["done"]:
        item.session.shouldstop = "layergen observed the class"


def _wrap(cls) -> None:
    """`__new__` and `__call__` wrapped (not `__init__`: Keras reads its argspec)."""
    new, call = cls.__new__, cls.__call__
    signature = inspect.signature(cls.__init__)
    takes = inspect.signature(cls.call)

    def __new__(klass, *args, **kwargs):
        self = new(klass) if new is object.__new__ else new(klass, *args, **kwargs)
        if klass is cls and not state["done"]:
            values = _named(signature, (self, *args), kwargs)
            values = {k: _plain(v) for k, v in values.items() if _literal(v)}
            if seen["values"] is None:
                seen["values"], seen["where"] = values, state["test"]
                _write()
            made[id(self)] = values
        return self

    def __call__(self, *args, **kwargs):
        if id(self) in made and not state["done"]:
            _called(made[id(self)], _named(takes, (self, *args), kwargs))
        return call(self, *args, **kwargs)

    cls.__new__, cls.__call__ = staticmethod(__new__), __call__


def _named(signature, args, kwargs) -> dict:
    """The arguments by their params' names (`**kwargs` spread, `self` and `*args` left)."""
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return {}
    out = {}
    for i, (name, value) in enumerate(bound.arguments.items()):
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif i and kind is not inspect.Parameter.VAR_POSITIONAL:
            out[name] = value
    return out


def _called(values: dict, arguments: dict) -> None:
    """The call's tensors, with the arguments of the construction called (`values`), where
    it is the first, or the first better: on no axis one long (a call on one step leaves a
    softmax over it an identity), then concrete. A concrete call on no axis one long ends
    the observation."""
    import keras

    from .shapes import one_long

    inputs, concrete = {}, True
    for name, value in arguments.items():
        if not (hasattr(value, "shape") and hasattr(value, "dtype")) or isinstance(value, str):
            continue
        try:
            shape = [None if d is None else int(d) for d in value.shape]
            dtype = keras.backend.standardize_dtype(value.dtype)
        except (TypeError, ValueError):
            continue
        symbolic = isinstance(value, keras.KerasTensor)
        concrete &= not symbolic
        inputs[name] = {"shape": shape, "dtype": dtype}
        if not symbolic and "int" in dtype and 0 not in shape:
            array = keras.ops.convert_to_numpy(value)
            inputs[name]["range"] = [int(array.min()), int(array.max()) + 1]
    rank = (not one_long({k: v["shape"] for k, v in inputs.items()}), concrete)
    if not inputs or (seen["inputs"] is not None and rank <= state["rank"]):
        return
    seen["values"], seen["inputs"], seen["concrete"] = values, inputs, concrete
    seen["where"] = state["test"]
    state["rank"], state["done"] = rank, all(rank)
    _write()


def _literal(value) -> bool:
    if value is None or type(value) in (int, float, str, bool):
        return True
    return type(value) in (list, tuple) and all(_literal(v) for v in value)


def _plain(value):
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


def _write() -> None:
    path = TARGET["out"]
    with open(path + ".part", "w") as file:
        json.dump(seen, file)
    os.replace(path + ".part", path)
