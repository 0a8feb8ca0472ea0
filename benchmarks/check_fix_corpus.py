"""Does `layergen check --fix` leave any file of the corpus worse? It must leave none.

For each package of benchmarks/check_corpus.py (its unpacked sources, never installed): the
sources are copied to a temporary folder, `--fix` with the default rules is run on the copy
(the same code as the CLI: `check_files`, then `commands.check._fixed`), and every changed
file and fixed class (the class around a fixed finding) is listed. Then, where the package
imports in this venv, the original and the fixed copy are each imported in a subprocess
(the package's folder first on sys.path, KERAS_BACKEND=jax), and each fixed class is
constructed with its required arguments guessed as `layergen tests` does (an annotated or
documented type's example value) or, failing that, from the argument's name (`units` -> 4).
A class that cannot be constructed is counted "not exercised".

For each exercised class: `json.loads(json.dumps(obj.get_config()))`, then
`cls.from_config(...)` (the round trip), and whether the rebuilt object's config equals the
first one (faithful). A class is worse when it constructed, round-tripped or was faithful
before the fix and not after; a module is worse when it imported before and not after.
"worse" must be 0. Classes that round-trip (or are faithful) only after the fix are "helped".
The package's subclasses of a fixed class (by class name, in any of its files, directly or
through other subclasses) are exercised the same way: they inherit the fixed `get_config`
(a base that now saves an argument a subclass passes to it itself breaks that subclass's
`from_config`), and count in the same columns ("subclasses" says how many were probed).

    python benchmarks/check_fix_corpus.py [--cache DIR] [--corpus old|new|third|all] [-v]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_corpus import CORPORA, fetch

from layergen.commands.check import _fixed
from layergen.handwritten import _example
from layergen.introspect import REQUIRED, read_classes
from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import DEFAULT_RULES
from layergen.lint.settings import CheckSettings

# Required arguments whose type the code does not state: a value by name (`layergen tests`
# would ask for --example). Matched on the whole name, then on its last `_` part.
BY_NAME = {
    "units": 4,
    "filters": 4,
    "channels": 4,
    "dim": 4,
    "size": 4,
    "depth": 2,
    "heads": 2,
    "num_heads": 2,
    "kernel_size": 3,
    "pool_size": 2,
    "strides": 1,
    "rate": 0.1,
    "dropout": 0.1,
    "alpha": 0.5,
    "axis": -1,
    "activation": "relu",
    "name": "probe",
    "temperature": 2.0,
    "margin": 1.0,
    "epsilon": 1e-3,
    "momentum": 0.9,
    "layer": "@Dense",  # a wrapper's layer: made in the probe (a config cannot say it)
    "from_logits": False,
    "dilation_rates": [1, 2],
    "project_dim": 8,
    "spatial_dims": 2,
}
BY_SUFFIX = {"dim": 4, "size": 4, "units": 4, "filters": 4, "channels": 4, "rate": 0.1}

# Corpus packages other packages import (tf-models-official imports tf_keras): put on
# sys.path after the package's own folder, as it is (never fixed).
DEPS = ["tf_keras-2.19.0", "tensorflow_probability-0.25.0"]
# Keras 2 packages: imported with tf.keras as Keras 2 (tf_keras), as their users run them.
LEGACY = (
    "tf_keras",
    "tf_models_official",
    "tensorflow_addons",
    "tensorflow_gnn",
    "tf_agents",
    "tensorflow_probability",
)

PROBE = r"""
import importlib, json, sys, traceback
sys.path.insert(0, sys.argv[1])
jobs = json.loads(sys.stdin.read())

def short(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160]

def as_json(config):
    return json.loads(json.dumps(config))

def made(value):
    # "@Dense" is a `tf.keras.layers.Dense(4)`: Keras 3, or Keras 2 under TF_USE_LEGACY_KERAS.
    if value == "@Dense":
        import tensorflow as tf
        return tf.keras.layers.Dense(4)
    return value

