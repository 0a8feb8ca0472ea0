"""`format_code` formats a file piece by piece; its text must be exactly black's own."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import black
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from layergen.config import BlackStyle, user_cache
from layergen.declaration.load import parse_declaration
from layergen.render import formatting
from layergen.render.context import build_context
from layergen.render.render import render_source
from layergen.render.tests_context import build_test_context

from helpers import ACCEPTANCE, OWN_EXAMPLES

DECLARATIONS = sorted([*OWN_EXAMPLES.glob("*.yaml"), *ACCEPTANCE.glob("*.yaml")])


def black_of(code: str, line_length: int = 88) -> str:
    return black.format_str(code, mode=black.Mode(line_length=line_length))


@functools.cache
def rendered_sources(declaration) -> tuple[str, str]:
    """The module and test module of a declaration as the templates write them, before black
    (rendered once: several tests below read them)."""
    ir = parse_declaration(str(declaration), declaration.read_bytes()).ir
    context = build_context(ir, package="layers", source="d.yaml", line_length=88)
    tests = build_test_context(ir, module=f"layers.{ir.name}", source="d.yaml", golden=False)
    return (
        render_source(ir.kind.template, context),
        render_source(ir.kind.test_template, tests),
    )


@pytest.mark.parametrize("declaration", DECLARATIONS, ids=lambda p: p.name)
def test_every_generated_file_formats_as_black_formats_it_whole(declaration):
    for source in rendered_sources(declaration):
        assert formatting.format_code(source) == black_of(source)


def test_the_generated_test_modules_are_cut_into_many_pieces():
    """Else the equality above would prove nothing about the cutting."""
    counts = [len(formatting._pieces(rendered_sources(d)[1])) for d in DECLARATIONS]
    assert min(counts) >= 5


# A module whose only f-string is in its header: black then targets Python 3.6+, and a split
# call ending in `**kwargs` gains a trailing comma. Formatted alone, the last function would
# target every version and get none.
VERSIONS_FROM_ANOTHER_PIECE = """\
NAME = f"{__name__}"


def first():
    pass


def make(**kwargs):
    return build(first_argument_value, second_argument_value, third_argument_value, fourth, **kwargs)
