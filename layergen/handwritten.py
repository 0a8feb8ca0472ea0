"""`layergen tests FILE[:Class]`: tests for a Keras layer written without layergen.

The class is read with libcst (never imported); example values come from the
constructor's defaults, its type hints, or `--example name=value`.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

from .claims import Unclaimed
from .config import Config
from .diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .introspect import REQUIRED, LayerClass, read_classes
from .render.tests_context import inputs_context, layer_test_context
from .textfiles import Seen, read_text, split_line_ends


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


def parse_input_shape(text: str | None) -> tuple[int, ...] | None:
    """`--input-shape 2,5` as dims (None when not given)."""
    if text is None:
        return None
    try:
        return tuple(int(d) for d in text.split(","))
    except ValueError:
        raise DiagnosticError(
            [
                Diagnostic(
                    "--input-shape",
                    1,
                    1,
                    "bad-option",
                    f"cannot read `{text}`: write dims such as 2,5",
                )
            ]
        ) from None


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


# The example input of a layer whose code states no rank (an elementwise layer takes any).
DEFAULT_SHAPE = (2, 4)
DEFAULT_NOTE = "The code states no input rank (elementwise): (batch, features) by default."


def test_context(
    path: Path,
    cls: LayerClass,
    module: str,
    source: str,
    examples: dict[str, Any],
    input_shape: tuple[int, ...] | None,
) -> tuple[dict[str, Any], Diagnostic | None]:
    """The test template's keys, and a note when the input shape is the default one; a value
    the code does not tell (an untyped required argument) is a located error, never a guess."""
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
    if errors:
        raise DiagnosticError(errors)
    note = None
    if input_shape is None:
        rank = cls.rank or cls.min_rank
        if rank is None:
            input_shape = DEFAULT_SHAPE
            note = Diagnostic(
                str(path),
                cls.line,
                1,
                "default-input-shape",
                f"the code of `{cls.name}` states no input rank: its tests use the shape "
                f"{DEFAULT_SHAPE} (batch, features)",
                "pass --input-shape once to choose another; it is remembered",
                "note",
            )
        else:
            input_shape = (2, *([4] * (rank - 1)))
    first = cls.call_args[0]
    # Weights, their trainability, losses and the like are not known without running the code.
    context = layer_test_context(
        name=cls.name,
        module=module,
        source=source,
        args=args,
        inputs=inputs_context({first: input_shape}, {first: "float32"}),
        deterministic_inference=not cls.uses_random,
        input_shape_note=DEFAULT_NOTE if note else None,
    )
    return context, note


def remembered(lock, config: Config, within: list[Path] | None = None) -> list[tuple[Path, str]]:
    """(module, class) of every hand-written layer `layergen tests` wrote tests for, whose
    module is still there (and in one of the folders or files `within`, if given)."""
    modules = {(config.root / e["module"], e["class"]) for e in lock.handwritten.values()}
    return sorted(
        (module, name)
        for module, name in modules
        if module.is_file()
        and (within is None or any(module == w or module.is_relative_to(w) for w in within))
    )


def tests_of_gone_modules(lock) -> Unclaimed:
    """The test modules `layergen tests` wrote for layers whose module is gone (deleted, or
    renamed by hand): as generated, removed; edited, kept and said on every run until the
    person deletes them. The lock is to forget what is gone (`Unclaimed.changes`)."""
    out = Unclaimed()
    for key, entry in list(lock.handwritten.items()):
        if (lock.root / entry["module"]).is_file():
            continue
        path = lock.root / key
        seen = Seen.read(path)
        if seen.text is not None and split_line_ends(seen.text)[0] != lock.base(path):
            out.kept[path] = f"`{entry['class']}` of {entry['module']}"
            continue
        out.changes.handwritten(key, None)
        if seen.text is None:
            out.changes.forget(path)
        else:
            out.removed[path] = seen
    return out


def declared_by(module: Path, lock) -> str | None:
    """The declaration that generates `module` (as the lock recorded it, or the file beside
    it of the module's name), or None for a hand-written module."""
    from .targets import declarations_beside

    key = lock.key(module)
    recorded = (  # an orphan's record is of a declaration that is gone
        d
        for d, record in lock.records.items()
        if key in record.outputs and not record.orphaned and (lock.root / d).is_file()
    )
    beside = (lock.key(d) for d in declarations_beside(module))
    return next(recorded, None) or next(beside, None)


def plan_tests(
    path: Path | None,
    wanted: str | None,
    config: Config,
    examples: dict[str, Any],
    input_shape: tuple[int, ...] | None,
    within: list[Path] | None = None,
):
    """The run that writes tests for the layers of a hand-written module (no `path`: of every
    layer it wrote tests for, in the folders `within` if given), through the lock and the
    merge like every generated file: a test a person added stays. The flags given are kept
    in the lock for the next run. Returns the plan and the notes to show (a default input
    shape)."""
    from .claims import tests_of_gone_classes
    from .generate import conftest
    from .render_many import render_file
    from .targets import declarations_write, second_writer, target, test_module
    from .update.lock import Lock
    from .update.plan import Plan

    lock = Lock.read(config.root)
    wrote_any = bool(lock.handwritten)
    gone = tests_of_gone_modules(lock) if path is None else Unclaimed()
    changes = gone.changes
    # The lock's table of what `tests` wrote each test module from, as this run leaves it.
    handwritten = changes.handwritten_table(lock)
    if path is None:
        chosen = remembered(lock, config, within)
        if not wrote_any:
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(config.root / "layergen.lock"),
                        None,
                        None,
                        "no-tests",
                        "`layergen tests` has written tests for no hand-written layer yet",
                        "run `layergen tests FILE[:Class]` once; then `layergen tests` regenerates them",
                    )
                ]
            )
        # A module a declaration took over since: its tests are the declaration's now.
        chosen = [(m, n) for m, n in chosen if declared_by(m, lock) is None]
    else:
        chosen = [(path.resolve(), wanted)]
        declaration = declared_by(chosen[0][0], lock)
        if declaration is not None:  # one owner per file: the declaration writes its tests
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(path),
                        1,
                        1,
                        "generated-module",
                        f"this module is generated from `{declaration}`: its tests are the "
                        "declaration's",
                        "run `layergen generate` for its tests; `layergen sync` carries hand "
                        "edits of the module into the declaration",
                    )
                ]
            )
    generated, sources, roots, notes, errors = {}, {}, [], [], []
    made: dict[Path, list[Path]] = {}  # module -> the test modules written for it
    moved: dict[Path, Path] = {}  # a test module the tests folder setting moved: {new: old}
    # Where each layer's tests were written last: a new tests folder takes them along.
    written = {(e["module"], e["class"]): key for key, e in lock.handwritten.items()}
    declared = declarations_write(lock)
    for module_path, name in chosen:
        t = target(module_path, config)  # the import path and tests folder, as for a declaration
        roots.append(t.import_root)
        everyone = layer_classes(module_path, None)
        for cls in layer_classes(module_path, name) if name else everyone:
            # test_<module>.py for a module of one layer, as for a declaration
            alone = len(everyone) == 1
            test = test_module(config.tests_dir, module_path.stem, None if alone else cls.name)
            clash = second_writer(module_path, [("tests", test)], declared)
            if clash:  # one writer per file: a declaration's tests stay its own
                errors.append(clash)
                continue
            was = written.get((lock.key(module_path), cls.name), lock.key(test))
            if was != lock.key(test):
                moved[test] = lock.root / was
            memory = handwritten.pop(was, {})
            if memory:
                changes.handwritten(was, None)
            given = {**memory.get("examples", {}), **examples}
            shape = input_shape or (
                tuple(memory["input_shape"]) if "input_shape" in memory else None
            )
            try:
                context, note = test_context(
                    module_path,
                    cls,
                    t.dotted,
                    os.path.relpath(module_path, config.root),
                    given,
                    shape,
                )
            except DiagnosticError as exc:
                errors.extend(exc.diagnostics)
                continue
            notes += [note] if note else []
            handwritten[lock.key(test)] = {
                "module": lock.key(module_path),
                "class": cls.name,
                **({"examples": given} if given else {}),
                **({"input_shape": list(shape)} if shape else {}),
            }
            changes.handwritten(lock.key(test), handwritten[lock.key(test)])
            sources[test], generated[test] = render_file(
                test, "layer_test.py.j2", context, config, lock
            )
            made.setdefault(module_path, []).append(test)
    if errors:
        raise DiagnosticError(errors)
    from .render.support import support_files

    generated.update(
        support_files(config.tests_dir, user_templates=config.user_templates)
    )  # the tests import it
    support = conftest(config, sorted(set(roots)))
    left = gone
    for module_path, name in chosen:
        if name is not None:  # one class asked for: the others' tests stay
            continue
        source = os.path.relpath(module_path, config.root)
        found, unclaimed = tests_of_gone_classes(
            lock,
            handwritten,
            config.tests_dir,
            source,
            module_path.stem,
            {test: generated[test] for test in made.get(module_path, [])},
        )
        moved.update(found)
        left.removed.update(unclaimed.removed)
        left.kept.update(unclaimed.kept)
        changes.extend(unclaimed.changes)
    plan = Plan(
        generated,
        support,
        sources,
        lock,
        read=dict.fromkeys(support, Seen(None)),
        moved=moved,
        removed=left.removed,
        orphans=left.kept,
        changes=changes,
    )
    return plan, notes
