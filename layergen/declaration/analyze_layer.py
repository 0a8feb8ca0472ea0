"""Checks of a layer's members and code, of the other kinds, and of ops and methods
(part of `analyze`).
"""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst

from ..diagnostics import Diagnostic, did_you_mean
from ..keras_names import DTYPES
from ..kinds import KINDS, LAYER_ONLY_KEYS
from . import layouts, model
from . import reserved as template_names  # `reserved` names a flag below
from .analyze_values import MAX_RANK, _dict_hint
from .code import Code, bound_names, parse, resolve, returned_values, shape_rank
from .ir import (
    Body,
    Branches,
    Cache,
    Construction,
    Keyword,
    Method,
    Op,
    Shape,
    Sublayer,
    Weight,
)
from .model import Output
from .sections import SECTIONS
from .yamlfile import Pos

# A weight's Keras name: a part of its variable path (TensorFlow takes ASCII names only).
WEIGHT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class LayerChecks:
    """Mixed into `_Analyzer` (`analyze.py`): its methods use the analyzer's state."""

    def _check_layer(self) -> Body:
        """A layer's sections, each built into its piece of the IR."""
        decl = self.decl
        inputs = set(self.result.inputs)
        params = set(self.result.params)
        calls = inputs | {"training"} | ({"mask"} if decl.masking not in (None, False) else set())
        calls |= set(self.result.keywords)
        self._check_keywords()
        self._check_input_specs()
        self._check_weight_names()
        weights = tuple(self._check_weight(name, w) for name, w in decl.weights.items())
        sublayers = tuple(self._check_sublayer(name, s) for name, s in decl.sublayers.items())
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
        call = self._check_call(calls)
        bound = bound_names(decl.call) if isinstance(decl.call, str) else set()
        losses = tuple(
            self.code(
                ("losses", i) if isinstance(loss, str) else ("losses", i, "value"),
                loss if isinstance(loss, str) else loss.value,
                calls | bound,
                self.members,
                expression=True,
            )
            for i, loss in enumerate(decl.losses)
        )
        updates = {
            name: self._check_update(name, update, calls) for name, update in decl.updates.items()
        }
        compute_mask = None
        if isinstance(decl.masking, str):
            compute_mask = self.code(
                ("masking",), decl.masking, inputs | {"mask"}, self.members, expression=True
            )
        output_shape, outputs, output_when = self._check_outputs()
        init = None
        if decl.init is not None:
            init = self.code(("init",), decl.init, params, set(), expression=False)
        return Body(
            weights=weights,
            sublayers=sublayers,
            call=call,
            losses=losses,
            updates=updates,
            compute_mask=compute_mask,
            output_shape=output_shape,
            outputs=outputs,
            output_when=output_when,
            init=init,
            sections={key: self.section(key) for key in SECTIONS},
        )

    def _check_input_specs(self) -> None:
        """An input's dtype, the params its fixed axes name, its rank bounds."""
        for name, spec in (self.decl.inputs or {}).items():
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

    def _check_weight(self, name: str, weight: model.Weight) -> Weight | None:
        """A weight, or None when a problem with it was reported."""
        reported = len(self.errors)
        loc = ("weights", name)
        shaped = set(self.result.shaped)  # what `build` knows the shape of
        params = set(self.result.params)
        shape = self._shape(loc + ("shape",), weight.shape, shaped, params)
        objects = {}
        for attr in ("initializer", "regularizer", "constraint"):
            value = getattr(weight, attr)
            objects[attr] = (
                self._keras_object(loc + (attr,), value, attr) if value is not None else None
            )
        created = weight.when if isinstance(weight.when, bool) else True
        if isinstance(weight.when, str):
            created = self.code(loc + ("when",), weight.when, shaped, params, expression=True)
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
            inputs = set(self.result.inputs)
            rank = shape_rank(shape.code, inputs) if shape is not None else len(weight.layout)
            self._layout(loc + ("layout",), weight.layout, rank)
        if len(self.errors) > reported:
            return None
        return Weight(
            name=name,
            shape=shape,
            initializer=objects["initializer"],
            regularizer=objects["regularizer"],
            constraint=objects["constraint"],
            trainable=weight.trainable,
            dtype=weight.dtype,
            created=created,
            autocast=weight.autocast and self.decl.compute_dtype != "float32",
            layout=tuple(weight.layout) if weight.layout is not None else None,
            aggregation=weight.aggregation,
            keras_name=weight.name or name.lstrip("_"),
        )

    def _check_sublayer(self, name: str, sub: model.Sublayer) -> Sublayer:
        """A sublayer as far as it parsed: where it is created is known only once names are
        resolved (`_finish_sublayer`), and the problems found stop the IR, not this draft."""
        loc = ("sublayers", name)
        shaped = set(self.result.shaped)
        params = set(self.result.params)
        if sub.class_ is None and sub.layers is None:
            self.error(
                loc,
                "missing-key",
                "a sublayer needs `class` (or `layers`, for a keras.Sequential)",
            )
        if sub.class_ is not None:
            self._dotted(loc + ("class",), sub.class_)
        own = self._args(loc + ("args",), sub.args, sub.class_ or "keras.Sequential")
        created = sub.when if isinstance(sub.when, bool) else True
        if isinstance(sub.when, str):
            created = self.code(loc + ("when",), sub.when, shaped, params, expression=True)
        build = None
        if isinstance(sub.build, dict):  # its build's arguments: `query_shape: x`
            build = {}
            for key, shape in sub.build.items():
                self._identifier(loc + ("build", key), key, "argument", reserved=False)
                build[key] = self._shape(loc + ("build", key), shape, shaped, params)
        elif sub.build is not None:
            build = self._shape(loc + ("build",), sub.build, shaped, params)
        sequence = None
        if sub.layers is not None:
            sequence = []
            for i, item in enumerate(sub.layers):
                self._dotted(loc + ("layers", i, "class"), item.class_)
                sequence.append(self._args(loc + ("layers", i, "args"), item.args, item.class_))
            sequence = tuple(sequence)
        keras_name = layouts.sublayer_name(name, sub.args)
        if sub.layout is not None:
            self._sublayer_layout(loc, sub.layout, keras_name)
        return Sublayer(
            name=name,
            class_=own.class_,
            args=own.args,
            sequence=sequence,
            reads_input_shapes=sub.create == "build",  # or its args do: `_finish_sublayer`
            layout={path: tuple(axes) for path, axes in (sub.layout or {}).items()},
            keras_name=keras_name,
            created=created,
            build=build,
        )

    def _check_call(self, calls: set[str]) -> Code | Branches | None:
        """The forward pass: one snippet, a training branch and an inference one, or the one
        layergen writes when `call` is left out."""
        decl = self.decl
        if decl.call is None:
            return self._written_call()
        if isinstance(decl.call, str):
            forwards = [self.code(("call",), decl.call, calls, self.members)]
        else:
            forwards = [
                self.code(("call", branch), getattr(decl.call, branch), calls, self.members)
                for branch in ("train", "infer")
            ]
        if decl.output_type == "dict":
            for code in forwards:
                if code is not None:
                    self._check_no_dict_returned(code)
        return forwards[0] if isinstance(decl.call, str) else Branches(*forwards)

    def _written_call(self) -> Code | None:
        """The forward pass layergen writes for a layer without `call`: the identity, or
        the base class's call (plus the updates and losses); None: the base class's as is."""
        decl = self.decl
        if decl.base is not None and not (decl.updates or decl.losses):
            return None
        inputs = self.result.inputs
        arg = "inputs" if len(inputs) > 1 else inputs[0]
        forward = f"super().call({arg})" if decl.base is not None else arg
        code = parse(forward, Pos(1, 1), self.doc.path, expression=True)
        resolve([code])
        return code

    def _check_update(self, name: str, update: str, calls: set[str]) -> Code | None:
        decl, loc = self.decl, ("updates", name)
        if name not in decl.weights:
            if name in self.ignore:
                return None
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
        return self.code(loc, update, calls, self.members, expression=True)

    def _check_outputs(
        self,
    ) -> tuple[Shape | None, dict[str, Shape | None] | None, dict[str, Code | bool | None]]:
        """The output shape, or the named outputs' shapes and the conditions of those
        returned only sometimes."""
        decl = self.decl
        params = set(self.result.params)
        first = len(self.scopes)
        if decl.output_shape is not None and decl.outputs is not None:
            self.error(
                ("outputs",),
                "conflicting-keys",
                "give `output_shape` or `outputs`, not both",
                key=True,
            )
        # Output shapes may read the keyword inputs: a value, or a tensor's shape (None when
        # not given); `compute_output_shape` then takes them.
        outputs_see = set(self.result.inputs) | set(self.result.keywords)
        output_shape = None
        if decl.output_shape is not None:
            output_shape = self._shape(("output_shape",), decl.output_shape, outputs_see, params)
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
        shapes: dict[str, Shape | None] = {}
        when: dict[str, Code | bool | None] = {}
        for name, shape in (decl.outputs or {}).items():
            self._identifier(("outputs", name), name, "output", reserved=False)
            if not isinstance(shape, Output):
                shapes[name] = self._shape(("outputs", name), shape, outputs_see, params)
                continue
            loc = ("outputs", name, "when")
            shapes[name] = self._shape(("outputs", name, "shape"), shape.shape, outputs_see, params)
            if isinstance(shape.when, str):
                when[name] = self.code(loc, shape.when, outputs_see, params, expression=True)
            elif shape.when is not None and shape.when is not True:
                when[name] = shape.when
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
        read = self._parsed_since(first)  # every snippet of the outputs
        self.after_resolve.append(lambda: self._check_output_shape_names(read))
        return output_shape, shapes if decl.outputs is not None else None, when

    def _check_caches(self) -> tuple[Keyword, ...]:
        """The keyword inputs, each cache's shape parsed (a misplaced cache's too: its
        problems are reported as well)."""
        inputs, params = set(self.result.inputs), set(self.result.params)
        caches = {}
        for name, spec in (self.decl.inputs or {}).items():
            if spec is not None and spec.cache is not None:
                loc = ("inputs", name, "cache", "shape")
                shape = self._shape(loc, spec.cache.shape, inputs, params)
                of = (spec.cache.of,) if isinstance(spec.cache.of, str) else tuple(spec.cache.of)
                caches[name] = Cache(of, spec.cache.index, shape, spec.cache.mask)
        return tuple(
            Keyword(n, s.type, s.default, s.doc, s.dtype, s.masks, s.causal, caches.get(n))
            for n, s in self.result.keywords.items()
        )

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

    def _finish_sublayer(self, sub: Sublayer) -> Sublayer:
        """Once names are resolved: a sublayer whose args or `when` read an input's shape is
        created in `build`, which `create: init` refuses."""
        inputs = set(self.result.shaped)
        parts = [Construction(sub.class_, sub.args), *(sub.sequence or ())]
        created = [sub.created] if isinstance(sub.created, Code) else []
        if self.decl.sublayers[sub.name].create == "init":
            codes = [v for c in parts for v in c.args.values() if isinstance(v, Code)]
            for what, found in (("its args read", codes), ("its `when` reads", created)):
                if any(f.name in inputs for code in found for f in code.free):
                    self.error(
                        ("sublayers", sub.name, "create"),
                        "conflicting-keys",
                        f"{what} an input's shape, known only in `build`",
                        "`create: build`, or args over the params alone",
                    )
                    break
        constructions = sub.sequence if sub.sequence is not None else [parts[0]]
        codes = [v for c in constructions for v in c.args.values() if isinstance(v, Code)]
        reads = any(f.name in inputs for code in codes + created for f in code.free)
        return replace(sub, reads_input_shapes=sub.reads_input_shapes or reads)

    def _check_output_shape_names(self, outputs: list[Code]) -> None:
        """When the output shapes read `call`'s keyword inputs, `compute_output_shape` takes
        them (a tensor as `<name>_shape`) beside its own names: none may be one of those."""
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

    def _check_other_kind(self) -> Body:
        """A constraint's or a loss's body: its `call` and `init`, no layer sections."""
        decl = self.decl
        call = None
        for key in dict.fromkeys((*LAYER_ONLY_KEYS, *SECTIONS)):
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
            call = self.code(("call",), decl.call, set(self.result.inputs), self.members)
        init = None
        if decl.init is not None:
            init = self.code(("init",), decl.init, set(self.result.params), set(), expression=False)
        return Body(call=call, init=init)

    def _check_hand_written(self) -> None:
        """`hand_written` names members of the class: ones layergen writes (its docstring,
        `__doc__`, among them), declared methods or ops."""
        known = {"__doc__", *KINDS[self.kind].generated_methods, *self.decl.methods, *self.decl.ops}
        for index, name in enumerate(self.decl.hand_written):
            if name not in known:
                self.error(
                    ("hand_written", index),
                    "unknown-member",
                    f"the class has no member `{name}` to leave to you",
                    did_you_mean(name, known) or f"members: {', '.join(sorted(known))}",
                )

    def _check_ops_and_methods(self) -> tuple[tuple[Op | None, ...], tuple[Method | None, ...]]:
        forward = KINDS[self.kind].method
        if forward in self.decl.methods and self.decl.call is not None:
            self.error(
                ("methods", forward),
                "conflicting-keys",
                f"both `call` and a method named `{forward}` give the forward pass",
                f"keep one: the `call` key, or the method `{forward}`",
                key=True,
            )
        ops = tuple(self._check_op(name, op) for name, op in self.decl.ops.items())
        methods = tuple(self._check_method(name, m) for name, m in self.decl.methods.items())
        return ops, methods

    def _check_op(self, name: str, op: model.Op) -> Op | None:
        """A custom-gradient op, or None when a problem with it was reported."""
        reported = len(self.errors)
        loc = ("ops", name)
        self._arguments(loc + ("args",), op.args, "op argument", template_names.OP_ARGUMENT)
        args = set(op.args)
        forward = self.code(loc + ("forward",), op.forward, args, self.members)
        gradient, gradients = None, {}
        if isinstance(op.gradient, str):
            # An expression, as the format says: the generated test evaluates it as the expected gradient.
            gradient = self.code(
                loc + ("gradient",),
                op.gradient,
                args | {"upstream"},
                self.members,
                expression=True,
            )
        else:
            for arg, given in op.gradient.items():
                if arg not in args:
                    self.error(
                        loc + ("gradient", arg),
                        "unknown-arg",
                        f"`{arg}` is not an argument of op `{name}`",
                        did_you_mean(arg, args),
                        key=True,
                    )
                gradients[arg] = self.code(
                    loc + ("gradient", arg),
                    given,
                    args | {"upstream"},
                    self.members,
                    expression=True,
                )
            gradients = {arg: gradients.get(arg) for arg in op.args}  # None: zeros
        if len(self.errors) > reported:
            return None
        return Op(name, tuple(op.args), forward, gradient, gradients)

    def _check_method(self, name: str, method: model.Method) -> Method | None:
        """A declared method, or None when a problem with it was reported."""
        reported = len(self.errors)
        loc = ("methods", name)
        defaults = self._arguments(
            loc + ("args",),
            method.args,
            "method argument",
            template_names.METHOD_ARGUMENT,
            defaults=True,
        )
        # `**kwargs` is refused above; its name stays known so the body is not blamed too.
        names = {arg.split("=", 1)[0].strip().lstrip("*") for arg in method.args}
        body = self.code(loc + ("body",), method.body, names, self.members, expression=False)
        if len(self.errors) > reported:
            return None
        # Each argument as `def` writes it: `name`, or `name=default` (the default parsed).
        args = tuple(
            f"{arg.split('=', 1)[0].strip()}={defaults[i].render()}" if "=" in arg else arg
            for i, arg in enumerate(method.args)
        )
        return Method(name, args, body)
