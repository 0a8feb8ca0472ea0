"""Hardening: odd inputs never crash, strings come out exactly as written and run nothing,
identifiers are checked before they reach a template, and a killed run leaves whole files.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from layergen.config import Config
from layergen.declaration.load import parse_declaration
from layergen.declaration.yamlfile import Pos, Source, value_position
from layergen.diagnostics import DiagnosticError
from layergen.generate import plan, write
from layergen.keras_names import LAYER_ATTRIBUTES
from layergen.kinds import KINDS
from layergen.render.context import build_context, docstring_text
from layergen.render.render import format_code, render


def quote(text: str) -> str:
    """A YAML double-quoted scalar: printable ASCII as it is, everything else escaped."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= ord(c) < 0x7F:
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04x}" if ord(c) > 0xFF else f"\\x{ord(c):02x}")
    return '"' + "".join(out) + '"'


def module_code(text: str | bytes, path: str = "odd.layer.yaml") -> str:
    raw = text.encode() if isinstance(text, str) else text
    analysis = parse_declaration(path, raw)
    kind = analysis.decl.kind
    code = render(KINDS[kind].template, build_context(analysis.ir, package="p", source=path))
    compile(code, path, "exec", dont_inherit=True)
    return code


# -- odd but valid (or plainly wrong) inputs: a result or a located error, never a crash -------------

ODD = {
    "non-string key at the top": "layer: A\n1: 2\n",
    "null key": "layer: A\nnull: 2\n",
    "non-string param name": "layer: A\nparams:\n  1: int\n",
    "list where a mapping goes": "layer: A\nweights: [a, b]\n",
    "params with a null value": "layer: A\nparams:\ncall: x\n",
    "a weight with a null value": "layer: A\nweights: {k: null}\n",
    "an integer as the class name": "layer: 123\n",
    "an integer as a weight name": "layer: A\nweights:\n  7: 3\n",
    "a call that is a number": "layer: A\ncall: 5\n",
    "a call that is a list": "layer: A\ncall: [x]\n",
    "a huge integer": "layer: A\nparams:\n  u: {type: int, default: " + "9" * 5000 + "}\n",
    "a huge hex integer": "layer: A\nparams:\n  u: {type: int, default: 0x" + "f" * 5000 + "}\n",
    "a float that overflows": "layer: A\nparams:\n  u: {type: float, default: 1e999}\n",
    "nan": "layer: A\nparams:\n  u: {type: float, default: .nan}\n",
    "a string default with a lone surrogate": 'layer: A\nparams:\n  s: {type: str, default: "\\udc00"}\n',
    "a null byte in code": 'layer: A\ncall: "x\\0"\n',
    "a dtype default that is a list": "layer: A\nparams:\n  d: {type: dtype, default: [float32]}\n",
    "an empty mapping of outputs": "layer: A\noutputs: {}\n",
    "a YAML tag": "layer: !!python/object:os.system A\n",
    "a binary value": "layer: A\ndoc: !!binary aGVsbG8=\n",
    "a timestamp default": "layer: A\nparams:\n  d: {type: str, default: 2001-12-14}\n",
    "deep brackets in code": "layer: A\ncall: " + "(" * 300 + "x" + ")" * 300 + "\n",
    "a very long line": "layer: A\ncall: x" + " + x" * 20000 + "\n",
}


@pytest.mark.parametrize("name", ODD)
def test_odd_inputs_give_code_or_a_located_error(name):
    raw = ODD[name].encode()
    try:
        module_code(raw)
    except DiagnosticError as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert 1 <= d.line <= raw.count(b"\n") + 1 and d.col >= 1, d


BLOCK = "layer: Tabs\nparams:\n  rate: {type: float, default: 0.5}\ncall: |\n  if training:\n  \ty = x * rate\n  else:\n  \ty = x\n  return y\n"


def test_tabs_inside_a_code_block_generate():
    code = module_code(BLOCK)
    assert "self.rate" in code


def test_crlf_line_ends_and_a_bom_give_the_same_module():
    plain = module_code(BLOCK)
    assert module_code(BLOCK.replace("\n", "\r\n")) == plain
    assert module_code("\ufeff" + BLOCK) == plain
    assert module_code(b"\xef\xbb\xbf" + BLOCK.replace("\n", "\r\n").encode()) == plain


