"""How long the generated tests of one declaration take on each backend, beyond the
framework import: for the whole suite in one process, and for one layer's test file
alone (what a user reruns after editing that layer).

    python benchmarks/generated_tests_speed.py [--backends tensorflow jax torch]
        [--python BACKEND=PYTHON ...] [--one-file N] [DIR ...]

The declarations (default: the project's `examples/`) are generated into a fresh
project; then, per backend, pytest runs in a fresh process over a test that only
imports Keras and the support module (the baseline), over all generated tests, and
over each of N test files alone (default: every one). Reported: (all - baseline) /
number of declarations, and (one file - baseline) on average and at most. Goal: at
most 2 s on a 2-core machine. `--python jax=/venvs/jax/bin/python` runs a backend's
tests with another interpreter: measure each backend in an environment with only
that framework installed, as users have (with TensorFlow installed, Keras imports it
during the first `get_config`, about 2 s a process, whatever the backend).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = (
    "import keras  # noqa: F401\nimport layergen_support  # noqa: F401\n\n\n"
    "def test_nothing():\n    pass\n"
)


def timed_pytest(project: Path, backend: str, python: str, *paths: str) -> float:
    # As users run: bytecode cached (a checkout's environment may turn that off).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env = {
        **env,
        "KERAS_BACKEND": backend,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONPATH": str(REPO),
    }
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-W", "ignore::DeprecationWarning", *paths]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{backend}: the generated tests failed\n{result.stdout[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sources", nargs="*", type=Path, default=[REPO / "examples"])
    parser.add_argument("--backends", nargs="+", default=["tensorflow", "jax", "torch"])
    parser.add_argument("--python", nargs="*", default=[], metavar="BACKEND=PYTHON")
    parser.add_argument("--one-file", type=int, default=None, metavar="N")
    args = parser.parse_args()
    pythons = dict(item.split("=", 1) for item in args.python)
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
        (project / "tests" / "test_baseline.py").write_text(BASELINE)
        files = sorted(
            str(p.relative_to(project))
            for p in (project / "tests").glob("test_*.py")
            if p.name != "test_baseline.py"
        )[: args.one_file]
        print(f"{count} declarations")
        for backend in args.backends:
            python = pythons.get(backend, sys.executable)
            # The first process reads the framework from disk: a warm-up, then a median of 3.
            timed_pytest(project, backend, python, "tests/test_baseline.py")
            baseline = statistics.median(
                timed_pytest(project, backend, python, "tests/test_baseline.py") for _ in range(3)
            )
            total = timed_pytest(project, backend, python, "tests")
            per = (total - baseline) / count
            print(
                f"{backend:>10}: {total:6.1f} s in all, baseline {baseline:4.1f} s:"
                f" {per:4.2f} s per declaration"
            )
            if not files:
                continue
            alone = {f: timed_pytest(project, backend, python, f) - baseline for f in files}
            slowest = max(alone, key=alone.get)
            print(
                f"{'':>12}one file alone: {sum(alone.values()) / len(alone):4.2f} s on"
                f" average, at most {alone[slowest]:4.2f} s ({Path(slowest).stem}),"
                f" {len(alone)} files"
            )


if __name__ == "__main__":
    main()
