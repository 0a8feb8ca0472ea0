"""Checks of a layer's call arguments: keywords, causal, cache and masks (part of `analyze`)."""

from __future__ import annotations

from typing import Any

from ..diagnostics import did_you_mean
from .analyze_values import _array_shape, _null_hint, value_problem
from .model import Input, Param


class InputChecks:
    """Mixed into `_Analyzer` (`analyze.py`): its methods use the analyzer's state."""

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
        the steps of the tensor input `x` up to it alone."""
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
        decodes `x` (or the inputs `of: [x, y]`, together) step by step, writing at the
        keyword input `i`, and which it returns updated as the output of the same name."""
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
            return
        if not self._check_cache_of(loc + ("of",), spec.cache.of):
            return
        if spec.cache.index not in keywords or spec.cache.index == name:
            self.error(
                loc + ("index",),
                "unknown-input",
                f"`{spec.cache.index}` is not a keyword input: `index` names the one that says"
                " where a step is written",
                did_you_mean(spec.cache.index, [k for k in keywords if k != name]),
            )
        elif spec.cache.mask is not None and (
            spec.cache.mask not in keywords or keywords[spec.cache.mask].type != "tensor"
        ):
            self.error(
                loc + ("mask",),
                "unknown-input",
                f"`{spec.cache.mask}` is not a keyword tensor: `mask` names the attention mask"
                " through which each step sees the steps up to it",
                did_you_mean(
                    spec.cache.mask, [k for k, s in keywords.items() if s.type == "tensor"]
                ),
            )
        elif name not in (self.decl.outputs or {}):
            self.error(
                loc,
                "conflicting-keys",
                f"the updated cache is returned as the output `{name}`, which `outputs` lacks",
                f"add `{name}: {{shape: {name}, when: {name} is not None}}` to `outputs`",
                key=True,
            )

    def _check_cache_of(self, loc: tuple, of: str | list[str]) -> bool:
        """Whether `of` names tensor inputs: the one a cache decodes, or a list of those it
        decodes step by step together; each unknown or repeated name is an error
        at its place."""
        names = [(loc, of)] if isinstance(of, str) else [(loc + (i,), n) for i, n in enumerate(of)]
        if not names:
            self.error(
                loc,
                "unknown-input",
                "`of` lists no tensor input: it names those the cache decodes step by step",
                f"the tensor inputs: {', '.join(self.result.inputs)}",
            )
        seen: set[str] = set()
        for at, name in names:
            if name not in self.result.inputs:
                self.error(
                    at,
                    "unknown-input",
                    f"`{name}` is not a tensor input: `of` names those the cache decodes",
                    did_you_mean(name, self.result.inputs)
                    or f"the tensor inputs: {', '.join(self.result.inputs)}",
                )
            elif name in seen:
                self.error(at, "duplicate-name", f"`{name}` is listed twice in `of`")
            seen.add(name)
        known = {n for _, n in names if n in self.result.inputs}
        return bool(names) and len(known) == len(names)

    def _check_masks(self, name: str, spec: Input) -> None:
        """`masks: x`: a keyword tensor that hides steps of the tensor input `x`."""
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
        elif spec.masks not in self._maskable(name):
            self.error(
                loc,
                "unknown-input",
                f"`{spec.masks}` is not a tensor input: `masks` names the one `{name}` hides steps of",
                did_you_mean(spec.masks, self._maskable(name))
                or f"the tensor inputs: {', '.join(self._maskable(name))}",
            )
        elif spec.masks not in self.result.inputs and spec.masks not in self.decl.example.call_args:
            # A keyword tensor (an encoder's sequence): its test changes the example's value.
            self.error(
                loc,
                "bad-example",
                f"`{name}` masks the keyword input `{spec.masks}`, which the example gives no value",
                f"give `{spec.masks}` a value in `example.call_args`: its test changes the steps"
                f" `{name}` hides",
            )

    def _maskable(self, name: str) -> list[str]:
        """What `masks` of the input `name` may name: a tensor input, or another keyword
        tensor (the encoder sequence of a cross-attention's padding mask)."""
        keywords = self.result.keywords
        tensors = [k for k, s in keywords.items() if s.type == "tensor" and k != name]
        return [*self.result.inputs, *tensors]

    def _check_call_args(self, args: dict[str, Any], prefix: tuple) -> None:
        """`example.call_args` (or a call case's `args`): a value for keyword inputs
        (nested lists for a tensor)."""
        keywords = self.result.keywords
        for name, value in args.items():
            loc = (*prefix, name)
            spec = keywords.get(name)
            if spec is None:
                hint = did_you_mean(name, keywords) or (
                    f"`{prefix[-1]}` gives values to inputs that have a `default`"
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
                elif prefix == ("example", "call_args") and self.decl.inputs[
                    name
                ].masks in self._maskable(name):
                    self._check_example_mask(name, value, shape)
            elif value is not None and (problem := value_problem(Param(type=spec.type), value)):
                self.error(loc, "bad-example", f"example value of `{name}` {problem}")
