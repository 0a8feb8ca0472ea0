"""Adopt every direct Keras layer subclass of keras-hub, judged by keras-hub's own tests.

    python benchmarks/adopt_keras_hub.py --source KERAS_HUB_GIT_DIR [--commit 71453d08f]
        [--work DIR] [--tests changed|all|none] [--tests-under FOLDER,...]
        [--generated all|under|none] [--workers N] [--backend torch] [--limit N]
        [--by class|module]

`--source` is a keras-hub git directory (a clone or a bare mirror) holding the pinned commit;
keras-hub's tests ship only with its source. The script exports that commit twice (`original/`
and `adopted/` under `--work`), adopts each direct layer subclass of `adopted/keras_hub/src`
with `layergen adopt MODULE:Class` (one process a class, in module order; `--by module`:
`layergen adopt MODULE`, a module at a time, a class at a time where a module is refused),
and prints:

- classes found, adopted, and refused by reason (the `[code]` of the first error);
- the declared share of the adopted classes (per class in `--work/adopt.json`, mean and median);
- the generated tests adopt's trial found failing on the adopted code and stated skipped;
- keras-hub's ruff configuration on both trees (errors before, after);
- with `--tests changed` (the default): keras-hub's own tests of each module adopt changed
  (`<module>_test.py` and the test modules of the same folder), run on both trees on
  `--backend`, compared test by test (`--tests all`: every test module of keras-hub); and
  adopt's generated tests of the adopted classes, run on the adopted tree.

Not a CI test: a whole run takes tens of minutes on 2 cores. Pins what it measures: the
commit, and the versions of keras, keras-hub's dependencies and the backend it runs on are
printed with the table.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

PINNED = "71453d08f"
ADOPTED = re.compile(r"^adopted (\w+) \(.*\): (\d+) of (\d+) lines declared", re.MULTILINE)
MODELS = {"keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential"}
CODE = re.compile(r": error: .*\[([\w-]+)\]")
# a generated test that failed on the adopted code in adopt's trial, stated skipped
TRIAL_SKIP = re.compile(r"^  (\w+) skips (\w+): failed on the code as adopted", re.MULTILINE)


def export(source: Path, commit: str, into: Path) -> None:
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", f"--git-dir={_git_dir(source)}", "archive", commit],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def _git_dir(source: Path) -> Path:
    return source / ".git" if (source / ".git").exists() else source


def layer_classes(tree: Path) -> list[tuple[Path, str, int]]:
    """Every class of `keras_hub/src` (tests excluded) whose base is a Keras layer class,
    named through `keras.layers.X`, `keras.X`, `layers.X` (after `from keras import layers`)
    or a name imported from `keras.layers`."""
    from layergen.keras_classes import layer_classes as keras_layers

    known = set(keras_layers())
    out = []
    for path in sorted((tree / "keras_hub" / "src").rglob("*.py")):
        if path.name.endswith("_test.py") or path.name == "__init__.py":
            continue
        module = ast.parse(path.read_text(encoding="utf-8"))
        aliases = _keras_aliases(module)
        for node in module.body:
            if isinstance(node, ast.ClassDef) and any(
                _is_layer(base, aliases, known) for base in node.bases
            ):
                out.append((path, node.name, node.lineno))
    return out


def _keras_aliases(module: ast.Module) -> dict[str, str]:
    """Local name -> dotted Keras name, from the module's imports."""
    aliases = {"keras": "keras"}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module in {"keras", "keras.layers"}:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "keras":
                    aliases[alias.asname or "keras"] = "keras"
    return aliases


def _is_layer(base: ast.expr, aliases: dict[str, str], known: set[str]) -> bool:
    parts = []
    while isinstance(base, ast.Attribute):
        parts.insert(0, base.attr)
        base = base.value
    if not isinstance(base, ast.Name) or base.id not in aliases:
        return False
    dotted = ".".join([aliases[base.id], *parts])
    if dotted in MODELS:  # layers too, but models: `adopt` is for layers
        return False
    return dotted in known or dotted == "keras.Layer"