def plain(obj):
    # The object's public attributes of plain values: a constructor argument a config
    # leaves out comes back as its default here, while the two configs still agree.
    kept = (int, float, str, bool, type(None))
    return {
        k: v for k, v in vars(obj).items()
        if not k.startswith("_") and (isinstance(v, kept)
        or isinstance(v, (list, tuple)) and all(isinstance(x, kept) for x in v))
    }

out = {}
for module, classes in jobs.items():
    entry = out[module] = {"import": None, "classes": {}}
    try:
        mod = importlib.import_module(module)
    except BaseException as e:  # SystemExit and the like from a package's import too
        entry["import"] = short(e)
        continue
    for label, job in classes.items():
        r = entry["classes"][label] = {}
        try:
            cls = mod
            for part in job["qualname"].split("."):
                cls = getattr(cls, part)
            if not hasattr(cls, "get_config") or not hasattr(cls, "from_config"):
                r["skip"] = "no get_config/from_config"
                continue
            obj = cls(**{k: made(v) for k, v in job["args"].items()})
        except BaseException as e:
            r["construct"] = short(e)
            continue
        r["construct"] = None
        try:
            config = as_json(obj.get_config())
            rebuilt = cls.from_config(json.loads(json.dumps(config)))
            r["roundtrip"] = None
        except BaseException as e:
            r["roundtrip"] = short(e)
            continue
        try:
            again = as_json(rebuilt.get_config())
            mine, theirs = plain(obj), plain(rebuilt)
            differs = sorted(k for k in set(config) | set(again) if config.get(k) != again.get(k))
            differs += sorted(f"self.{k}" for k in set(mine) | set(theirs)
                              if str(mine.get(k)) != str(theirs.get(k)))
            r["faithful"] = "differs: " + ", ".join(differs)[:160] if differs else None
        except BaseException as e:
            r["faithful"] = short(e)
print("@@PROBE@@" + json.dumps(out))
"""


def innermost_class(tree: ast.Module, line: int) -> str | None:
    """The dotted name of the class (nested classes by their path) around a line."""
    names, body, found = [], tree.body, None
    while True:
        inner = next(
            (
                n
                for n in body
                if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and min([n.lineno, *(d.lineno for d in n.decorator_list)]) <= line <= n.end_lineno
            ),
            None,
        )
        if inner is None or not isinstance(inner, ast.ClassDef):
            return found
        names.append(inner.name)
        found = ".".join(names)
        body = inner.body


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[0].endswith(".data") and parts[1] in ("purelib", "platlib"):  # see import_roots
        parts = parts[2:]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def guess_value(arg):
    """An example value for a required argument, or REQUIRED when none can be guessed."""
    name = arg.name.lower()
    if name in BY_NAME:  # `layergen tests` gives "a" to a str `activation`
        return BY_NAME[name]
    if arg.known_type is not None:  # what `layergen tests` does
        return _example(arg)
    last = name.rsplit("_", 1)[-1]
    if name.startswith(("num_", "n_")) or last in BY_SUFFIX:
        return BY_SUFFIX.get(last, 4)
    return REQUIRED


def varied(value):
    """Another value of a literal default's type (None when there is no obvious one)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 if value >= 0 else value - 1
    if isinstance(value, float):
        return round(value * 0.5 + 0.05, 6) if 0 <= value <= 1 else value * 2 + 1
    return None


def guessed_args(text: str, path: Path, qualname: str) -> tuple[dict, dict] | None:
    """The required arguments of a top-level class, guessed, and the same with every
    literal bool/int/float default changed (so that an argument the config leaves out
    shows); None when a required one cannot be guessed."""
    if "." in qualname:  # introspect reads top-level classes only: simple defaults then
        return {}, {}
    try:
        classes = {c.name: c for c in read_classes(str(path), text)}
    except Exception:
        return None
    info = classes.get(qualname)
    if info is None:
        return None
    args, changed = {}, {}
    for arg in info.args:
        if arg.default is not REQUIRED:
            other = varied(arg.default) if arg.literal else None
            if other is not None and arg.name not in ("trainable", "name"):
                changed[arg.name] = other
            continue
        value = guess_value(arg)
        if value is REQUIRED:
            return None
        args[arg.name] = value
    return args, {**args, **changed}


