"""What makes `layergen check` fast must never change a finding: the prefilter (files that
cannot hold or affect a Keras class are not parsed) and the cache (findings kept under a key
of everything they depend on, in .layergen/check-cache/)."""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

from layergen.lint.cache import CheckCache
from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

from helpers import FIXTURES, HANDWRITTEN, TESTS, TWINS, layergen_in_process

LAYER = """\
import keras

from base import Block
from registry import register


@register("demo")
class Scaled(Block):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}

    def call(self, x):
        return self.helper(x) * self.factor
"""
BASE = """\
import keras

from mixins import Helpers


@keras.saving.register_keras_serializable(package="demo")
class Block(keras.layers.Layer, Helpers):
    def __init__(self, width=4, **kwargs):
        super().__init__(**kwargs)
        self.width = width

    def get_config(self):
        return {**super().get_config(), "width": self.width}
"""
FILES = {
    "layer.py": LAYER,
    "base.py": BASE,
    # No `keras`, no `def call`: read only because a Keras class names them.
    "mixins.py": "class Helpers:\n    def helper(self, x):\n        return x\n",
    "big.py": "from base import Block\nfrom registry import register\n\n\n"
    '@register("demo")\nclass Big(Block):\n    def __init__(self, n):\n'
    "        super().__init__()\n        self.n = n\n\n"
    '    def get_config(self):\n        return {**super().get_config(), "n": self.n}\n',
    # No class at all: a registration function.
    "registry.py": "import keras\n\n\ndef register(package):\n"
    "    return keras.saving.register_keras_serializable(package=package)\n",
    "unrelated.py": "class Point:\n    x: int = 0\n",
}


def project(tmp_path: Path, files=FILES) -> tuple[list[Path], CheckSettings]:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    settings = CheckSettings(root=tmp_path, select=frozenset(RULES))
    return python_files([tmp_path], settings), settings


def found(report) -> set[tuple[str, str, int]]:
    return {(p.name, f.code, f.line) for p, fs in report.findings.items() for f in fs}


def test_the_prefilter_skips_only_files_that_cannot_change_a_finding(tmp_path):
    files, settings = project(tmp_path)
    everything = check_files(files, settings, read_all=True)
    filtered = check_files(files, settings)
    assert found(filtered) == found(everything) == {("big.py", "init-kwargs", 7)}
    assert sorted(p.name for p in filtered.files) == [
        "base.py",
        "big.py",
        "layer.py",
        "mixins.py",  # a base of Block: unread, it would make Block's parents unknown
        "registry.py",  # no class, but a registration function
    ]
    # Unread, mixins.py would leave Block with a parent nobody can read (its rules hold back).
    assert not filtered.files[tmp_path / "base.py"].classes[0].parent_opaque
    (tmp_path / "mixins.py").unlink()
    files = python_files([tmp_path], settings)
    assert check_files(files, settings).files[tmp_path / "base.py"].classes[0].parent_opaque


def test_a_registration_function_in_a_file_without_classes_counts(tmp_path):
    files, settings = project(tmp_path)
    assert "unregistered" not in {code for _, code, _ in found(check_files(files, settings))}


def test_the_prefilter_agrees_with_reading_everything_on_the_repos_layers():
    folders = [HANDWRITTEN, FIXTURES / "lint_heldout", TWINS]
    settings = CheckSettings(root=TESTS)
    files = python_files(folders, settings)
    assert len(files) >= 30
    everything = check_files(files, settings, read_all=True)
    assert found(check_files(files, settings)) == found(everything) and found(everything)


def test_a_repeat_run_parses_nothing_and_reports_the_same(tmp_path):
    files, settings = project(tmp_path)
    first = check_files(files, settings, cache=CheckCache(settings))
    again = check_files(files, settings, cache=CheckCache(settings))
    assert found(again) == found(first) == found(check_files(files, settings))
    assert again.files == {} and again.checked == first.checked == len(FILES)
    assert json.loads((tmp_path / ".layergen" / "check-cache" / "cache.json").read_text())[
        "findings"
    ]
    assert (tmp_path / ".layergen" / "check-cache" / ".gitignore").read_text().endswith("*\n")
    assert not (tmp_path / ".layergen" / ".gitignore").exists()  # .layergen/base/ is committed


