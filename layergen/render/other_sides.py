"""What the generated tests pass that the example does not: the other side of each
declared `when`, and a value other than its default for each call input.

The example builds the layer on one side of each `when` (a bias made with `use_bias: true`);
the tests build it once more on the other side of each, a bool param flipped at a time, and
check that it calls, makes and leaves out what the `when`s say, and round-trips its config.
Which sides those are, and which `when`s no flip reaches, the IR decides
(`declaration/branches.py`): the tests skip a branch test naming the params to set, as
`generate` warns.
"""

from __future__ import annotations

from typing import Any

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


def other_sides(ir: Declared) -> tuple[list[dict[str, Any]], list[str]]:
    """The sides to test, each `{"args": overrides, "made": {attribute: made, ...},
    "keys": {attribute: key}}`, one per bool param a `when` reads whose flip turns one;
    and, in parts of a line, why the tests reach not every side (empty: they do). Both as
    the IR decides them (`Declared.sides`, `Declared.unreached`), which `generate` says too."""
    sides = [{"args": s.args, "made": s.made, "keys": s.keys} for s in ir.sides]
    unreached = []
    for u in ir.unreached:
        names = ", ".join(f"`{name}`" for name in u.params)
        other = not u.value if isinstance(u.value, bool) else "change"
        unreached += [
            *(["; "] if unreached else []),
            f"`{u.key}.when: {u.when}` is {u.value} in the example",
            " and no bool param flips it: to test its other side, give the example",
            f" values of {names} that make it {other}",
        ]
    return sides, unreached
