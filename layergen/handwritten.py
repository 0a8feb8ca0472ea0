"""`layergen tests FILE[:Class]`: tests for a Keras layer written without layergen.

The class is read with libcst (never imported); example values come from the
constructor's defaults, its type hints, or `--example name=value`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from .config import Config
from .diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .introspect import REQUIRED, LayerClass, read_classes
from .render.context import snake
from .render.tests_context import inputs_context, layer_test_context
from .textfiles import Seen, read_text


def _example(arg) -> Any:
    from .declaration.ir import example_value
    from .declaration.model import Param

    return example_value(Param(type=arg.known_type, min=1 if arg.known_type == "int" else None))


def parse_examples(items: list[str]) -> dict[str, Any]:
    values = {}
    for item in items:
        name, _, text = item.partition("=")
        if not name.strip().isidentifier() or not _:
            raise DiagnosticError(
                [
                    Diagnostic(
                        "--example", 1, 1, "bad-option", f"cannot read `{item}`: write name=value"
                    )
                ]
            )
        try:
            values[name.strip()] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            values[name.strip()] = (
                text.strip()
            )  # a bare word is a string: --example activation=relu
    return values


def layer_classes(path: Path, wanted: str | None) -> list[LayerClass]:
    classes = read_classes(str(path), read_text(path))
    if wanted:
        found = [c for c in classes if c.name == wanted]
        if not found:
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(path),
                        1,
                        1,
                        "no-class",
                        f"no class `{wanted}` in this file",
                        did_you_mean(wanted, [c.name for c in classes]),
                    )
                ]
            )
        return found
    found = [c for c in classes if c.call_args]
    if not found:
        raise DiagnosticError(
            [
                Diagnostic(
                    str(path),
                    1,
                    1,
                    "no-class",
                    "no layer class (a class with a `call` method) in this file",
                )
            ]
        )
    return found


def test_context(
    path: Path,
    cls: LayerClass,
    module: str,
    source: str,
    examples: dict[str, Any],
    input_shape: tuple[int, ...] | None,
) -> dict[str, Any]:
    """The test template's keys; a value the code does not tell is a located error, never a guess."""
    args, errors = {}, []
    for arg in cls.args:
        if arg.name in examples:
            args[arg.name] = examples[arg.name]
        elif arg.default is not REQUIRED:
            args[arg.name] = list(arg.default) if isinstance(arg.default, tuple) else arg.default
        elif arg.known_type is not None:
            args[arg.name] = _example(arg)
        else:
            errors.append(
                Diagnostic(
                    str(path),
                    arg.line,
                    arg.column,
                    "unknown-example",
                    f"`{cls.name}` requires `{arg.name}`, and its code does not say what it takes",
                    f"pass --example {arg.name}=VALUE, or annotate it (`{arg.name}: int`)",
                )
            )
    if input_shape is None:
        rank = cls.rank or cls.min_rank
        if rank is None:
            errors.append(
                Diagnostic(
                    str(path),
                    cls.line,
                    1,
                    "unknown-input-shape",
                    f"cannot tell the input shape of `{cls.name}` from its code",
                    "pass --input-shape with the batch first, such as --input-shape 2,16,8",
                )
            )
        else:
            input_shape = (2, *([4] * (rank - 1)))
    if errors:
        raise DiagnosticError(errors)
    first = cls.call_args[0]
    # Weights, their trainability, losses and the like are not known without running the code.
    return layer_test_context(
        name=cls.name,
        module=module,
        source=source,
        args=args,
        inputs=inputs_context({first: input_shape}, {first: "float32"}),
        deterministic_inference=not cls.uses_random,
    )


def plan_tests(
    path: Path,
    wanted: str | None,
    config: Config,
    examples: dict[str, Any],
    input_shape: tuple[int, ...] | None,
):
    """The run that writes tests for the layers of a hand-written module, through the lock
    and the merge like every generated file: a test a person added stays."""
    import os

    from .claims import Unclaimed, tests_of_gone_classes
    from .generate import conftest
    from .render_many import render_file
    from .targets import target
    from .update.lock import Lock
    from .update.plan import Plan

    path = path.resolve()
    t = target(path, config)  # the import path and tests folder, as for a declaration
    lock = Lock.read(config.root)
    generated, sources = {}, {}
    contexts, errors = [], []
    for cls in layer_classes(path, wanted):
        try:
            contexts.append(
                (
                    cls,
                    test_context(
                        path,
                        cls,
                        t.dotted,
                        os.path.relpath(path, config.root),
                        examples,
                        input_shape,
                    ),
                )
            )
        except DiagnosticError as exc:
            errors.extend(exc.diagnostics)
    if errors:
        raise DiagnosticError(errors)
    for cls, context in contexts:
        test = config.tests_dir / f"test_{path.stem}_{snake(cls.name)}.py"
        sources[test], generated[test] = render_file(
            test, "layer_test.py.j2", context, config, lock
        )
    from .render.support import support_files

    tests = list(generated)
    generated.update(
        support_files(config.tests_dir, user_templates=config.user_templates)
    )  # the tests import it (issue 13)
    support = conftest(config, [t.import_root])
    source = os.path.relpath(path, config.root)
    moved, left = (
        tests_of_gone_classes(lock, config.tests_dir, source, path.stem, tests)
        if wanted is None  # all of the module's classes: the others' tests are gone
        else ({}, Unclaimed())
    )
    return Plan(
        generated,
        support,
        sources,
        lock,
        style=config.black,
        read=dict.fromkeys(support, Seen(None)),
        moved=moved,
        removed=left.removed,
        orphans=left.kept,
    )
