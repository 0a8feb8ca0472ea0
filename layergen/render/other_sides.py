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


def other_values(ir: Declared) -> tuple[dict[str, Any], list[str]]:
    """A value other than its default for each call input no other test passes one of;
    and, in parts of a line, the inputs the tests cannot make a value of (empty: none).
    Both as the IR decides them (`Declared.other_values`, `Declared.unvaried`), which
    `generate` says too."""
    unmade = []
    for u in ir.unvaried:
        what = "a tensor" if u.type == "tensor" else f"a {u.type}"
        unmade += [
            *(["; "] if unmade else []),
            f"no test passes call input `{u.name}` ({what})",
            *(
                [" other than its default: ", u.why]
                if u.why is not None  # the declaration's reason
                else [
                    " other than its default: give it a value in `example.call_args`",
                    " or `example.call_cases`",
                ]
            ),
        ]
    return dict(ir.other_values), unmade


def other_sides(ir: Declared) -> tuple[list[dict[str, Any]], list[str]]:
    """The sides to test, each `{"args": overrides, "made": {attribute: made, ...},
    "keys": {attribute or output: key}}` (and `"returns": [output, ...]` where an output's
    `when` turns), one per bool param a `when` reads whose flip turns one;
    and, in parts of a line, why the tests reach not every side (empty: they do). Both as
    the IR decides them (`Declared.sides`, `Declared.unreached`), which `generate` says too."""
    sides = [
        {"args": s.args, "made": s.made, "keys": s.keys}
        | ({"returns": list(s.returns)} if s.returns is not None else {})
        for s in ir.sides
    ]
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