def test_errors_with_crlf_line_ends_keep_their_columns():
    text = "layer: A\r\nparams:\r\n  units: int\r\ncall: |\r\n  y = x * unitz\r\n  return y\r\n"
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("a.layer.yaml", text.encode())
    (d,) = info.value.diagnostics
    assert (d.line, d.col, d.code) == (5, 11, "unknown-name")


def test_folded_code_blocks_work():
    code = module_code("layer: Folded\ncall: >\n  ops.add(x,\n  x)\n")
    assert "ops.add(x, x)" in code


@pytest.mark.parametrize(
    "yaml_text, value, offset, expected",
    [
        ('k: "a\\x41b"\n', "aAb", 2, (1, 10)),  # after a \x escape
        ('k: "\\u00e9 z"\n', "é z", 2, (1, 12)),
        ("k: 'it''s z'\n", "it's z", 5, (1, 11)),  # after a doubled quote
        ('k: "a \\\n  z"\n', "a z", 2, (2, 3)),  # after an escaped line break
        ("k: |\n  a\n   b\n", "a\n b\n", 3, (3, 4)),  # more indented line
        ("k: >\n  a\n  b\n", "a b\n", 2, (3, 3)),  # folded
        ("k: a\n  b\n", "a b", 2, (2, 3)),  # plain, folded
    ],
)
def test_positions_inside_every_scalar_style(yaml_text, value, offset, expected):
    from ruamel.yaml import YAML

    node = YAML(typ="rt", pure=True).compose(yaml_text).value[0][1]
    mark = node.start_mark
    pos = Pos(
        mark.line + 1,
        mark.column + 1,
        node.style,
        0,
        mark.index,
        node.end_mark.index,
        Source(yaml_text),
    )
    assert node.value.replace("\a", "") == value
    assert value_position(pos, value, offset) == expected


# -- identifiers are checked before they reach a template ----------------------------------------

NAME_HOLES = {
    "class": "layer: {x}\n",
    "param": "layer: A\nparams:\n  {x}: int\n",
    "weight": "layer: A\nweights:\n  {x}: 3\n",
    "sublayer": "layer: A\nsublayers:\n  {x}: {{class: keras.layers.Dense, args: {{units: 2}}}}\n",
    "op": "layer: A\nops:\n  {x}:\n    args: [v]\n    forward: v\n    gradient: upstream\n",
    "op argument": "layer: A\nops:\n  f:\n    args: [{x}]\n    forward: '1'\n    gradient: upstream\n",
    "method": "layer: A\nmethods:\n  {x}:\n    body: return 1\n",
    "method argument": "layer: A\nmethods:\n  m:\n    args: [{x}]\n    body: return 1\n",
    "input": "layer: A\ninputs:\n  {x}:\n  b:\n",
    "output": "layer: A\noutputs:\n  {x}: x\n",
    "sublayer argument": "layer: A\nsublayers:\n  d: {{class: keras.layers.Dense, args: {{{x}: 2}}}}\n",
    "base class": "layer: A\nbase: keras.layers.{x}\n",
    "sublayer class": "layer: A\nsublayers:\n  d: {{class: keras.layers.{x}}}\n",
}
BAD_NAMES = [
    "'a b'",
    "'x)'",
    "'x; import os'",
    "'x=1'",
    "'x\\n'",
    "\"os.system('x')#\"",
    "class",
    "None",
    "'1x'",
    "'-'",
    "'\\u00b5'",
    "'x.y'",
]


@pytest.mark.parametrize(
    "hole, name",
    [
        (hole, name)
        for hole in NAME_HOLES
        for name in BAD_NAMES
        if not (hole.endswith("class") and name == "'x.y'")
        # a method argument may give its default (issue 22): `x=1` is valid there
        and not (hole == "method argument" and name == "'x=1'")
    ],
)
def test_bad_names_never_reach_a_template(hole, name):
    text = NAME_HOLES[hole].format(x=name)
    with pytest.raises(DiagnosticError) as info:
        module_code(text)
    assert {d.code for d in info.value.diagnostics} & {
        "bad-name",
        "keyword-name",
        "bad-class-name",
        "bad-class",
        "yaml-syntax",
        "wrong-type",
    }, info.value


