"""Saves that land while `layergen generate` runs: how many are lost.

    python benchmarks/concurrent_saves.py [--runs 5] [--declarations 40] [--every 0.002]

A project of `--declarations` layers is generated once. Then, for each run, every
declaration is changed (so the run rewrites every module) and `layergen generate` runs in
its own process while this one saves the first module every `--every` seconds, as an
editor does: in place (truncate and write), one comment line `# save N` at the top of
`build`, and without taking layergen's run lock. A save is lost when, before the next
save, the file no longer holds its line: the run replaced the file with a text made from
an older save. Also counted: runs that failed, and files that do not parse afterwards.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

DECLARATION = """\
layer: Layer{i}
params:
  gain: {{type: float, default: {default}}}
weights:
  scale: {{shape: 'x[-1]', initializer: ones}}
call: x * scale * gain
"""
ANCHOR = "    def build(self, input_shape):\n"


@dataclass
class Tally:
    saves: int = 0
    lost: int = 0
    failed_runs: int = 0
    unparsable: int = 0


def project(root: Path, count: int) -> Path:
    (root / "layers").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'saves'\n")
    declare(root, count, 1.0)
    subprocess.run(layergen(), cwd=root, check=True, capture_output=True)
    return root


def declare(root: Path, count: int, default: float) -> None:
    for i in range(count):
        text = DECLARATION.format(i=i, default=default)
        (root / "layers" / f"layer_{i:03d}.layer.yaml").write_text(text)


def layergen() -> list[str]:
    return [sys.executable, "-m", "layergen", "generate", "-q", "layers"]


def saved(text: str, number: int) -> str:
    """The module with one `# save N` line at the top of `build` (a previous one replaced)."""
    lines = [
        line for line in text.splitlines(keepends=True) if not line.startswith("        # save ")
    ]
    text = "".join(lines)
    at = text.index(ANCHOR) + len(ANCHOR)
    return text[:at] + f"        # save {number}\n" + text[at:]


def run_with_saves(root: Path, runs: int, count: int, every: float) -> Tally:
    tally = Tally()
    module = root / "layers" / "layer_000.py"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for run in range(runs):
        declare(root, count, 2.0 if run % 2 == 0 else 1.0)
        done = threading.Event()
        saver = threading.Thread(target=save_until, args=(module, done, every, tally))
        saver.start()
        try:
            result = subprocess.run(layergen(), cwd=root, capture_output=True, text=True, env=env)
        finally:
            done.set()
            saver.join()
        tally.failed_runs += result.returncode not in (0, 1)
        for path in root.rglob("*.py"):
            try:
                ast.parse(path.read_text())
            except SyntaxError:
                tally.unparsable += 1
    return tally


def save_until(module: Path, done: threading.Event, every: float, tally: Tally) -> None:
    """Save `module` every `every` seconds until `done`, counting the saves found lost."""
    number = None
    while not done.is_set():
        text = module.read_text()
        if number is not None and f"        # save {number}\n" not in text:
            tally.lost += 1
        if ANCHOR in text:
            number = tally.saves = tally.saves + 1
            with open(module, "w") as handle:  # in place, as most editors save
                handle.write(saved(text, number))
        time.sleep(every)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--declarations", type=int, default=40)
    parser.add_argument("--every", type=float, default=0.002)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = project(Path(folder) / "p", args.declarations)
        tally = run_with_saves(root, args.runs, args.declarations, args.every)
    print(
        f"{args.runs} runs of {args.declarations} declarations, a save every {args.every * 1000:g} ms:"
        f" {tally.saves} saves, {tally.lost} lost, {tally.failed_runs} runs failed,"
        f" {tally.unparsable} files that do not parse"
    )


if __name__ == "__main__":
    main()
