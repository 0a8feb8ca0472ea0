"""The sides of each declared `when` the generated tests reach, and the value other than
its default each call input gets, decided once for the IR.

The example builds the layer on one side of each weight's, sublayer's and output's `when`
(a bias made with `use_bias: true`, scores returned with `return_scores: true`); the tests
build it once more with each bool param the `when`s read flipped, one at a time
(`Declared.sides`). A `when` no such flip turns (`heads > 1`, an int; `use_bias and
units > 8` with `units: 4`) keeps its other side untested: it is in `Declared.unreached`,
which `generate` says at its `when:` key (`unreached-branch`) and the generated tests' skip
names, both with the params to set.

Each keyword input of `call` no other test passes a value other than its default of gets
one (`Declared.other_values`: `not default`, `default + 1`, `default + 0.5`); one of a
type the tests cannot make up (a tensor, a str) is in `Declared.unvaried`, said the same
two ways (`untested-input`), with what to give the example. So is one the declaration
skips by name (`tests.skip` of `OTHER_VALUES_TEST[start_index]`: an int that is a position,
valid only up to the input's length), with its reason and no warning: the others are
still tried.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostic
from .analyze_example import evaluated
from .code import Code
from .ir import Declared, Side, Unreached, Unvaried
from .yamlfile import Pos

OTHER_VALUES_TEST = "test_each_call_input_with_a_value_other_than_its_default"


def with_branches(declared: Declared, where: Callable[[tuple], Pos]) -> Declared:
    """`declared` with its `sides` and `unreached` set; `where(loc)`: the position of a key."""
    args = {k: v for k, v in declared.example.args.items() if not isinstance(v, Code)}
    whens = _conditions(declared)
    now = {key: evaluated(when.text, args) for key, when in whens.items()}
    sides, turned = [], set()
    read = dict.fromkeys(f.name for when in whens.values() for f in when.free)
    for param in read:
        if not isinstance(args.get(param), bool) or declared.params[param].type != "bool":
            continue
        flipped = {**args, param: not args[param]}
        then = {key: evaluated(when.text, flipped) for key, when in whens.items()}
        changed = [k for k in whens if isinstance(then[k], bool) and then[k] != now[k]]
        if not changed:
            continue
        turned.update(changed)
        outputs = any(key.startswith("outputs.") for key in changed)
        sides.append(
            Side(
                {param: not args[param]},
                {_name(k): then[k] for k in changed if not k.startswith("outputs.")},
                {_name(k): f"{k}.when" for k in changed},
                _returned(declared, flipped) if outputs else None,
            )
        )
    unreached = [
        Unreached(
            key,
            when.text.strip(),
            now[key],
            tuple(dict.fromkeys(f.name for f in when.free)),
            where((*key.split(".", 1), "when")),
        )
        for key, when in whens.items()
        if key not in turned
    ]
    values, unvaried = _other_values(declared, where)
    return replace(
        declared,
        sides=tuple(sides),
        unreached=tuple(unreached),
        other_values=values,
        unvaried=unvaried,
    )


def _name(key: str) -> str:
    return key.split(".", 1)[1]


def _conditions(declared: Declared) -> dict[str, Code]:
    """Each declared weight's, sublayer's and output's `when` over the params, by its key."""
    params = set(declared.params)
    found = {f"weights.{w.name}": w.created for w in declared.weights}
    found |= {f"sublayers.{s.name}": s.created for s in declared.sublayers}
    found |= {f"outputs.{name}": when for name, when in declared.output_when.items()}
    return {
        key: when
        for key, when in found.items()
        if isinstance(when, Code) and {f.name for f in when.free} <= params
    }


def _returned(declared: Declared, args: dict[str, Any]) -> tuple[str, ...] | None:
    """The declared outputs a call at the keyword inputs' defaults returns with the params
    `args`, in order; None where an output's `when` cannot be told here."""
    names = {k.name: k.default for k in declared.keywords} | args
    returned = []
    for name in declared.outputs or {}:
        when = declared.output_when.get(name, True)
        holds = evaluated(when.text, names) if isinstance(when, Code) else when
        if not isinstance(holds, bool):
            return None
        returned += [name] if holds else []
    return tuple(returned)


# A value other than the default, of each type of call input the tests can make up.
OTHER_VALUE = {
    "bool": lambda default: not default,
    "int": lambda default: (default or 0) + 1,
    "float": lambda default: (default or 0.0) + 0.5,
}


def _other_values(
    declared: Declared, where: Callable[[tuple], Pos]
) -> tuple[dict[str, Any], tuple[Unvaried, ...]]:
    """A value other than its default for each call input no test passes one of (the
    example's `call_args` and `call_cases`, the cache, mask and causal tests do); and the
    inputs the tests can make none for, each at its key."""
    example = declared.example
    given: dict[str, list[Any]] = {}
    for case in [example.call_args, *(c.args for c in example.call_cases)]:
        for name, value in case.items():
            given.setdefault(name, []).append(value)
    keywords = declared.keywords
    tested = {k.cache.index for k in keywords if k.cache is not None}
    tested |= {k.name for k in keywords if k.causal or k.masks or k.cache}
    tested |= set(example.every_call)  # given in every call
    stated = {s.test: s.reason for s in declared.skips}
    values, unvaried = {}, []
    for k in keywords:
        if k.name in tested or any(v != k.default for v in given.get(k.name, [])):
            continue
        why = stated.get(f"{OTHER_VALUES_TEST}[{k.name}]")
        if why is not None:  # the declaration says why the tests make up no other value
            key = ("tests", "skip", f"{OTHER_VALUES_TEST}[{k.name}]")
            unvaried.append(Unvaried(k.name, k.type, where(key), why))
        elif k.type in OTHER_VALUE:
            values[k.name] = OTHER_VALUE[k.type](k.default)
        else:
            unvaried.append(Unvaried(k.name, k.type, where(("inputs", k.name))))
    return values, tuple(unvaried)


def branch_warnings(path: str, declared: Declared) -> list[Diagnostic]:
    """What `generate` says of the branches the generated tests cannot reach."""
    said = [unreached_warning(path, u) for u in declared.unreached]
    return said + [untested_warning(path, u) for u in declared.unvaried if u.why is None]


def untested_warning(path: str, u: Unvaried) -> Diagnostic:
    """What `generate` says of a call input no test passes a value of, at its key."""
    what = "a tensor" if u.type == "tensor" else f"a {u.type}"
    return Diagnostic(
        path,
        u.pos.line,
        u.pos.col,
        "untested-input",
        f"no generated test passes call input `{u.name}` ({what}) other than its default",
        "give it a value in `example.call_args` or `example.call_cases`",
        severity="warning",
    )


def unreached_warning(path: str, u: Unreached) -> Diagnostic:
    """What `generate` says of a `when` the tests build one side of, at its `when:` key."""
    names = ", ".join(f"`{name}`" for name in u.params)
    other = f"it is {not u.value}" if isinstance(u.value, bool) else "it changes"
    return Diagnostic(
        path,
        u.pos.line,
        u.pos.col,
        "unreached-branch",
        f"`{u.key}.when: {u.when}` is {u.value} in the example and no bool param flips"
        " it: the generated tests never build its other side",
        f"set {names} in `example.params` so that {other}; the tests flip each bool"
        " param a `when` reads",
        severity="warning",
    )
