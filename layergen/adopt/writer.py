"""The declaration of an adopted class, as YAML text (values written as JSON, which YAML 1.2
reads as is), with a comment on each member the person keeps and why."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..declaration.branches import OTHER_VALUES_TEST
from ..diagnostics import Diagnostic
from ..introspect import REQUIRED
from .ownership import Ownership
from .reader import Found, code
from .sublayers import yaml_lines
from .unset import unset_reads

# Generated tests that need what the declaration leaves to the person's code.
SHAPES_TEST = "test_output_shapes_eager_symbolic_and_computed"
WEIGHTS_TEST = "test_weights_match_declaration"
GRADIENTS_TEST = "test_gradients_match_finite_differences"
MIXED_TEST = "test_mixed_precision_matches_float32"
CONFIG_TESTS = ("test_config_round_trip", "test_save_and_load_without_custom_objects")
CALL_TEST = "test_inference_is_deterministic"  # calls the layer on the example, and again
# `check`'s findings adopt leaves as they are, and the generated tests each makes fail.
STATED = {"config-missing": CONFIG_TESTS, "sublayer-dtype": (MIXED_TEST,)}
# A cast to float32 (`ops.cast(x, float)`, keras-hub's RMSNormalization) or a tensor made
# in float32 (`ops.arange(n, dtype="float32")`, its AnchorGenerator), and one back to the
# policy's dtype (`compute_dtype` anywhere, an input's `x.dtype` in `call`): without it the
# outputs stay float32 under a mixed policy.
TO_FLOAT32 = re.compile(
    r"\bcast\(.*?,\s*(?:float|[\"']float32[\"'])\s*\)|\bdtype=[\"']float32[\"']", re.S
)
BACK = re.compile(r"compute_dtype|\.dtype\b")
COMPUTE = re.compile(r"compute_dtype")
WHILE = re.compile(r"\bwhile_loop\(")
DEFAULT_SHAPE = [2, 4]


def _value(value: Any) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def declaration(
    path: Path,
    found: Found,
    owner: Ownership,
    package: str | None,
    examples: dict[str, Any],
    input_shape: list[int] | None,
) -> tuple[str, list[Diagnostic]]:
    """The declaration's text, or the located reasons it cannot be written."""
    cls = found.cls
    errors: list[Diagnostic] = []
    # not registered (after `check`'s fix, a class Keras finds by its module path): said so
    lines = [f"layer: {cls.name}", f"package: {_value(package if package else False)}"]
    if found.base:
        lines.append(f"base: {found.base}")
    if cls.args:
        lines.append("params:")
        for arg in cls.args:
            item = {"type": _type(arg, owner, examples)}
            if arg.default is not REQUIRED:
                item["default"] = arg.default if arg.literal else None
            if arg.name in owner.casts:
                item["cast"] = True
            lines.append(f"  {arg.name}: {_flow(item)}")
    init_code = owner.init_rest if owner.sublayers else found.init_code
    if init_code and "__init__" in owner.declared:
        lines.append("init: |")
        lines += [f"  {line}" for line in init_code.splitlines()]
    if found.inputs:  # none: the base's `call` takes them (the format's default input)
        lines.append("inputs:")
    for name, default in found.inputs:
        if default is None:
            lines.append(f"  {name}: {{}}")
        else:
            lines.append(f"  {name}: {_flow(_keyword(default))}")
    if found.separate:
        lines.append("separate_inputs: true")
    skip: dict[str, str] = {}
    stated = [w for w in found.weights if w.shape is not None and not w.conditional]
    if stated:
        lines.append("weights:")
    for w in found.weights:
        if w.conditional:
            skip[WEIGHTS_TEST] = (
                f"`{w.attribute}` is created under a condition the declaration does not state"
            )
            continue
        if w.shape is None:
            skip[WEIGHTS_TEST] = (
                f"the shape of `{w.attribute}` is not one the declaration states; its code is yours"
            )
            continue
        item = {"shape": w.shape}
        if w.name and w.name != w.attribute.lstrip("_"):
            item["name"] = w.name
        for key in ("initializer", "trainable", "dtype", "autocast", "when"):
            value = getattr(w, key)
            if key == "initializer" and owner.types.get(value, "initializer") != "initializer":
                # a param kept as given (a string): Keras's add_weight reads it so
                value = f"keras.initializers.get({value})"
            if value is not None:
                item[key] = value
        lines.append(f"  {w.attribute}: {_flow(item)}")
    if owner.sublayers:
        lines += yaml_lines(owner.sublayers)
    declared = {s["attribute"] for s in owner.sublayers}
    if any(name not in declared for name in sublayers(found)):
        skip[WEIGHTS_TEST] = "its sublayers are created in code that is yours"
    if owner.output_shape is not None:
        lines.append(f"output_shape: {_value(owner.output_shape)}")
    shape_kept = "compute_output_shape" in found.methods and not _identity(found)
    if not _identity(found) and owner.output_shape is None:
        skip[SHAPES_TEST] = (
            "the output shape is computed by the class's own code"
            if shape_kept
            else "Keras traces `call` for the output shape: the declaration states none"
        )
    if owner.call is not None:
        lines.append("call: |")
        lines += [f"  {line}" if line.strip() else "" for line in owner.call.splitlines()]
    if "call" in found.methods and "custom_gradient" in code(found.methods["call"]):
        skip[GRADIENTS_TEST] = "`call` has a custom gradient, which is not the derivative"
    call_code = code(found.methods["call"]) if "call" in found.methods else ""
    reached = _reached(found, call_code)
    casting = next((f for f, text in reached.items() if TO_FLOAT32.search(text)), None)
    back = BACK.search(call_code) or any(COMPUTE.search(text) for text in reached.values())
    if casting is not None and not back:
        skip[MIXED_TEST] = (
            f"`call` computes in float32{_in(casting)} and never casts back: its outputs stay"
            " float32 under a mixed policy, as the adopted code's did"
        )
    looping = next((f for f, text in reached.items() if WHILE.search(text)), None)
    if looping is not None:
        skip[GRADIENTS_TEST] = (
            f"`call` runs `ops.while_loop`{_in(looping)}, which reverse-mode"
            " differentiation does not go through (JAX refuses it)"
        )
    for code_, message in found.unfixed:  # the first of each test says it
        for test in STATED.get(code_, ()):
            skip.setdefault(test, f"{message} [{code_}], as in the adopted code")
    for attribute, method in unset_reads(found)[:1]:  # the first says it: each raises
        for test in CONFIG_TESTS:
            skip[test] = (
                f"`{method}` reads `self.{attribute}`, which nothing sets (not the class,"
                " not its Keras base): its config raises AttributeError, as the adopted"
                " code's did"
            )
    if owner.hand_written:
        lines.append("hand_written:  # yours, kept as written in the module")
        for name in owner.hand_written:  # a reason on one line: a YAML comment ends there
            lines.append(f"  - {name}  # {' '.join(owner.why[name].split())}")
    example: list[str] = []
    values = {}
    for arg in cls.args:
        if arg.name in examples:
            values[arg.name] = examples[arg.name]
        elif arg.default is REQUIRED:
            if arg.known_type is None:
                errors.append(
                    Diagnostic(
                        str(path),
                        arg.line,
                        arg.column,
                        "unknown-example",
                        f"`{cls.name}` requires `{arg.name}`, and nothing says what it takes"
                        " (no annotation, no type in the docstring's Args, no call"
                        f" `{cls.name}(...)` in the project that passes it a literal): the"
                        " generated tests need a value",
                        f"pass --example {arg.name}=VALUE, or annotate it (`{arg.name}: int`)",
                    )
                )
                continue
            from ..handwritten import _example

            values[arg.name] = _example(arg)
    if found.base:  # the base's own arguments, which the format's example may hold
        params = {a.name for a in cls.args}
        values.update({k: v for k, v in examples.items() if k not in params})
    if values:
        example.append(f"  params: {_flow(values)}")
    rank = cls.rank or cls.min_rank
    shape = input_shape or ([2, *([4] * (rank - 1))] if rank else DEFAULT_SHAPE)
    if isinstance(shape, dict):  # one shape each, as the project's call gives them
        example.append(f"  input_shape: {_value({n: list(s) for n, s in shape.items()})}")
    elif found.separate:  # one shape each, as the format asks of several inputs
        tensors = [name for name, default in found.inputs if default is None]
        example.append(f"  input_shape: {_value({n: list(shape) for n in tensors})}")
    else:
        example.append(f"  input_shape: {_value(list(shape))}")
    dtypes = getattr(shape, "dtypes", None)  # inputs of the project's call that are not float
    if dtypes and not isinstance(shape, dict) and not found.separate:
        example.append(f"  input_dtype: {_value(next(iter(dtypes.values())))}")
    elif dtypes:
        example.append(f"  input_dtype: {_value(dtypes)}")
    if getattr(shape, "input_range", None):  # what its integer inputs are drawn from
        example.append(f"  input_range: {_value(shape.input_range)}")
    if getattr(shape, "call_cases", None):  # the project's calls with keyword inputs
        example.append("  call_cases:")
        example += [f"    - {_flow(case)}  # from {where}" for case, where in shape.call_cases]
    cases = [case for case, _ in getattr(shape, "call_cases", None) or ()]
    varied = {name for case in cases for name in case.get("args", {})}
    guessed = [  # an int keyword is often a position, valid only up to the input's length
        name
        for name, default in found.inputs
        if default is not None and _keyword(default).get("type") == "int" and name not in varied
    ]
    for name in guessed:  # that input stays at its default in the test; the others vary
        skip[f"{OTHER_VALUES_TEST}[{name}]"] = (
            f"no call of the project passes `{name}` a value other than its default, and"
            " which ints are valid may depend on the input (a position): give one in"
            " `example.call_cases`"
        )
    lines.append(_said(getattr(examples, "source", None), getattr(shape, "source", None)))
    lines += example
    for test, failure in found.failing.items():  # a deviation said above keeps its words
        skip.setdefault(test, f"failed on the code as adopted: {failure}")
    if skip:
        lines += ["tests:", "  skip:"]
        lines += [f"    {name}: {_value(why)}" for name, why in sorted(skip.items())]
    return "\n".join(lines) + "\n", errors


