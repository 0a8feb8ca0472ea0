"""Resolve a validated declaration: parse every piece of code, check every name.

All problems are collected and raised together as one `DiagnosticError`.
The result, an `Analysis`, is everything the renderer needs.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from ..config import MESH_AXES, package_problem
from ..diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..keras_classes import layer_classes
from ..keras_names import DTYPES, IDENTIFIERS, LAYER_PRIVATE_ATTRIBUTES
from ..kinds import KINDS, LAYER_ONLY_KEYS
from . import layouts
from . import reserved as template_names  # `reserved` names a flag below
from .code import BUILTINS, Code, bound_names, parse, resolve, returned_values, shape_rank

# OBJECT_TYPES: their example values are expressions, their only default is null, and
# `get_config` serializes them as Keras's wrappers do.
from .model import BOUNDS, OBJECT_TYPES, Declaration, Input, Output, Param
from .yamlfile import Document, Pos

# Names the generated code itself uses in the scope of the declared code.
OWN_NAMES = ("training", "mask", "self", "ops", "keras", "upstream")
# Names code may read but not assign: layergen writes `self.units` for `units` into it, and
# `ops.`/`keras.` around it.
KEPT_BINDINGS = frozenset(["self", "ops", "keras"])
# A class name names its layers, a sublayer's its layer: TensorFlow takes these as name
# scopes, which must match `[A-Za-z0-9_.\\/>-]*` (`Ω` generated, then every test failed).
NOT_ASCII = "is not ASCII: Keras makes it a layer's name, and TensorFlow takes ASCII names only"
ASCII_HINT = "use ASCII letters, digits and `_`"
# A weight's Keras name: a part of its variable path (TensorFlow takes ASCII names only).
WEIGHT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
MAX_RANK = 16
MAX_EXAMPLE_SIZE = 2**24  # elements in one example input: the generated tests allocate it
SEED_PARAM = Param(type="int", default=None, doc="seed of the layer's random number generator.")


@dataclass
class Analysis:
    doc: Document
    decl: Declaration
    params: dict[str, Param]  # the declared params, plus `seed` for a random layer
    inputs: list[str]  # call arguments: a layer's inputs, or a loss's (y_true, y_pred), ...
    keywords: dict[str, Input]  # a layer's keyword call arguments (inputs with a `default`)
    codes: dict[tuple, Code] = field(default_factory=dict)

    @property
    def shaped(self) -> list[str]:
        """The tensor inputs, keyword ones included: what `build` knows the shape of."""
        tensors = [n for n, s in self.keywords.items() if s.type == "tensor"]
        return [*self.inputs, *tensors]

    @property
    def path(self) -> str:
        return self.doc.path

    def code(self, *loc: Any) -> Code:
        return self.codes[tuple(loc)]


def analyze(
    doc: Document,
    decl: Declaration,
    *,
    ignore: frozenset[str] = frozenset(),
    mesh_axes: tuple[str, ...] = MESH_AXES,
) -> Analysis:
    """Check names and code. `ignore`: names to take as known (their declarations had errors
    already reported); `mesh_axes`: the axes layouts may name (`[tool.layergen] mesh-axes`)."""
    return _Analyzer(doc, decl, ignore, mesh_axes).run()


class _Analyzer:
    def __init__(
        self,
        doc: Document,
        decl: Declaration,
        ignore: frozenset[str] = frozenset(),
        mesh_axes: tuple[str, ...] = MESH_AXES,
    ):
        self.doc, self.decl = doc, decl
        self.ignore = ignore
        self.mesh_axes = mesh_axes
        self.errors: list[Diagnostic] = []
        self.scopes: list[tuple[Code, set[str], set[str], str, bool]] = []
        # Sublayer arguments that are one bare word, by id of their code: if the word is
        # unknown, it was most likely meant as a string.
        self.bare_words: dict[int, tuple[str, str]] = {}
        self.kind = decl.kind
        params = dict(decl.params)
        if decl.random and "seed" not in params:
            params["seed"] = SEED_PARAM
        keywords: dict[str, Input] = {}
        if self.kind == "layer":
            specs = decl.inputs or {"x": None}
            keywords = {n: s for n, s in specs.items() if s is not None and s.keyword}
            inputs = [n for n in specs if n not in keywords] or list(specs)[:1]
        else:
            inputs = list(KINDS[self.kind].arguments)
        self.result = Analysis(doc, decl, params, inputs, keywords)
        self.imported = self._imported_names()
        self.globals = {"ops", "keras", "self"} | self.imported | BUILTINS | set(ignore)
        self.members = (
            set(params)
            | set(decl.weights)
            | set(decl.sublayers)
            | set(decl.ops)
            | set(decl.methods)
        )
        if decl.random:
            self.members.add("seed_generator")

    def run(self) -> Analysis:
        self._check_names()
        self._check_params()
        if self.kind == "layer":
            self._check_layer()
        else:
            self._check_other_kind()
        self._check_ops_and_methods()
        self._check_hand_written()
        self._check_example()
        self._check_free_names()
        self._check_created_in_init()
        self._check_output_shape_names()
        if self.errors:
            raise DiagnosticError(self.errors)
        return self.result

    # -- helpers -----------------------------------------------------------

    def error(
        self, loc: tuple, code: str, message: str, hint: str | None = None, *, key: bool = False
    ) -> None:
        self.errors.append(self.doc.error(loc, code, message, hint, key=key))

    def code(
        self,
        loc: tuple,
        text: str,
        local: set[str],
        members: set[str],
        *,
        expression: bool | None = None,
        what: str = "name",
        report: bool = True,
        pos: Pos | None = None,
        prefix: str = "",
        suffix: str = "",
    ) -> Code | None:
        """Parse the snippet at `loc`; its names are checked once all code is parsed.

        `report=False`: the snippet's names were checked already, piece by piece.
        """
        result = parse(
            text,
            pos or self.doc.pos(loc),
            self.doc.path,
            expression=expression,
            prefix=prefix,
            suffix=suffix,
        )
        if isinstance(result, Diagnostic):
            self.errors.append(result)
            return None
        self.result.codes[loc] = result
        self.scopes.append((result, local, members, what, report))
        return result

    def _check_free_names(self) -> None:
        """Resolve every snippet's names in one pass, then report those not in scope."""
        resolve([code for code, *_ in self.scopes])
        for code, local, members, what, report in self.scopes:
            if not report:
                continue
            for bound in code.bound:
                if bound.name in KEPT_BINDINGS:
                    line, col = code.locate(bound.node)
                    self.errors.append(
                        Diagnostic(
                            self.doc.path,
                            line,
                            col,
                            "reserved-name",
                            f"the code assigns `{bound.name}`, which the generated code around it uses",
                            f"use another name, such as `{bound.name}_`",
                        )
                    )
            known = local | members | self.globals
            for free in code.free:
                if free.name in known:
                    continue
                scope = sorted(local | members | {"ops", "keras"} | self.imported)
                line, col = code.locate(free.node)
                hint = did_you_mean(free.name, scope) or (
                    f"names in scope here: {', '.join(scope) or 'none'}"
                )
                if id(code) in self.bare_words:
                    arg, word = self.bare_words[id(code)]
                    hint += f"; to pass a string, quote it twice: {arg}: \"'{word}'\""
                self.errors.append(
                    Diagnostic(
                        self.doc.path,
                        line,
                        col,
                        "unknown-name",
                        f"unknown {what} `{free.name}`",
                        hint,
                    )
                )

    def _imported_names(self) -> set[str]:
        names: set[str] = set()
        for i, line in enumerate(self.decl.imports):
            try:
                tree = ast.parse(line)
            except SyntaxError as exc:
                self.error(("imports", i), "python-syntax", f"invalid import: {exc.msg}")
                continue
            except (ValueError, MemoryError, RecursionError) as exc:
                self.error(("imports", i), "python-syntax", f"invalid import: {exc}")
                continue
            if not tree.body or not all(
                isinstance(s, (ast.Import, ast.ImportFrom)) for s in tree.body
            ):
                self.error(
                    ("imports", i),
                    "bad-import",
                    "`imports` holds import statements only",
                    "one `import ...` or `from ... import ...` per item; code goes in `init` or `methods`",
                )
                continue
            if any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in tree.body):
                self.error(
                    ("imports", i),
                    "bad-import",
                    "a `__future__` import must open the module; layergen's modules need none",
                )
                continue
            for statement in tree.body:
                for alias in statement.names:
                    if alias.name == "*":
                        self.error(
                            ("imports", i),
                            "bad-import",
                            "star imports hide names",
                            "import the names you use",
                        )
                    bound = alias.asname or alias.name.split(".")[0]
                    if bound in template_names.MODULE:
                        self.error(
                            ("imports", i),
                            "reserved-name",
                            f"the import binds `{bound}`, which the generated module uses",
                            f"import it under another name: `as {bound}_`",
                        )
                    names.add(bound)
        return names

    def _identifier(self, loc: tuple, name: Any, what: str, *, reserved: bool = True) -> bool:
        problem = name_problem(name)
        if problem is not None:
            code, hint = problem
            self.error(
                loc,
                code,
                f"{what} `{name}` {'is a Python keyword' if code == 'keyword-name' else 'is not a Python identifier'}",
                hint,
                key=True,
            )
            return False
        if not reserved:
            return True
        taken = KINDS[self.kind].reserved
        if name in taken:
            owner = "every Keras layer" if self.kind == "layer" else f"every Keras {self.kind}"
            self.error(
                loc,
                "reserved-name",
                f"{what} `{name}` would shadow the attribute {owner} has under that name",
                f"pick another name, such as `{name}_value`",
                key=True,
            )
            return False
        if what in ("weight", "sublayer") and self.kind == "layer" and _private(name):
            if name in LAYER_PRIVATE_ATTRIBUTES:
                self.error(
                    loc,
                    "reserved-name",
                    f"{what} `{name}` would overwrite Keras's own private attribute `{name}`",
                    f"pick another name, such as `{name}_layer`",
                    key=True,
                )
                return False
            return True  # checkpoints of Keras's own layers name attributes so
        if name.startswith("_"):
            self.error(
                loc,
                "reserved-name",
                f"{what} `{name}` starts with `_`, which Keras keeps for its own attributes",
                f"call it `{name.lstrip('_') or 'value'}`",
                key=True,
            )
            return False
        return True

    # -- checks ------------------------------------------------------------

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
        if decl.package is not None and package_problem(decl.package):
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
                if (item in locals_.get(section, ()) and not self._sole_input(section, item)) or (
                    section == "inputs" and item in updated
                ):
                    self.error(
                        (section, item),
                        "reserved-name",
                        f"{what} `{item}` is a name the generated code uses itself",
                        f"pick another name, such as `{item}_value`",
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

    def _check_layer(self) -> None:
        decl = self.decl
        inputs = set(self.result.inputs)
        params = set(self.result.params)
        calls = inputs | {"training"} | ({"mask"} if decl.masking not in (None, False) else set())
        calls |= set(self.result.keywords)
        self._check_keywords()
        for name, spec in (decl.inputs or {}).items():
            if spec and spec.dtype and spec.dtype not in DTYPES:
                self.error(
                    ("inputs", name, "dtype"),
                    "bad-dtype",
                    f"unknown dtype `{spec.dtype}`",
                    did_you_mean(spec.dtype, DTYPES),
                )
            for i, axis in enumerate(spec.axes or [] if spec else []):
                param = self.result.params.get(axis) if isinstance(axis, str) else None
                if isinstance(axis, str) and (param is None or param.type != "int"):
                    self.error(
                        ("inputs", name, "axes", i),
                        "unknown-param",
                        f"axis `{axis}` is neither an integer nor an int param",
                        did_you_mean(
                            axis, [p for p, s in self.result.params.items() if s.type == "int"]
                        ),
                    )
            for attr in ("rank", "min_rank"):
                value = getattr(spec, attr) if spec else None
                if value is not None and not 0 <= value <= MAX_RANK:
                    self.error(
                        ("inputs", name, attr),
                        "bad-bound",
                        f"`{attr}` must be between 0 and {MAX_RANK}, got {value}",
                    )
        self._check_weight_names()
        shaped = set(self.result.shaped)  # what `build` knows the shape of
        for name, weight in decl.weights.items():
            loc = ("weights", name)
            self._shape(loc + ("shape",), weight.shape, shaped, params)
            for attr in ("initializer", "regularizer", "constraint"):
                value = getattr(weight, attr)
                if value is not None:
                    self._keras_object(loc + (attr,), value, attr)
            if isinstance(weight.when, str):
                self.code(loc + ("when",), weight.when, shaped, params, expression=True)
            if weight.dtype and weight.dtype not in DTYPES:
                self.error(
                    loc + ("dtype",),
                    "bad-dtype",
                    f"unknown dtype `{weight.dtype}`",
                    did_you_mean(weight.dtype, DTYPES),
                )
            if weight.aggregation is not None and weight.trainable:
                self.error(
                    loc + ("aggregation",),
                    "trainable-update",
                    f"weight `{name}` is trainable: the optimizer combines its replicas' gradients",
                    "`aggregation` is for non-trainable state: add `trainable: false`",
                    key=True,
                )
            if weight.layout is not None:
                shape = self.result.codes.get(loc + ("shape",))
                rank = shape_rank(shape, inputs) if shape is not None else len(weight.layout)
                self._layout(loc + ("layout",), weight.layout, rank)
        for name, sub in decl.sublayers.items():
            loc = ("sublayers", name)
            if sub.class_ is None and sub.layers is None:
                self.error(
                    loc,
                    "missing-key",
                    "a sublayer needs `class` (or `layers`, for a keras.Sequential)",
                )
            if sub.class_ is not None:
                self._dotted(loc + ("class",), sub.class_)
            self._args(loc + ("args",), sub.args, sub.class_ or "keras.Sequential")
            if isinstance(sub.when, str):
                self.code(loc + ("when",), sub.when, shaped, params, expression=True)
            if isinstance(sub.build, dict):  # its build's arguments: `query_shape: x`
                for key, shape in sub.build.items():
                    self._identifier(loc + ("build", key), key, "argument", reserved=False)
                    self._shape(loc + ("build", key), shape, shaped, params)
            elif sub.build is not None:
                self._shape(loc + ("build",), sub.build, shaped, params)
            for i, item in enumerate(sub.layers or []):
                self._dotted(loc + ("layers", i, "class"), item.class_)
                self._args(loc + ("layers", i, "args"), item.args, item.class_)
            if sub.layout is not None:
                self._sublayer_layout(loc, sub.layout, layouts.sublayer_name(name, sub.args))
        sharded = any(w.layout is not None for w in decl.weights.values()) or any(
            s.layout for s in decl.sublayers.values()
        )
        clash = layouts.keras_layer_clash(decl.name) if sharded else None
        if clash is not None:
            self.error(
                ("layer",),
                "duplicate-name",
                f"Keras names `{decl.name}` layers `{layouts.default_name(decl.name)}`, as it"
                f" names `{clash}` layers: the layout map would shard theirs too",
                f"rename the class, such as `Sharded{decl.name}`",
            )
        if decl.base is not None:
            self._dotted(("base",), decl.base)
        forwards = []
        if isinstance(decl.call, str):
            forwards.append(self.code(("call",), decl.call, calls, self.members))
        elif decl.call is not None:
            for branch in ("train", "infer"):
                code = self.code(("call", branch), getattr(decl.call, branch), calls, self.members)
                forwards.append(code)
        if decl.output_type == "dict":
            for code in forwards:
                if code is not None:
                    self._check_no_dict_returned(code)
        bound = bound_names(decl.call) if isinstance(decl.call, str) else set()
        for i, loss in enumerate(decl.losses):
            if isinstance(loss, str):
                self.code(("losses", i), loss, calls | bound, self.members, expression=True)
            else:
                loc = ("losses", i, "value")
                self.code(loc, loss.value, calls | bound, self.members, expression=True)
        for name, update in decl.updates.items():
            loc = ("updates", name)
            if name not in decl.weights:
                if name in self.ignore:
                    continue
                self.error(
                    loc,
                    "unknown-weight",
                    f"`updates` names `{name}`, which is not a weight",
                    did_you_mean(name, decl.weights),
                    key=True,
                )
            elif decl.weights[name].trainable:
                self.error(
                    loc,
                    "trainable-update",
                    f"weight `{name}` is trainable; only non-trainable state can be updated",
                    f"add `trainable: false` to weight `{name}`",
                    key=True,
                )
            self.code(loc, update, calls, self.members, expression=True)
        if isinstance(decl.masking, str):
            self.code(("masking",), decl.masking, inputs | {"mask"}, self.members, expression=True)
        if decl.output_shape is not None and decl.outputs is not None:
            self.error(
                ("outputs",),
                "conflicting-keys",
                "give `output_shape` or `outputs`, not both",
                key=True,
            )
        # Output shapes may read the keyword inputs: a value, or a tensor's shape (None when
        # not given); `compute_output_shape` then takes them.
        outputs_see = inputs | set(self.result.keywords)
        if decl.output_shape is not None:
            self._shape(("output_shape",), decl.output_shape, outputs_see, params)
        if decl.output_type is not None and decl.outputs is None:
            self.error(
                ("output_type",),
                "missing-key",
                "`output_type` says how the outputs named in `outputs` are returned",
                "name the outputs: `outputs: {mean: (*x[:-1], units), ...}`",
                key=True,
            )
        if decl.outputs is not None and not decl.outputs:
            self.error(("outputs",), "missing-key", "`outputs` names at least one output", key=True)
        for name, shape in (decl.outputs or {}).items():
            self._identifier(("outputs", name), name, "output", reserved=False)
            if not isinstance(shape, Output):
                self._shape(("outputs", name), shape, outputs_see, params)
                continue
            loc = ("outputs", name, "when")
            self._shape(("outputs", name, "shape"), shape.shape, outputs_see, params)
            if isinstance(shape.when, str):
                self.code(loc, shape.when, outputs_see, params, expression=True)
            rewrites = "output_type: dict" if decl.output_type == "dict" else None
            if decl.compute_dtype == "float32":
                rewrites = "compute_dtype: float32"
            if shape.when is not None and rewrites:
                self.error(
                    loc,
                    "conflicting-keys",
                    f"an output under `when` with `{rewrites}`, which rewrites what `call`"
                    " returns as all the outputs",
                    "return the outputs as a tuple, or leave out `when`",
                )
        if decl.init is not None:
            self.code(("init",), decl.init, params, set(), expression=False)
        if decl.noise is not None and decl.noise.shape is not None:
            self._shape(("noise", "shape"), decl.noise.shape, inputs, params)
        for name, spec in (decl.inputs or {}).items():
            if spec is not None and spec.cache is not None:
                self._shape(("inputs", name, "cache", "shape"), spec.cache.shape, inputs, params)

    def _check_weight_names(self) -> None:
        """A weight's `name`: the last part of its variable path, so no `/`, ASCII (TensorFlow
        scopes), and no other weight's (a layout map key would match both)."""
        keras_names = {n: w.name or n.lstrip("_") for n, w in self.decl.weights.items()}
        for name, weight in self.decl.weights.items():
            if weight.name is None:
                continue
            loc = ("weights", name, "name")
            if not WEIGHT_NAME.fullmatch(weight.name):
                self.error(
                    loc,
                    "bad-name",
                    f"weight name `{weight.name}` is not a Keras variable name",
                    "ASCII letters, digits, `_`, `.` and `-`: it is the last part of the"
                    " weight's path, which `/` separates",
                )
                continue
            other = next(
                (n for n, k in keras_names.items() if k == weight.name and n != name), None
            )
            if other is not None:
                self.error(
                    loc,
                    "duplicate-name",
                    f"weight `{other}` is named `{weight.name}` in Keras too",
                    "two weights of one path: give each its own `name`",
                )

    def _check_created_in_init(self) -> None:
        """`create: init` for a sublayer whose args or `when` read an input's shape (once
        parsed)."""
        inputs = set(self.result.shaped)
        for name, sub in self.decl.sublayers.items():
            if sub.create != "init":
                continue
            places = [("sublayers", name, "args")] + [
                ("sublayers", name, "layers", i, "args") for i in range(len(sub.layers or []))
            ]
            codes = [c for loc, c in self.result.codes.items() if loc[:-1] in places]
            when = self.result.codes.get(("sublayers", name, "when"))
            for what, found in (("its args read", codes), ("its `when` reads", [when])):
                if any(f.name in inputs for code in found if code for f in code.free):
                    self.error(
                        ("sublayers", name, "create"),
                        "conflicting-keys",
                        f"{what} an input's shape, known only in `build`",
                        "`create: build`, or args over the params alone",
                    )
                    break

    def _check_output_shape_names(self) -> None:
        """When the output shapes read `call`'s keyword inputs, `compute_output_shape` takes
        them (a tensor as `<name>_shape`) beside its own names: none may be one of those."""
        outputs = [
            c for loc, c in self.result.codes.items() if loc[0] in ("outputs", "output_shape")
        ]
        read = {f.name for c in outputs for f in c.free}
        keywords = {n: s for n, s in self.result.keywords.items() if n in read}
        if not keywords:
            return
        several = len(self.result.inputs) > 1
        taken = {"input_shape", "shapes", "self", "keras", "len", "tuple"}
        taken |= {f"{n}_shape" for n in self.result.inputs} if several else set()
        for name, spec in keywords.items():
            argument = f"{name}_shape" if spec.type == "tensor" else name
            if argument in taken:
                self.error(
                    ("inputs", name),
                    "reserved-name",
                    f"`compute_output_shape` takes keyword input `{name}` as `{argument}`,"
                    " a name it uses itself",
                    f"rename the input, such as `{name}_value`",
                    key=True,
                )
            taken.add(argument)

    def _check_keywords(self) -> None:
        """Inputs with a `default`: keyword arguments of `call`, after the tensor inputs."""
        specs = self.decl.inputs or {}
        keyword = None  # the first keyword input: every tensor input comes before it
        for name, spec in specs.items():
            loc = ("inputs", name)
            if spec is not None and spec.masks is not None:
                self._check_masks(name, spec)
            if spec is not None and spec.causal is not None:
                self._check_causal(name, spec)
            if spec is not None and spec.cache is not None:
                self._check_cache(name, spec)
            if spec is None or not spec.keyword:
                if keyword is not None:
                    self.error(
                        loc,
                        "param-order",
                        f"input `{name}` comes after `{keyword}`, which has a default",
                        f"move `{name}` above `{keyword}`, or give it a default",
                        key=True,
                    )
                if spec is not None and spec.type != "tensor":
                    self.error(
                        loc + ("type",),
                        "missing-key",
                        f"input `{name}` of type {spec.type} is a keyword argument: it needs a `default`",
                        f"add `default:` to `{name}`",
                        key=True,
                    )
                continue
            keyword = keyword or name
            if spec.type == "tensor":
                if spec.default is not None:
                    self.error(
                        loc + ("default",),
                        "bad-default",
                        f"input `{name}` is a tensor: its default can only be null",
                        _null_hint(spec.default)
                        or f"for a Python value give its type: `{name}: {{type: int, default: ...}}`",
                    )
                if spec.axes is not None:
                    self.error(
                        loc + ("axes",),
                        "conflicting-keys",
                        "`axes` are of the tensor inputs `build` sees, not of keyword ones",
                        key=True,
                    )
                continue
            for attr in ("rank", "min_rank", "dtype", "axes"):
                if getattr(spec, attr) is not None:
                    self.error(
                        loc + (attr,),
                        "conflicting-keys",
                        f"`{attr}` is of tensors; `{name}` is a Python {spec.type}",
                        key=True,
                    )
            if spec.default is not None:
                problem = value_problem(Param(type=spec.type), spec.default)
                if problem:
                    self.error(
                        loc + ("default",),
                        "bad-default",
                        f"default of `{name}` {problem}",
                        _null_hint(spec.default),
                    )
        if specs and not any(s is None or not s.keyword for s in specs.values()):
            self.error(
                ("inputs",),
                "missing-key",
                "a layer takes at least one tensor input without a default",
                "the first input is the tensor the layer is called on: remove its `default`",
                key=True,
            )

    def _check_causal(self, name: str, spec: Input) -> None:
        """`causal: x`: a bool argument that, true, makes each step of the outputs depend on
        the steps of the tensor input `x` up to it alone (issue 39)."""
        loc = ("inputs", name, "causal")
        if not spec.keyword or spec.type != "bool":
            self.error(
                loc,
                "conflicting-keys",
                f"`causal` is of bool keyword inputs (`use_causal_mask`); `{name}` is not one",
                f"give `{name}` `type: bool` and a default, or remove `causal`",
                key=True,
            )
        elif spec.causal not in self.result.inputs:
            self.error(
                loc,
                "unknown-input",
                f"`{spec.causal}` is not a tensor input: `causal` names the one whose steps"
                f" `{name}` orders",
                did_you_mean(spec.causal, self.result.inputs)
                or f"the tensor inputs: {', '.join(self.result.inputs)}",
            )

    def _check_cache(self, name: str, spec: Input) -> None:
        """`cache: {of: x, index: i, shape: ...}`: a keyword tensor through which `call`
        decodes `x` step by step, writing at the keyword input `i`, and which it returns
        updated as the output of the same name (issue 35)."""
        loc = ("inputs", name, "cache")
        keywords = self.result.keywords
        if not spec.keyword or spec.type != "tensor":
            self.error(
                loc,
                "conflicting-keys",
                f"`cache` is of keyword tensors (`cache: {{default: null}}`); `{name}` is not one",
                f"give `{name}` `default: null`, or remove `cache`",
                key=True,
            )
        elif spec.cache.of not in self.result.inputs:
            self.error(
                loc + ("of",),
                "unknown-input",
                f"`{spec.cache.of}` is not a tensor input: `of` names the one the cache decodes",
                did_you_mean(spec.cache.of, self.result.inputs)
                or f"the tensor inputs: {', '.join(self.result.inputs)}",
            )
        elif spec.cache.index not in keywords or spec.cache.index == name:
            self.error(
                loc + ("index",),
                "unknown-input",
                f"`{spec.cache.index}` is not a keyword input: `index` names the one that says"
                " where a step is written",
                did_you_mean(spec.cache.index, [k for k in keywords if k != name]),
            )
        elif name not in (self.decl.outputs or {}):
            self.error(
                loc,
                "conflicting-keys",
                f"the updated cache is returned as the output `{name}`, which `outputs` lacks",
                f"add `{name}: {{shape: {name}, when: {name} is not None}}` to `outputs`",
                key=True,
            )

    def _check_masks(self, name: str, spec: Input) -> None:
        """`masks: x`: a keyword tensor that hides steps of the tensor input `x` (issue 39)."""
        loc = ("inputs", name, "masks")
        if not spec.keyword or spec.type != "tensor":
            what = (
                "a tensor input without a default" if not spec.keyword else f"a Python {spec.type}"
            )
            self.error(
                loc,
                "conflicting-keys",
                f"`masks` is of keyword tensor inputs (a padding mask); `{name}` is {what}",
                "give `masks` to a tensor input with `default: null`, or remove it",
                key=True,
            )
        elif spec.masks not in self.result.inputs:
            self.error(
                loc,
                "unknown-input",
                f"`{spec.masks}` is not a tensor input: `masks` names the one `{name}` hides steps of",
                did_you_mean(spec.masks, self.result.inputs)
                or f"the tensor inputs: {', '.join(self.result.inputs)}",
            )

    def _check_no_dict_returned(self, code: Code) -> None:
        """Under `output_type: dict`, `call` returns a tuple in the declared order (layergen
        builds the dict from it), or a dict literal keyed by exactly the declared names."""
        names = list(self.decl.outputs or {})
        for node in returned_values(code):
            if not isinstance(node, cst.Dict):
                continue
            keys = [
                (
                    e.key.evaluated_value
                    if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                    else None
                )
                for e in node.elements
            ]
            if sorted(k for k in keys if k is not None) == sorted(names) and None not in keys:
                continue
            line, col = code.locate(node)
            self.errors.append(
                Diagnostic(
                    self.doc.path,
                    line,
                    col,
                    "bad-return",
                    "with `output_type: dict`, `call` returns a dict keyed by exactly the "
                    f"names in `outputs` ({', '.join(names)}), or the outputs as a tuple",
                    _dict_hint(keys, names),
                )
            )

    def _check_other_kind(self) -> None:
        decl = self.decl
        for key in LAYER_ONLY_KEYS:
            if getattr(decl, key):
                self.error(
                    (key,),
                    "not-for-kind",
                    f"`{key}` is for layers, not for a {self.kind}",
                    key=True,
                )
        if decl.call is None:
            if "call" not in self.ignore:
                self.error(
                    (self.kind,),
                    "missing-key",
                    f"a {self.kind} needs `call`, the body of its method",
                )
        elif not isinstance(decl.call, str):
            self.error(
                ("call",),
                "not-for-kind",
                f"a {self.kind} has no training branch: give `call` as code",
            )
        else:
            self.code(("call",), decl.call, set(self.result.inputs), self.members)
        if decl.init is not None:
            self.code(("init",), decl.init, set(self.result.params), set(), expression=False)

    def _check_hand_written(self) -> None:
        """`hand_written` names members of the class: ones layergen writes, or declared methods."""
        known = KINDS[self.kind].generated_methods | set(self.decl.methods)
        for index, name in enumerate(self.decl.hand_written):
            if name not in known:
                self.error(
                    ("hand_written", index),
                    "unknown-member",
                    f"the class has no member `{name}` to leave to you",
                    did_you_mean(name, known) or f"members: {', '.join(sorted(known))}",
                )

    def _check_ops_and_methods(self) -> None:
        forward = KINDS[self.kind].method
        if forward in self.decl.methods and self.decl.call is not None:
            self.error(
                ("methods", forward),
                "conflicting-keys",
                f"both `call` and a method named `{forward}` give the forward pass",
                f"keep one: the `call` key, or the method `{forward}`",
                key=True,
            )
        for name, op in self.decl.ops.items():
            loc = ("ops", name)
            self._arguments(loc + ("args",), op.args, "op argument", template_names.OP_ARGUMENT)
            args = set(op.args)
            self.code(loc + ("forward",), op.forward, args, self.members)
            if isinstance(op.gradient, str):
                # An expression, as the format says: the generated test evaluates it as the expected gradient.
                self.code(
                    loc + ("gradient",),
                    op.gradient,
                    args | {"upstream"},
                    self.members,
                    expression=True,
                )
            else:
                for arg, gradient in op.gradient.items():
                    if arg not in args:
                        self.error(
                            loc + ("gradient", arg),
                            "unknown-arg",
                            f"`{arg}` is not an argument of op `{name}`",
                            did_you_mean(arg, args),
                            key=True,
                        )
                    self.code(
                        loc + ("gradient", arg),
                        gradient,
                        args | {"upstream"},
                        self.members,
                        expression=True,
                    )
        for name, method in self.decl.methods.items():
            loc = ("methods", name)
            self._arguments(
                loc + ("args",),
                method.args,
                "method argument",
                template_names.METHOD_ARGUMENT,
                defaults=True,
            )
            # `**kwargs` is refused above; its name stays known so the body is not blamed too.
            names = {arg.split("=", 1)[0].strip().lstrip("*") for arg in method.args}
            self.code(loc + ("body",), method.body, names, self.members, expression=False)

    def _arguments(
        self,
        loc: tuple,
        args: list[str],
        what: str,
        taken: frozenset[str],
        *,
        defaults: bool = False,
    ) -> None:
        """`defaults`: an argument may be `name=default`, the default an expression over
        the module's names (evaluated where the method is defined)."""
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
                    self.code(loc + (i,), default, set(), set(), expression=True)
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

    def _star_argument(self, loc: tuple, index: int, args: list[str], what: str) -> None:
        """`*args` or `**kwargs` in a method's args: one error that says what to write (issue 39)."""
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

    def _check_example(self) -> None:
        example = self.decl.example
        for name, value in example.params.items():
            loc = ("example", "params", name)
            param = self.result.params.get(name)
            if param is None:
                if name in self.ignore:
                    continue
                # A base class's own argument, where layergen knows the class's arguments.
                base = layer_classes().get(self.decl.base) if self.decl.base else None
                if self.decl.base is None or (base is not None and name not in base):
                    known = sorted({*self.result.params, *(base or ())})
                    self.error(
                        loc,
                        "unknown-param",
                        f"`{name}` is not a param"
                        + (f" nor an argument of `{self.decl.base}`" if base else ""),
                        did_you_mean(name, known),
                        key=True,
                    )
                continue
            if param.type in OBJECT_TYPES and value is not None:
                if isinstance(value, str):
                    self.code(loc, value, set(), set(), expression=True)
                else:
                    self.error(
                        loc,
                        "bad-example",
                        f"example value of `{name}` is Python code that makes the {param.type},"
                        f" got {value!r}",
                        f'quote an expression: {name}: "keras.layers.Dense(3)"',
                    )
                continue
            problem = value_problem(param, value) if value is not None else None
            if problem:
                self.error(loc, "bad-example", f"example value of `{name}` {problem}")
        for name, param in self.result.params.items():
            if param.type in OBJECT_TYPES and param.required and name not in example.params:
                self.error(
                    ("params", name),
                    "missing-example",
                    f"required {param.type} param `{name}` has no example value to test with",
                    f'give one in `example.params`: {name}: "keras.layers.Dense(4)"',
                    key=True,
                )
        if "example" in self.doc.data:
            for name, param in self.result.params.items():
                if param.type in OBJECT_TYPES:
                    continue  # reported above
                if param.required and name not in example.params:
                    self.error(
                        ("example",),
                        "missing-example",
                        f"the example does not give required param `{name}`",
                        f"add `{name}` to `example.params`",
                        key=True,
                    )
        tensors = self.result.inputs  # what example shapes and dtypes are given for
        self._check_call_args()
        shapes = example.input_shape
        if isinstance(shapes, dict):
            for name in shapes:
                if name not in tensors:
                    self.error(
                        ("example", "input_shape", name),
                        "unknown-input",
                        f"`{name}` is not an input",
                        did_you_mean(name, tensors),
                        key=True,
                    )
            for name in self.result.inputs:
                if self.kind == "layer" and name not in shapes:
                    self.error(
                        ("example", "input_shape"),
                        "missing-example",
                        f"the example gives no shape for input `{name}`",
                    )
        elif shapes is not None and self.kind == "layer" and len(self.result.inputs) > 1:
            self.error(
                ("example", "input_shape"),
                "bad-example",
                "a layer with several inputs needs `input_shape` as a mapping per input",
            )
        for name, shape in (
            shapes.items()
            if isinstance(shapes, dict)
            else [(None, shapes)] if shapes is not None else []
        ):
            loc = ("example", "input_shape") + ((name,) if name is not None else ())
            if (
                len(shape) > MAX_RANK
                or any(d < 1 for d in shape)
                or math.prod(shape) > MAX_EXAMPLE_SIZE
            ):
                self.error(
                    loc,
                    "bad-example",
                    f"an example shape has at most {MAX_RANK} dims, each at least 1, and at most {MAX_EXAMPLE_SIZE} elements: {shape}",
                )
        dtypes = example.input_dtype
        for name, dtype in (
            dtypes.items()
            if isinstance(dtypes, dict)
            else [(None, dtypes)] if dtypes is not None else []
        ):
            loc = ("example", "input_dtype") + ((name,) if name is not None else ())
            if name is not None and name not in tensors:
                self.error(
                    loc,
                    "unknown-input",
                    f"`{name}` is not an input",
                    did_you_mean(name, tensors),
                    key=True,
                )
            if dtype not in DTYPES:
                self.error(
                    loc, "bad-dtype", f"unknown dtype `{dtype}`", did_you_mean(dtype, DTYPES)
                )
        if example.input_range is not None and len(example.input_range) != 2:
            self.error(("example", "input_range"), "bad-example", "`input_range` is `[low, high]`")
        elif (
            example.input_range is not None and not example.input_range[0] < example.input_range[1]
        ):
            self.error(
                ("example", "input_range"),
                "bad-example",
                "`input_range` is `[low, high]` with low below high",
            )
        if self.kind == "layer":
            self._check_stated_numbers()

    def _check_call_args(self) -> None:
        """`example.call_args`: a value for keyword inputs (nested lists for a tensor)."""
        keywords = self.result.keywords
        for name, value in self.decl.example.call_args.items():
            loc = ("example", "call_args", name)
            spec = keywords.get(name)
            if spec is None:
                hint = did_you_mean(name, keywords) or (
                    "`call_args` gives values to inputs that have a `default`"
                )
                self.error(loc, "unknown-input", f"`{name}` is not a keyword input", hint, key=True)
            elif spec.type == "tensor":
                shape = _array_shape(value, bools=True)
                if shape is None:
                    self.error(
                        loc,
                        "bad-example",
                        f"`{name}` is a tensor: give an array (nested lists of numbers or booleans)",
                    )
                elif self.decl.inputs[name].masks in self.result.inputs:
                    self._check_example_mask(name, value, shape)
            elif value is not None and (problem := value_problem(Param(type=spec.type), value)):
                self.error(loc, "bad-example", f"example value of `{name}` {problem}")

    def _check_example_mask(self, name: str, value: Any, shape: tuple[int, ...]) -> None:
        """The example's value of a `masks` argument: over the leading axes of the input it
        masks, hiding at least one step (else its test would check nothing)."""
        masked = self.decl.inputs[name].masks
        shapes = self.decl.example.input_shape
        given = shapes.get(masked) if isinstance(shapes, dict) else shapes
        loc = ("example", "call_args", name)
        if given is not None and (not shape or list(given[: len(shape)]) != list(shape)):
            self.error(
                loc,
                "bad-example",
                f"`{name}` masks `{masked}`: its shape is the leading axes of `{masked}`'s"
                f" example shape {tuple(given)}, not {shape}",
                f"give one entry per step of `{masked}`'s first {max(len(shape), 2)} axes",
            )
        elif all(_flat(value)):
            self.error(
                loc,
                "bad-example",
                f"the example's `{name}` hides no step of `{masked}`: its test would check nothing",
                "make some entries false (or 0)",
            )

    def _check_stated_numbers(self) -> None:
        """`example.inputs`, `expected`, `weights`, `reference` and `statistics` (issue 13)."""
        example, decl, inputs = self.decl.example, self.decl, self.result.inputs
        # The outputs every call returns: stated numbers leave those under a `when` out.
        always = [
            n
            for n, s in (decl.outputs or {}).items()
            if not (isinstance(s, Output) and s.when is not None and s.when is not True)
        ]
        outputs = always if len(always) > 1 else None
        for key, names, what in (
            ("inputs", inputs if len(inputs) > 1 else None, "input"),
            ("expected", outputs, "output"),
            ("expected_training", outputs, "output"),
        ):
            value = getattr(example, key)
            if value is None:
                continue
            if key != "inputs" and example.inputs is None:
                self.error(
                    ("example", key), "bad-example", f"`{key}` needs `example.inputs`", key=True
                )
            if names is None and isinstance(value, dict):
                self.error(
                    ("example", key),
                    "bad-example",
                    f"one {what}: give `{key}` as an array, not a mapping",
                )
            elif names is not None and (not isinstance(value, dict) or set(value) != set(names)):
                self.error(
                    ("example", key),
                    "bad-example",
                    f"give `{key}` as a mapping {what} name -> array, for {', '.join(names)}",
                )
            for name, array in value.items() if isinstance(value, dict) else [(None, value)]:
                if _array_shape(array) is None:
                    loc = ("example", key) + (
                        (name,) if name is not None and name in (names or []) else ()
                    )
                    self.error(
                        loc,
                        "bad-example",
                        "not an array: nested lists of numbers, the same length at each level",
                    )
        for name, array in example.weights.items():
            if name not in decl.weights:
                self.error(
                    ("example", "weights", name),
                    "unknown-weight",
                    f"`{name}` is not a weight",
                    did_you_mean(name, decl.weights),
                    key=True,
                )
            elif _array_shape(array) is None:
                self.error(
                    ("example", "weights", name),
                    "bad-example",
                    "not an array: nested lists of numbers",
                )
        params, weights = set(self.result.params), set(decl.weights)
        if example.reference is not None:
            keywords = set(self.result.keywords)
            self.code(
                ("example", "reference"),
                example.reference,
                set(inputs) | keywords | {"np"},
                params | weights,
            )
        for i, statistic in enumerate(example.statistics):
            if not decl.random:
                self.error(
                    ("example", "statistics"),
                    "bad-example",
                    "`statistics` are of random layers (`random: true`)",
                    key=True,
                )
                break
            self.code(
                ("example", "statistics", i, "of"),
                statistic.of,
                set(inputs) | {"outputs"},
                params,
                expression=True,
            )

    # -- pieces ------------------------------------------------------------

    def _shape(self, loc: tuple, value: Any, inputs: set[str], params: set[str]) -> None:
        what = "name in shape"
        if not isinstance(value, list):
            self.code(loc, str(value), inputs, params, expression=True, what=what)
            return
        # A list: each dim is checked where it was written, then the tuple is built from them.
        ok = True
        for i, item in enumerate(value):
            if isinstance(item, str):
                ok = (
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
                    is not None
                    and ok
                )
        if ok:
            text = (
                "(" + "".join(f"{item}\n, " for item in value) + ")"
            )  # a dim's comment ends at its line
            where = self.doc.pos(loc)
            self.code(
                loc,
                text,
                inputs,
                params,
                expression=True,
                what=what,
                report=False,
                pos=Pos(where.line, where.col),
            )

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

    def _keras_object(self, loc: tuple, value: str, kind: str) -> None:
        """A weight's initializer, regularizer or constraint: a param, a Keras name, or an expression."""
        if value.isidentifier():
            param = self.result.params.get(value)
            if param is not None:
                if param.type != kind:
                    self.error(
                        loc, "wrong-type", f"param `{value}` has type {param.type}, not {kind}"
                    )
                self.code(loc, value, set(), {value}, expression=True)
                return
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
            return
        self.code(loc, value, set(), set(self.result.params), expression=True)

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

    def _args(self, loc: tuple, args: dict[str, Any], class_: str) -> None:
        """A sublayer's arguments: expressions over the params and, as in a weight's shape,
        the input shapes (such a sublayer is created in `build`). Keywords of Keras's own
        classes are checked against the table of their constructors."""
        shapes = set(self.result.shaped)
        takes = layer_classes().get(class_)
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
            if isinstance(value, str):
                code = self.code(
                    loc + (name,), value, set(self.result.params) | shapes, set(), expression=True
                )
                if code is not None and value.strip().isidentifier():
                    self.bare_words[id(code)] = (name, value.strip())


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
    ok = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "list[int]": lambda v: isinstance(v, list)
        and all(isinstance(i, int) and not isinstance(i, bool) for i in v),
        "list[float]": lambda v: isinstance(v, list)
        and all(isinstance(i, (int, float)) and not isinstance(i, bool) for i in v),
        "list[str]": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "dtype": lambda v: v in DTYPES,
    }
    if kind == "dtype" and not isinstance(value, str):
        return f"must be a dtype name, got {value!r}"
    if kind in IDENTIFIERS:
        if not isinstance(value, (str, dict)):
            return f"must be a Keras {kind} name, got {value!r}"
        if isinstance(value, str) and value not in IDENTIFIERS[kind]:
            hint = did_you_mean(value, IDENTIFIERS[kind])
            return f"is not a Keras {kind}: {value!r}" + (f" ({hint})" if hint else "")
        return None
    if not ok[kind](value):
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
