"""Clean, located errors where there were tracebacks or silence (issue 11, items 2, 8, 9, 10, 11)."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from layergen.config import load_config
from layergen.declaration.load import parse_declaration
from layergen.declaration.yamlfile import MAX_FILE_BYTES, MAX_STRING
from layergen.diagnostics import Diagnostic, DiagnosticError

from helpers import layergen

LOCATED = re.compile(
    r"^(?P<path>[^\n]+):(?P<line>\d+):(?P<col>\d+): error: .* \[(?P<code>[a-z-]+)\]$"
)


def project(
    root: Path, files: dict[str, str], pyproject: str = "[project]\nname = 'demo'\n"
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(pyproject)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def errors(result) -> list[tuple[str, int, int, str]]:
    """The located errors a failed CLI run printed: (file name, line, column, code)."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    found = []
    for line in result.stderr.splitlines():
        m = LOCATED.match(line)
        if m:
            found.append((Path(m["path"]).name, int(m["line"]), int(m["col"]), m["code"]))
    return found


def codes_of(text: str, path: str = "a.layer.yaml") -> list[tuple[int, int, str]]:
    with pytest.raises(DiagnosticError) as info:
        parse_declaration(path, text.encode())
    return [(d.line, d.col, d.code) for d in info.value.diagnostics]


# -- 2: two declarations of one class name ---------------------------------------------------------


def test_two_declarations_with_one_class_name_are_both_reported(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n",
            "layers/b.layer.yaml": "# the other one\nlayer: Foo\ncall: x * 3\n",
        },
    )
    result = layergen("generate", "layers", cwd=root)
    assert sorted(errors(result)) == [
        ("a.layer.yaml", 1, 8, "duplicate-name"),
        ("b.layer.yaml", 2, 8, "duplicate-name"),
    ]
    assert not (root / "layers" / "a.py").exists()


def test_one_class_name_in_two_folders_sharing_a_package(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "one/a.layer.yaml": "layer: Foo\npackage: shared\ncall: x * 2\n",
            "two/b.layer.yaml": "layer: Foo\npackage: shared\ncall: x * 3\n",
        },
    )
    assert sorted(errors(layergen("generate", "one", "two", cwd=root))) == [
        ("a.layer.yaml", 1, 8, "duplicate-name"),
        ("b.layer.yaml", 1, 8, "duplicate-name"),
    ]
    # The same class name in two packages registers twice, distinctly: fine.
    (root / "two" / "b.layer.yaml").write_text("layer: Foo\npackage: other\ncall: x * 3\n")
    assert layergen("generate", "one", "two", cwd=root).returncode == 0


def test_one_class_name_in_two_folders_under_one_package_flag(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "one/a.layer.yaml": "layer: Foo\ncall: x * 2\n",
            "two/b.layer.yaml": "layer: Foo\ncall: x * 3\n",
        },
    )
    assert [
        e[3] for e in errors(layergen("generate", "one", "two", "--package", "shared", cwd=root))
    ] == ["duplicate-name"] * 2
    # The default package is the project's name (issue 25: a folder's name, `layers`,
    # collides across projects), so the two classes collide under it too...
    assert [e[3] for e in errors(layergen("generate", "one", "two", cwd=root))] == [
        "duplicate-name"
    ] * 2
    # ...until one names its own.
    (root / "two" / "b.layer.yaml").write_text("layer: Foo\npackage: two\ncall: x * 3\n")
    assert layergen("generate", "one", "two", cwd=root).returncode == 0
    assert 'package="demo"' in (root / "one" / "a.py").read_text()


def test_a_class_keeps_the_package_it_was_registered_under(tmp_path):
    """A saved model names `package>Class`: a class generated before keeps its package when
    the default changes (here: a `package` setting dropped), so models saved with it load."""
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    assert layergen("generate", "layers", "--package", "old", cwd=root).returncode == 0
    assert layergen("generate", "layers", cwd=root).returncode == 0
    assert 'package="old"' in (root / "layers" / "a.py").read_text()
    # A package set on purpose still wins.
    assert layergen("generate", "layers", "--package", "new", cwd=root).returncode == 0
    assert 'package="new"' in (root / "layers" / "a.py").read_text()


# -- 8: a read-only output folder, and wrong value types in [tool.layergen] ---------------------------


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="root writes to read-only folders"
)
def test_a_read_only_output_folder_is_a_located_error(tmp_path):
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    layers = root / "layers"
    layers.chmod(0o555)
    try:
        result = layergen("generate", "layers", cwd=root)
    finally:
        layers.chmod(0o755)
    assert [e[3] for e in errors(result)] == ["cannot-write"]
    assert "permission denied" in result.stderr.lower()
    assert not (root / "layers" / "a.py").exists()
    assert not list(layers.glob(".*.tmp"))


