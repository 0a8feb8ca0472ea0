"""`layergen new`: write a working declaration from a name and a few conventions."""

from __future__ import annotations

import json
import re

from .declaration.literals import literal_type
from .declaration.param_types import NAMES as PARAM_TYPES
from .diagnostics import Diagnostic, DiagnosticError
from .render.context import snake

# Conventional weights: what Keras's own layers call them, and how they act. These are
# added and start at zeros; every other weight but the kernel scales and starts at ones.
ADDITIVE = {"bias", "beta"}


def parse_params(text: str) -> dict[str, tuple[str, str | None]]:
    """`units:int,rate:float=0.1` -> {"units": ("int", None), "rate": ("float", "0.1")}."""
    params: dict[str, tuple[str, str | None]] = {}
    errors = []
    for _position, item in enumerate(_split(text)):
        match = re.fullmatch(r"\s*(\w+)\s*(?::\s*([\w\[\]]+))?\s*(?:=\s*(.*?))?\s*", item)
        if not match:
            errors.append(f"cannot read param `{item}`: write name:type or name:type=default")
            continue
        name, kind, default = match.group(1), match.group(2), match.group(3)
        value = _yaml_value(default) if default is not None else None
        kind = kind or literal_type(value) or "float"  # `rates=[1, 0.5]`: list[float]
        if kind not in PARAM_TYPES:
            errors.append(
                f"param `{name}` has unknown type `{kind}` (types: {', '.join(PARAM_TYPES)})"
            )
        if value is NOT_YAML:
            errors.append(
                f"param `{name}` has default `{default}`, which is not a YAML value"
                " (quote a string: name:str='text')"
            )
        params[name] = (kind, default)
    if errors:
        raise DiagnosticError([Diagnostic("--params", None, None, "bad-option", e) for e in errors])
    return params


NOT_YAML = object()


def _yaml_value(text: str):
    """The one plain YAML value `text` reads as (a number, a string, a flow list...), or
    NOT_YAML."""
    from ruamel.yaml import YAML

    try:
        return YAML(typ="safe", pure=True).load(f"value: {text}\n")["value"]
    except Exception:  # any reading error means: not a value
        return NOT_YAML


def _split(text: str) -> list[str]:
    """Split on commas outside brackets, so `sizes:list[int]=[1,2]` stays whole."""
    items, depth, current = [], 0, ""
    for char in text:
        depth += char in "[("
        depth -= char in "])"
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        items.append(current)
    return items


def declaration(
    name: str, weights: list[str], params: dict[str, tuple[str, str | None]], inputs: list[str]
) -> str:
    """The YAML text of a new declaration whose generated tests pass as it is."""
    inputs = inputs or ["x"]
    lines = [f"layer: {name}", f"doc: {json.dumps(_doc(name, weights))}"]
    params = dict(params)
    if "kernel" in weights:
        params = {"units": ("int", None), "activation": ("activation", "null"), **params}
    if params:
        lines.append("params:")
        for pname, (kind, default) in params.items():
            entry = {"type": kind}
            bounds = ", min: 1" if pname == "units" and kind == "int" else ""
            default_text = f", default: {default}" if default is not None else ""
            lines.append(
                f"  {pname}: {{type: {json.dumps(kind) if '[' in kind else kind}{bounds}{default_text}}}"
            )
            del entry
    if inputs != ["x"]:  # the default input is `x`
        lines.append("inputs:")
        lines.extend(f"  {i}: {{}}" for i in inputs)
    width = " + ".join(f"{i}[-1]" for i in inputs)
    features = "units" if "kernel" in weights else width
    if weights:
        lines.append("weights:")
        for w in weights:
            if w == "kernel":
                lines.append(
                    f"  kernel:\n    shape: ({width}, units)\n    initializer: glorot_uniform"
                )
            else:
                init = "zeros" if w in ADDITIVE else "ones"
                lines.append(f"  {w}:\n    shape: ({features},)\n    initializer: {init}")
    lines.append(f"call: {_call(weights, inputs)}")
    if "kernel" in weights or len(inputs) > 1:
        lines.append(f"output_shape: (*{inputs[0]}[:-1], {features})")
    example_params = {p: _example(kind) for p, (kind, default) in params.items() if default is None}
    lines.append("example:")
    if example_params:
        lines.append(
            "  params: {" + ", ".join(f"{k}: {v}" for k, v in example_params.items()) + "}"
        )
    if len(inputs) > 1:
        lines.append("  input_shape:")
        lines.extend(f"    {i}: [2, {3 + n}]" for n, i in enumerate(inputs))
    else:
        lines.append("  input_shape: [2, 3]")
    # Weights away from their initial ones (zeros and ones hide a sign or an operator
    # swapped), and the formula in NumPy: the generated tests check the call against it.
    size = 4 if "kernel" in weights else sum(3 + n for n in range(len(inputs)))
    stated = [w for w in weights if w != "kernel"]
    if stated:
        lines.append("  weights:")
        lines.extend(
            f"    {w}: [{', '.join(_stated_value(n, i) for i in range(size))}]"
            for n, w in enumerate(stated)
        )
    lines.append(f"  reference: {_call(weights, inputs, numpy=True)}")
    return "\n".join(lines) + "\n"


