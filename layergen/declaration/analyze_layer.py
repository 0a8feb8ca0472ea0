"""Checks of a layer's members and code, of the other kinds, and of ops and methods
(part of `analyze`).
"""

from __future__ import annotations

import re

import libcst as cst

from ..diagnostics import Diagnostic, did_you_mean
from ..keras_names import DTYPES
from ..kinds import KINDS, LAYER_ONLY_KEYS
from . import layouts
from . import reserved as template_names  # `reserved` names a flag below
from .analyze_values import MAX_RANK, _dict_hint
from .code import Code, bound_names, returned_values, shape_rank
from .model import Output

# A weight's Keras name: a part of its variable path (TensorFlow takes ASCII names only).
WEIGHT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class LayerChecks:
    """Mixed into `_Analyzer` (`analyze.py`): its methods use the analyzer's state."""

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
