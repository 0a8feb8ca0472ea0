"""`layergen tests FILE[:Class]`: tests for a Keras layer written without layergen.

The class is read with libcst (never imported); example values come from the
constructor's defaults, its type hints, or `--example name=value`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from .config import Config
from .render.test_context import inputs_context, layer_test_context
from .diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .introspect import REQUIRED, LayerClass, read_classes


def _example(arg) -> Any:
    from .render.test_context import example_value
    from .spec.model import Param

    return example_value(Param(type=arg.type, min=1 if arg.type == "int" else None))


def parse_examples(items: list[str]) -> dict[str, Any]:
    values = {}
    for item in items:
        name, _, text = item.partition("=")
        if not name.strip().isidentifier() or not _:
            raise DiagnosticError([Diagnostic("--example", 1, 1, "bad-option", f"cannot read `{item}`: write name=value")])
        try:
            values[name.strip()] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            values[name.strip()] = text.strip()  # a bare word is a string: --example activation=relu
    return values


def layer_classes(path: Path, wanted: str | None) -> list[LayerClass]:
    classes = read_classes(str(path), path.read_text(encoding="utf-8"))
    if wanted:
        found = [c for c in classes if c.name == wanted]
        if not found:
            raise DiagnosticError([Diagnostic(str(path), 1, 1, "no-class", f"no class `{wanted}` in this file",
                                              did_you_mean(wanted, [c.name for c in classes]))])
        return found
    found = [c for c in classes if c.call_args]
    if not found:
        raise DiagnosticError([Diagnostic(str(path), 1, 1, "no-class", "no layer class (a class with a `call` method) in this file")])
    return found


def test_context(cls: LayerClass, module: str, source: str, examples: dict[str, Any], input_shape: tuple[int, ...]) -> dict[str, Any]:
    args = {}
    for arg in cls.args:
        if arg.name in examples:
            args[arg.name] = examples[arg.name]
        elif arg.default is not REQUIRED:
            args[arg.name] = arg.default
        else:
            args[arg.name] = _example(arg)
    first = cls.call_args[0]
    # Weights, their trainability, losses and the like are not known without running the code.
    return layer_test_context(
        name=cls.name, module=module, source=source, args=args,
        inputs=inputs_context({first: input_shape}, {first: "float32"}),
        deterministic_inference=not cls.uses_random,
    )


def plan_tests(path: Path, wanted: str | None, config: Config, examples: dict[str, Any], input_shape: tuple[int, ...]) -> dict[Path, str]:
    import os

    from .generate import CONFTEST, target
    from .render.render import render

    path = path.resolve()
    t = target(path, config)  # the import path and tests folder, as for a declaration
    outputs = {}
    for cls in layer_classes(path, wanted):
        context = test_context(cls, t.dotted, os.path.relpath(path, config.root), examples, input_shape)
        outputs[config.tests_dir / f"test_{path.stem}_{cls.name.lower()}.py"] = render(
            "layer_test.py.j2", context, line_length=config.line_length
        )
    from .render.support import support_files

    outputs.update(support_files(config.tests_dir))  # the tests import it
    conftest = config.tests_dir / "conftest.py"
    if not conftest.exists():
        outputs[conftest] = CONFTEST.format(roots=[os.path.relpath(t.import_root, config.tests_dir)])
    return outputs
