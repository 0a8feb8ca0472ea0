"""The pieces every section's check uses: shapes, layouts, Keras objects, dotted names,
sublayer and op arguments, and the module-level checks of values and names.
"""

from __future__ import annotations

import keyword
import unicodedata
from typing import Any

from ..diagnostics import did_you_mean
from ..keras_classes import layer_classes
from ..keras_names import DTYPES
from . import layouts
from .code import Code
from .ir import Construction, KerasObject, Shape
from .literals import PLAIN_TYPES, holding_types
from .model import BOUNDS, Param
from .param_types import IDENTIFIERS
from .yamlfile import Pos

MAX_RANK = 16


class ValueChecks:
    """Mixed into `_Analyzer` (`analyze.py`): its methods use the analyzer's state."""

    def _arguments(
        self,
        loc: tuple,
        args: list[str],
        what: str,
        taken: frozenset[str],
        *,
        defaults: bool = False,
    ) -> dict[int, Code]:
        """`defaults`: an argument may be `name=default`, the default an expression over
        the module's names (evaluated where the method is defined); the defaults that
        parsed come back by the argument's index."""
        parsed: dict[int, Code] = {}
        seen: set[str] = set()
        optional = None  # the first argument with a default
        for i, arg in enumerate(args):
            if defaults and isinstance(arg, str) and arg.lstrip().startswith("*"):
                self._star_argument(loc, i, args, what)
                continue
            if defaults and isinstance(arg, str) and "=" in arg:
                arg, default = (part.strip() for part in arg.split("=", 1))
                optional = optional or arg
                if default and name_problem(arg) is None:
                    code = self.code(loc + (i,), default, set(), set(), expression=True)
                    if code is not None:
                        parsed[i] = code
                elif not default:
                    self.error(loc + (i,), "python-syntax", f"`{arg}=` gives no default")
                    continue
            elif optional is not None:
                self.error(
                    loc + (i,),
                    "param-order",
                    f"{what} `{arg}` comes after `{optional}`, which has a default",
                    f"move `{arg}` above `{optional}`, or give it a default: `{arg}=None`",
                )
            if not self._identifier(loc + (i,), arg, what, reserved=False):
                continue
            if arg in taken:
                self.error(
                    loc + (i,),
                    "reserved-name",
                    f"{what} `{arg}` is a name the generated method uses itself",
                    f"call it `{arg}_value`",
                )
            elif arg in seen:
                self.error(loc + (i,), "duplicate-name", f"{what} `{arg}` is given twice")
            seen.add(arg)
        return parsed

    def _star_argument(self, loc: tuple, index: int, args: list[str], what: str) -> None:
        """`*args` or `**kwargs` in a method's args: one error that says what to write."""
        named = [a for a in args if isinstance(a, str) and not a.lstrip().startswith("*")]
        taken = {a.split("=", 1)[0].strip() for a in named}
        example = ", ".join([*named, *([] if "training" in taken else ["training=None"])])
        self.error(
            loc + (index,),
            "bad-name",
            f"{what} `{args[index].strip()}`: a declared method takes named arguments only",
            f"name each argument it takes, with a default where it may be left out"
            f" (`args: [{example}]`), or write the method in the layer's module, where"
            f" hand-written members are kept, and call it as `self.{loc[1]}(...)`",
        )

    def _shape(self, loc: tuple, value: Any, inputs: set[str], params: set[str]) -> Shape | None:
        """The shape at `loc`, or None when a dim did not parse (reported)."""
        what = "name in shape"
        if not isinstance(value, list):
            code = self.code(loc, str(value), inputs, params, expression=True, what=what)
            return Shape(code) if code is not None else None
        # A list: each dim is checked where it was written, then the tuple is built from them.
        dims: list[int | Code | None] = []
        for i, item in enumerate(value):
            if not isinstance(item, str):
                dims.append(item)
                continue
            dims.append(
                self.code(
                    loc + (i,),
                    item,
                    inputs,
                    params,
                    expression=True,
                    what=what,
                    prefix="(",
                    suffix=",)",
                )
            )
        if None in dims:
            return None
        text = (
            "(" + "".join(f"{item}\n, " for item in value) + ")"
        )  # a dim's comment ends at its line
        where = self.doc.pos(loc)
        code = self.code(
            loc,
            text,
            inputs,
            params,
            expression=True,
            what=what,
            report=False,
            pos=Pos(where.line, where.col),
        )
        return Shape(code, tuple(dims)) if code is not None else None

    def _layout(self, loc: tuple, layout: list[str | None], rank: int | None) -> None:
        problems = layouts.axis_problems(layout, self.mesh_axes)
        problems.append(layouts.rank_problem(layout, rank))
        for problem in problems:
            if problem is not None:
                where, code, message, hint = problem
                self.error(loc + where, code, message, hint)

    def _sublayer_layout(self, loc: tuple, layout: dict[str, list], keras_name: str | None) -> None:
        """A sublayer's layouts: paths inside it, each with its layout (their ranks are the
        sublayer's business: the generated test checks them)."""
        if keras_name is None:
            self.error(
                loc + ("args", "name"),
                "bad-layout",
                "the sublayer's `name` is computed, so the paths of its weights are not known",
                "give `name` as a string literal (\"'router'\"), or leave it out: the key names it",
            )
        for path, entries in layout.items():
            problem = layouts.path_problem(path)
            if problem is not None:
                where, code, message, hint = problem
                self.error(loc + ("layout",) + where, code, message, hint, key=True)
            for where, code, message, hint in layouts.axis_problems(entries, self.mesh_axes):
                self.error(loc + ("layout", path) + where, code, message, hint)

    def _keras_object(self, loc: tuple, value: str, kind: str) -> KerasObject | None:
        """A weight's initializer, regularizer or constraint: a param, a Keras name, or an
        expression; None when it is none of them (reported)."""
        if value.isidentifier():
            param = self.result.params.get(value)
            if param is not None:
                if param.type != kind:
                    self.error(
                        loc, "wrong-type", f"param `{value}` has type {param.type}, not {kind}"
                    )
                code = self.code(loc, value, set(), {value}, expression=True)
                return KerasObject(param=value) if code is not None else None
            if value not in IDENTIFIERS[kind] and value not in self.ignore:
                self.error(
                    loc,
                    f"unknown-{kind}",
                    f"unknown {kind} `{value}`",
                    did_you_mean(
                        value,
                        sorted(IDENTIFIERS[kind])
                        + [p for p, s in self.result.params.items() if s.type == kind],
                    )
                    or f"use a Keras {kind} name, a param of type {kind}, or an expression such as `keras.{kind}s.Foo(...)`",
                )
                return None
            return KerasObject(name=value)
        code = self.code(loc, value, set(), set(self.result.params), expression=True)
        return KerasObject(code=code) if code is not None else None

    def _dotted(self, loc: tuple, value: str) -> None:
        parts = value.split(".")
        if not all(name_problem(p) is None for p in parts):
            self.error(
                loc,
                "bad-class",
                f"`{value}` is not a dotted class path",
                "such as `keras.layers.Dense`",
            )
        elif parts[0] not in ("keras",) and parts[0] not in self.imported:
            self.error(
                loc,
                "unknown-name",
                f"unknown name `{parts[0]}` in `{value}`",
                "start with `keras.` or import the class in `imports`",
            )
        elif value.startswith("keras.layers.") and value not in layer_classes():
            known = [n.removeprefix("keras.layers.") for n in layer_classes()]
            self.error(
                loc,
                "unknown-class",
                f"Keras has no layer `{value}`",
                did_you_mean(parts[-1], known) or "see `keras.layers` for the layers Keras has",
            )

    def _args(self, loc: tuple, args: dict[str, Any], class_: str) -> Construction:
        """A sublayer's arguments: expressions over the params and, as in a weight's shape,
        the input shapes (such a sublayer is created in `build`). Keywords of Keras's own
        classes are checked against the table of their constructors. The construction holds
        the arguments that parsed (the others are reported)."""
        shapes = set(self.result.shaped)
        takes = layer_classes().get(class_)
        built: dict[str, Code | Any] = {}
        for name, value in args.items():
            self._identifier(loc + (name,), name, "argument", reserved=False)
            if takes is not None and name not in takes:
                self.error(
                    loc + (name,),
                    "unknown-arg",
                    f"`{class_}` takes no argument `{name}`",
                    did_you_mean(name, takes) or f"it takes {', '.join(sorted(takes))}",
                    key=True,
                )
            if not isinstance(value, str):
                built[name] = value  # a plain value, written as a literal
                continue
            code = self.code(
                loc + (name,), value, set(self.result.params) | shapes, set(), expression=True
            )
            if code is not None:
                built[name] = code
                if value.strip().isidentifier():
                    self.bare_words[id(code)] = (name, value.strip())
        return Construction(class_, built)


