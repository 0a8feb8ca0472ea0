"""Precision of `layergen check` on real Keras code, per rule.

Downloads pinned wheels of real packages (never installed: `pip download --no-deps` into a
cache folder, then their .py files unpacked), runs `check` on each package as its own
project, and reads every finding's label from benchmarks/check_corpus_labels.txt:

    keras_hub-0.32.0/keras_hub/src/models/x.py::Block.__init__:sublayer-dtype -> true: reason

A label is keyed by the file, the enclosing class and method and the rule (not the line,
so it survives edits of the package around it); all the findings under one key share it.
`true` is a bug, `false` a false positive, `arguable` neither clearly. Precision is
true / all labelled. Findings without a label are listed (exit 1 when a default rule has
one): label them, then run again.

Three corpora are reported apart, then together: the old one (PACKAGES) and the new one
(NEW_PACKAGES), on which the rules were tuned (the new one after it was labelled), and the
third (THIRD_PACKAGES), picked after round three's rule changes and never tuned on: its
precision is the honest figure of how the rules do on code they were not written for.

A label given by reading the code is never rewritten. Where a finding was later settled by
running the code (its class round-tripped, or saved and loaded), the verdict and what settled
it are in benchmarks/check_corpus_evidence.txt, in the same form; `--settled` counts those
verdicts over the labels (both figures are reported in docs/benchmarks/check-precision.md).

    python benchmarks/check_corpus.py [--cache DIR] [--corpus old|new|third|all] [--all-rules]
                                      [--show-labelled] [--settled]
"""

from __future__ import annotations

import argparse
import ast
import collections
import subprocess
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import DEFAULT_RULES, RULES
from layergen.lint.settings import CheckSettings

PACKAGES = [  # (distribution, version): Keras 3, Keras 2, and third-party layers of both
    ("keras", "3.15.0"),
    ("keras-hub", "0.32.0"),
    ("keras-cv", "0.9.0"),
    ("keras-rs", "0.4.0"),
    ("tf-keras", "2.19.0"),
    ("tf-models-official", "2.19.1"),
    ("tensorflow-addons", "0.23.0"),
    ("deel-lip", "1.5.0"),
    ("kapre", "0.4.1"),
    ("keras-tcn", "3.5.7"),
    ("keras-tuner", "1.4.8"),
    ("keras-unet-collection", "0.1.13"),
    ("larq", "0.14.0"),
    ("qkeras-v3", "1.2.1"),
]
# The second corpus (check_corpus_round2.md), every finding labelled before any rule was
# tuned on it: Keras 2 (tf.keras, tf_keras shims, tensorflow.compat.v2) and Keras 3 layers,
# losses and models from packages the rules had never been run on.
NEW_PACKAGES = [
    ("tensorflow-probability", "0.25.0"),
    ("tf-agents", "0.19.0"),
    ("kgcnn", "4.0.2"),
    ("keras-cv-attention-models", "1.4.3"),
    ("tensorflow-gnn", "1.0.3"),
    ("sionna", "0.19.2"),
    ("tensorflow-model-optimization", "0.8.1"),
    ("spektral", "1.3.1"),
    ("deepctr", "0.9.4"),
    ("tensorflow-recommenders", "0.7.7"),
    ("ncps", "1.0.1"),
    ("tfkan", "0.1.1"),
]
# The third corpus, chosen after the rule changes the second led to were written, and
# labelled before any look at the rules' code: Keras 3 (and a few Keras 2) packages none of
# the rules was ever tuned on. Reported on its own: the honest figure.
THIRD_PACKAGES = [
    ("bayesflow", "2.0.7"),
    ("alibi-detect", "0.13.0"),
    ("tensorflow-similarity", "0.17.1"),
    ("medicai", "0.0.4"),
    ("keras-aug", "1.1.1"),
    ("autokeras", "2.0.0"),
    ("kimm", "0.2.5"),
    ("tf-keras-vis", "0.8.7"),
    ("mlable", "0.23.0"),
    ("larq-zoo", "2.4.0"),
    ("segmentation-models", "1.0.1"),
    ("keras-spiking", "0.3.0"),
    ("keras-lmu", "0.9.0"),
    ("keras-mdn-layer", "1.0.0"),
    ("keras-sig", "1.0.2"),
    ("tkan", "0.4.3"),
    ("keras-efficient-kan", "0.1.10"),
    ("tf-explain", "0.3.1"),
    ("tensorflow-privacy", "0.9.0"),
]
CORPORA = {"old": PACKAGES, "new": NEW_PACKAGES, "third": THIRD_PACKAGES}
LABELS = Path(__file__).with_name("check_corpus_labels.txt")
EVIDENCE = Path(__file__).with_name("check_corpus_evidence.txt")
VERDICTS = ("true", "false", "arguable")


def fetch(cache: Path, packages: list[tuple[str, str]]) -> list[Path]:
    """The unpacked sources of the packages, downloaded once."""
    wheels, sources = cache / "wheels", cache / "src"
    folders = []
    for name, version in packages:
        stem = f"{name.replace('-', '_')}-{version}"
        folder = sources / stem
        folders.append(folder)
        if folder.is_dir():
            continue
        found = list(wheels.glob(f"{stem}-*.whl"))
        if not found:
            subprocess.run(
                [
                    *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
                    *("--only-binary=:all:", "--python-version", "3.11"),
                    *("--dest", str(wheels), f"{name}=={version}"),
                ],
                check=True,
            )
            found = list(wheels.glob(f"{stem}-*.whl"))
        with zipfile.ZipFile(found[0]) as wheel:
            wheel.extractall(folder, [n for n in wheel.namelist() if n.endswith(".py")])
    return folders


