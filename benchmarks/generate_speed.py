"""How long one `layergen generate` of one declaration takes, as a ratio of a typer command
with `generate`'s options that does nothing, measured in the same run (the floor
any typer 0.29 CLI pays, pydantic TypeAdapters included; the goal is 1.15x, three
measurements in a row).

    python benchmarks/generate_speed.py [--runs 15] [--repeat 3] [--breakdown]

Three cases, each in a fresh process:

- first: a project holding only the declaration, generated for the first time
  (module, tests, package `__init__`, conftest and lock are all written), on a machine
  where layergen has generated another layer before: its user cache holds Jinja's compiled
  templates and black's results for that other layer, never for this one (each run starts
  from a copy of that cache);
- first, cold: the same with an empty user cache, as on a fresh machine (reported, not the
  goal: Python's own first run after an install compiles bytecode the same way);
- again: the first case's project generated once more, nothing to change.

Also timed: the old baseline, a bare `python -c "import jinja2, libcst, black, typer"`,
and beside it:

- one pydantic model: the baseline's imports, then one small model of the kind the
  declaration format is made of (strict, a `Literal` field, a `Field`) defined and used
  once: what any tool that checks its input with pydantic pays (pydantic is not among the
  baseline's imports);
- a typer command with `generate`'s options that does nothing, what any typer 0.29 CLI
  pays before its command runs (typer parses options through pydantic, which the
  baseline's `import typer` does not import).

Each round runs the baseline and both cases one after the other, so machine noise
hits them alike; the medians are compared, in wall-clock time (the goal) and in CPU
time (steadier on a busy machine). layergen's bytecode is compiled first, as pip does
when it installs a package (a checkout run with PYTHONDONTWRITEBYTECODE would otherwise
compile every module in every run, which the baseline's packages never do).

`--breakdown` says where a first run's time beyond the baseline goes: the imports the
baseline does not make (by package, from `python -X importtime`) and the stages of the
run (from a profile of one run with the baseline's imports done first).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DECLARATION = REPO / "examples" / "gain_dense.layer.yaml"
OTHER = REPO / "examples" / "rms_norm.layer.yaml"  # generated before, to warm the user cache
FLOOR = "import jinja2, libcst, black, typer"
BASELINE = [sys.executable, "-c", FLOOR]
GENERATE = [sys.executable, "-m", "layergen", "generate", "-q", "layers"]
# What any command of a typer 0.29 CLI pays beyond the import: typer parses its options
# through pydantic TypeAdapters. `generate`'s arguments and options, a body that does
# nothing, and the settings layergen's CLI starts with (no pydantic plugins to look for).
TYPER_COMMAND = f"""{FLOOR}
import os
from pathlib import Path

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
app = typer.Typer(pretty_exceptions_enable=False)


