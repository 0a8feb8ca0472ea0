"""Checks of the example: its values, its masks and the numbers it states (part of `analyze`)."""

from __future__ import annotations

import math
from typing import Any

from ..diagnostics import did_you_mean
from ..keras_classes import layer_classes
from ..keras_names import DTYPES
from .analyze_values import MAX_RANK, _array_shape, _flat, value_problem
from .code import Code
from .ir import Example, Input, Keyword, Statistic, build_example

# OBJECT_TYPES: their example values are expressions, their only default is null, and
# `get_config` serializes them as Keras's wrappers do.
from .model import OBJECT_TYPES, Output

MAX_EXAMPLE_SIZE = 2**24  # elements in one example input: the generated tests allocate it


def evaluated(expression: str, names: dict[str, Any]) -> Any:
    """The value of a shape or `when` expression over the example's params and input
    shapes (`names`); None where it reads anything else (`self.x`, a call)."""
    try:
        return eval(expression, {"__builtins__": {}}, dict(names))
    except Exception:  # it reads what only a built layer knows
        return None


def _shape_of(shape: Any, names: dict[str, Any]) -> tuple[int, ...] | None:
    """A declared weight shape (an int, an expression, or a list of dims) as a tuple for
    the example, or None where it cannot be told here."""
    dims = shape if isinstance(shape, list) else [shape]
    values = [d if isinstance(d, int) else evaluated(str(d), names) for d in dims]
    if not isinstance(shape, list) and isinstance(values[0], (tuple, list)):
        values = list(values[0])  # one expression for the whole shape: `(x[-1], units)`
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return tuple(values)
    return None