def adopt_all(
    tree: Path,
    classes,
    limit: int | None,
    backend: str = "torch",
    by: str = "class",
    log: Path | None = None,
) -> list[dict]:
    """Adopt the classes in a process a class (`by="class"`), or a module (`by="module"`, as a
    team adopts a module of several layers at once; a module refused as a whole is adopted
    again a class at a time, to know each class's fate); observation and the trial run
    keras-hub's tests and adopt's on `backend`."""
    env = {**os.environ, "KERAS_BACKEND": backend}
    classes = classes[:limit]
    modules: dict[Path, list[tuple[str, int]]] = {}
    for path, name, line in classes:
        modules.setdefault(path, []).append((name, line))
    results = []
    for path, members in modules.items():
        if by == "module":
            started = time.perf_counter()
            whole = _adopt(tree, str(path.relative_to(tree)), env)
            if whole.returncode == 0:
                seconds = (time.perf_counter() - started) / len(members)
                rows = [_row(tree, path, n, ln, whole, seconds, "module") for n, ln in members]
                results += _logged(rows, log)
                continue
        for name, line in members:
            started = time.perf_counter()
            done = _adopt(tree, f"{path.relative_to(tree)}:{name}", env)
            seconds = time.perf_counter() - started
            results += _logged([_row(tree, path, name, line, done, seconds, "class")], log)
    for row in results:
        print(f"{row['module']}:{row['class']}: {row.get('refused', 'adopted')}", file=sys.stderr)
    return results


def _logged(rows: list[dict], log: Path | None) -> list[dict]:
    """`rows`, appended to `log` as they come (a long run stopped keeps what it did)."""
    if log is not None:
        with log.open("a", encoding="utf-8") as out:
            out.writelines(json.dumps(row) + "\n" for row in rows)
    return rows


def _adopt(tree: Path, target: str, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "layergen", "adopt", target],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )


def _row(tree: Path, path: Path, name: str, line: int, done, seconds: float, by: str) -> dict:
    out = done.stdout + done.stderr
    row = {
        "module": str(path.relative_to(tree)),
        "class": name,
        "line": line,
        "rc": done.returncode,
        "seconds": round(seconds, 2),
        "by": by,
    }
    adopted = {m.group(1): m for m in ADOPTED.finditer(out)}
    if name in adopted:
        m = adopted[name]
        row["declared"], row["total"] = int(m.group(2)), int(m.group(3))
        row["trial_skips"] = [t for c, t in TRIAL_SKIP.findall(out) if c == name]
    else:
        codes = CODE.findall(out)
        if codes:
            row["refused"] = codes[0]
        elif "already adopted" in out:  # another class of its module was adopted
            row["refused"] = "already-adopted"
        else:
            row["refused"] = "traceback" if "Traceback" in out else "no-output"
        row["output"] = out[-2000:]
    return row


