"""How long the generated tests of one declaration take on each backend, beyond the
framework import: for the whole suite in one process, and for one layer's test file
alone (what a user reruns after editing that layer).

    python benchmarks/generated_tests_speed.py [DIR ...] [--backends tensorflow jax torch]
        [--python BACKEND=PYTHON ...] [--one-file N]

(DIRs first: `--python` takes every word after it.)

The declarations (default: the project's `examples/`) are generated into a fresh
project; then, per backend, pytest runs in a fresh process over a test that only
imports Keras and the support module (the baseline), over all generated tests, and
over each of N test files alone (default: every one). Reported: (all - baseline) /
number of declarations, and (one file - baseline) on average and at most. Goal: at
most 2 s on a 2-core machine. `--python jax=/venvs/jax/bin/python` runs a backend's
tests with another interpreter: measure each backend in an environment with only
that framework installed, as users have (with TensorFlow installed, Keras imports it
during the first `get_config`, about 2 s a process, whatever the backend).

Each run is timed twice, as a user meets it: first with pytest's cache empty, then
again. On JAX the generated conftest keeps what JAX compiled in pytest's cache, so the
second run finds it there; on TensorFlow and torch nothing is kept, and the two runs
differ only by the machine's noise. "First" means pytest's cache only: a file alone runs
after the whole suite, with Python's bytecode and the disk cache warm.
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


GOAL = 2.0  # seconds per declaration beyond the framework import


def timed_pytest(project: Path, backend: str, python: str, *paths: str) -> float:
    # As users run: bytecode cached (a checkout's environment may turn that off), and
    # JAX configured by the generated conftest alone.
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("JAX_", "XLA_"))
    }
    env = {
        **env,
        "KERAS_BACKEND": backend,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONPATH": str(REPO),
    }
    command = [python, "-m", "pytest", "-q"]
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
            first, again = first_and_again(project, backend, python, "tests")
            print(
                f"{backend:>10}: baseline {baseline:4.1f} s; all tests {first:5.1f} s, then"
                f" {again:5.1f} s: {(first - baseline) / count:4.2f} s per declaration,"
                f" then {(again - baseline) / count:4.2f} s"
            )
            if not files:
                continue
            alone = {f: first_and_again(project, backend, python, f) for f in files}
            for run, label in ((0, "first"), (1, "again")):
                beyond = {f: times[run] - baseline for f, times in alone.items()}
                slowest = max(beyond, key=beyond.get)
                print(
                    f"{'':>12}one file alone, {label}: {statistics.mean(beyond.values()):4.2f} s"
                    f" on average, at most {beyond[slowest]:4.2f} s ({Path(slowest).stem}),"
                    f" {len(beyond)} files"
                )
                over = sorted((s, Path(f).stem) for f, s in beyond.items() if s > GOAL)
                if over:
                    print(f"{'':>14}over {GOAL} s: " + ", ".join(f"{n} {s:.2f}" for s, n in over))


def first_and_again(project: Path, backend: str, python: str, path: str) -> tuple[float, float]:
    """A run with pytest's cache empty, then the same run again."""
    shutil.rmtree(project / ".pytest_cache", ignore_errors=True)
    return tuple(timed_pytest(project, backend, python, path) for _ in range(2))


if __name__ == "__main__":
    main()