@pytest.mark.parametrize(
    "line",
    [
        "import os; os.system('touch pwned')",
        "import os\nos.system('touch pwned')",
        "from os import *",
        "from __future__ import annotations",
        "x = 1",
        "import os  \\\n; os.system('x')",
        "",
    ],
)
def test_import_lines_hold_imports_only(line):
    text = "layer: A\nimports:\n  - " + quote(line) + "\n"
    with pytest.raises(DiagnosticError) as info:
        module_code(text)
    assert {d.code for d in info.value.diagnostics} <= {"bad-import", "python-syntax"}


def test_good_import_lines_pass():
    code = module_code(
        "layer: A\nimports:\n  - import math\n  - from math import pi as PI\ncall: x * math.e * PI\n"
    )
    assert "import math" in code and "from math import pi as PI" in code


# -- strings come out exactly as written ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        '"""',
        '"',
        'a"',
        '""',
        '"""x"""',
        "\\",
        "a\\",
        "\\n",
        "tab\there",
        "trail  ",
        "  lead",
        "\x00\x07\x1b",
        "line\nbreak",
        "a\r\nb",
        "\u2028",
        "é ü 中",
        "{{ x }} {% if %}",
        "'''",
        "x\n\n  indented\n",
        'back\\slash"""',
    ],
)
def test_docstring_text_reads_back_exactly_after_black(text):
    source = f'class A:\n    """{docstring_text(text)}\n\n    Args:\n        x: y.\n    """\n'
    formatted = format_code(source)
    doc = ast.get_docstring(ast.parse(formatted).body[0], clean=False)
    lines = text.split("\n")
    expected = "\n".join([lines[0]] + ["    " + line if line else "" for line in lines[1:]])
    assert doc.startswith(expected + "\n"), (formatted, doc)


SENTINEL = "SENTINEL"
PAYLOAD = f"import pathlib; pathlib.Path({SENTINEL!r}).write_text('ran')"
DOC = f'"""\n{PAYLOAD}\n"""\nthen {{{{ doc }}}} and {{% if x %}} and \\n and \\\\ and \'quotes\' "too"'
DEFAULT = (
    f'it\'s "quoted" """ \'\'\' {{{{ name }}}} {{% raw %}} \\ back\nslash \\n \t"""; {PAYLOAD}; """'
)
CHOICE = "{__import__('pathlib').Path('" + SENTINEL + "').write_text('choice')}"


def safe_rendering_project(root: Path) -> Path:
    (root / "pyproject.toml").write_text("[project]\nname = 'quoted'\n")
    folder = root / "quoting"
    folder.mkdir()
    declaration = (
        "layer: Quoted\n"
        f"doc: {quote(DOC)}\n"
        "package: quoting.registered\n"  # a package that is not a dotted name is refused (test_reliability.py)
        "params:\n"
        "  text:\n"
        "    type: str\n"
        f"    default: {quote(DEFAULT)}\n"
        f"    doc: {quote(chr(34) * 3 + '; ' + PAYLOAD + '; ' + chr(34) * 3)}\n"
        "  mode:\n"
        "    type: str\n"
        "    default: a\n"
        f"    choices: [a, {quote(CHOICE)}]\n"
        "example:\n"
        "  input_shape: [2, 3]\n"
    )
    (folder / "quoted.layer.yaml").write_text(declaration)
    write(plan([folder / "quoted.layer.yaml"], Config(root=root)))
    return folder


IMPORT_AND_REPORT = textwrap.dedent("""
    import inspect, json, os, sys
    sys.path.insert(0, sys.argv[1])
    os.chdir(sys.argv[1])
    import keras
    from quoting.quoted import Quoted
    signature = inspect.signature(Quoted.__init__).parameters
    report = {
        "doc": Quoted.__doc__,
        "text": signature["text"].default,
        "mode": signature["mode"].default,
        "config": Quoted().get_config()["text"],
        "sentinel_after_import": os.path.exists("SENTINEL"),
    }
    try:
        Quoted(mode="b")
    except ValueError as exc:
        report["error"] = str(exc)
    report["sentinel_after_error"] = os.path.exists("SENTINEL")
    layer = keras.layers.Layer()
    report["layer_attributes"] = sorted(
        a for a in set(dir(keras.layers.Layer)) | set(vars(layer)) if not a.startswith("_")
    )
    print(json.dumps(report))
""")


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    root = tmp_path_factory.mktemp("quoted")
    safe_rendering_project(root)
    env = {
        **os.environ,
        "KERAS_BACKEND": "jax",
        "JAX_PLATFORMS": "cpu",
        "TF_CPP_MIN_LOG_LEVEL": "3",
    }
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_AND_REPORT, str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return root, json.loads(result.stdout.strip().splitlines()[-1])