def ruff_errors(tree: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format=concise", "keras_hub"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    return sum(1 for line in done.stdout.splitlines() if re.match(r"\S+:\d+:\d+: ", line))


def run_tests(
    tree: Path, tests: list[str], backend: str, report: Path, workers: int = 1
) -> dict[str, str]:
    """pytest over `tests` in `tree` (importing that tree's keras_hub): test id -> outcome. A
    module that fails to import is its own error, and the others still run."""
    if not tests:
        return {}
    env = {
        **os.environ,
        "KERAS_BACKEND": backend,
        "PYTHONPATH": str(tree),
        "KERAS_HOME": tempfile.mkdtemp(prefix="keras-home-"),
    }
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            f"--junitxml={report}",
            "--continue-on-collection-errors",
            *(["-n", str(workers)] if workers > 1 else []),
            *tests,
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        key = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcomes[key] = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
    return outcomes


def keras_hub_tests(tree: Path, modules: set[str]) -> list[str]:
    tests = set()
    for rel in modules:
        folder = (tree / rel).parent
        tests |= {str(p.relative_to(tree)) for p in folder.glob("*_test.py")}
    return sorted(tests)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--commit", default=PINNED)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--tests", choices=["changed", "all", "none"], default="changed")
    parser.add_argument("--backend", default="torch")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--tests-under",
        default="",
        help="keras-hub's tests only under these folders, comma-separated"
        " (e.g. keras_hub/src/layers): a whole run of them takes hours on 2 cores",
    )
    parser.add_argument(
        "--generated",
        choices=["all", "under", "none"],
        default="under",
        help="adopt's generated tests: of every adopted class, of those under --tests-under"
        " (the default), or none",
    )
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers")
    parser.add_argument(
        "--part",
        default="0/1",
        help="K/N: adopt every N-th module from the K-th (a run per core, each on its own"
        " --work; their adopted trees are then one: see docs/adopt.md)",
    )
    parser.add_argument(
        "--by",
        choices=["class", "module"],
        default="class",
        help="adopt a class at a time, or a module at a time (a class at a time where a"
        " module is refused)",
    )
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="adopt-keras-hub-"))
    original, adopted = work / "original", work / "adopted"
    export(args.source, args.commit, original)
    export(args.source, args.commit, adopted)
    classes = layer_classes(original)
    part, parts = (int(n) for n in args.part.split("/"))
    modules = sorted({p for p, _, _ in classes})
    mine = set(modules[part::parts])  # every `parts`-th module: two runs share 2 cores
    results = adopt_all(
        adopted,
        [(adopted / p.relative_to(original), n, ln) for p, n, ln in classes if p in mine],
        args.limit,
        args.backend,
        args.by,
        work / "adopt.jsonl",
    )
    (work / "adopt.json").write_text(json.dumps(results, indent=1))

    took = [r for r in results if "declared" in r]
    refused = Counter(r["refused"] for r in results if "refused" in r)
    shares = [100 * r["declared"] / r["total"] for r in took if r["total"]]
    print(f"keras-hub {args.commit}: {len(results)} direct layer subclasses")
    print(f"  adopted: {len(took)} ({100 * len(took) / max(len(results), 1):.1f}%)")
    for code, count in refused.most_common():
        print(f"  refused [{code}]: {count}")
    if shares:
        print(
            f"  declared share: mean {statistics.mean(shares):.0f}%,"
            f" median {statistics.median(shares):.0f}%,"
            f" overall {100 * sum(r['declared'] for r in took) / sum(r['total'] for r in took):.0f}%"
        )
    stated = [r["trial_skips"] for r in took if r.get("trial_skips")]
    print(
        f"  generated tests that failed on the adopted code, stated skipped by adopt's trial:"
        f" {sum(map(len, stated))}, in {len(stated)} of {len(took)} classes"
    )
    print(f"  keras-hub ruff errors: before {ruff_errors(original)}, after {ruff_errors(adopted)}")
    under = tuple(args.tests_under.split(","))
    if args.tests != "none" and took:
        if args.tests == "all":  # every test module of keras-hub
            tests = sorted(str(p.relative_to(original)) for p in original.rglob("*_test.py"))
        else:
            tests = keras_hub_tests(original, {r["module"] for r in took})
        tests = [t for t in tests if t.startswith(under)]
        before = run_tests(original, tests, args.backend, work / "before.xml", args.workers)
        after = run_tests(adopted, tests, args.backend, work / "after.xml", args.workers)
        changed = {
            k: (before.get(k), after.get(k))
            for k in before.keys() | after.keys()
            if before.get(k) != after.get(k)
        }
        print(
            f"  keras-hub's tests ({args.backend}, {len(tests)} files): {len(before)} before,"
            f" {len(after)} after, {len(changed)} changed"
        )
        for key, (was, now) in sorted(changed.items()):
            print(f"    {key}: {was} -> {now}")
    if args.generated != "none" and took:
        generated = sorted(  # the generated test modules of the adopted classes (under)
            str(p.relative_to(adopted))
            for p in (adopted / "tests").glob("test_*.py")
            if args.generated == "all"
            or any(folder in p.read_text(encoding="utf-8") for folder in under)
        )
        outcome = run_tests(adopted, generated, args.backend, work / "generated.xml", args.workers)
        red = Counter(k.split("::")[0] for k, v in outcome.items() if v in {"failure", "error"})
        print(
            f"  generated tests ({args.backend}): {sum(v == 'passed' for v in outcome.values())}"
            f" passed, {sum(red.values())} failed,"
            f" {sum(v == 'skipped' for v in outcome.values())} skipped;"
            f" red in {len(red)} of {len(generated)} modules"
        )
    print(f"  (details in {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
