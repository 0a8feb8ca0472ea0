"""How long the generated tests of one declaration take on each backend, beyond the
framework import.

    python benchmarks/generated_tests_speed.py [--backends tensorflow jax torch] [DIR ...]

The declarations (default: the project's `examples/`) are generated into a fresh
project; then, per backend, pytest runs in a fresh process over a test that only
imports Keras and the support module (the baseline), and over all generated tests.
Reported: (all - baseline) / number of declarations. Goal: at most 2 s on a 2-core
machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed_pytest(project: Path, backend: str, *paths: str) -> float:
    env = {
        **os.environ,
        "KERAS_BACKEND": backend,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONPATH": str(REPO),
    }
    start = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
            *paths,
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{backend}: the generated tests failed\n{result.stdout[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sources", nargs="*", type=Path, default=[REPO / "examples"])
    parser.add_argument("--backends", nargs="+", default=["tensorflow", "jax", "torch"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
        count = 0
        for index, source in enumerate(args.sources):
            package = project / f"package{index}"
            package.mkdir()
            for path in source.glob("*.yaml"):
                shutil.copy(path, package / path.name)
                count += 1
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        subprocess.run(
            [sys.executable, "-m", "layergen", "generate", "-q", "."],
            cwd=project,
            env=env,
            check=True,
        )
        (project / "tests" / "test_baseline.py").write_text(
            "import keras  # noqa: F401\nimport layergen_support  # noqa: F401\n\n\ndef test_nothing():\n    pass\n"
        )
        print(f"{count} declarations")
        for backend in args.backends:
            baseline = timed_pytest(project, backend, "tests/test_baseline.py")
            total = timed_pytest(project, backend, "tests")
            per = (total - baseline) / count
            print(
                f"{backend:>10}: {total:6.1f} s in all, baseline {baseline:4.1f} s: {per:4.2f} s per declaration"
            )


if __name__ == "__main__":
    main()