def _dict_hint(keys: list[str | None], names: list[str]) -> str:
    """What is wrong with the keys of a returned dict literal."""
    if None in keys:
        return 'write each key as a string literal (`"mean": ...`), no `**` unpacking'
    missing = [n for n in names if n not in keys]
    extra = [k for k in keys if k not in names]
    parts = [
        f"missing {', '.join(missing)}" if missing else "",
        f"not declared: {', '.join(extra)}" if extra else "",
    ]
    if not missing and not extra:
        parts = ["a key is given twice"]
    return "; ".join(p for p in parts if p)


def _private(name: str) -> bool:
    """`_name`: an attribute Keras's own layers would call private (not `__name`)."""
    return name.startswith("_") and not name.startswith("__") and len(name) > 1


def _null_hint(value: Any) -> str | None:
    """`default: None` is the string "None" in YAML: say how YAML spells None."""
    if isinstance(value, str) and value.strip() in ("None", "none"):
        return "YAML spells None `null`: write `default: null`"
    return None


def value_problem(param: Param, value: Any) -> str | None:
    """Why `value` is not a valid value of `param`, or None."""
    kind = param.type
    if kind == "dtype" and not isinstance(value, str):
        return f"must be a dtype name, got {value!r}"
    if kind in IDENTIFIERS:
        if not isinstance(value, (str, dict)):
            return f"must be a Keras {kind} name, got {value!r}"
        if isinstance(value, str) and value not in IDENTIFIERS[kind]:
            hint = did_you_mean(value, IDENTIFIERS[kind])
            return f"is not a Keras {kind}: {value!r}" + (f" ({hint})" if hint else "")
        return None
    held = value in DTYPES if kind == "dtype" else kind in holding_types(value)
    if (kind == "dtype" or kind in PLAIN_TYPES) and not held:
        return f"must be of type {kind}, got {value!r}"
    for key, bound in param.bounds:
        if not _COMPARE[key](value, bound):
            return f"is not {BOUNDS[key][1]} {bound} (`{key}`): {value!r}"
    if param.choices is not None and value not in param.choices:
        return f"is not one of its choices {param.choices}: {value!r}"
    return None