def _stated_value(weight: int, index: int) -> str:
    """A weight's example value: distinct, away from 0 and 1, positive (a scale stays one)."""
    return str(1.5 + 0.25 * ((3 * weight + index) % 7))


def _call(weights: list[str], inputs: list[str], *, numpy: bool = False) -> str:
    """kernel, then bias, then the multiplicative weights, then beta: `(x @ kernel + bias) * scale`.

    `numpy`: the same formula in NumPy, for `example.reference` (the example's
    activation is None: linear)."""
    ops = "np" if numpy else "ops"
    y = f"{ops}.concatenate([{', '.join(inputs)}], axis=-1)" if len(inputs) > 1 else inputs[0]
    if "kernel" in weights:
        y = f"{ops}.matmul({y}, kernel)"
    if "bias" in weights:
        y = f"{y} + bias"
    for w in weights:
        if w not in ADDITIVE and w != "kernel":
            y = f"({y}) * {w}" if " + " in y else f"{y} * {w}"
    if "beta" in weights:
        y = f"{y} + beta"
    return f"activation({y})" if "kernel" in weights and not numpy else y


def _doc(name: str, weights: list[str]) -> str:
    if not weights:
        return f"{name} layer."
    return f"{name} layer with weights {', '.join(weights)}."


def _example(kind: str) -> str:
    return {
        "int": "4",
        "float": "0.5",
        "bool": "true",
        "str": "a",
        "list[int]": "[4, 4]",
        "list[float]": "[0.5, 0.5]",
        "list[str]": "[a]",
        "activation": "relu",
        "initializer": "glorot_uniform",
        "regularizer": "l2",
        "constraint": "non_neg",
        "dtype": "float32",
        "layer": '"keras.layers.Dense(4)"',  # code that makes the object
        "callable": "keras.activations.relu",
    }[kind]


# The words of a class name, in the order tried: a mixed-case acronym (LoRA, MoE, PReLU),
# capitals (GPT2, HTML, the V of DenseV2), a word with its digits and the dimension
# letter after them (Conv2D).
_WORDS = re.compile(
    r"[A-Z]*[A-Z][a-z][A-Z]+(?![a-z])\d*"
    r"|[A-Z]+\d*(?![a-z])"
    r"|[A-Z]?[a-z]+(?:\d+(?:[A-Z](?![a-z]))?)?"
    r"|\d+"
)


def module_name(name: str) -> str:
    """The module of a new class: its words in snake case, an acronym kept one word
    (`LoRADense` -> `lora_dense`, `GPT2Block` -> `gpt2_block`, `Conv2D` -> `conv2d`, as
    Keras names a Conv2D). Keras's own `to_snake_case` splits `LoRA` in two (`lo_ra`)."""
    parts = []
    for part in name.split("_"):
        words = _WORDS.findall(part)
        parts.append("_".join(words) if "".join(words) == part else snake(part))
    return "_".join(parts).lower()


def file_name(name: str) -> str:
    return f"{module_name(name)}.layer.yaml"
