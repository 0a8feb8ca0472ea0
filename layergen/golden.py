"""Recorded goldens: a layer's current outputs on its example inputs, kept beside its
test module (`test_x.golden.json`) so that the test fails when a later change alters
them. Recording is explicit (`layergen generate --record`); the test that checks a
golden is generated when the golden file exists.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError

# Runs in the tests folder: conftest.py puts the project on sys.path, as under pytest.
SCRIPT = """
import importlib, sys
sys.path.insert(0, ".")
import conftest, layergen_support
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    if hasattr(module, "make_layer"):
        print(layergen_support.record_golden(module))
"""


def record_goldens(tests: list[Path], backend: str = "tensorflow") -> list[Path]:
    """Record the golden of every layer test module in `tests`; return the files written.

    The layers run in a fresh process on `backend`, as the generated tests do.
    """
    written: list[Path] = []
    by_folder: dict[Path, list[str]] = {}
    for path in tests:
        by_folder.setdefault(path.parent, []).append(path.stem)
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    for folder, names in by_folder.items():
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT, *sorted(names)],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(folder),
                        1,
                        1,
                        "record-failed",
                        f"recording the goldens failed: {last}",
                        "run the generated tests to see why the layer does not run",
                    )
                ]
            )
        written.extend(Path(line) for line in result.stdout.split())
    return written