_COMPARE = {
    "min": lambda value, bound: value >= bound,
    "gt": lambda value, bound: value > bound,
    "max": lambda value, bound: value <= bound,
    "lt": lambda value, bound: value < bound,
}


def name_problem(name: Any) -> tuple[str, str | None] | None:
    """Why `name` cannot be a Python name in generated code: (code, hint), or None."""
    if not isinstance(name, str) or not name.isidentifier():
        return "bad-name", "use letters, digits and underscores, not starting with a digit"
    if keyword.iskeyword(name):
        return "keyword-name", f"call it `{name}_`"
    normal = unicodedata.normalize("NFKC", name)
    if (
        normal != name
    ):  # Python reads it as `normal`, but strings (get_config keys) keep it as written
        return "bad-name", f"Python reads it as `{normal}`: write that"
    return None


def _flat(value: Any) -> list[Any]:
    """The elements of nested lists."""
    if isinstance(value, list):
        return [e for item in value for e in _flat(item)]
    return [value]


def _array_shape(value: Any, bools: bool = False) -> tuple[int, ...] | None:
    """The shape of nested lists of numbers (`bools`: or of booleans, a mask), or None
    when they are not rectangular."""
    if isinstance(value, bool):
        return () if bools else None
    if isinstance(value, (int, float)):
        return ()
    if not isinstance(value, list) or not value:
        return None
    shapes = {_array_shape(item, bools) for item in value}
    if len(shapes) != 1 or None in shapes:
        return None
    return (len(value), *shapes.pop())