@pytest.mark.parametrize(
    "line",
    [
        "paths = 5",
        "paths = [1, 2]",
        'line-length = "x"',
        "line-length = true",
        "line-length = 0",
        "tests = 5",
        "package = 5",
        "templates = []",
        'package = "a>b"',
        'package = "with space"',
        'package = ""',
        'package = "a..b"',
        'package = "class.x"',
    ],
)
def test_wrong_config_values_are_located(tmp_path, line):
    root = project(
        tmp_path, {}, f"[project]\nname = 'demo'\n\n[tool.layergen]\n# a comment\n{line}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        load_config(root)
    assert [(d.line, d.code) for d in info.value.diagnostics] == [(6, "bad-config")]


def test_wrong_config_values_exit_2_without_a_traceback(tmp_path):
    root = project(
        tmp_path,
        {"layers/a.layer.yaml": "layer: Foo\ncall: x\n"},
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = 5\n",
    )
    assert errors(layergen("generate", cwd=root)) == [("pyproject.toml", 5, 1, "bad-config")]


def test_good_config_values_load(tmp_path):
    root = project(
        tmp_path,
        {},
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = 'layers'\n"
        "line-length = 100\ntests = 't'\npackage = 'my_pkg.layers'\n",
    )
    config = load_config(root)
    assert (config.paths, config.line_length, config.package) == (
        [root / "layers"],
        100,
        "my_pkg.layers",
    )


# -- 9: diagnostics stay one line each, whatever the user wrote ------------------------------------

HOSTILE = [
    "\n",
    "\r",
    "\r\n",
    "\u2028",
    "\u2029",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1b[31m",
    "\x1b]0;title\x07",
    "\x00",
    "\x9b",
    "\u202e",
    "\x7f",
]


@pytest.mark.parametrize("text", HOSTILE, ids=[repr(t) for t in HOSTILE])
def test_a_diagnostic_escapes_line_breaks_and_terminal_controls(text):
    d = Diagnostic(
        f"a{text}.layer.yaml",
        1,
        2,
        "unknown-key",
        f"unknown key `x{text}y`",
        f"did you mean `x{text}`?",
    )
    first, hint = d.format().split("\n")
    assert (
        first.startswith("a") and first.endswith(" [unknown-key]") and hint.startswith("  hint: ")
    )
    for line in (first, hint):
        assert line.isprintable(), repr(line)
    assert ascii(text)[1:-1] in first  # written as its escape, so the reader still sees it


def test_a_key_with_a_line_break_and_an_escape_sequence_prints_one_line_per_diagnostic(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "layers/a.layer.yaml": 'layer: Foo\n"x\\ny\\u2028z\\e[2J\\rw": 1\ncall: x\n',
        },
    )
    result = layergen("generate", "layers", cwd=root)
    assert errors(result) == [("a.layer.yaml", 2, 1, "unknown-key")]
    lines = result.stderr.splitlines()
    assert len(result.stderr.split("\n")) == len(lines) + 1  # nothing but \n breaks a line
    assert all(line.isprintable() for line in lines), lines


# -- 10: size limits ---------------------------------------------------------------------------------


def test_an_oversized_code_field_is_a_located_error():
    text = "layer: A\ndoc: fine\ncall: |\n" + "  y = x\n" * (MAX_STRING // 6 + 1) + "  return y\n"
    assert codes_of(text) == [(3, 7, "too-large")]


def test_an_oversized_doc_is_a_located_error():
    assert codes_of("layer: A\ndoc: " + "word " * (MAX_STRING // 5 + 1) + "\n") == [
        (2, 6, "too-large")
    ]


def test_an_oversized_file_is_refused_before_it_is_parsed():
    text = "layer: A\n" + "".join(
        f"# {i:08d} {'.' * 60}\n" for i in range(MAX_FILE_BYTES // 70 + 1)
    )
    start = time.perf_counter()
    found = codes_of(text)
    assert time.perf_counter() - start < 1
    assert [code for *_, code in found] == ["too-large"]
    line = found[0][0]
    assert (
        len(text[: sum(len(part) for part in text.split("\n")[: line - 1]) + line - 1].encode())
        <= MAX_FILE_BYTES
    )


@pytest.mark.e2e
def test_the_analysis_of_a_large_allowed_declaration_stays_linear():
    """Eight times the code takes well under the 64 times a quadratic analysis would."""
    from layergen.render.context import build_context
    from layergen.render.render import render

    def seconds(lines: int) -> float:
        text = "layer: A\nparams:\n" + "".join(
            f"  p{i}: {{type: int, default: {i}}}\n" for i in range(lines // 8)
        )
        text += (
            "call: |\n"
            + "".join(f"  y{i} = x * p{i % (lines // 8)}\n" for i in range(lines))
            + "  return x\n"
        )
        start = time.perf_counter()
        analysis = parse_declaration("a.layer.yaml", text.encode())
        render("layer.py.j2", build_context(analysis.ir, package="p", source="a"))
        return time.perf_counter() - start

    seconds(200)  # warm up imports and caches
    small, large = seconds(300), seconds(2400)
    assert large < 25 * small + 1, (small, large)


# -- 11: symlinks, package names, empty folders, custom tags -----------------------------------------


def test_a_symlinked_declaration_generates_beside_the_link(tmp_path):
    root = project(tmp_path / "demo", {"shared_src/foo.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    (root / "layers").mkdir()
    (root / "layers" / "foo.layer.yaml").symlink_to(root / "shared_src" / "foo.layer.yaml")
    assert layergen("generate", "layers/foo.layer.yaml", cwd=root).returncode == 0
    assert (root / "layers" / "foo.py").is_file()
    assert "from layers.foo import Foo" in (root / "tests" / "test_foo.py").read_text()
    assert not (root / "shared_src" / "foo.py").exists()
    assert "from .foo import Foo" in (root / "layers" / "__init__.py").read_text()


def test_a_symlinked_folder_generates_inside_the_link(tmp_path):
    root = project(tmp_path / "demo", {"shared_src/foo.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    (root / "layers").symlink_to(root / "shared_src", target_is_directory=True)
    assert layergen("generate", "layers", cwd=root).returncode == 0
    assert (root / "layers" / "foo.py").is_file()
    assert "from layers.foo import Foo" in (root / "tests" / "test_foo.py").read_text()


@pytest.mark.parametrize(
    "package",
    [
        "'a>b'",
        "'with space'",
        "''",
        "'a..b'",
        "'.a'",
        "'1a'",
        "'a.class'",
        "'a-b'",
        "\"import os; os.system('x')\"",
    ],
)
def test_a_declared_package_must_be_a_dotted_name(package):
    assert codes_of(f"layer: A\npackage: {package}\ncall: x\n") == [(2, 10, "bad-package")]


def test_a_good_declared_package_passes():
    assert (
        parse_declaration("a.layer.yaml", b"layer: A\npackage: my_pkg.layers\n").decl.package
        == "my_pkg.layers"
    )


def test_a_bad_package_flag_is_an_error(tmp_path):
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x\n"})
    result = layergen("generate", "layers", "--package", "a>b", cwd=root)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    # An option has no line: none is invented (issue 12).
    assert "--package: error: `--package` must be a dotted Python name" in result.stderr
    assert "[bad-package]" in result.stderr


def test_a_folder_without_declarations_says_so(tmp_path):
    root = project(
        tmp_path / "demo",
        {"layers/readme.txt": "nothing here\n", "more/a.layer.yaml": "layer: Foo\ncall: x\n"},
    )
    result = layergen("generate", "layers", "more", cwd=root)
    assert errors(result) == [("layers", 1, 1, "no-declarations")]
    assert ".layer.yaml" in result.stderr  # the hint names what is looked for
    assert not (root / "more" / "a.py").exists()


@pytest.mark.parametrize(
    "text, where",
    [
        ("layer: A\ndoc: !foo hello\n", (2, 6)),
        ("layer: !Layer A\n", (1, 8)),
        ("layer: A\nparams: !params\n  u: int\n", (2, 9)),
        ("layer: A\nparams:\n  u: !<tag:example.com,2024:int> int\n", (3, 6)),
        ("layer: A\ndoc: !!python/object:os.system hello\n", (2, 6)),
        ("layer: A\ndoc: !!binary aGVsbG8=\n", (2, 6)),
    ],
)
def test_custom_yaml_tags_are_located_errors(text, where):
    assert (*where, "yaml-tag") in codes_of(text)


def test_standard_tags_still_work():
    analysis = parse_declaration(
        "a.layer.yaml", b"layer: !!str A\nparams:\n  u: {type: int, default: !!int 3}\n"
    )
    assert (analysis.decl.name, analysis.params["u"].default) == ("A", 3)


def test_a_file_that_cannot_be_written_is_a_located_error(tmp_path):
    """The same path as a read-only folder, where permissions cannot stop the user (root): a folder where the module goes."""
    root = project(tmp_path / "demo", {"layers/a.layer.yaml": "layer: Foo\ncall: x * 2\n"})
    (root / "layers" / "a.py").mkdir()
    result = layergen("generate", "layers", cwd=root)
    assert errors(result) == [("a.py", 1, 1, "cannot-write")]
    assert "nothing was written" in result.stderr
    assert not (root / "layers" / "__init__.py").exists()
    assert not list((root / "layers").glob(".*.tmp"))