@app.command()
def generate(
    paths: list[Path] = typer.Argument(None),
    tests: Path | None = typer.Option(None, "--tests"),
    package: str | None = typer.Option(None, "--package"),
    check: bool = typer.Option(False, "--check"),
    diff: bool = typer.Option(False, "--diff"),
    force: bool = typer.Option(False, "--force"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    record: bool = typer.Option(False, "--record"),
):
    pass


@app.command()
def other():
    pass


app(["generate", "-q", "layers"])
"""
NOTHING = [sys.executable, "-c", TYPER_COMMAND]
# What checking input with pydantic costs at the least: one model, as layergen's CLI starts
# (no plugins), built and used once.
PYDANTIC_MODEL = f"""{FLOOR}
import os
from typing import Literal

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
from pydantic import BaseModel, ConfigDict, Field


class Param(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["int", "float"]
    choices: list[str | int] = Field(default_factory=list)


Param(type="int")
"""
ONE_MODEL = [sys.executable, "-c", PYDANTIC_MODEL]
REFERENCES = {
    "one pydantic model, defined and used": ONE_MODEL,
    "a typer command with `generate`'s options, doing nothing": NOTHING,
}
GOAL = 1.15  # A first run of one declaration, against the typer reference
REFERENCE = "a typer command with `generate`'s options, doing nothing"
# Whether a run where nothing changed imports pydantic: through layergen's own code (the
# command itself), and through the CLI (typer 0.29 parses options with pydantic).
IMPORTS = """
import sys
from pathlib import Path
{run}
print("pydantic" in sys.modules)
"""
OWN_RUN = """from layergen.commands.generate import generate
from layergen.config import load_config
generate([Path("layers").resolve()], load_config(), echo=lambda *a, **k: None, quiet=True)"""
CLI_RUN = """sys.argv = ["layergen", "generate", "-q", "layers"]
from layergen.cli import main
try:
    main()
except SystemExit:
    pass"""
# The stages of a run: (function, a part of its file's path); cumulative time in a profile.
STAGES = {
    "read, check and analyse the declaration (YAML, pydantic, libcst)": (
        "parse_declaration",
        "layergen",
    ),
    "contexts and Jinja": ("render_source", "layergen"),
    "black": ("format_code", "layergen/render/render"),
    "merge, write and lock": ("apply", "layergen/commands"),
    "typer: parse the command line (pydantic TypeAdapters in typer 0.29)": ("parse_args", "typer"),
}


def timed(command: list[str], cwd: Path, cache: Path | None = None) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one command in a fresh process (`cache`: its
    XDG_CACHE_HOME, where layergen keeps compiled templates and black's results)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)} if cache else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def new_project(parent: Path, name: str, declaration: Path = DECLARATION) -> Path:
    project = parent / name
    (project / "layers").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    shutil.copy(declaration, project / "layers")
    return project


def measure(runs: int) -> dict[str, dict[str, float]]:
    """Medians per case: {"wall": {...}, "cpu": {...}}."""
    cases = ("baseline", *REFERENCES, "first", "first, cold", "again")
    times: dict[str, dict[str, list[float]]] = {
        kind: {case: [] for case in cases} for kind in ("wall", "cpu")
    }
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm-cache"
        timed(GENERATE, new_project(Path(tmp), "warm-up", OTHER), warm)  # and the file cache
        for run in range(runs):
            project, cold = new_project(Path(tmp), f"run{run}"), new_project(
                Path(tmp), f"cold{run}"
            )
            cache = shutil.copytree(warm, Path(tmp) / f"cache{run}")
            for case, command, where, home in (
                ("baseline", BASELINE, project, cache),
                *((name, command, project, cache) for name, command in REFERENCES.items()),
                ("first", GENERATE, project, cache),
                ("first, cold", GENERATE, cold, Path(tmp) / f"empty{run}"),
                ("again", GENERATE, project, cache),
            ):
                wall, cpu = timed(command, where, home)
                times["wall"][case].append(wall)
                times["cpu"][case].append(cpu)
    return {
        kind: {case: statistics.median(values) for case, values in cases.items()}
        for kind, cases in times.items()
    }


def report(medians: dict[str, dict[str, float]], runs: int) -> tuple[bool, bool]:
    """Print the medians as ratios of the typer reference; whether the first run met the
    goal, in wall-clock time and in CPU time."""
    wall, cpu = medians["wall"], medians["cpu"]
    floor, floor_cpu = wall[REFERENCE], cpu[REFERENCE]
    print(f"reference, {REFERENCE}: median {floor:.3f} s wall, {floor_cpu:.3f} s CPU")
    for case in ("baseline", *(r for r in REFERENCES if r != REFERENCE)):
        print(
            f"  {case if case != 'baseline' else f'`{FLOOR}`'}: {wall[case]:.3f} s ="
            f" {wall[case] / floor:.2f}x wall, {cpu[case] / floor_cpu:.2f}x CPU"
        )
    for case in ("first", "first, cold", "again"):
        print(
            f"  generate one declaration, {case}: {wall[case]:.3f} s = "
            f"{wall[case] / floor:.2f}x wall, {cpu[case] / floor_cpu:.2f}x CPU"
            + (f" (goal {GOAL}x)" if case == "first" else "")
            + f", medians of {runs}"
        )
    return wall["first"] / floor <= GOAL, cpu["first"] / floor_cpu <= GOAL


def pydantic_imported() -> tuple[bool, bool]:
    """Whether a run where nothing changed imports pydantic: (layergen's command, the CLI)."""
    with tempfile.TemporaryDirectory() as tmp:
        project = new_project(Path(tmp), "unchanged")
        subprocess.run(GENERATE, cwd=project, check=True, capture_output=True)
        found = []
        for run in (OWN_RUN, CLI_RUN):
            command = [sys.executable, "-c", IMPORTS.format(run=run)]
            out = subprocess.run(command, cwd=project, check=True, capture_output=True, text=True)
            found.append(out.stdout.strip().endswith("True"))
        return found[0], found[1]


def import_breakdown(project: Path, cache: Path) -> list[tuple[str, float]]:
    """Seconds of each top-level package imported by a first run and not by the baseline."""

    def imports(command: list[str]) -> dict[str, float]:
        env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", "XDG_CACHE_HOME": str(cache)}
        err = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True).stderr
        found: dict[str, float] = {}
        for line in err.splitlines():
            if not line.startswith("import time:") or "[us]" in line:
                continue
            own, _, name = line.removeprefix("import time:").split("|")
            package = name.strip().split(".")[0]
            found[package] = found.get(package, 0.0) + int(own) / 1e6
        return found

    floor = imports(BASELINE)
    for leftover in ("layers/gain_dense.py", "layergen.lock"):
        (project / leftover).unlink(missing_ok=True)
    shutil.rmtree(project / ".layergen", ignore_errors=True)
    shutil.rmtree(project / "tests", ignore_errors=True)
    run = imports(GENERATE)
    extra = [(p, s) for p, s in run.items() if p not in floor]
    return sorted(extra, key=lambda item: -item[1])


PROFILE = """
import cProfile, pstats, sys, time
{floor}
sys.argv = ["layergen", "generate", "-q", "layers"]
from layergen.cli import main
profile = cProfile.Profile()
start = time.process_time()
profile.enable()
try:
    main()
except SystemExit:
    pass
profile.disable()
print("total", time.process_time() - start)
stats = pstats.Stats(profile).stats
for (file, line, name), (_, _, _, cumulative, _) in stats.items():
    print("fn", name, file, cumulative)
"""


def stage_breakdown(project: Path, cache: Path) -> tuple[float, dict[str, float]]:
    """CPU seconds of a first run beyond the baseline's imports, and of each stage in it."""
    script = PROFILE.format(floor=FLOOR)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    command = [sys.executable, "-c", script]
    out = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, check=True
    ).stdout
    total, stages = 0.0, dict.fromkeys(STAGES, 0.0)
    for line in out.splitlines():
        if line.startswith("total "):
            total = float(line.split()[1])
        elif line.startswith("fn "):
            _, name, file, cumulative = line.split(" ", 3)
            for stage, (function, where) in STAGES.items():
                if name == function and where in file:
                    stages[stage] = max(stages[stage], float(cumulative))
    return total, stages


def breakdown() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm-cache"
        timed(GENERATE, new_project(Path(tmp), "warm-up", OTHER), warm)
        project = new_project(Path(tmp), "breakdown")
        cache = shutil.copytree(warm, Path(tmp) / "cache-imports")
        print("\nimports a first run makes beyond the baseline's (own time, one run):")
        for package, seconds in import_breakdown(project, cache)[:12]:
            print(f"  {package:24} {seconds * 1000:6.1f} ms")
        project = new_project(Path(tmp), "profiled")
        total, stages = stage_breakdown(project, shutil.copytree(warm, Path(tmp) / "cache-stages"))
        print(f"\na first run after the baseline's imports: {total * 1000:.0f} ms CPU (profiled)")
        for stage, seconds in stages.items():
            print(f"  {stage:66} {seconds * 1000:6.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=3, help="whole measurements in a row")
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args()
    compileall.compile_dir(REPO / "layergen", quiet=1)
    met = [report(measure(args.runs), args.runs) for _ in range(args.repeat)]
    print(
        f"first run within {GOAL}x of the reference: {sum(w for w, _ in met)} of {len(met)}"
        f" measurements in wall-clock time, {sum(c for _, c in met)} of {len(met)} in CPU time"
    )
    own, cli = pydantic_imported()
    print(
        "a run where nothing changed imports pydantic:"
        f" layergen's command {'yes' if own else 'no'},"
        f" the CLI {'yes (typer 0.29 parses options through it)' if cli else 'no'}"
    )
    if args.breakdown:
        breakdown()


if __name__ == "__main__":
    main()
