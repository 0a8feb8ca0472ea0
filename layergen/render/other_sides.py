"""The other side of each declared `when`: the params that flip it, for the generated tests.

The example builds the layer on one side of each `when` (a bias made with `use_bias: true`);
the tests build it once more on the other side of each, a bool param flipped at a time, and
check that it calls, makes and leaves out what the `when`s say, and round-trips its config.
A `when` no flip of a bool param turns is a side the tests cannot reach: the tests say so,
with the params to set.
"""

from __future__ import annotations

from typing import Any

from ..declaration.analyze_example import evaluated
from ..declaration.code import Code
from ..declaration.ir import Declared

# A value other than the default, of each type of call input the tests can make up.
OTHER_VALUE = {
    "bool": lambda default: not default,
    "int": lambda default: (default or 0) + 1,
    "float": lambda default: (default or 0.0) + 0.5,
}


def other_values(ir: Declared) -> tuple[dict[str, Any], list[str]]:
    """A value other than its default for each call input no test passes one of (the
    example's `call_args` and `call_cases`, the cache, mask and causal tests do); and, in
    parts of a line, the inputs the tests cannot make a value of (empty: none)."""
    given: dict[str, list[Any]] = {}
    for case in [ir.example.call_args, *(c.args for c in ir.example.call_cases)]:
        for name, value in case.items():
            given.setdefault(name, []).append(value)
    tested = {k.cache.index for k in ir.keywords if k.cache is not None}
    tested |= {k.name for k in ir.keywords if k.causal or k.masks or k.cache}
    values, unmade = {}, []
    for k in ir.keywords:
        if k.name in tested or any(v != k.default for v in given.get(k.name, [])):
            continue
        if k.type in OTHER_VALUE:
            values[k.name] = OTHER_VALUE[k.type](k.default)
        else:
            what = "a tensor" if k.type == "tensor" else f"a {k.type}"
            unmade += [
                *(["; "] if unmade else []),
                f"no test passes call input `{k.name}` ({what})",
                " other than its default: give it a value in `example.call_args`",
                " or `example.call_cases`",
            ]
    return values, unmade


def conditions(ir: Declared) -> dict[str, Code]:
    """Each declared weight's and sublayer's `when` over the params, by its key."""
    params = set(ir.params)
    found = {f"weights.{w.name}": w.created for w in ir.weights}
    found |= {f"sublayers.{s.name}": s.created for s in ir.sublayers}
    return {
        key: when
        for key, when in found.items()
        if isinstance(when, Code) and {f.name for f in when.free} <= params
    }


def other_sides(ir: Declared) -> tuple[list[dict[str, Any]], list[str]]:
    """The sides to test, each `{"args": overrides, "made": {attribute: made, ...},
    "keys": {attribute: key}}`, one per bool param a `when` reads whose flip turns one;
    and, in parts of a line, why the tests reach not every side (empty: they do)."""
    args = {k: v for k, v in ir.example.args.items() if not isinstance(v, Code)}
    whens = conditions(ir)
    now = {key: evaluated(when.text, args) for key, when in whens.items()}
    sides, turned = [], set()
    read = dict.fromkeys(f.name for when in whens.values() for f in when.free)
    for param in read:
        if not isinstance(args.get(param), bool) or ir.params[param].type != "bool":
            continue
        flipped = {**args, param: not args[param]}
        then = {key: evaluated(when.text, flipped) for key, when in whens.items()}
        changed = [k for k in whens if isinstance(then[k], bool) and then[k] != now[k]]
        if not changed:
            continue
        turned.update(changed)
        sides.append(
            {
                "args": {param: not args[param]},
                "made": {key.split(".", 1)[1]: then[key] for key in changed},
                "keys": {key.split(".", 1)[1]: f"{key}.when" for key in changed},
            }
        )
    unreached = []
    for key, when in whens.items():
        if key in turned:
            continue
        names = ", ".join(f"`{f}`" for f in dict.fromkeys(f.name for f in when.free))
        other = not now[key] if isinstance(now[key], bool) else "change"
        unreached += [
            *(["; "] if unreached else []),
            f"`{key}.when: {when.text.strip()}` is {now[key]} in the example",
            " and no bool param flips it: to test its other side, give the example",
            f" values of {names} that make it {other}",
        ]
    return sides, unreached