def test_docstring_is_exactly_the_declared_text(imported):
    import inspect

    _, report = imported
    assert report["doc"].split("\n")[0] == DOC.split("\n")[0]
    assert inspect.cleandoc(report["doc"]).startswith(DOC + "\n")


def test_string_default_is_exactly_the_declared_text(imported):
    _, report = imported
    assert report["text"] == DEFAULT
    assert report["config"] == DEFAULT
    assert report["mode"] == "a"


def test_choices_with_braces_are_text_in_the_error_message(imported):
    _, report = imported
    assert CHOICE in report["error"]


def test_importing_the_module_runs_nothing_else(imported):
    root, report = imported
    assert not report["sentinel_after_import"] and not report["sentinel_after_error"]
    assert not (root / SENTINEL).exists()
    code = (root / "quoting" / "quoted.py").read_text()
    tree = ast.parse(code)
    kinds = [type(node).__name__ for node in tree.body]
    # The docstring, imports (`from keras import ops` only when used), the class: nothing else.
    assert kinds[0] == "Expr" and kinds[-1] == "ClassDef", kinds
    assert set(kinds[1:-1]) <= {"Import", "ImportFrom"} and kinds[1] == "Import", kinds
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert [type(n).__name__ for n in cls.body if not isinstance(n, ast.FunctionDef)] == [
        "Expr"
    ]  # the docstring


def test_every_public_layer_attribute_is_reserved(imported):
    _, report = imported
    assert set(report["layer_attributes"]) <= LAYER_ATTRIBUTES, sorted(
        set(report["layer_attributes"]) - LAYER_ATTRIBUTES
    )


# -- a killed run leaves every file whole ----------------------------------------------------------

N_LAYERS = 6
# A kill between creating a temporary file and renaming it leaves that file behind: `write()`
# names them `.<target name>.<random>.tmp`, next to their target. Nothing else may be left.
STRAY = re.compile(r"^\.(?P<target>.+)\.[A-Za-z0-9_]+\.tmp$")