def fix_package(folder: Path, copy: Path) -> tuple[dict, dict, dict]:
    """Run --fix on a copy of the package: {path: new text}, {path: {class: codes}} and
    {path: original text}."""
    shutil.copytree(folder, copy)
    settings = CheckSettings(root=copy, select=DEFAULT_RULES)
    report = check_files(python_files([copy], settings), settings)
    fixed = _fixed(report, settings, lambda *a, **k: print(*a, file=sys.stderr))
    classes: dict[Path, dict[str, set[str]]] = {}
    for path in fixed:
        tree = report.files[path].tree
        for f in report.findings[path]:
            if f.fix is None:
                continue
            name = innermost_class(tree, f.line) or "<module>"
            classes.setdefault(path, {}).setdefault(name, set()).add(f.code)
    originals = {path: report.files[path].text for path in fixed}
    for path, text in fixed.items():
        path.write_text(text, encoding="utf-8")
    return fixed, classes, originals


def subclasses(copy: Path, classes: dict) -> dict[Path, dict[str, str]]:
    """{path: {class: the fixed class it inherits from}}: the package's top-level classes
    whose bases name a fixed class, or such a subclass, by its last name part."""
    fixed = {q.rsplit(".", 1)[-1] for found in classes.values() for q in found if q != "<module>"}
    bases: dict[tuple[Path, str], list[str]] = {}
    for path in sorted(copy.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                names = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                bases[(path, node.name)] = names
    origin = {name: name for name in fixed}
    grew = True
    while grew:  # subclasses of subclasses
        grew = False
        for (_, name), names in bases.items():
            parent = next((n for n in names if n in origin), None)
            if parent is not None and name not in origin:
                origin[name] = origin[parent]
                grew = True
    found: dict[Path, dict[str, str]] = {}
    for path, name in bases:
        if name in origin and name not in fixed and name not in classes.get(path, {}):
            found.setdefault(path, {})[name] = origin[name]
    return found


def import_roots(root: Path) -> list[Path]:
    """The folders of an unpacked wheel that go on sys.path: its root, and the
    `NAME.data/purelib|platlib` folders pip would install at the root (tensorflow-gnn)."""
    return [root, *sorted(root.glob("*.data/purelib")), *sorted(root.glob("*.data/platlib"))]


def probe(root: Path, jobs: dict, timeout: int, deps: list[Path], legacy: bool) -> dict:
    """Import each module under `root` (first on sys.path; `deps` after it: corpus packages
    others import, such as tf_keras) and run its classes' jobs, in a fresh interpreter."""
    env = {
        **os.environ,
        "KERAS_BACKEND": "jax",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONPATH": os.pathsep.join(map(str, [*import_roots(root), *deps])),
        "CUDA_VISIBLE_DEVICES": "",
        "TF_USE_LEGACY_KERAS": "1" if legacy else "0",
    }
    with tempfile.TemporaryDirectory() as cwd:  # no stray import from the current folder
        try:
            done = subprocess.run(
                [sys.executable, "-c", PROBE, str(root)],
                input=json.dumps(jobs),
                capture_output=True,
                text=True,
                env=env,
                cwd=cwd,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return {m: {"import": f"timeout after {timeout} s", "classes": {}} for m in jobs}
    for line in done.stdout.splitlines():
        if line.startswith("@@PROBE@@"):
            return json.loads(line[len("@@PROBE@@") :])
    error = (done.stderr.strip().splitlines() or ["no output"])[-1][:160]
    return {m: {"import": f"probe died: {error}", "classes": {}} for m in jobs}


def compare(before: dict, after: dict) -> tuple[str, list[str], list[str]]:
    """A class's outcome ('exercised', 'not exercised: why'), what got worse, what got better."""
    if "skip" in before:
        return f"not exercised: {before['skip']}", [], []
    if before.get("construct"):
        if "construct" in after and not after.get("construct"):
            return "not exercised: constructs only after the fix", [], ["constructs"]
        return f"not exercised: {before['construct']}", [], []
    worse, better = [], []
    if after.get("construct") or "construct" not in after:
        return "exercised", [f"construct: {after.get('construct') or after.get('skip')}"], []
    for step in ("roundtrip", "faithful"):
        was_ok = step in before and before[step] is None
        is_ok = step in after and after[step] is None
        if was_ok and not is_ok:
            worse.append(f"{step}: {after.get(step, 'not reached')}")
        elif is_ok and not was_ok:
            better.append(f"{step} (was {before.get(step, 'not reached')})")
    return "exercised", worse, better


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/check-corpus"))
    parser.add_argument("--corpus", choices=(*CORPORA, "all"), default="all")
    parser.add_argument("--only", help="one package folder name, such as keras_hub-0.32.0")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per import probe")
    parser.add_argument(
        "--extra-path",
        type=Path,
        action="append",
        default=[],
        help="a folder of the packages' own dependencies that the venv lacks, put on sys.path "
        "after the package (`pip install --target DIR dm-tree decorator gin-config pyparsing"
        " pillow`)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="every class's outcome")
    args = parser.parse_args()
    corpora = list(CORPORA) if args.corpus == "all" else [args.corpus]
    rows, details, total_worse = [], [], 0
    for corpus in corpora:
        for folder in fetch(args.cache, CORPORA[corpus]):
            if args.only and folder.name != args.only:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                copy = Path(tmp) / folder.name
                fixed, classes, originals = fix_package(folder, copy)
                # The import probes run on the whole wheel (a package may read a data file
                # at import, such as deel-lip's VERSION): as it is, and with the fixed files.
                before, after = Path(tmp) / "before", Path(tmp) / "after"
                if classes:
                    unpack(args.cache, folder, before)
                    unpack(args.cache, folder, after)
                    for path, text in fixed.items():
                        (after / path.relative_to(copy)).write_text(text, encoding="utf-8")
                row = run_package(
                    corpus,
                    folder.name,
                    copy,
                    (before, after),
                    fixed,
                    classes,
                    originals,
                    args,
                    details,
                )
            total_worse += row["worse"]
            rows.append(row)
            print_row(row, header=len(rows) == 1)
    print()
    for corpus in [*corpora, "all"] if len(corpora) > 1 else corpora:
        picked = [r for r in rows if corpus == "all" or r["corpus"] == corpus]
        totals = {k: sum(r[k] for r in picked) for k in NUMBERS}
        imported = sum(1 for r in picked if r["imported"] in ("yes", "partly"))
        print_row(
            {"corpus": corpus, "package": f"TOTAL ({imported} imported)", "imported": "", **totals}
        )
    print("\n" + "\n".join(details))
    return 1 if total_worse else 0


OUTCOMES = ("exercised", "rt_before", "rt_after", "worse", "helped")  # per class
NUMBERS = (
    "files",
    "classes",
    "subclasses",
    "exercised",
    "rt_before",
    "rt_after",
    "worse",
    "helped",
)


def unpack(cache: Path, folder: Path, into: Path) -> None:
    """Every file of the package's wheel (check_corpus.fetch keeps its .py files only)."""
    (wheel,) = (cache / "wheels").glob(f"{folder.name}-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(into)


def run_package(corpus, name, copy, roots, fixed, classes, originals, args, details) -> dict:
    row = {"corpus": corpus, "package": name, **dict.fromkeys(NUMBERS, 0)}
    row["files"] = len(fixed)
    row["classes"] = sum(len(c) for c in classes.values())
    row["imported"] = "-"
    jobs: dict[str, dict[str, dict]] = {}
    for path, found in classes.items():
        rel = path.relative_to(copy)
        details.append(f"{name}/{rel}: fixed {', '.join(_named(found))}")
        module = module_name(path, copy)
        for qualname in found:
            if qualname == "<module>":
                continue
            guessed = guessed_args(originals[path], path, qualname)
            jobs.setdefault(module, {})
            if guessed is None:
                details.append(f"    {qualname}: not exercised: a required argument not guessed")
                continue
            jobs[module][qualname] = {"qualname": qualname, "args": guessed[0]}
            if guessed[1] != guessed[0]:
                jobs[module][qualname + " (varied)"] = {"qualname": qualname, "args": guessed[1]}
    for path, inherited in subclasses(copy, classes).items():
        module = module_name(path, copy)
        text = path.read_text(encoding="utf-8", errors="replace")
        for qualname, parent in inherited.items():
            row["subclasses"] += 1
            guessed = guessed_args(text, path, qualname)
            if guessed is None:
                details.append(
                    f"    {qualname} (subclass of {parent}): not exercised: a required argument"
                    " not guessed"
                )
                continue
            label = f"{qualname} (subclass of {parent})"
            jobs.setdefault(module, {})[label] = {"qualname": qualname, "args": guessed[0]}
            if guessed[1] != guessed[0]:
                jobs[module][label + " (varied)"] = {"qualname": qualname, "args": guessed[1]}
    if not jobs:
        return row
    deps = [args.cache / "src" / d for d in DEPS if d != name] + args.extra_path
    legacy = name.startswith(LEGACY)
    before = probe(roots[0], jobs, args.timeout, deps, legacy)
    after = probe(roots[1], jobs, args.timeout, deps, legacy)
    imports = [before[m]["import"] is None for m in jobs]
    row["imported"] = "yes" if all(imports) else "partly" if any(imports) else "no"
    for module in jobs:
        outcomes: dict[str, list] = {}  # class -> [exercised, rt before, rt after, worse, helped]
        b, a = before[module], after[module]
        if b["import"] is not None:
            details.append(f"    {module}: does not import: {b['import']}")
            continue
        if a["import"] is not None:
            row["worse"] += 1
            details.append(f"    WORSE {module}: imports before, not after: {a['import']}")
            continue
        for label, job in jobs[module].items():
            cb, ca = b["classes"].get(label, {}), a["classes"].get(label, {})
            outcome, worse, better = compare(cb, ca)
            seen = outcomes.setdefault(job["qualname"], [False, False, False, False, False])
            if outcome == "exercised" and not seen[0]:  # the first arguments that construct it
                seen[0] = True
                seen[1] = cb.get("roundtrip", "x") is None
                seen[2] = ca.get("roundtrip", "x") is None
            seen[3] |= bool(worse)
            seen[4] |= bool(better)
            if worse:
                details.append(f"    WORSE {module}.{label}: {'; '.join(worse)}")
            if better:
                details.append(f"    helped {module}.{label}: {'; '.join(better)}")
            if args.verbose or (outcome != "exercised" and not better):
                extra = f" (before: {cb}, after: {ca})" if args.verbose else ""
                details.append(f"    {label}: {outcome}{extra}")
        for key, *seen in zip(OUTCOMES, *outcomes.values()):
            row[key] += sum(seen)
    return row


def _named(found: dict[str, set[str]]) -> list[str]:
    return [f"{name} [{', '.join(sorted(codes))}]" for name, codes in sorted(found.items())]


def print_row(row: dict, header: bool = False) -> None:
    if header:
        print(
            f"{'corpus':6} {'package':36} {'files':>5} {'classes':>7} {'subclasses':>10} "
            f"{'imported':>8} "
            f"{'exercised':>9} {'rt before':>9} {'rt after':>8} {'worse':>5} {'helped':>6}"
        )
    print(
        f"{row['corpus']:6} {row['package']:36} {row['files']:5} {row['classes']:7} "
        f"{row['subclasses']:10} {row['imported']:>8} {row['exercised']:9} {row['rt_before']:9} "
        f"{row['rt_after']:8} {row['worse']:5} {row['helped']:6}"
    )


if __name__ == "__main__":
    sys.exit(main())
