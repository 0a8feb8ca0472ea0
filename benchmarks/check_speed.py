"""Files per second `layergen check` reads and checks on one core (the issue's goal: 1,000).

    python benchmarks/check_speed.py [FOLDER ...] [--rounds 3]

Default folders: Keras's own `keras/src/layers` and, when installed, keras-hub's
`src/layers` and `src/models`. The time is CPU time of this process (one core), for
`check_files` (reading, parsing, classifying, every rule), best of the rounds; it also
prints how long parsing alone takes with `ast` and with libcst, for scale.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from layergen.lint.engine import check_files, python_files  # noqa: E402
from layergen.lint.settings import CheckSettings  # noqa: E402


def default_folders() -> list[Path]:
    folders = []
    for package, subfolders in (
        ("keras", ["src/layers"]),
        ("keras_hub", ["src/layers", "src/models"]),
    ):
        spec = importlib.util.find_spec(package)
        if spec and spec.submodule_search_locations:
            root = Path(next(iter(spec.submodule_search_locations)))
            folders += [root / sub for sub in subfolders if (root / sub).is_dir()]
    return folders


def best(rounds: int, work) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for folder in args.folders or default_folders():
        settings = CheckSettings(root=folder)
        files = python_files([folder], settings)
        texts = {
            p: p.read_text(encoding="utf-8") for p in files
        }  # reading from disk is not what is measured
        lines = sum(t.count("\n") for t in texts.values())
        seconds = best(
            args.rounds,
            lambda files=files, settings=settings, texts=texts: check_files(
                files, settings, texts=texts
            ),
        )
        parse = best(args.rounds, lambda texts=texts: [ast.parse(t) for t in texts.values()])
        print(f"{folder}: {len(files)} files, {lines / len(files):.0f} lines each on average")
        print(
            f"  layergen check: {len(files) / seconds:,.0f} files/s ({lines / seconds:,.0f} lines/s);"
            f" ast.parse alone: {len(files) / parse:,.0f} files/s"
        )
        if "--libcst" in sys.argv or len(files) < 400:
            import libcst

            sample = list(texts.values())[:50]
            cst = best(1, lambda sample=sample: [libcst.parse_module(t) for t in sample])
            print(f"  libcst.parse_module alone: {len(sample) / cst:,.0f} files/s")


if __name__ == "__main__":
    main()
