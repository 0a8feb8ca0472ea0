"""Checks of the declared names and params (part of `analyze`)."""

from __future__ import annotations

from ..config import package_problem
from . import reserved as template_names  # `reserved` names a flag below
from .analyze_values import _null_hint, name_problem, value_problem

# OBJECT_TYPES: their example values are expressions, their only default is null, and
# `get_config` serializes them as Keras's wrappers do.
from .model import BOUNDS, OBJECT_TYPES

# Names the generated code itself uses in the scope of the declared code.
OWN_NAMES = ("training", "mask", "self", "ops", "keras", "upstream")
# A class name names its layers, a sublayer's its layer: TensorFlow takes these as name
# scopes, which must match `[A-Za-z0-9_.\\/>-]*` (`Ω` generated, then every test failed).
# The types a param's `cast` converts to, by calling the type.
CASTS = ("int", "float", "bool", "str")
NOT_ASCII = "is not ASCII: Keras makes it a layer's name, and TensorFlow takes ASCII names only"
ASCII_HINT = "use ASCII letters, digits and `_`"


class NameChecks:
    """Mixed into `_Analyzer` (`analyze.py`): its methods use the analyzer's state."""

    def _check_names(self) -> None:
        decl, kind = self.decl, self.kind
        name = decl.name
        if name_problem(name) is not None or not name[0].isupper():
            self.error(
                (kind,),
                "bad-class-name",
                f"`{name}` is not a valid class name",
                "use a PascalCase Python identifier, such as `ScaledDense`",
            )
        elif not name.isascii():
            self.error((kind,), "bad-class-name", f"class name `{name}` {NOT_ASCII}", ASCII_HINT)
        elif name in template_names.TEST_MODULE:
            self.error(
                (kind,),
                "reserved-name",
                f"class name `{name}` is a name the generated modules use",
                f"pick another name, such as `{name}Layer`",
            )
        if isinstance(decl.package, str) and package_problem(decl.package):
            self.error(
                ("package",),
                "bad-package",
                f"`package` {package_problem(decl.package)}",
                "the package names the registration: `package>ClassName`",
            )
        seen: dict[str, str] = {}
        bad: set[tuple] = set()  # reported already: one error per name
        groups = [
            ("params", "param", self.result.params),
            ("inputs", "input", decl.inputs or {}),
            ("weights", "weight", decl.weights),
            ("sublayers", "sublayer", decl.sublayers),
            ("ops", "op", decl.ops),
            ("methods", "method", decl.methods),
        ]
        for section, what, names in groups:
            for item in names:
                loc = (section, item)
                reserved = section != "methods"  # methods may override the base class's
                if not self._identifier(loc, item, what, reserved=reserved):
                    bad.add(loc)
                    continue
                if section == "sublayers" and not item.isascii():
                    self.error(
                        loc, "bad-name", f"sublayer `{item}` {NOT_ASCII}", ASCII_HINT, key=True
                    )
                if item in seen and section != "params":
                    self.error(
                        loc,
                        "duplicate-name",
                        f"{what} `{item}` has the name of a {seen[item]}",
                        key=True,
                    )
                seen.setdefault(item, what)
        locals_ = {
            "params": template_names.PARAM,
            "inputs": template_names.INPUT,
        }  # where these names are local variables
        updated = {f"new_{w}" for w in decl.updates} if len(decl.updates) > 1 else set()
        for section, what, names in groups:
            for item in names:
                if (section, item) in bad:
                    continue
                if self._mask_input(section, item):
                    continue
                if (item in locals_.get(section, ()) and not self._sole_input(section, item)) or (
                    section == "inputs" and item in updated
                ):
                    self.error(
                        (section, item),
                        "reserved-name",
                        f"{what} `{item}` is a name the generated code uses itself",
                        (
                            "an input of its own may be named `mask` after the first, with"
                            " `separate_inputs: true` and no `masking`; else pick another"
                            " name, such as `mask_value`"
                            if (section, item) == ("inputs", "mask")
                            else f"pick another name, such as `{item}_value`"
                        ),
                        key=True,
                    )
                elif item in OWN_NAMES:
                    self.error(
                        (section, item),
                        "reserved-name",
                        f"`{item}` is a name layergen keeps for itself",
                        f"pick another name, such as `{item}_value`",
                        key=True,
                    )
                elif item in self.imported:
                    self.error(
                        (section, item),
                        "duplicate-name",
                        f"{what} `{item}` has the name of an import",
                        "rename one of them (`import x as y`)",
                        key=True,
                    )

    def _mask_input(self, section: str, name: str) -> bool:
        """`mask` as a tensor input of its own, `call(self, x, mask)`, as keras-hub's audio
        encoders take it: where the inputs are separate and the layer does no Keras masking
        (whose `mask` argument it would be)."""
        decl = self.decl
        return (
            section == "inputs"
            and name == "mask"
            and name in self.result.inputs[1:]  # the first is the one Keras masks
            and decl.separate_inputs
            and len(self.result.inputs) > 1
            and not decl.masking
            and "compute_mask" not in decl.methods
        )

    def _sole_input(self, section: str, name: str) -> bool:
        """`inputs` as the one tensor input: `call(self, inputs)`, as keras-hub writes it (the
        generated code names the list of several inputs so, and binds it to the one input);
        or as one of `separate_inputs` (keras-hub's `MaskedLMHead.call(self, inputs,
        mask_positions)`), unless a generated test binds the inputs by name beside their
        list: for losses, updates, a mask expression or statistics that read them."""
        if section != "inputs" or name != "inputs" or name not in self.result.inputs:
            return False
        decl = self.decl
        binds = decl.losses or decl.updates or isinstance(decl.masking, str)
        return self.result.inputs == ["inputs"] or (
            decl.separate_inputs and not binds and not decl.example.statistics
        )

    def _check_params(self) -> None:
        for name in self.decl.params:
            if (
                name in self.result.inputs or name in self.result.keywords
            ):  # it would hide the param
                self.error(
                    ("params", name),
                    "duplicate-name",
                    f"param `{name}` has the name of an input",
                    f"rename the param, such as `{name}_value`",
                    key=True,
                )
        optional = None  # the first param with a default: Python wants every required one before it
        for name, param in self.decl.params.items():
            loc = ("params", name)
            if not param.required and optional is None:
                optional = name
            elif param.required and optional is not None:
                self.error(
                    loc,
                    "param-order",
                    f"required param `{name}` comes after `{optional}`, which has a default",
                    f"move `{name}` above `{optional}`, or give it a default",
                    key=True,
                )
            if param.cast and (
                param.type not in CASTS or (not param.required and param.default is None)
            ):
                self.error(
                    loc + ("cast",),
                    "conflicting-keys",
                    (
                        f"`cast` stores an int, float, bool or str param converted, not a {param.type}"
                        if param.type not in CASTS
                        else f"`cast` stores `{param.type}({name})`, which its default None fails"
                    ),
                    (
                        "remove `cast`"
                        if param.type not in CASTS
                        else "give a default, or remove `cast`"
                    ),
                    key=True,
                )
            if param.bounds and param.type not in ("int", "float"):
                key = param.bounds[0][0]
                self.error(
                    loc, "bad-bound", f"`{key}` applies to int and float params, not {param.type}"
                )
                continue
            for inclusive, exclusive in (("min", "gt"), ("max", "lt")):
                if getattr(param, inclusive) is not None and getattr(param, exclusive) is not None:
                    self.error(
                        loc + (exclusive,),
                        "conflicting-keys",
                        f"give `{inclusive}` or `{exclusive}`, not both",
                        f"`{inclusive}` includes its value, `{exclusive}` excludes it",
                        key=True,
                    )
            lower = [(k, v) for k, v in param.bounds if k in ("min", "gt")]
            upper = [(k, v) for k, v in param.bounds if k in ("max", "lt")]
            if lower and upper:
                (low_key, low), (high_key, high) = lower[0], upper[0]
                empty = low > high if (low_key, high_key) == ("min", "max") else low >= high
                if empty:
                    self.error(
                        loc + (low_key,),
                        "bad-bound",
                        f"no value is {BOUNDS[low_key][1]} {low} and {BOUNDS[high_key][1]} {high}",
                    )
            if param.type in OBJECT_TYPES and self.kind != "layer":
                self.error(
                    loc + ("type",),
                    "bad-type",
                    f"a {param.type} param is for layers; a {self.kind} takes plain values",
                )
                continue
            if param.required or param.default is None:
                continue
            if param.type in OBJECT_TYPES:
                self.error(
                    loc + ("default",),
                    "bad-default",
                    f"a {param.type} param's default is null: its value is an object the caller makes",
                    "`default: null`, and make the object in `call` when it is None",
                )
                continue
            problem = value_problem(param, param.default)
            if problem:
                self.error(
                    loc + ("default",),
                    "bad-default",
                    f"default of `{name}` {problem}",
                    _null_hint(param.default),
                )