class ExampleChecks:
    """Mixed into `_Analyzer` (`analyze.py`): its methods use the analyzer's state."""

    def _check_example(
        self, inputs: tuple[Input, ...], keywords: tuple[Keyword, ...]
    ) -> Example | None:
        """The example, its values checked; None when a problem was reported (here or before).
        `inputs` and `keywords`: the IR's call arguments."""
        example = self.decl.example
        objects: dict[str, Code] = {}  # the code that makes an object param's example value
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
                    objects[name] = self.code(loc, value, set(), set(), expression=True)
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
        self._check_call_args(example.call_args, ("example", "call_args"))
        self._check_example_inputs(
            ("example",), example.input_shape, example.input_dtype, example.input_range
        )
        for index, case in enumerate(example.call_cases):
            loc = ("example", "call_cases", index)
            self._check_call_args(case.args, loc + ("args",))
            if not case.args:
                self.error(
                    loc, "bad-example", "a call case gives `args`: the keyword arguments it passes"
                )
            self._check_example_inputs(loc, case.input_shape, case.input_dtype, case.input_range)
        reference, statistics = self._check_stated_numbers() if self.kind == "layer" else (None, ())
        self._check_original(example.original)
        if self.errors:  # the example fills in what it leaves out from a sound declaration
            return None
        built = build_example(
            self.decl,
            self.result.params,
            inputs,
            keywords,
            given_key="example" in self.doc.data,
            objects=objects,
            reference=reference,
            statistics=statistics,
        )
        self._check_stated_weight_shapes(built)
        return None if self.errors else built

    def _check_original(self, original: str | None) -> None:
        """`example.original` names a class by its import path, `package.module.Class`
        (imported only when its outputs are recorded: `layergen/golden.py`)."""
        parts = (original or "").split(".")
        if original is not None and (len(parts) < 2 or not all(p.isidentifier() for p in parts)):
            self.error(
                ("example", "original"),
                "bad-example",
                f"`{original}` is no class's import path",
                "give the module and the class: keras_hub.layers.TransformerDecoder",
            )

    def _check_stated_weight_shapes(self, example: Example) -> None:
        """Each of `example.weights` exists under the example's params and has the shape
        its declaration gives it there, over the shapes of the inputs the layer is built
        on (the stated ones, else the example's). A shape or `when` that reads more than
        params and input shapes (`self.x`) is left to the generated test."""
        stated = example.inputs
        shapes = {
            name: _array_shape(stated[name]) if stated is not None else shape
            for name, shape in example.input_shapes.items()
        }
        if stated is not None and len(shapes) == 1 and not isinstance(stated, dict):
            shapes = {name: _array_shape(stated) for name in shapes}
        names = {k: v for k, v in example.args.items() if not isinstance(v, Code)}
        names |= {name: tuple(shape) for name, shape in shapes.items() if shape is not None}
        for name, value in example.weights.items():
            weight = self.decl.weights.get(name)
            given = _array_shape(value)
            if weight is None or given is None:
                continue  # reported above
            loc = ("example", "weights", name)
            when = weight.when
            if when is False or (isinstance(when, str) and evaluated(when, names) is False):
                self.error(
                    loc,
                    "bad-example",
                    f"the example states weight `{name}`, which its params leave out:"
                    f" its `when: {when}` is false for them",
                    f"drop `{name}` from `example.weights`, or give params that make"
                    f" `weights.{name}.when` true",
                )
                continue
            declared = _shape_of(weight.shape, names)
            if declared is not None and declared != given:
                self.error(
                    loc,
                    "bad-example",
                    f"the stated `{name}` has shape {given}; declared `{weight.shape}`:"
                    f" {declared} for the example",
                    f"state a value of shape {declared}, or see `weights.{name}.shape`",
                )

    def _every_call(self) -> list[str]:
        """The keyword inputs `example.input_shape` names: passed in every call."""
        shapes = self.decl.example.input_shape
        return [k for k in self.result.keywords if isinstance(shapes, dict) and k in shapes]

    def _check_every_call(self, name: str, named: list[str]) -> None:
        """A keyword input `example.input_shape` names is a tensor the tests pass in every
        call, by position right after the tensor inputs (so, the first keyword inputs, in
        order), where no other test passes it by name."""
        loc = ("example", "input_shape", name)
        spec = self.result.keywords[name]
        keywords = list(self.result.keywords)
        every_call = [k for k in keywords if k in named]
        if spec.type != "tensor":
            self.error(
                loc,
                "bad-example",
                f"`{name}` is a Python {spec.type}, not a tensor: `input_shape` gives the"
                " shape of a keyword tensor the tests pass in every call",
                f"give `{name}` a value in `example.call_args` instead",
                key=True,
            )
        elif skipped := [k for k in keywords[: keywords.index(name)] if k not in every_call]:
            self.error(
                loc,
                "bad-example",
                f"the tests pass `{name}` in every call by position, after the tensor"
                f" inputs; keyword input{'s' if len(skipped) > 1 else ''}"
                f" {', '.join(f'`{k}`' for k in skipped)} come{'' if len(skipped) > 1 else 's'}"
                " before it in `inputs`",
                f"move `{name}` up in `inputs` to the first keyword input, as `call` takes it,"
                " or give those a shape here too",
                key=True,
            )
        elif len(self.result.inputs) > 1 and not self.decl.separate_inputs:
            self.error(
                loc,
                "bad-example",
                f"the tests pass `{name}` in every call after the tensor inputs, which this"
                " layer takes as one list",
                "declare `separate_inputs: true` where `call` takes its tensor inputs as"
                " arguments of their own",
                key=True,
            )
        elif self.decl.masking or "compute_mask" in self.decl.methods:
            self.error(
                loc,
                "conflicting-keys",
                f"Keras hands `call` no mask where it is called on two tensors, and the tests"
                f" pass `{name}` in every call as the second",
                f"drop `{name}` from `example.input_shape`, or the layer's `masking`",
                key=True,
            )
        elif spec.masks or spec.cache or spec.causal or name in self._cache_masks():
            what = "masks" if spec.masks else "cache" if spec.cache else "causal"
            self.error(
                loc,
                "conflicting-keys",
                f"`{name}` has a test of its own that passes it by name"
                f" ({f'`{what}`' if name not in self._cache_masks() else 'a cache mask'}):"
                " it cannot also be passed in every call",
                f"drop `{name}` from `example.input_shape`",
                key=True,
            )
        else:
            cases = [c.args for c in self.decl.example.call_cases]
            for where, args in [
                ("call_args", self.decl.example.call_args),
                *((f"call_cases[{i}].args", a) for i, a in enumerate(cases)),
            ]:
                if name in args:
                    self.error(
                        loc,
                        "conflicting-keys",
                        f"`{name}` is passed in every call (its shape is here) and given a"
                        f" value in `example.{where}`",
                        f"drop it from one of them: `example.{where}` calls the layer"
                        " once with it, `input_shape` in every call",
                        key=True,
                    )
                    break

    def _cache_masks(self) -> set[str]:
        return {s.cache.mask for s in self.result.keywords.values() if s.cache and s.cache.mask}

    def _check_example_inputs(self, prefix: tuple, input_shape, input_dtype, input_range) -> None:
        """The inputs' `input_shape`, `input_dtype` and `input_range` under `prefix`."""
        shapes = input_shape
        every_call = self._every_call()
        tensors = [*self.result.inputs, *every_call]
        if isinstance(shapes, dict):
            for name in shapes:
                if name in self.result.keywords and prefix == ("example",):
                    self._check_every_call(name, list(shapes))
                elif name in self.result.keywords:
                    self.error(
                        (*prefix, "input_shape", name),
                        "bad-example",
                        f"`{name}` is a keyword input the example's `input_shape` does not"
                        " name: a call case shapes the tensor inputs, and the keyword tensors"
                        " passed in every call",
                        f"give `{name}` a value in this call case's `args`",
                        key=True,
                    )
                elif name not in tensors:
                    self.error(
                        (*prefix, "input_shape", name),
                        "unknown-input",
                        f"`{name}` is not an input",
                        did_you_mean(name, [*self.result.inputs, *self.result.keywords]),
                        key=True,
                    )
            for name in tensors:
                if self.kind == "layer" and name not in shapes:
                    self.error(
                        (*prefix, "input_shape"),
                        "missing-example",
                        f"the example gives no shape for input `{name}`"
                        + (", which every call passes" if name in every_call else ""),
                        f"add `{name}: [...]` to `{'.'.join(map(str, (*prefix, 'input_shape')))}`",
                    )
        elif shapes is not None and self.kind == "layer" and len(tensors) > 1:
            self.error(
                (*prefix, "input_shape"),
                "bad-example",
                "a layer with several inputs needs `input_shape` as a mapping per input"
                + (f" (`{every_call[0]}` is passed in every call)" if every_call else ""),
            )
        for name, shape in (
            shapes.items()
            if isinstance(shapes, dict)
            else [(None, shapes)] if shapes is not None else []
        ):
            loc = (*prefix, "input_shape") + ((name,) if name is not None else ())
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
        dtypes = input_dtype
        for name, dtype in (
            dtypes.items()
            if isinstance(dtypes, dict)
            else [(None, dtypes)] if dtypes is not None else []
        ):
            loc = (*prefix, "input_dtype") + ((name,) if name is not None else ())
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
        if input_range is not None and len(input_range) != 2:
            self.error((*prefix, "input_range"), "bad-example", "`input_range` is `[low, high]`")
        elif input_range is not None and not input_range[0] < input_range[1]:
            self.error(
                (*prefix, "input_range"),
                "bad-example",
                "`input_range` is `[low, high]` with low below high",
            )

    def _check_example_mask(self, name: str, value: Any, shape: tuple[int, ...]) -> None:
        """The example's value of a `masks` argument: over the leading axes of the input it
        masks, hiding at least one step (else its test would check nothing)."""
        masked = self.decl.inputs[name].masks
        shapes = self.decl.example.input_shape
        given = shapes.get(masked) if isinstance(shapes, dict) else shapes
        if masked not in self.result.inputs:  # a keyword tensor: its example value's shape
            given = _array_shape(self.decl.example.call_args.get(masked), bools=True)
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

    def _check_stated_numbers(self) -> tuple[Code | None, tuple[Statistic, ...]]:
        """`example.inputs`, `expected`, `weights`, `reference` and `statistics`;
        the reference and the statistics come back parsed."""
        example, decl = self.decl.example, self.decl
        inputs = [*self.result.inputs, *self._every_call()]  # as every call passes them
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
        first = len(self.scopes)
        if example.reference is not None:
            keywords = set(self.result.keywords)
            # A sublayer's name reads as its weights (`attention.query.kernel`).
            self.code(
                ("example", "reference"),
                example.reference,
                set(inputs) | keywords | {"np"},
                params | weights | set(decl.sublayers),
            )
        reference = next(iter(self._parsed_since(first)), None)  # None: none, or it did not parse
        statistics = []
        for i, statistic in enumerate(example.statistics):
            if not decl.random:
                self.error(
                    ("example", "statistics"),
                    "bad-example",
                    "`statistics` are of random layers (`random: true`)",
                    key=True,
                )
                break
            of = self.code(
                ("example", "statistics", i, "of"),
                statistic.of,
                set(inputs) | {"outputs"},
                params,
                expression=True,
            )
            statistics.append(Statistic(statistic.of, of, statistic.mean))
        return reference, tuple(statistics)