def test_a_file_is_checked_again_when_a_file_it_depends_on_changes(tmp_path):
    files, settings = project(tmp_path)
    check_files(files, settings, cache=CheckCache(settings))
    # The parent stops saving `width`: its child in another file is not what changed.
    (tmp_path / "base.py").write_text(BASE.replace(', "width": self.width', ""))
    cached = check_files(files, settings, cache=CheckCache(settings))
    assert found(cached) == found(check_files(files, settings))
    assert ("base.py", "config-missing", 12) in found(cached)
    # The registration function stops registering: the layer that uses it is flagged.
    (tmp_path / "registry.py").write_text("def register(package):\n    return lambda cls: cls\n")
    cached = check_files(files, settings, cache=CheckCache(settings))
    assert found(cached) == found(check_files(files, settings))
    assert ("layer.py", "unregistered", 8) in found(cached)
    # A base with subclasses needs no registration: once its last subclass (in another
    # file, which names it; it names neither) goes, it is flagged.
    (tmp_path / "base.py").write_text(BASE.replace("@keras.saving", "# @keras.saving"))
    (tmp_path / "layer.py").write_text(LAYER.replace("Scaled(Block)", "Scaled(keras.layers.Layer)"))
    assert ("base.py", "unregistered", 7) not in found(
        check_files(files, settings, cache=CheckCache(settings))
    )
    big = tmp_path / "big.py"
    big.write_text(big.read_text().replace("Big(Block)", "Big(object)"))
    cached = check_files(files, settings, cache=CheckCache(settings))
    assert ("base.py", "unregistered", 7) in found(cached)
    assert found(cached) == found(check_files(files, settings))
    big.write_text(big.read_text().replace("Big(object)", "Big(Block)"))
    # Other settings, other findings.
    narrow = CheckSettings(root=tmp_path, select=frozenset(["init-kwargs"]))
    assert found(check_files(files, narrow, cache=CheckCache(narrow))) == {
        ("big.py", "init-kwargs", 7)
    }


def test_random_edits_never_make_the_cache_disagree(tmp_path):
    """Edits that add and remove the bugs and the links between files, one after another."""
    edits = [
        ("base.py", "**kwargs", "**options"),
        ("base.py", "(keras.layers.Layer, Helpers)", "(keras.layers.Layer)"),
        ("layer.py", "class Scaled(Block)", "class Scaled(keras.layers.Layer)"),
        ("layer.py", '@register("demo")\n', "# unregistered\n"),
        ("big.py", "(self, n)", "(self, n, **kwargs)"),
        ("big.py", "class Big(Block)", "class Big(Scaled)"),
        ("mixins.py", "class Helpers:", "class Helpers(keras.layers.Layer):"),
        ("mixins.py", "class Helpers", "import keras\n\n\nclass Helpers"),
        ("registry.py", "register_keras_serializable(package=package)", "get_custom_objects()"),
        ("unrelated.py", "class Point:", "class Point(Block):"),
        # A base with subclasses needs no registration: Block's finding hangs on its children.
        ("base.py", '@keras.saving.register_keras_serializable(package="demo")\n', "# no\n"),
        ("big.py", "class Big(Block)", "class Big(object)"),
        ("layer.py", "class Scaled(Block)", "class Scaled(object)"),
    ]
    files, settings = project(tmp_path)
    rng = random.Random(16)
    for step in range(60):
        name, old, new = rng.choice(edits)  # applied, or undone
        path = tmp_path / name
        text = path.read_text()
        path.write_text(text.replace(old, new) if rng.random() < 0.5 else text.replace(new, old))
        cached = check_files(files, settings, cache=CheckCache(settings))
        assert found(cached) == found(check_files(files, settings, read_all=True)), step


def test_the_command_uses_the_cache_unless_told_not_to(tmp_path):
    project(tmp_path)
    first = layergen_in_process("check", "--no-cache", ".", cwd=tmp_path)
    assert not (tmp_path / ".layergen").exists()
    second = layergen_in_process("check", ".", cwd=tmp_path)
    third = layergen_in_process("check", ".", cwd=tmp_path)
    assert (tmp_path / ".layergen" / "check-cache" / "cache.json").exists()
    assert first.returncode == second.returncode == third.returncode == 1
    assert first.stdout == second.stdout == third.stdout and "big.py:7:" in first.stdout