"""

TAIL = "\n\ndef g(): pass\n\ndef h(): pass\n"
CASES = {
    # found by a differential fuzz of format_code against black (each failed before its fix)
    "decorator after the module docstring": '"""D."""\n\n@d\ndef f(): pass' + TAIL,
    "comment, docstring, decorated class": '# c\n"""D."""\n\n@d\nclass A: pass' + TAIL,
    "a first piece black reads as nothing": "\v\n\ndef f(): pass" + TAIL,
    "a backslash line first": "\\\n\ndef f(): pass" + TAIL,
    "a backslash before the blank line": "def f(): ... \\\n\ndef g(): ...\n\ndef h(): ...\n",
    "line breaks that are not Python's": "x = 1  # c\v\vdef g(): pass\n\n\ndef h( ):\n    pass\n\n\ndef k( ):\n    pass\n",
    "versions from another piece": VERSIONS_FROM_ANOTHER_PIECE,
    "stubs with no blank line": "def f(): ...\ndef g(): ...\n\n\ndef h(): ...\n",
    "comment between": "x = 1\n# about f\n\ndef f():\n    pass\n# about g\ndef g():\n    pass\n",
    "fmt off": "x = 1\n\n# fmt: off\ndef f( a ):\n    return [1,2]\n# fmt: on\n\ndef g( a ):\n  pass\n",
    "class docstring only": 'class A:\n    """Doc."""\ndef f():\n    pass\n\nclass B:\n    """Doc."""\n\n\n\n\ndef g():\n    pass\n',
    "decorators": "import x\n@x.y(\n  1,\n)\n\n@z\ndef f():\n  pass\n\n@x\nclass C: pass\n",
    "future import": "from __future__ import annotations\n\ndef f(a: int)->int:\n    return a\n\ndef g(): pass\n",
    "trailing comment": "def f():\n    return 1\n    # the end\n\ndef g():\n    return 2\n# the very end\n",
    "module docstring": '"""Module."""\n\ndef f():\n    pass\n\ndef g(): pass\n',
    "async and overload": "@overload\ndef f(a: int) -> int: ...\n@overload\ndef f(a: str) -> str: ...\n\nasync def g():\n    await h()\n",
    "magic trailing comma": "def f(a,):\n    return [1,]\n\n\ndef g(\n    a, b\n):\n    return call(a, b,)\n",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_statements_black_relates_format_as_black_formats_them_whole(code):
    assert formatting.format_code(code) == black_of(code)
    assert formatting.format_code(code, BlackStyle(line_length=40)) == black_of(code, 40)


def test_the_versions_are_the_whole_files():
    """The case above is cut, and its last piece alone would format otherwise."""
    pieces = formatting._pieces(VERSIONS_FROM_ANOTHER_PIECE)
    assert len(pieces) == formatting._WORTH_CUTTING
    assert black_of(pieces[-1]) not in black_of(VERSIONS_FROM_ANOTHER_PIECE)


# Lines that look like a definition's start where no statement starts: cut there, a piece
# cannot be parsed, and the file is formatted whole.
NOT_STATEMENTS = {
    "def in a string": 'X = """\n\ndef not_code():\n"""\n\n\ndef f( ):\n    pass\n',
    "@ in brackets": "x = (a\n\n@ b)\n\n\ndef f( ):\n    pass\n",
    "blank line after a decorator": "@dec\n\ndef f( ):\n    pass\n\n\ndef g( ):\n    pass\n",
}


@pytest.mark.parametrize("code", NOT_STATEMENTS.values(), ids=NOT_STATEMENTS.keys())
def test_a_cut_where_no_statement_starts_formats_the_file_whole(code):
    assert len(formatting._pieces(code)) == 3
    assert formatting.format_code(code) == black_of(code)


def test_code_black_cannot_parse_is_blacks_error():
    with pytest.raises(black.InvalidInput):
        formatting.format_code("def f(:\n    pass\n\n\ndef g():\n    pass\n")


STATEMENTS = [
    'NAME = f"{x}"',
    "from __future__ import annotations",
    "import keras",
    "# a comment",
    "# fmt: off",
    "# fmt: on",
    "x = [\n    1,2,\n]",
    "def f(): ...",
    "def g(a, b):\n    return call_something_long(a_first_argument, b_second_argument, *rest, **kw)",
    "class A:\n    '''Doc.'''",
    "class B(keras.layers.Layer):\n    def call(self, x):\n        return x\n\n    # trailing\n",
    "@decorator(\n    arg,\n)\ndef h(self, *args, **kwargs):\n    with open(a_long_file_name) as f, open(another_long_file_name) as g:\n        pass",
    "async def k():\n    await thing(first_long_argument_name, second_long_argument_name, **kwargs)",
    "if x:\n    def inner():\n        pass",
    "y = (  1 )",
    'S = """\n\ndef inner():\n"""',
    "M = (a\n\n@ b)",
    "z = 0  # \u2028\u2028def in_a_comment(): pass",
    '"""A module docstring."""',
    "@d\ndef decorated(): pass",
    "def stub(): ... \\",
    "\\",
    "\v",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(STATEMENTS), st.sampled_from(["\n", "\n\n", "\n\n\n", "\n\n\n\n"])
        ),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([30, 88]),
)
# Found by a CI run: a lone backslash before the module docstring joins it to the line, and
# black still takes it for the docstring (one blank line before a decorator, not two).
@example(
    [
        ("\\", "\n"),
        ('"""A module docstring."""', "\n\n"),
        ("@d\ndef decorated(): pass", "\n\n"),
        ("def f(): ...", "\n"),
    ],
    30,
)
# Found by a CI run: a vertical tab line before the module docstring, which black reads as
# blank (one blank line before a decorator, not two).
@example(
    [
        ("\v", "\n"),
        ('"""A module docstring."""', "\n\n"),
        ("@d\ndef decorated(): pass", "\n\n"),
        ("def f(): ...", "\n"),
    ],
    30,
)
def test_any_mixture_formats_as_black_formats_it_whole(statements, line_length):
    code = "".join(text + gap for text, gap in statements)
    try:
        expected = black_of(code, line_length)
    except black.InvalidInput:
        with pytest.raises(black.InvalidInput):
            formatting.format_code(code, BlackStyle(line_length=line_length))
        return
    assert formatting.format_code(code, BlackStyle(line_length=line_length)) == expected


# -- black's results kept between runs -----------------------------------------------------

THREE_PIECES = "import os\n\n\ndef a( x ):\n    return x\n\n\ndef b(y):\n    return [ y,y ]\n"
# Split, the call gains a trailing comma after **kwargs only where every target version has
# that syntax (3.6 on): what it formats to depends on the versions, named or inferred.
VERSIONED = (
    "import os\n\n\ndef a( x ):\n    return x\n\n\n"
    "def make(**kwargs):\n"
    "    return build(first_argument_value, second_argument_value, third_argument_value, fourth, **kwargs)\n"
)


@pytest.fixture
def fresh_process(tmp_path, monkeypatch):
    """A new process as far as the cache goes (nothing read, nothing used), under a cache
    folder of its own; call it again to end this one (it saves, as at exit) and start the next.
    The last one is ended unsaved."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    started = []

    def start():
        if started:
            formatting._KEPT.save()
        started.append(formatting._Kept())
        monkeypatch.setattr(formatting, "_KEPT", started[-1])

    start()
    yield start
    started[-1].take_used()  # so its exit handler, if registered, has nothing to save


