"""What the cache of `layergen check` saves on a large codebase when one leaf file is edited.

    python benchmarks/check_cache_speed.py FOLDER [--leaf RELATIVE/PATH.py] [--rounds 3]

FOLDER is copied to a temporary folder (for transformers 4.44.2: `pip download --no-deps
transformers==4.44.2`, unzip the wheel, pass its `transformers` folder). Times are CPU time of
this process. Each round, one after the other on the same machine: `--no-cache`, then one
edit of the leaf file (a file no other file imports) checked again with the cache a first
run wrote; the ratio of the two is the goal (at most 0.2x), and with it how many files were
parsed and how many were checked again. Before the rounds: the first run (writing the
cache) against `--no-cache` (the goal: at most 1.1x).
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from layergen.lint import engine  # noqa: E402
from layergen.lint.cache import CheckCache  # noqa: E402
from layergen.lint.engine import check_files, python_files  # noqa: E402
from layergen.lint.settings import CheckSettings  # noqa: E402


def timed(run):
    """CPU time of `run`. The garbage of the runs before is collected first, outside the
    timing: a run of the command starts in a fresh process, without it."""
    gc.collect()
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


def checked_count(run) -> tuple[float, object, int]:
    """The CPU time of `run`, its report and how many files the rules ran on."""
    counted = []
    original = engine._check

    def counting(files, wanted, *rest):
        counted.append(len(wanted))
        return original(files, wanted, *rest)

    engine._check = counting
    try:
        seconds, report = timed(run)
    finally:
        engine._check = original
    return seconds, report, sum(counted)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--leaf", default="models/bert/modeling_tf_bert.py")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary) / args.folder.name
        shutil.copytree(args.folder, root)
        settings = CheckSettings(root=root)
        files = python_files([root], settings)
        leaf = root / args.leaf
        plain, _ = timed(lambda: check_files(files, settings))
        first, _, _ = checked_count(
            lambda: check_files(files, settings, cache=CheckCache(settings))
        )
        print(
            f"{len(files)} files; first run {first:.2f} s, --no-cache {plain:.2f} s:"
            f" {first / plain:.2f}x"
        )
        for number in range(1, args.rounds + 1):
            plain, _ = timed(lambda: check_files(files, settings))
            leaf.write_text(leaf.read_text() + f"\n# edit {number}\n")
            seconds, report, checked = checked_count(
                lambda: check_files(files, settings, cache=CheckCache(settings))
            )
            print(
                f"round {number}: one edited leaf {seconds:.2f} s, --no-cache {plain:.2f} s:"
                f" {seconds / plain:.2f}x; {len(report.files)} files parsed,"
                f" {checked} checked again"
            )


if __name__ == "__main__":
    main()