def scope(tree: ast.Module, line: int) -> str:
    """`Class.method` (or `Class`, or `<module>`) enclosing a line."""
    names: list[str] = []
    body = tree.body
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
        if inner is None:
            return ".".join(names) or "<module>"
        names.append(inner.name)
        body = inner.body


def findings(folder: Path, select: frozenset[str]) -> tuple[list[tuple[str, int, str]], int]:
    """[(key, line, message)] of a package, and how many files it has."""
    settings = CheckSettings(root=folder, select=select)
    files = python_files([folder], settings)
    report = check_files(files, settings)
    found = []
    for path, items in report.findings.items():
        source = report.files.get(path)
        for f in items:
            where = scope(source.tree, f.line) if source else "<module>"
            rel = path.relative_to(folder.parent).as_posix()
            found.append((f"{rel}::{where}:{f.code}", f.line, f.message))
    return found, len(files)


def read_labels(path: Path) -> dict[str, tuple[str, str]]:
    labels = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, _, rest = line.partition(" -> ")
        verdict, _, reason = rest.partition(":")
        if verdict.strip() not in VERDICTS or not reason.strip():
            sys.exit(f"{path}:{number}: write KEY -> true|false|arguable: reason")
        labels[key.strip()] = (verdict.strip(), reason.strip())
    return labels


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/check-corpus"))
    parser.add_argument(
        "--corpus", choices=(*CORPORA, "all"), default="all", help="which packages (all)"
    )
    parser.add_argument("--all-rules", action="store_true", help="also the opt-in rules")
    parser.add_argument("--show-labelled", action="store_true", help="print every finding")
    parser.add_argument(
        "--settled", action="store_true", help="verdicts settled by running the code win"
    )
    args = parser.parse_args()
    select = frozenset(RULES) if args.all_rules else DEFAULT_RULES
    labels = read_labels(LABELS) if LABELS.exists() else {}
    if args.settled:
        settled = read_labels(EVIDENCE)
        unknown = sorted(set(settled) - set(labels))
        if unknown:
            sys.exit(f"{EVIDENCE}: settles findings that have no label: {unknown}")
        labels |= settled
    corpora = list(CORPORA) if args.corpus == "all" else [args.corpus]
    # corpus -> rule -> verdict -> count
    counts: dict[str, dict[str, collections.Counter]] = {}
    unlabelled, used = [], set()
    for corpus in corpora:
        packages = CORPORA[corpus]
        counts[corpus] = collections.defaultdict(collections.Counter)
        files, seconds = 0, 0.0
        for folder in fetch(args.cache, packages):
            start = time.perf_counter()
            found, n = findings(folder, select)
            seconds += time.perf_counter() - start
            files += n
            for key, line, message in sorted(found):
                code = key.rsplit(":", 1)[1]
                verdict = labels.get(key, ("unlabelled", ""))[0]
                used.add(key)
                counts[corpus][code][verdict] += 1
                if verdict == "unlabelled":
                    unlabelled.append(f"{key}  (line {line}: {message})")
                elif args.show_labelled:
                    print(f"{verdict:9} {key}  (line {line}: {message})")
        print(
            f"{corpus} corpus: {files} files of {len(packages)} packages checked in {seconds:.1f} s"
        )
    if len(corpora) > 1:
        counts["all"] = collections.defaultdict(collections.Counter)
        for corpus in corpora:
            for code, c in counts[corpus].items():
                counts["all"][code].update(c)
    for corpus, rules in counts.items():
        print(f"\n{corpus} corpus")
        print_table(rules, select)
    checked = {f"{n.replace('-', '_')}-{v}/" for c in corpora for n, v in CORPORA[c]}
    stale = sorted(
        k
        for k in labels
        if k not in used and k.rsplit(":", 1)[1] in select and k.startswith(tuple(checked))
    )
    if stale:
        print(f"\n{len(stale)} labels match no finding (fixed, or the package changed):")
        print("\n".join(f"  {k}" for k in stale))
    if unlabelled:
        print(f"\n{len(unlabelled)} findings without a label:")
        print("\n".join(f"  {u}" for u in unlabelled))
    unlabelled_default = any(
        rules[code]["unlabelled"] for rules in counts.values() for code in DEFAULT_RULES
    )
    return 1 if unlabelled_default else 0


def print_table(counts: dict[str, collections.Counter], select: frozenset[str]) -> None:
    """One row per rule: its verdicts and precision (true / all labelled)."""
    print(
        f"{'rule':22} {'default':>7} {'true':>5} {'false':>5} {'arguable':>8} {'unlabelled':>10}"
        "  precision"
    )
    for code in sorted(set(counts) | select):
        c = counts[code]
        labelled = c["true"] + c["false"] + c["arguable"]
        precision = f"{c['true'] / labelled:.0%}" if labelled else "-"
        print(
            f"{code:22} {'yes' if code in DEFAULT_RULES else 'no':>7} {c['true']:5} {c['false']:5}"
            f" {c['arguable']:8} {c['unlabelled']:10}  {precision}"
        )


if __name__ == "__main__":
    sys.exit(main())
