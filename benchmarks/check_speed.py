"""Files per second `layergen check` reads and checks on one core (the issue's goal: 1,000).

    python benchmarks/check_speed.py [FOLDER ...] [--rounds 5] [--findings]

Default folders: Keras's own `keras/src/layers` and, when installed, keras-hub's `src`.
Times are CPU time of this process (one core), from the files on disk to the findings, best
of the rounds; each round times, one after the other (so a busy machine slows all alike):

- baseline: reading every file and `ast.parse` of each, the least a checker that parses
  every file can cost;
- first run: `check_files` without a cache (the prefilter on);
- cold cache: the same, writing `.layergen/check-cache/` (in a temporary folder);
- repeat run: again with that cache, nothing changed.

`--findings` also prints the findings by rule, and checks that they are the same with
the prefilter off and from the cache.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from layergen.lint.cache import CheckCache  # noqa: E402
from layergen.lint.engine import check_files, python_files  # noqa: E402
from layergen.lint.settings import CheckSettings  # noqa: E402

# keras-hub registers its classes through its own decorator.
REGISTRARS = frozenset(["keras_hub.src.api_export.keras_hub_export"])


def default_folders() -> list[Path]:
    folders = []
    for package, sub in (("keras", "src/layers"), ("keras_hub", "src")):
        spec = importlib.util.find_spec(package)
        if spec and spec.submodule_search_locations:
            root = Path(next(iter(spec.submodule_search_locations))) / sub
            folders += [root] if root.is_dir() else []
    return folders


def cpu(work) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def baseline(files: list[Path]) -> None:
    for path in files:
        ast.parse(path.read_text(encoding="utf-8"))


def findings(report) -> set:
    return {(str(p), f.code, f.line, f.col) for p, found in report.findings.items() for f in found}


def measure(files: list[Path], settings: CheckSettings, home: Path, rounds: int) -> dict:
    """The best CPU time of each way to check `files`, one after the other in each round."""
    best: dict[str, float] = {}
    for _ in range(rounds):
        shutil.rmtree(home / ".layergen", ignore_errors=True)
        times = {
            "baseline": cpu(lambda: baseline(files)),
            "first run": cpu(lambda: check_files(files, settings)),
            "cold cache": cpu(lambda: check_files(files, settings, cache=CheckCache(settings))),
            "repeat run": cpu(lambda: check_files(files, settings, cache=CheckCache(settings))),
        }
        for name, seconds in times.items():
            best[name] = min(best.get(name, seconds), seconds)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--findings", action="store_true")
    args = parser.parse_args()
    for folder in args.folders or default_folders():
        home = Path(tempfile.mkdtemp())  # where the cache goes
        settings = CheckSettings(root=home, registrars=REGISTRARS)
        files = python_files([folder], settings)
        best = measure(files, settings, home, args.rounds)
        report = check_files(files, settings)
        print(
            f"{folder}: {len(files)} files, {len(report.files)} parsed (the others cannot hold a Keras class)"
        )
        for name, seconds in best.items():
            print(
                f"  {name:>10}: {len(files) / seconds:7,.0f} files/s"
                f"  ({best['baseline'] / seconds:.2f}x the read + ast.parse baseline)"
            )
        if args.findings:
            everything = check_files(files, settings, read_all=True)
            cached = check_files(files, settings, cache=CheckCache(settings))
            same = findings(everything) == findings(report) == findings(cached)
            by_rule = Counter(f.code for found in report.findings.values() for f in found)
            print(
                f"  findings: {sum(by_rule.values())}, the same without prefilter and from the cache: {same}"
            )
            for code, count in by_rule.most_common():
                print(f"    {code}: {count}")
        shutil.rmtree(home)


if __name__ == "__main__":
    main()