def _reached(found: Found, call_code: str) -> dict[str, str]:
    """The code `call` runs: its own (key ""), then each function of its module and method
    of its class it calls, by name (`select(...)`, `self.centers(...)`), and so on."""
    import ast

    functions = {
        node.name: ast.get_source_segment(found.module_text, node) or ""
        for node in ast.parse(found.module_text).body
        if isinstance(node, ast.FunctionDef)
    }
    methods = {f"self.{name}": code(method) for name, method in found.methods.items()}
    functions.update({name: text for name, text in methods.items() if name != "self.call"})
    out = {"": call_code}
    pending = [call_code]
    while pending:
        text = pending.pop()
        for name in re.findall(r"\b((?:self\.)?\w+)\(", text):
            if name in functions and name not in out:
                out[name] = functions[name]
                pending.append(functions[name])
    return out


def _in(function: str | None) -> str:
    return f" (in `{function.removeprefix('self.')}`)" if function else ""


def _said(values: str | None, shape: str | None) -> str:
    """The `example:` line, with where its values and its input shape come from."""
    if values and values == shape:
        return f"example:  # params and input_shape {_from(values)}"
    said = [f"params {_from(values)}"] if values else []
    said += [f"input_shape {_from(shape)}"] if shape else []
    return "example:  # " + "; ".join(said) if said else "example:"


