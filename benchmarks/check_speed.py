"""Files per second `layergen check` reads and checks on one core (the goal: 1,000).

    python benchmarks/check_speed.py [FOLDER ...] [--rounds 5] [--findings]
    python benchmarks/check_speed.py --synthetic 1500 [--rounds 3]

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

`--synthetic N` measures the pre-commit case on a project of N files written in
a temporary folder (folders of 50: a layer per file on one base, each holding the layer of
the file before it in chains of 5, a model per folder naming its 50 layers, and helpers
with no Keras): `--no-cache`, a first run writing the cache, and one edited file checked
again with it (`--cross-references`: docstrings that name a model, which names the next:
every file then names every other one, transitively). The goals: first run at most 1.2x `--no-cache`, one edited file at most
1 s of work (startup, the imports, is not counted: it is the same with or without).
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


SYNTHETIC_BASE = """\
import keras


class BaseBlock(keras.layers.Layer):
    def __init__(self, width=4, **kwargs):
        super().__init__(**kwargs)
        self.width = width

    def get_config(self):
        return {**super().get_config(), "width": self.width}
"""
SYNTHETIC_LAYER = """\
import keras
from keras import ops

from pkg.base import BaseBlock
{sublayer_import}

@keras.saving.register_keras_serializable(package="pkg")
class Layer{n}(BaseBlock):
    \"\"\"Layer number {n}, a step of a larger model{used_by}.\"\"\"

    def __init__(self, units=8, rate=0.1, **kwargs):
        super().__init__(width=units, **kwargs)
        self.units = units
        self.rate = rate
        self.inner = {sublayer}(dtype=self.dtype_policy)
        self.dropout = keras.layers.Dropout(rate)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.inner.build(input_shape)

    def call(self, x, training=None):
        y = ops.matmul(self.inner(x), self.kernel) * {n}
        return self.dropout(ops.relu(y), training=training)

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units)

    def get_config(self):
        return {{**super().get_config(), "units": self.units, "rate": self.rate}}
"""
SYNTHETIC_HELPER = """\
import math


def schedule{n}(step, warmup=100):
    \"\"\"A learning-rate schedule: linear warm-up, then cosine.\"\"\"
    if step < warmup:
        return step / warmup
    return 0.5 * (1 + math.cos(math.pi * step / 10_000))
"""


def synthetic_project(home: Path, count: int, cross_references: bool = False) -> Path:
    """`count` files under home/pkg (see the module's docstring); returns the edited one.
    With `cross_references`, each layer's docstring names its folder's model, and each
    model the next one: every file then names every other one, transitively."""
    package = home / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(SYNTHETIC_BASE)
    written = 2
    for folder_number in range(count // 50 + 1):
        folder = package / f"part{folder_number}"
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        written += 1
        layers = []
        used_by = f" (used by `Model{folder_number}`)" if cross_references else ""
        for k in range(min(50, count - written - 1)):
            n = folder_number * 50 + k
            if k % 10 == 9:  # a helper with no Keras: the prefilter skips it
                (folder / f"helper{n}.py").write_text(SYNTHETIC_HELPER.format(n=n))
            elif k % 5 == 0 or not layers:  # the start of a chain
                layers.append(n)
                (folder / f"layer{n}.py").write_text(
                    SYNTHETIC_LAYER.format(
                        n=n, sublayer_import="", sublayer="keras.layers.Dense", used_by=used_by
                    )
                )
            else:
                sub = layers[-1]
                layers.append(n)
                (folder / f"layer{n}.py").write_text(
                    SYNTHETIC_LAYER.format(
                        n=n,
                        sublayer_import=f"from pkg.part{folder_number}.layer{sub} import Layer{sub}\n",
                        sublayer=f"Layer{sub}",
                        used_by=used_by,
                    )
                )
            written += 1
        if written >= count or not layers:
            break
        imports = "".join(
            f"from pkg.part{folder_number}.layer{n} import Layer{n}\n" for n in layers
        )
        blocks = ", ".join(f"Layer{n}()" for n in layers)
        (folder / "model.py").write_text(
            f"import keras\n\n{imports}\n\nclass Model{folder_number}(keras.Model):\n"
            f'    """{f"Followed by Model{folder_number + 1}." if cross_references else ""}"""\n\n'
            f"    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
            f"        self.blocks = [{blocks}]\n\n    def call(self, x):\n"
            f"        for block in self.blocks:\n            x = block(x)\n        return x\n"
        )
        written += 1
    layers = sorted(package.rglob("layer*.py"))
    return layers[len(layers) // 2]  # a layer that five others and a model depend on


def synthetic(count: int, rounds: int, cross_references: bool) -> None:
    """The pre-commit case: `--no-cache`, a first run writing the cache, one edited file."""
    home = Path(tempfile.mkdtemp())
    try:
        edited = synthetic_project(home, count, cross_references)
        settings = CheckSettings(root=home)
        files = python_files([home], settings)
        original = edited.read_text()
        best: dict[str, float] = {}
        for round_number in range(rounds):
            shutil.rmtree(home / ".layergen", ignore_errors=True)
            edited.write_text(original)
            times = {
                "--no-cache": cpu(lambda: check_files(files, settings)),
                "first run": cpu(lambda: check_files(files, settings, cache=CheckCache(settings))),
            }
            edited.write_text(original.replace("* ", f"* {round_number + 2} * ", 1))
            times["one edit"] = cpu(
                lambda: check_files(files, settings, cache=CheckCache(settings))
            )
            for name, seconds in times.items():
                best[name] = min(best.get(name, seconds), seconds)
        again = check_files(files, settings, cache=CheckCache(settings))
        assert findings(again) == findings(check_files(files, settings))
        print(
            f"synthetic project{' with cross-references' if cross_references else ''}: "
            f"{len(files)} files, one edited: {edited.relative_to(home)}"
        )
        for name, seconds in best.items():
            print(
                f"  {name:>10}: {seconds:6.2f} s  ({seconds / best['--no-cache']:.2f}x --no-cache)"
            )
    finally:
        shutil.rmtree(home)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--findings", action="store_true")
    parser.add_argument("--synthetic", type=int, metavar="FILES")
    parser.add_argument("--cross-references", action="store_true")
    args = parser.parse_args()
    if args.synthetic:
        synthetic(args.synthetic, args.rounds, args.cross_references)
        return
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
