"""The dependency graph behind the cache (layergen/lint/deps.py): a run with the cache costs
about what one without does, and one edited file is checked again with what it needs only."""

from __future__ import annotations

from pathlib import Path

from layergen.lint import deps
from layergen.lint.cache import CheckCache
from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

BASE = """\
import keras


class BaseBlock(keras.layers.Layer):
    def __init__(self, width=4, **kwargs):
        super().__init__(**kwargs)
        self.width = width

    def get_config(self):
        return {**super().get_config(), "width": self.width}
"""
LAYER = """\
import keras

from base import BaseBlock
from layer_{previous} import Layer{previous}


class Layer{n}(BaseBlock):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(width={n}, **kwargs)
        self.factor = factor
        self.inner = Layer{previous}(dtype=self.dtype_policy)

    def call(self, x):
        return self.inner(x) * {n}
"""


def chain(tmp_path: Path, count: int, linked=True) -> tuple[list[Path], CheckSettings]:
    """`count` layers, each a subclass of one base holding the one before it (`linked`) or a
    Dense: linked, the last one depends on every file, so a context per file costs count**2 / 2."""
    (tmp_path / "base.py").write_text(BASE)
    for n in range(count):
        previous = max(n - 1, 0)
        text = LAYER.format(n=n, previous=previous)
        if n == 0 or not linked:
            text = text.replace(f"from layer_{previous} import Layer{previous}\n", "").replace(
                f"Layer{previous}(dtype=self.dtype_policy)", "keras.layers.Dense(2)"
            )
        (tmp_path / f"layer_{n}.py").write_text(text)
    settings = CheckSettings(root=tmp_path, select=frozenset(RULES))
    return python_files([tmp_path], settings), settings


def found(report) -> set[tuple[str, str, int]]:
    return {(p.name, f.code, f.line) for p, fs in report.findings.items() for f in fs}


def test_the_files_a_run_needs_are_found_in_one_walk_of_the_graph(tmp_path, monkeypatch):
    """`Graph.context` walked the graph once per file checked, which is
    quadratic where files name each other in long chains (77 s, 64 of them there)."""
    files, settings = chain(tmp_path, 300)
    lookups = []

    class Counted(dict):
        def __getitem__(self, key):
            lookups.append(key)
            return super().__getitem__(key)

    made = deps.Graph.__init__

    def counted(self, *args):
        made(self, *args)
        self.direct = Counted(self.direct)

    monkeypatch.setattr(deps.Graph, "__init__", counted)
    report = check_files(files, settings, cache=CheckCache(settings))
    assert report.checked == 301
    assert len(lookups) <= 4 * len(files), len(lookups)  # linear, not quadratic


def test_one_edited_file_is_checked_again_with_what_it_needs_only(tmp_path):
    """Editing one subclass changed the key of its base (whose findings
    read its subclasses' whole context), so every subclass of it was parsed again."""
    files, settings = chain(tmp_path, 40, linked=False)
    first = check_files(files, settings, cache=CheckCache(settings))
    edited = tmp_path / "layer_20.py"
    edited.write_text(edited.read_text().replace("* 20", "* 200"))
    again = check_files(files, settings, cache=CheckCache(settings))
    assert found(again) == found(first) == found(check_files(files, settings))
    # Itself and what it reads (its base); not the base's other subclasses.
    assert sorted(p.name for p in again.files) == ["base.py", "layer_20.py"]
    # An edit its base reads (what it passes to `super().__init__`) does check the base
    # again, with all its subclasses.
    edited.write_text(edited.read_text().replace("width=20, ", ""))
    again = check_files(files, settings, cache=CheckCache(settings))
    assert len(again.files) == 41
    assert found(again) == found(check_files(files, settings))


def test_a_file_s_names_are_read_once(tmp_path, monkeypatch):
    """What a file names was read twice in a run that writes the cache
    (`setdefault` computes its default all the same): a fifth of keras/src's first run."""
    files, settings = chain(tmp_path, 20, linked=False)
    (tmp_path / "helpers.py").write_text("class Point:\n    x = 0\n")  # read by the prefilter
    files = python_files([tmp_path], settings)
    read = []
    of, of_source = deps.Names.of.__func__, deps.Names.of_source.__func__
    monkeypatch.setattr(deps.Names, "of", classmethod(lambda c, t: read.append(t) or of(c, t)))
    monkeypatch.setattr(
        deps.Names,
        "of_source",
        classmethod(lambda c, s: read.append(s.text) or of_source(c, s)),
    )
    check_files(files, settings, cache=CheckCache(settings))
    assert len(read) == len(set(read)) == len(files)