def cache_file(root: Path) -> Path:
    (found,) = (root / "layergen" / "black").glob("*.json")
    return found


def test_what_an_earlier_run_formatted_is_not_formatted_again(fresh_process, tmp_path, monkeypatch):
    module = rendered_sources(OWN_EXAMPLES / "gain_dense.layer.yaml")[1]
    first = formatting.format_code(module)
    assert first == black_of(module)
    assert not (tmp_path / "layergen" / "black").exists(), "written before the process ends"

    fresh_process()
    assert cache_file(tmp_path).name == f"{black.__version__}.json"

    def no_black(*args, **kwargs):
        raise AssertionError("black ran for a text an earlier run formatted")

    monkeypatch.setattr(black, "format_str", no_black)
    monkeypatch.setattr(black, "detect_target_versions", no_black)
    assert formatting.format_code(module) == first


def test_a_run_saves_when_it_ends(tmp_path):
    """Nothing in the run saves by hand: the process does, as it exits."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    source = OWN_EXAMPLES / "gain_dense.layer.yaml"
    (tmp_path / "layers" / source.name).write_bytes(source.read_bytes())
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "layergen", "generate", "-q", "layers"]
    subprocess.run(command, cwd=tmp_path, env=env, check=True, capture_output=True)
    assert len(formatting._read(cache_file(tmp_path / "cache"))) > 10


@pytest.mark.parametrize("named", [("py33",), ("py311",), ()], ids=["py33", "py311", "inferred"])
def test_a_text_is_kept_per_mode(fresh_process, named):
    """The same text in another line length, or for other target versions, is black's to
    format again: each comes out as black's own, whatever was kept before it."""
    for style in (BlackStyle(target_versions=("py33",)), BlackStyle(target_versions=("py311",))):
        formatting.format_code(VERSIONED, style)
    formatting.format_code(THREE_PIECES, BlackStyle(line_length=10))
    fresh_process()
    versions = {v for v in black.TargetVersion if v.name.lower() in named}
    mode = black.Mode(target_versions=versions)
    assert formatting.format_code(VERSIONED, BlackStyle(target_versions=named)) == (
        black.format_str(VERSIONED, mode=mode)
    )
    assert formatting.format_code(THREE_PIECES) == black_of(THREE_PIECES)


def test_the_versions_named_change_the_text():
    """Else the test above could not fail."""
    old, new = (
        black.format_str(VERSIONED, mode=black.Mode(target_versions={version}))
        for version in (black.TargetVersion.PY33, black.TargetVersion.PY311)
    )
    assert old != new and old == black_of(VERSIONED)


