"""`layergen generate` and `layergen watch` on a project of many declarations, as ratios of
a bare `python -c "import jinja2, libcst, black, typer"` (the floor) measured in the same run.

    python benchmarks/project_speed.py [--runs 5] [--count 96] [--saves 7]

The project: the layer declarations of examples/ and tests/fixtures/acceptance/, copied
round-robin (each copy's file and class renamed) until there are `--count` of them. Four
cases, each in a fresh process, each round running the floor before every case so machine
noise hits them alike; the medians are compared (goal in brackets):

- first: `layergen generate` of the folder, nothing generated yet (8x);
- check: `layergen generate --check` of the unchanged project (1.5x);
- again: `layergen generate` of the unchanged project (1.5x);
- one changed: one declaration's `doc` edited, then `layergen generate` (1.6x).

Then `layergen watch` of the project: `--saves` times one declaration is saved with a new
`doc`, and the time from the save to its module holding the new text is taken (0.3 s).
layergen's bytecode is compiled first, as pip does when it installs a package. Each round
(and the watch) starts from a copy of the user cache a warm-up of 4 other declarations left:
Jinja's compiled templates and black's results for those, never for the project's own, as
on a machine where layergen has been used before.
"""

from __future__ import annotations

import argparse
import compileall
import itertools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    [
        *(REPO / "examples").glob("*.layer.yaml"),
        *(REPO / "tests/fixtures/acceptance").glob("*.layer.yaml"),
    ]
)
FLOOR = [sys.executable, "-c", "import jinja2, libcst, black, typer"]
LAYERGEN = [sys.executable, "-m", "layergen"]
GOALS = {"first": 8.0, "check": 1.5, "again": 1.5, "one changed": 1.6}
WATCH_GOAL = 0.3
GENERATE = {
    "first": [*LAYERGEN, "generate", "-q"],
    "check": [*LAYERGEN, "generate", "-q", "--check"],
    "again": [*LAYERGEN, "generate", "-q"],
    "one changed": [*LAYERGEN, "generate", "-q"],
}


# As projects declare it: black reads it for its target versions, and layergen with it.
# `--no-requires-python` leaves it out, and black then infers the versions file by file.
REQUIRES_PYTHON = "requires-python = '>=3.11'\n"


def new_project(folder: Path, count: int, tag: str = "") -> Path:
    """A project of `count` layer declarations in layers/ (`tag`: in each class name)."""
    (folder / "layers").mkdir(parents=True)
    (folder / "pyproject.toml").write_text(
        f"[project]\nname = 'bench'\n{REQUIRES_PYTHON}\n[tool.layergen]\npaths = ['layers']\n"
    )
    for number, source in zip(range(count), itertools.cycle(SOURCES)):
        text = source.read_text(encoding="utf-8")
        name = re.search(r"^layer: (\w+)", text, re.MULTILINE).group(1)
        text = re.sub(
            r"^layer: \w+", f"layer: {name}{tag}{number}", text, count=1, flags=re.MULTILINE
        )
        stem = source.name.removesuffix(".layer.yaml")
        (folder / "layers" / f"{stem}_{number}.layer.yaml").write_text(text, encoding="utf-8")
    return folder


def editable(folder: Path) -> list[Path]:
    """The declarations whose `doc` is one plain line (`edit` changes those)."""
    return [
        d
        for d in sorted(folder.glob("*.layer.yaml"))
        if re.search(r"^doc: [^>|\s]", d.read_text(encoding="utf-8"), re.MULTILINE)
    ]


def edit(declaration: Path, mark: str) -> None:
    """A real change: the declaration's doc gains `mark`."""
    text = declaration.read_text(encoding="utf-8")
    text = re.sub(
        r"^(doc: .*?)( Edit \w+\.)?$", rf"\1 Edit {mark}.", text, count=1, flags=re.MULTILINE
    )
    declaration.write_text(text, encoding="utf-8")


