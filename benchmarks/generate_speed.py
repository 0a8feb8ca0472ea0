"""How long one `layergen generate` of one declaration takes, as a ratio of a bare
`python -c "import jinja2, libcst, black, typer"` measured in the same run.

    python benchmarks/generate_speed.py [--runs 15]

Two cases, each in a fresh process:

- first: a project holding only the declaration, generated for the first time
  (module, tests, package `__init__`, conftest and lock are all written);
- again: the same project generated once more, nothing to change.

Each round runs the baseline and both cases one after the other, so machine noise
hits them alike; the medians are compared. layergen's bytecode is compiled first, as
pip does when it installs a package (a checkout run with PYTHONDONTWRITEBYTECODE would
otherwise compile every module in every run, which the baseline's packages never do).
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DECLARATION = REPO / "examples" / "gain_dense.layer.yaml"
BASELINE = [sys.executable, "-c", "import jinja2, libcst, black, typer"]
GENERATE = [sys.executable, "-m", "layergen", "generate", "-q", "layers"]


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def new_project(parent: Path, name: str) -> Path:
    project = parent / name
    (project / "layers").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    shutil.copy(DECLARATION, project / "layers")
    return project


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    compileall.compile_dir(REPO / "layergen", quiet=1)
    times: dict[str, list[float]] = {"baseline": [], "first": [], "again": []}
    with tempfile.TemporaryDirectory() as tmp:
        timed(GENERATE, new_project(Path(tmp), "warm-up"))  # fills the file cache and Jinja's
        for run in range(runs):
            project = new_project(Path(tmp), f"run{run}")
            times["baseline"].append(timed(BASELINE, project))
            times["first"].append(timed(GENERATE, project))
            times["again"].append(timed(GENERATE, project))
    medians = {case: statistics.median(values) for case, values in times.items()}
    print(
        f"baseline `import jinja2, libcst, black, typer`: median {medians['baseline']:.3f} s over {runs} runs"
    )
    for case in ("first", "again"):
        ratio = medians[case] / medians["baseline"]
        print(
            f"generate one declaration, {case}: median {medians[case]:.3f} s, {ratio:.2f}x (limit 1.6x)"
        )


if __name__ == "__main__":
    main()
