"""The JSON Schema of the declaration format, generated from the pydantic models that validate it.

`declaration_schema()` starts from `Declaration.model_json_schema()` (keys by alias) and
only adds what pydantic cannot see: the shorthands that the models' `_shorthand`
validators accept (`units: int`, `bias: (units,)`), that exactly one kind key names the
class, and descriptions for editors. The result is JSON Schema draft-07 (`definitions`),
the draft the YAML language server (VS Code's YAML extension) supports best.

Editors find it through a first line that `layergen new` writes:
`# yaml-language-server: $schema=../.layergen/declaration.schema.json`, a path relative
to the declaration, to the file that `layergen init` (or `new`, when it is missing) writes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .kinds import KINDS

SCHEMA_FILE = ".layergen/declaration.schema.json"  # relative to the project root
DRAFT = "http://json-schema.org/draft-07/schema#"
CLASS_NAME = r"^[A-Z][A-Za-z0-9_]*$"

# Descriptions of fields (by model name and key), from docs/spec-format.md. A test checks
# that every entry names a field the models have, so none can outlive its field.
DESCRIPTIONS: dict[tuple[str, str], str] = {
    (
        "Declaration",
        "doc",
    ): "The class docstring; Args, Input shape and Output shape are added to it.",
    (
        "Declaration",
        "package",
    ): "The registration package (register_keras_serializable(package=...)); false: the class is not registered (Keras finds keras_hub's own classes by their module path).",
    ("Declaration", "base"): "Dotted path of the base class, such as keras.layers.Conv2D.",
    (
        "Declaration",
        "params",
    ): "Constructor arguments, in order; each is a type name (`units: int`) or a mapping.",
    ("Declaration", "inputs"): "Call inputs, in order (default: one input named x).",
    (
        "Declaration",
        "weights",
    ): "Weights created in build(): name -> shape, or a mapping with `shape`.",
    (
        "Declaration",
        "sublayers",
    ): "Layers named after their key, created in __init__ (in build() when an argument reads an input shape) and built in build().",
    ("Declaration", "ops"): "Functions with a custom gradient.",
    (
        "Declaration",
        "call",
    ): "The forward pass: Python statements or one expression, or `train`/`infer` branches.",
    (
        "Declaration",
        "losses",
    ): "Expressions added with add_loss on every call (or {value, training_only}); they may read names call binds.",
    ("Declaration", "updates"): "Non-trainable weight -> new value, assigned on training calls.",
    (
        "Declaration",
        "random",
    ): "true: the layer takes a `seed` param and owns a SeedGenerator named seed_generator.",
    (
        "Declaration",
        "masking",
    ): "true: the mask passes through; or an expression giving the output mask.",
    ("Declaration", "imports"): "Extra import lines for the module.",
    ("Declaration", "init"): "Statements appended to __init__.",
    (
        "Declaration",
        "methods",
    ): "Further methods, or overrides of the base class's; one named like a generated method (build, call, get_config, ...) replaces it.",
    (
        "Declaration",
        "output_shape",
    ): "The output shape, a shape expression such as (*x[:-1], units).",
    (
        "Declaration",
        "outputs",
    ): "Output name -> shape expression, for a layer that returns a tuple (or a dict: output_type).",
    (
        "Declaration",
        "output_type",
    ): "How the named outputs are returned: tuple (the default), or dict keyed by their names.",
    ("Declaration", "example"): "What the generated tests instantiate and feed.",
    ("Param", "type"): "The argument's type.",
    ("Param", "default"): "Absent: the argument is required; null: optional (None).",
    ("Param", "min"): "Smallest allowed value, checked in __init__.",
    ("Param", "max"): "Largest allowed value, checked in __init__.",
    ("Param", "gt"): "The value must be greater than this (exclusive), checked in __init__.",
    ("Param", "lt"): "The value must be less than this (exclusive), checked in __init__.",
    ("Param", "choices"): "The allowed values, checked in __init__.",
    (
        "Param",
        "cast",
    ): "true: stored converted to its type (int, float, bool or str): self.units = int(units).",
    ("Param", "doc"): "The argument's line in the docstring.",
    ("Input", "rank"): "The input's exact rank.",
    ("Input", "min_rank"): "The input's smallest rank.",
    ("Input", "dtype"): "The input's dtype.",
    (
        "Input",
        "cache",
    ): "A keyword tensor that is a cache: `of` (the input it decodes, or a list of inputs decoded together), `index` (the keyword input where a step is written), `shape`; the tests decode step by step.",
    (
        "Cache",
        "of",
    ): "The tensor input the cache decodes step by step, or a list of them decoded together (self-attention's `[query, value]`), the steps counted along the first.",
    (
        "Declaration",
        "separate_inputs",
    ): "true: several tensor inputs are arguments of call of their own, call(self, query, value), not one list.",
    ("Weight", "shape"): "A shape expression over the inputs and params, such as (x[-1], units).",
    (
        "Weight",
        "initializer",
    ): "A Keras initializer name or an initializer param (default: glorot_uniform, or zeros below rank 2).",
    ("Weight", "regularizer"): "A Keras regularizer name or a regularizer param.",
    ("Weight", "constraint"): "A Keras constraint name or a constraint param.",
    ("Weight", "trainable"): "false: state, changed only by `updates`.",
    ("Weight", "dtype"): "The weight's dtype.",
    (
        "Weight",
        "when",
    ): "An expression over the params and the inputs' shapes; when false the weight is not created and its name is None.",
    (
        "Weight",
        "name",
    ): "Its Keras name (the last part of its path) where it differs from the key, its attribute.",
    (
        "Sublayer",
        "when",
    ): "An expression over the params and the inputs' shapes (None for a keyword input not given); when false the sublayer is None.",
    (
        "Output",
        "when",
    ): "An expression over the params and call's keyword inputs; `call` returns this output only when it holds.",
    (
        "Sublayer",
        "build",
    ): "The shape its build takes, or its build's arguments by name ({query_shape: x}): built from them in declared order, without tracing call.",
    ("Output", "shape"): "A shape expression over the inputs, the keyword inputs and the params.",
    ("Sublayer", "class"): "Dotted class of the sublayer, such as keras.layers.Dense.",
    (
        "Sublayer",
        "args",
    ): "Constructor arguments: expressions over the params and the input shapes (x[-1]).",
    ("Sublayer", "layers"): "A keras.Sequential of these layers.",
    (
        "Weight",
        "layout",
    ): "The device mesh axis ([tool.layergen] mesh-axes) each dim is split over, or null: [null, model].",
    (
        "Weight",
        "aggregation",
    ): "How a distribution strategy combines the replicas' values of this non-trainable state.",
    (
        "Sublayer",
        "layout",
    ): "The layouts of its weights by their path inside it: {kernel: [null, model]}.",
    ("LayerCall", "class"): "Dotted class of the layer.",
    (
        "LayerCall",
        "args",
    ): "Constructor arguments: expressions over the params and the input shapes (x[-1]).",
    ("Op", "args"): "The op's arguments.",
    ("Op", "forward"): "An expression or a block computing the op.",
    ("Op", "gradient"): "An expression, or arg -> expression; `upstream` is the incoming gradient.",
    ("Branches", "train"): "The forward pass on training calls.",
    ("Branches", "infer"): "The forward pass on inference calls.",
    ("Method", "args"): "Arguments after self.",
    ("Method", "body"): "The method's statements.",
    ("Example", "params"): "Param values for the generated tests.",
    ("Example", "input_shape"): "The test input's shape, or input name -> shape.",
    ("Example", "input_dtype"): "The test input's dtype, or input name -> dtype.",
    (
        "Example",
        "call_cases",
    ): "Calls with keyword arguments on inputs of their own (`args`, `input_shape`, `input_dtype`, `input_range`).",
    ("CallCase", "args"): "Keyword input name -> its value in this call.",
    ("CallCase", "input_shape"): "This call's input shape (else the example's).",
    ("CallCase", "input_dtype"): "This call's input dtype (else the example's).",
    ("CallCase", "input_range"): "[low, high] of this call's input values (else the example's).",
    (
        "Example",
        "input_range",
    ): "[low, high] of the test inputs' values: integers, or floats drawn uniformly.",
    (
        "Example",
        "inputs",
    ): "Inputs for which the outputs are stated: an array, or input name -> array.",
    ("Example", "weights"): "Weight name -> its value, set before the stated inputs are fed.",
    (
        "Example",
        "expected",
    ): "The inference output for `inputs`: an array, or output name -> array.",
    ("Example", "expected_training"): "The training output for `inputs`, where it differs.",
    (
        "Example",
        "reference",
    ): "NumPy code computing the output from the inputs, params, weights and sublayers' weights (`attention.query.kernel`; `np` is NumPy).",
    (
        "Example",
        "atol",
    ): "Absolute tolerance of the stated outputs and the reference (default 1e-5).",
    (
        "Example",
        "statistics",
    ): "Of a random layer's training output: `of` (per element, over the inputs and `outputs`) has mean `mean`.",
    (
        "Statistic",
        "of",
    ): "An expression over the inputs, `outputs` and the params, one value per element.",
    ("Statistic", "mean"): "Its expected mean; the tolerance comes from the number of elements.",
    (
        "Example",
        "original",
    ): "The class this declaration twins (package.module.Class): its outputs, recorded as goldens, are what the layer must compute.",
    (
        "Declaration",
        "compute_dtype",
    ): "float32: computed in float32 under mixed precision (inputs cast up, output cast back), as LayerNormalization is.",
}


def declaration_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of one declaration file."""
    from .declaration import model

    schema = model.Declaration.model_json_schema(
        by_alias=True, ref_template="#/definitions/{model}"
    )
    definitions = schema.pop("$defs", {})
    for name, definition in definitions.items():
        _describe(name, definition)
    _describe("Declaration", schema)
    for name, definition in list(definitions.items()):
        cls = getattr(model, name, None)
        if cls is not None and "_shorthand" in cls.__pydantic_decorators__.model_validators:
            definitions[name] = _with_shorthand(definition)
    for kind in KINDS:  # a kind key, when given, holds the class name
        schema["properties"][kind] = {
            "type": "string",
            "pattern": CLASS_NAME,
            "description": KINDS[kind].summary,
        }
    schema["oneOf"] = [{"required": [kind], "title": f"a {kind}"} for kind in KINDS]
    return {
        "$schema": DRAFT,
        "title": "layergen declaration",
        "description": "A Keras object declared for layergen: exactly one of "
        + ", ".join(KINDS)
        + " names the class. See docs/spec-format.md.",
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
        "definitions": definitions,
    }


def _describe(name: str, definition: dict[str, Any]) -> None:
    for key, prop in definition.get("properties", {}).items():
        text = DESCRIPTIONS.get((name, key))
        if text:
            prop["description"] = text


def _with_shorthand(definition: dict[str, Any]) -> dict[str, Any]:
    """A model whose `_shorthand` validator accepts the value of its one required key alone."""
    (key,) = definition["required"]
    short = {
        k: v for k, v in definition["properties"][key].items() if k not in ("title", "default")
    }
    short["description"] = f"Shorthand for {{{key}: ...}}."
    outer = {k: definition.pop(k) for k in ("title", "description") if k in definition}
    return {**outer, "anyOf": [short, definition]}


def schema_text() -> str:
    return json.dumps(declaration_schema(), indent=2) + "\n"


def schema_path(root: Path) -> Path:
    return root / SCHEMA_FILE


def modeline(declaration: Path, root: Path) -> str:
    """The first line of a new declaration: where the YAML language server finds the schema."""
    relative = os.path.relpath(schema_path(root), declaration.parent).replace(os.sep, "/")
    return f"# yaml-language-server: $schema={relative}\n"
