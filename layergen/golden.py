"""Recorded goldens: a layer's outputs on its example inputs, kept beside its test module
(`test_x.golden.json`) so that the test fails when a later change alters them.

Where a declaration names the class it twins (`example.original`), the golden is that
class's outputs, at the seeded weights the generated tests use: recorded by the first
`generate` that finds it missing, so the generated layer is held to the original's
numbers from the start. Otherwise recording is explicit (`layergen generate --record`)
and records the generated layer itself. The test that checks a golden is generated when
the golden file exists.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError

# Runs in the tests folder: conftest.py puts the project on sys.path, as under pytest.
# Each argument is a test module, or `module=Class=package.module.Original`: its layer
# class replaced by the original, whose weights are seeded and outputs recorded.
SCRIPT = """
import importlib, json, sys
sys.path.insert(0, ".")
import conftest, layergen_support
for argument in sys.argv[1:]:
    name, _, original = argument.partition("=")
    try:
        module = importlib.import_module(name)
        if not hasattr(module, "make_layer"):
            continue
        if original:
            declared, _, dotted = original.partition("=")
            path, _, cls = dotted.rpartition(".")
            setattr(module, declared, getattr(importlib.import_module(path), cls))
        written = layergen_support.record_golden(module)
    except Exception as exc:
        print(f"{name}: {type(exc).__name__}: {exc}".splitlines()[0], file=sys.stderr)
        sys.exit(1)
    if original:
        data = json.loads(written.read_text(encoding="utf-8"))
        written.write_text(json.dumps({"original": dotted, **data}) + "\\n", encoding="utf-8")
    print(written)
"""


@dataclass(frozen=True)
class Original:
    """The class a declaration twins, as `example.original` names it."""

    cls: str  # the declared class, as its test module imports it
    dotted: str  # the original's import path, `package.module.Class`
    where: Diagnostic  # `example.original` in the declaration, for errors


def golden_path(test: Path) -> Path:
    return test.with_suffix(".golden.json")


def originals(
    declarations: list[Path], config, tests: Mapping[Path, Path], *, missing_only: bool = False
) -> dict[Path, Original]:
    """{test module: the original it is checked against} of the declarations that name
    one; a declaration that does not load is left to `generate` to report. `tests`: each
    module's first test module, as the run placed it (`Plan.companions`). `missing_only`:
    only those with a golden to record (a run that changes nothing parses nothing)."""
    from dataclasses import replace

    from .targets import target
    from .textfiles import read_bytes

    found: dict[Path, Original] = {}
    for declaration in declarations:
        raw = read_bytes(declaration, missing_ok=True)
        if not raw or b"original:" not in raw:  # most name none: not parsed again
            continue
        try:
            t = target(declaration, config)
        except DiagnosticError:
            continue
        t = replace(t, test=tests.get(t.module, t.test))
        one_class = not re.search(rb"^---\s*$", raw, flags=re.MULTILINE)
        if missing_only and one_class and golden_path(t.test).is_file():
            continue
        from .declaration.load import parse_declarations  # pydantic, libcst: when needed

        try:
            checked = parse_declarations(str(declaration), raw, mesh_axes=config.mesh_axes)
        except DiagnosticError:
            continue
        for index, one in enumerate(checked):
            dotted = one.decl.example.original
            if dotted:
                where = one.doc.error(
                    ("example", "original"),
                    "record-failed",
                    f"recording the outputs of the original {dotted} failed",
                    "check that it imports, and takes the example's params and inputs",
                )
                found[t.test_of(one.decl.name, index)] = Original(one.decl.name, dotted, where)
    return found


def record_goldens(
    tests: list[Path], backend: str = "tensorflow", twins: dict[Path, Original] | None = None
) -> list[Path]:
    """Record the golden of every layer test module in `tests`; return the files written.
    A module in `twins` records its original's outputs, the others their own layer's.

    The layers run in a fresh process on `backend`, as the generated tests do.
    """
    twins = twins or {}
    written: list[Path] = []
    by_folder: dict[Path, list[Path]] = {}
    for path in tests:
        by_folder.setdefault(path.parent, []).append(path)
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    for folder, paths in by_folder.items():
        arguments = [
            f"{p.stem}={twins[p].cls}={twins[p].dotted}" if p in twins else p.stem
            for p in sorted(paths)
        ]
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT, *arguments],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        written.extend(Path(line) for line in result.stdout.split())
        if result.returncode != 0:
            raise DiagnosticError([_failure(folder, result.stderr, twins)])
    return written


def _failure(folder: Path, stderr: str, twins: dict[Path, Original]) -> Diagnostic:
    """Where recording failed: at `example.original` when an original did, else the folder."""
    last = (stderr.strip().splitlines() or ["no output"])[-1]
    name, _, error = last.partition(": ")
    original = twins.get(folder / f"{name}.py")
    if original is not None:
        where = original.where
        return Diagnostic(
            where.path, where.line, where.col, where.code, f"{where.message}: {error}", where.hint
        )
    return Diagnostic(
        str(folder),
        1,
        1,
        "record-failed",
        f"recording the goldens failed: {last}",
        "run the generated tests to see why the layer does not run",
    )