def timed(command: list[str], cwd: Path, expect: int = 0) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != expect:
        sys.exit(f"{' '.join(command[2:])} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return elapsed


def warm_cache(parent: Path) -> Path:
    """The user cache (XDG_CACHE_HOME) after a first run of 4 declarations of its own."""
    cache = parent / "warm-cache"
    os.environ["XDG_CACHE_HOME"] = str(cache)
    timed([*LAYERGEN, "generate", "-q"], new_project(parent / "warm-up", 4, tag="WarmUp"))
    return cache


def start_from(warm: Path, copy: Path) -> None:
    """The processes started from here on use a copy of the warm cache: what an earlier round
    formatted for this project's declarations would make a first run look faster than it is."""
    os.environ["XDG_CACHE_HOME"] = str(shutil.copytree(warm, copy))


def project_rounds(parent: Path, runs: int, count: int, warm: Path) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"floor": [], **{case: [] for case in GOALS}}
    for run in range(runs):
        start_from(warm, parent / f"cache{run}")
        project = new_project(parent / f"run{run}", count)
        candidates = editable(project / "layers")
        changed = candidates[len(candidates) // 2]
        for case in GOALS:
            times["floor"].append(timed(FLOOR, project))
            if case == "one changed":
                edit(changed, f"R{run}")
            times[case].append(timed(GENERATE[case], project))
        shutil.rmtree(project)
    return times


def watch_latency(parent: Path, count: int, saves: int, warm: Path) -> list[float]:
    """Seconds from a saved declaration to its regenerated module, `saves` times."""
    start_from(warm, parent / "cache-watched")
    project = new_project(parent / "watched", count)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [*LAYERGEN, "watch"],
        cwd=project,
        env=env,
        stdout=(parent / "watch.out").open("w"),
        stderr=subprocess.STDOUT,
    )
    declarations = editable(project / "layers")
    latencies = []
    try:
        deadline = time.monotonic() + 300
        # The first run is done and the watcher waits for saves.
        while "layergen watch: watching" not in (parent / "watch.out").read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"layergen watch did not start:\n{(parent / 'watch.out').read_text()}")
            time.sleep(0.05)
        time.sleep(0.2)
        for save in range(saves):
            declaration = declarations[(save * 7) % len(declarations)]
            module = declaration.with_name(declaration.name.removesuffix(".layer.yaml") + ".py")
            mark = f"W{save}"
            start = time.perf_counter()
            edit(declaration, mark)
            deadline = start + 30
            # The docstring is wrapped to the line length: compare words, not lines.
            while f"Edit {mark}." not in " ".join(module.read_text(encoding="utf-8").split()):
                if time.perf_counter() > deadline:
                    sys.exit(
                        f"layergen watch did not regenerate {module.name}:\n"
                        + (parent / "watch.out").read_text()[-3000:]
                    )
                time.sleep(0.002)
            latencies.append(time.perf_counter() - start)
            time.sleep(0.5)  # the run finishes (tests, lock) before the next save
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return latencies


def break_even(parent: Path, runs: int) -> None:
    """A first run of a few declarations, one after the other and in a pool of processes."""
    warm = warm_cache(parent)
    for count in (2, 3, 4, 6, 8, 12, 16):
        medians = {}
        for label, parallel_from in (("serial", "100000"), ("pool", "1")):
            env = {**os.environ, "LAYERGEN_PARALLEL_FROM": parallel_from}
            times = []
            for run in range(runs):
                start_from(warm, parent / f"cache-{label}{count}-{run}")
                project = new_project(parent / f"{label}{count}-{run}", count)
                env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"]
                start = time.perf_counter()
                subprocess.run(GENERATE["first"], cwd=project, env=env, check=True)
                times.append(time.perf_counter() - start)
                shutil.rmtree(project)
            medians[label] = statistics.median(times)
        print(
            f"{count:3} declarations: serial {medians['serial']:.2f} s, pool {medians['pool']:.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--count", type=int, default=96, help="declarations in the project")
    parser.add_argument("--saves", type=int, default=7, help="saves timed under watch")
    parser.add_argument("--watch-count", type=int, default=100, help="declarations under watch")
    parser.add_argument(
        "--break-even", action="store_true", help="time a pool against one process instead"
    )
    parser.add_argument(
        "--no-requires-python",
        action="store_true",
        help="a pyproject.toml without requires-python (black infers its targets per file)",
    )
    args = parser.parse_args()
    if args.no_requires_python:
        global REQUIRES_PYTHON
        REQUIRES_PYTHON = ""
    compileall.compile_dir(REPO / "layergen", quiet=1)
    if args.break_even:
        with tempfile.TemporaryDirectory() as tmp:
            break_even(Path(tmp), args.runs)
        return
    with tempfile.TemporaryDirectory() as tmp:
        warm = warm_cache(Path(tmp))  # and the file cache
        times = project_rounds(Path(tmp), args.runs, args.count, warm)
        latencies = watch_latency(Path(tmp), args.watch_count, args.saves, warm)
    floor = statistics.median(times["floor"])
    print(
        f"floor `import jinja2, libcst, black, typer`: median {floor:.3f} s over {len(times['floor'])} runs"
    )
    met = True
    for case, goal in GOALS.items():
        median = statistics.median(times[case])
        ratio = median / floor
        met &= ratio <= goal
        print(
            f"{args.count} declarations, {case}: median {median:.3f} s, {ratio:.2f}x the floor (goal {goal}x)"
            f"{'' if ratio <= goal else '  NOT MET'}"
        )
    latency = statistics.median(latencies)
    met &= latency <= WATCH_GOAL
    print(
        f"watch, {args.watch_count} declarations, one saved: median {latency:.3f} s from save to written module"
        f" (max {max(latencies):.3f} s, {len(latencies)} saves; goal {WATCH_GOAL} s)"
        f"{'' if latency <= WATCH_GOAL else '  NOT MET'}"
    )
    print("every goal met" if met else "some goals NOT met")


if __name__ == "__main__":
    main()