@pytest.mark.parametrize("damage", ["not json", '["a list"]', '{"key": 1}', "\udcff", "[" * 10**5])
def test_a_damaged_cache_is_an_empty_one_and_is_written_anew(fresh_process, tmp_path, damage):
    formatting.format_code(THREE_PIECES)
    fresh_process()
    path = cache_file(tmp_path)
    path.write_bytes(damage.encode("utf-8", "surrogateescape"))
    fresh_process()
    assert formatting.format_code(THREE_PIECES) == black_of(THREE_PIECES)
    fresh_process()
    assert formatting._read(path), "the cache was not written again"


@pytest.mark.parametrize("where", ["folder", "file"])
def test_a_cache_that_cannot_be_written_never_stops_a_run(fresh_process, tmp_path, where):
    """A file where the cache folder goes, or a folder where its file goes: nothing written,
    no temporary file left."""
    if where == "folder":
        (tmp_path / "layergen").write_text("a file where the cache folder would go")
    else:
        (tmp_path / "layergen" / "black" / f"{black.__version__}.json").mkdir(parents=True)
    before = sorted(tmp_path.rglob("*"))
    assert formatting.format_code(THREE_PIECES) == black_of(THREE_PIECES)
    fresh_process()
    assert sorted(tmp_path.rglob("*")) == before


def test_a_relative_cache_home_is_not_used(tmp_path, monkeypatch):
    """The XDG spec says so; and a relative one would follow the working folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_cache() == tmp_path / ".cache" / "layergen"


def test_the_cache_keeps_what_was_used_last(fresh_process, tmp_path, monkeypatch):
    monkeypatch.setattr(formatting._Kept, "LIMIT", 2)
    formatting._KEPT.put(("format", "a"), "A")
    formatting._KEPT.put(("format", "b"), "B")
    fresh_process()
    assert formatting._KEPT.get(("format", "a")) == "A"  # used: now the last
    formatting._KEPT.put(("format", "c"), "C")
    fresh_process()
    kept = [formatting._KEPT.get(("format", key)) for key in "abc"]
    assert kept == ["A", None, "C"]


def test_a_save_keeps_what_another_process_saved_meanwhile(fresh_process, monkeypatch):
    """The other process's new result outranks what this one read and never used."""
    monkeypatch.setattr(formatting._Kept, "LIMIT", 3)
    for key in "abc":
        formatting._KEPT.put(("format", key), key.upper())
    fresh_process()
    one = formatting._KEPT
    assert one.get(("format", "a")) == "A"  # read the file, used one result
    other = formatting._Kept()
    other.put(("format", "new"), "NEW")
    other.save()
    one.save()
    fresh_process()
    kept = [formatting._KEPT.get(("format", key)) for key in ("a", "b", "c", "new")]
    assert kept == ["A", None, "C", "NEW"]


def test_what_a_pool_used_is_kept_longest(tmp_path, monkeypatch):
    """A worker never saves (it ends with os._exit): what it found or made reaches the parent,
    and counts as used there, so results a pool's workers keep using outlast the others."""
    from layergen import render_many
    from layergen.config import load_config
    from layergen.generate import find_declarations, plan_run

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    for name in ("gain_dense", "rms_norm", "soft_shrink"):
        source = OWN_EXAMPLES / f"{name}.layer.yaml"
        (tmp_path / "layers" / source.name).write_bytes(source.read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(render_many, "_cores", lambda: 2)
    declarations = find_declarations([tmp_path / "layers"])

    def run(parallel_from: int) -> dict[str, str]:
        """One process's generate, saved as at its exit: the cache file after it."""
        monkeypatch.setattr(render_many, "PARALLEL_FROM", parallel_from)
        monkeypatch.setattr(formatting, "_KEPT", formatting._Kept())
        plan_run(declarations, load_config())
        formatting._KEPT.save()
        return formatting._read(cache_file(tmp_path / "cache"))

    alone = run(1000)
    junk = {f"junk{n}": "x" for n in range(50)}  # what later runs of other layers added
    cache_file(tmp_path / "cache").write_text(json.dumps({**alone, **junk}))
    in_pool = run(2)
    assert set(in_pool) == set(alone) | set(junk)
    order = list(in_pool)
    assert max(order.index(k) for k in junk) < min(order.index(k) for k in alone)