def test_names_in_strings_and_comments_tie_no_files(tmp_path):
    """Files were tied by every word of their text, so a docstring or an
    error message naming a class made a file depend on that class's file: on keras/src an
    edit checked a median 382 of 384 files again (16 by the names the code uses)."""
    files, settings = chain(tmp_path, 30, linked=False)
    for n in range(30):  # each names the next one in prose only
        path = tmp_path / f"layer_{n}.py"
        path.write_text(
            path.read_text().replace(
                "    def call(self, x):",
                f"    # Works before Layer{(n + 1) % 30}.\n    def call(self, x):\n"
                f'        """See Layer{(n + 1) % 30}."""\n'
                f'        if x is None:\n            raise ValueError("not Layer{(n + 2) % 30}")',
            )
        )
    first = check_files(files, settings, cache=CheckCache(settings))
    edited = tmp_path / "layer_7.py"
    edited.write_text(edited.read_text().replace("* 7", "* 70"))
    again = check_files(files, settings, cache=CheckCache(settings))
    assert found(again) == found(first) == found(check_files(files, settings))
    assert sorted(p.name for p in again.files) == ["base.py", "layer_7.py"]


def test_the_word_class_in_prose_defines_no_class(tmp_path):
    """A docstring saying "An abstract class to handle ..." defined a class `to` (the text
    was read with a regular expression): every file whose code uses a name `to` then
    depended on every such file, and one edit checked them all again."""
    files, settings = chain(tmp_path, 30, linked=False)
    for n in range(30):
        path = tmp_path / f"layer_{n}.py"
        path.write_text(
            '"""An abstract class to handle the class token."""\n'
            + path.read_text().replace(
                f"        return self.inner(x) * {n}",
                f"        to, token = x, {n}\n        return self.inner(to) * token",
            )
        )
    first = check_files(files, settings, cache=CheckCache(settings))
    edited = tmp_path / "layer_7.py"
    edited.write_text(edited.read_text().replace("token = x, 7", "token = x, 70"))
    again = check_files(files, settings, cache=CheckCache(settings))
    assert found(again) == found(first) == found(check_files(files, settings))
    assert sorted(p.name for p in again.files) == ["base.py", "layer_7.py"]


def test_files_are_tied_by_what_their_imports_name_not_by_a_namesake(tmp_path):
    """A class is found through the import that names it (kinds.find_class): a class of
    the same name in another package is another class, and its edit checks nothing else."""
    for package in ("first", "second"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "base.py").write_text(BASE)
    for n in range(5):
        text = LAYER.format(n=n, previous=0).replace("from base import", "from .base import")
        text = text.replace("from layer_0 import Layer0\n", "").replace(
            "Layer0(dtype=self.dtype_policy)", "keras.layers.Dense(2)"
        )
        (tmp_path / "first" / f"layer_{n}.py").write_text(text)
    settings = CheckSettings(root=tmp_path, select=frozenset(RULES))
    files = python_files([tmp_path], settings)
    first = check_files(files, settings, cache=CheckCache(settings))
    edited = tmp_path / "second" / "base.py"
    edited.write_text(edited.read_text().replace("width=4", "width=5"))
    again = check_files(files, settings, cache=CheckCache(settings))
    assert found(again) == found(first) == found(check_files(files, settings))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in again.files) == ["second/base.py"]


def test_a_file_read_for_the_prefilter_is_tied_by_its_code_not_its_words(tmp_path):
    """A file without Keras is first known by the words of its text (the prefilter reads no
    tree): once parsed, the cache ties it by what its code names, not by its docstring;
    one that does not parse ties nothing."""
    files, settings = chain(tmp_path, 10, linked=False)
    names = ", ".join(f"Layer{n}" for n in range(10))
    (tmp_path / "registry.py").write_text(
        f'class Registry:\n    """Lists {names} and BaseBlock."""\n\n    size = 10\n'
    )
    (tmp_path / "broken.py").write_text(f"class Broken(:\n    # {names}, BaseBlock\n")
    files = python_files([tmp_path], settings)
    first = check_files(files, settings, cache=CheckCache(settings))
    edited = tmp_path / "layer_3.py"
    edited.write_text(edited.read_text().replace("* 3", "* 30"))
    again = check_files(files, settings, cache=CheckCache(settings))
    assert found(again) == found(first) == found(check_files(files, settings))
    assert sorted(p.name for p in again.files) == ["base.py", "layer_3.py"]
