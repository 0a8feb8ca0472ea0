"""The sides of each declared `when` the generated tests reach, decided once for the IR.

The example builds the layer on one side of each weight's and sublayer's `when` (a bias
made with `use_bias: true`); the tests build it once more with each bool param the `when`s
read flipped, one at a time (`Declared.sides`). A `when` no such flip turns (`heads > 1`, an
int; `use_bias and units > 8` with `units: 4`) keeps its other side untested: it is in
`Declared.unreached`, which `generate` says at its `when:` key (`unreached-branch`) and the
generated tests' skip names, both with the params to set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..diagnostics import Diagnostic
from .analyze_example import evaluated
from .code import Code
from .ir import Declared, Side, Unreached
from .yamlfile import Pos


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
        sides.append(
            Side(
                {param: not args[param]},
                {key.split(".", 1)[1]: then[key] for key in changed},
                {key.split(".", 1)[1]: f"{key}.when" for key in changed},
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
    return replace(declared, sides=tuple(sides), unreached=tuple(unreached))


def _conditions(declared: Declared) -> dict[str, Code]:
    """Each declared weight's and sublayer's `when` over the params, by its key."""
    params = set(declared.params)
    found = {f"weights.{w.name}": w.created for w in declared.weights}
    found |= {f"sublayers.{s.name}": s.created for s in declared.sublayers}
    return {
        key: when
        for key, when in found.items()
        if isinstance(when, Code) and {f.name for f in when.free} <= params
    }


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
