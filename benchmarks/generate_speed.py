"""How long one `layergen generate` of one declaration takes, as a ratio of a bare
`python -c "import jinja2, libcst, black, typer"` measured in the same run.

    python benchmarks/generate_speed.py [--runs 15]

Each command runs in a fresh process, alternating with the baseline so machine noise
hits both alike; the medians are compared.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DECLARATION = REPO / "examples" / "gain_dense.layer.yaml"


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
        (project / "layers").mkdir()
        shutil.copy(DECLARATION, project / "layers")
        baseline = [sys.executable, "-c", "import jinja2, libcst, black, typer"]
        generate = [sys.executable, "-m", "layergen", "generate", "-q", "layers"]
        timed(generate, project)  # warm the file cache and black's grammar cache
        base_times, gen_times = [], []
        for _ in range(runs):
            base_times.append(timed(baseline, project))
            for path in (project / "layers").glob("*.py"):
                path.unlink()  # regenerate from scratch each time
            gen_times.append(timed(generate, project))
    base, gen = statistics.median(base_times), statistics.median(gen_times)
    print(f"baseline import: median {base:.3f} s over {runs} runs")
    print(f"generate one declaration: median {gen:.3f} s over {runs} runs")
    print(f"ratio: {gen / base:.2f}x (limit 1.6x)")


if __name__ == "__main__":
    main()