def _from(source: str) -> str:
    return source if source.startswith("observed in ") else f"from {source}"


def _type(arg, owner: Ownership, examples: dict[str, Any]) -> str:
    """The param's type: what the code's annotation says; else what the example for it is
    (the project's calls pass it: keras-hub's `filters: int.` documented and `[32, 32]`
    passed), where the type a docstring or a default says cannot hold it, or nothing says."""
    from ..declaration.literals import holding_types, literal_type
    from .reader import PLAIN_TYPES, plain_type

    said = owner.types[arg.name]
    if arg.name not in examples or arg.annotation in PLAIN_TYPES:
        return said
    value = examples[arg.name]
    unsaid = plain_type(arg) is None and said == "float"
    if unsaid or (said in PLAIN_TYPES and said not in holding_types(value)):
        # `[16, 16]`: list[int]; `[]`, which every list type holds: a list
        return literal_type(value) or ("list" if value == [] else said)
    return said


def _flow(item: dict) -> str:
    return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in item.items()) + "}"


def _keyword(default: str) -> dict:
    import ast

    try:
        value = ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return {"default": None}
    kind = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(value))
    return {"type": kind, "default": value} if kind else {"default": None}


def sublayers(found: Found) -> list[str]:
    """Attributes the class sets to a constructed object that is no weight or helper."""
    import libcst as cst

    from ..introspect import walk
    from .reader import code

    helpers = ("InputSpec", "SeedGenerator", "add_weight")
    names = []
    for method in found.methods.values():
        for node in walk(method.body):
            if (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Attribute)
                and code(node.targets[0].target.value) == "self"
                and isinstance(node.value, cst.Call)
            ):
                callee = code(node.value.func).rsplit(".", 1)[-1]
                if callee[:1].isupper() and callee not in helpers:
                    names.append(node.targets[0].target.attr.value)
    return names


def _identity(found: Found) -> bool:
    """The class's `compute_output_shape` returns its shape argument as given."""
    import libcst as cst

    function = found.methods.get("compute_output_shape")
    if function is None or len(function.params.params) < 2:
        return False
    body = [s for s in function.body.body if isinstance(s, cst.SimpleStatementLine)]
    return (
        len(function.body.body) == 1
        and len(body) == 1
        and isinstance(body[0].body[0], cst.Return)
        and isinstance(body[0].body[0].value, cst.Name)
        and body[0].body[0].value.value == function.params.params[1].name.value
    )