CHILD = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from layergen.config import Config
    from layergen.generate import plan, write

    root, mode = Path(sys.argv[1]), sys.argv[2]
    outputs = plan(sorted((root / "layers").glob("*.yaml")), Config(root=root))
    real_replace, real_fdopen = os.replace, os.fdopen

    def ready():
        (root / "READY").write_text("")

    if mode == "after-first-rename":
        def replace(src, dst):
            real_replace(src, dst)
            ready()
            time.sleep(600)
        os.replace = replace
    elif mode == "mid-file":
        class HalfWriter:
            def __init__(self, handle):
                self.handle = handle
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                return self.handle.__exit__(*exc)
            def write(self, text):
                self.handle.write(text[: len(text) // 2])
                self.handle.flush()
                ready()
                time.sleep(600)
        os.fdopen = lambda *args, **kwargs: HalfWriter(real_fdopen(*args, **kwargs))
    else:  # a slow disk: the parent kills at a random moment of the writes
        def replace(src, dst):
            time.sleep(0.02)
            real_replace(src, dst)
        os.replace = replace
        ready()
    write(outputs)
    (root / "DONE").write_text("")
""")


def declarations(root: Path, version: int) -> None:
    folder = root / "layers"
    folder.mkdir(exist_ok=True)
    for i in range(N_LAYERS + (version == 2)):  # version 2 adds a layer: its files are new
        (folder / f"layer_{i}.layer.yaml").write_text(
            f"layer: Layer{i}\ndoc: Version {version} of layer {i}.\n"
            f"params:\n  rate: {{type: float, default: 0.{version}}}\ncall: x * rate\n"
        )


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def kill_run(root: Path, mode: str, delay: float | None = None) -> None:
    for marker in ("READY", "DONE"):
        (root / marker).unlink(missing_ok=True)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), mode], cwd=root)
    try:
        deadline = time.monotonic() + 120
        while not (root / "READY").exists():
            assert child.poll() is None, "the generating process ended before it was killed"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(delay or 0)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()


def check_whole(root: Path, before: dict[Path, bytes], new: dict[Path, str]) -> list[Path]:
    """Every target old or new in full; nothing else but temporary files. Returns the stray ones."""
    strays = []
    for path in root.rglob("*"):
        if not path.is_file() or path.name in ("READY", "DONE") or path.suffix == ".yaml":
            continue
        if path in new:
            content = path.read_bytes()
            assert content == new[path].encode() or content == before.get(
                path
            ), f"{path} is neither old nor new"
        elif path in before:
            assert path.read_bytes() == before[path]
        else:
            match = STRAY.match(path.name)
            assert match and (path.parent / match["target"]) in new, f"unexpected file {path}"
            strays.append(path)
    return strays


@pytest.fixture(scope="module")
def generated_once(tmp_path_factory):
    """Version 1 generated and version 2 declared, with what a complete run of version 2 writes."""
    root = tmp_path_factory.mktemp("killed")
    (root / "pyproject.toml").write_text("[project]\nname = 'killed'\n")
    declarations(root, 1)
    write(plan(sorted((root / "layers").glob("*.yaml")), Config(root=root)))
    declarations(root, 2)
    return root, snapshot(root), plan(sorted((root / "layers").glob("*.yaml")), Config(root=root))


@pytest.fixture
def project(generated_once):
    """The project as version 1 left it (the generated files name their absolute path: same folder each time)."""
    root, before, new = generated_once
    for path in [p for p in root.rglob("*") if p.is_file() and p not in before]:
        path.unlink()
    for path, content in before.items():
        path.write_bytes(content)
    assert (
        len([p for p in new if p in before and new[p].encode() != before[p]]) >= N_LAYERS
    )  # the run changes files
    return root, before, new


def test_a_kill_after_the_first_rename_leaves_old_and_new_files_whole(project):
    root, before, new = project
    kill_run(root, "after-first-rename")
    assert not (root / "DONE").exists()
    strays = check_whole(root, before, new)
    changed = [p for p in new if p.exists() and p.read_bytes() != before.get(p)]
    assert len(changed) == 1  # the first file renamed; every other one untouched
    # write() stages every file before the first rename: the others wait, complete, beside their targets.
    waiting = {s.parent / STRAY.match(s.name)["target"]: s for s in strays}
    assert changed[0] not in waiting and waiting
    assert all(stray.read_bytes() == new[target].encode() for target, stray in waiting.items())


def test_a_kill_in_the_middle_of_a_file_leaves_the_target_untouched(project):
    root, before, new = project
    kill_run(root, "mid-file")
    (stray,) = check_whole(root, before, new)
    target = stray.parent / STRAY.match(stray.name)["target"]
    assert (
        new[target].encode().startswith(stray.read_bytes())
        and stray.read_bytes() != new[target].encode()
    )
    assert all(p.read_bytes() == before[p] for p in new if p.exists())  # nothing renamed yet
    assert [p for p in new if not p.exists()] == [p for p in new if p not in before]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_kill_at_a_random_moment_leaves_every_file_whole(project, seed):
    root, before, new = project
    kill_run(root, "random", delay=random.Random(seed).uniform(0.0, 0.02 * len(new)))
    check_whole(root, before, new)
    write(new)  # the next run completes the work and clears the leftovers
    assert all(p.read_bytes() == new[p].encode() for p in new)
    assert not [p for p in root.rglob("*.tmp") if STRAY.match(p.name)]


# -- the command line: exit 2, located errors, no traceback, nothing written ----------------------


def test_cli_reports_every_error_and_writes_nothing(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = tmp_path / "layers"
    folder.mkdir()
    (folder / "good.layer.yaml").write_text("layer: Good\ncall: x * 2\n")
    (folder / "bad.layer.yaml").write_text(
        "layer: Bad\nparams:\n  u: {type: int, mn: 1}\ncall: x * q\n"
    )
    (folder / "worse.layer.yaml").write_bytes(b"layer: Worse\ndoc: \xff\n")
    result = subprocess.run(
        [sys.executable, "-m", "layergen", "generate", "layers"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output
    for where in (
        "bad.layer.yaml:3:18: error: unknown key `mn`",
        "bad.layer.yaml:4:11: error: unknown name `q`",
        "worse.layer.yaml:2:6: error:",
    ):
        assert where in output, output
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "bad.layer.yaml",
        "good.layer.yaml",
        "pyproject.toml",
        "worse.layer.yaml",
    ]


def test_written_files_keep_the_usual_permissions(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    target = tmp_path / "module.py"
    write({target: "x = 1\n"})
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
