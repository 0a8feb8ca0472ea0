"""Shared by the tests: projects to generate, layergen and pytest runs, and the edits and
reads the unit tests make on the Scaler project (`scaler_project` in conftest.py)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import black
import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
GOLDEN = TESTS / "golden"  # what the examples generate, checked in
FIXTURES = TESTS / "fixtures"  # inputs kept as found: declarations, hand-written layers
REPROS = FIXTURES / "repros"  # small declarations that reproduce an issue, shared by tests
HANDWRITTEN = FIXTURES / "handwritten"  # layers written without layergen, as people do
TWINS = FIXTURES / "twins"  # declarations of Keras's own layers, to match them
# The acceptance set, copied from the team's shared/examples/ (see its README).
ACCEPTANCE = FIXTURES / "acceptance"
OWN_EXAMPLES = REPO / "examples"
# Where the generated tests' runs keep what JAX compiled (conftest.py sets it per worker).
JAX_CACHE: Path | None = None
# More declarations to render, named explicitly (`LAYERGEN_EXTRA_EXAMPLES=../shared/examples`):
# no test reads outside the repository unless asked to.
EXTRA_EXAMPLES = (
    Path(os.environ["LAYERGEN_EXTRA_EXAMPLES"])
    if os.environ.get("LAYERGEN_EXTRA_EXAMPLES")
    else None
)


def make_project(root: Path, sources: dict[str, Path]) -> Path:
    """A fresh project: each declaration folder copied in as a package."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    for package, source in sources.items():
        target = root / package
        target.mkdir()
        for path in source.glob("*.yaml"):
            shutil.copy(path, target / path.name)
    return root


def layergen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "layergen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def layergen_in_process(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`layergen` as `layergen()` runs it, in this process (typer's test runner): for tests of
    what a command prints and exits with, without an interpreter's start per run (half a
    second of CPU). An exception is raised where a process would print its traceback."""
    from typer.testing import CliRunner

    from layergen.cli import app

    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def pytest_in(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """pytest in a fresh process in `project`, as a person runs it there: without this
    run's pytest, warning and JAX settings, with `env` added."""
    ours = ("PYTEST", "PYTHONWARNINGS", "JAX_", "XLA_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=project,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def python_in(root: Path, code: str) -> subprocess.CompletedProcess:
    """`python -c CODE` in a fresh process in `root`, as a person's program imports the
    project's layers: on Keras's numpy backend, the quickest to start (TensorFlow's takes
    seconds more), where importing, constructing and registering a layer do the same."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env={**os.environ, "KERAS_BACKEND": "numpy"},
        capture_output=True,
        text=True,
    )


def shared_jax_compilations() -> dict[str, str]:
    """JAX settings that keep what JAX compiles in one folder for the worker's runs
    (`JAX_CACHE`, set in conftest.py): the generated tests of many projects compile the
    same programs, as the real layers' tests and the same tests run against the original
    classes do."""
    if JAX_CACHE is None:
        return {}
    return {
        "JAX_COMPILATION_CACHE_DIR": str(JAX_CACHE),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1",
    }


def run_pytest(project: Path, backend: str, *paths: str) -> dict[str, str]:
    """Run the generated tests in a fresh process; return {file::test: outcome}."""
    report = project / f"report-{backend}.xml"
    env = {
        **os.environ,
        "KERAS_BACKEND": backend,
        "KERAS_HOME": str(project / ".keras"),
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONHASHSEED": "0",
        **shared_jax_compilations(),
    }
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
            f"--junitxml={report}",
            *(paths or ["tests"]),
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname').split('.')[-1]}::{case.get('name')}"
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        outcomes[name] = "failed" if failed else "skipped" if skipped else "passed"
    return outcomes


def pytest_runs(project: Path):
    """`run(backend)`: {file::test: outcome} of one pytest run over the project's tests,
    run once per backend however often it is asked."""
    runs: dict[str, dict[str, str]] = {}

    def run(backend: str) -> dict[str, str]:
        if backend not in runs:
            runs[backend] = run_pytest(project, backend)
        return runs[backend]

    return run


# The one-layer project that the unit tests edit (`scaler_project` in conftest.py).
DECLARATION = """\
layer: Scaler
doc: Multiplies by a learnable per-unit scale.
params:
  gain: {type: float, default: 1.0}
weights:
  scale:
    shape: x[-1]
    initializer: ones
call: x * scale * gain
"""


def module(root: Path) -> str:
    """The Scaler project's generated module."""
    return (root / "layers" / "scaler.py").read_text()


def saved_long_ago(path: Path) -> Path:
    """`path` dated an hour back, as a project's files are when a command runs: an empty
    `__init__.py` so dated is no save in progress (a fresh one is read again once it has
    been empty a moment, textfiles.Seen.read)."""
    an_hour_ago = time.time_ns() - 3600 * 10**9 + 1
    os.utime(path, ns=(an_hour_ago, an_hour_ago))
    return path


def write_layer(project: Path, name: str, text: str) -> Path:
    """`text` as the module `layers/<name>` of `project` (the `project` fixture)."""
    path = project / "layers" / name
    path.write_text(text)
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root, by relative path: to assert that a run wrote nothing."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def heldout_project(root: Path) -> list[Path]:
    """A project holding the held-out hand-written layers (tests/fixtures/tests_heldout/) as
    the package `heldout`; their modules."""
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    shutil.copytree(
        FIXTURES / "tests_heldout", root / "heldout", ignore=shutil.ignore_patterns("*.md")
    )
    (root / "heldout" / "__init__.py").write_text("")
    return sorted(p for p in (root / "heldout").glob("*.py") if p.name != "__init__.py")


def cli(*args: str):
    """`layergen ARGS` in this process, as the unit tests run it: never a traceback."""
    from typer.testing import CliRunner

    from layergen.cli import app

    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first `old` in the file by `new` (it must be there)."""
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def assert_lint_clean(project: Path, copied: str) -> None:
    """ruff (its default rules and import sorting) and black find nothing in a generated
    project, and no line passes 88 columns; `copied`: the name of a file put in by hand."""
    exclude = f"tests/{copied}"
    ruff = ["ruff", "check", "--isolated", "--select", "E4,E7,E9,F,I", "--exclude", exclude, "."]
    black = ["black", "--check", "--quiet", "--exclude", exclude, "."]
    for command in (ruff, black):
        result = subprocess.run(
            [sys.executable, "-m", *command], cwd=project, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout + result.stderr
    long = [
        f"{path}:{number}"
        for path in project.rglob("*.py")
        if path.name != copied
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if len(line) > 88
    ]
    assert not long, long


def repro(name: str) -> str:
    """The text of a reproducing declaration, `tests/fixtures/repros/NAME.layer.yaml`."""
    return (REPROS / f"{name}.layer.yaml").read_text()


# A hand edit of `Scaler.call`, for the tests of conflicts and of edits carried along.
HAND_CALL = "return x * self.scale * self.gain * 0.5  # mine"


def declaration(root: Path) -> str:
    return (root / "layers" / "scaler.layer.yaml").read_text()


def edit_call_by_hand_and_in_the_declaration(root: Path) -> None:
    (root / "layers" / "scaler.py").write_text(
        module(root).replace("return x * self.scale * self.gain", HAND_CALL)
    )
    (root / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("call: x * scale * gain", "call: x * scale + gain")
    )


def is_black_clean(text: str) -> bool:
    return black.format_str(text, mode=black.Mode()) == text


def no_traceback(result) -> None:
    """The command ended with an exit status of its own, not an exception."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output


def write(root: Path, relative: str, text: str) -> None:
    (root / relative).write_text(text)


def mixin_by_hand_and_package_in_the_declaration(root: Path) -> None:
    """A mixin added to the bases by hand; a `package` change in the declaration (the decorator)."""
    write(
        root,
        "layers/scaler.py",
        module(root).replace(
            "class Scaler(keras.layers.Layer):", "class Scaler(Mixin, keras.layers.Layer):"
        ),
    )
    write(root, "layers/scaler.layer.yaml", "package: other\n" + DECLARATION)


LATIN_1 = "# coding: latin-1\n# caf\xe9\n".encode("latin-1")  # valid Python, not UTF-8


def corrupt(path: Path) -> None:
    path.write_bytes(LATIN_1 + path.read_bytes())


# Projects written file by file, and the located errors their CLI runs print.
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


# Declarations parsed and rendered in this process; layergen is imported on use, as in `cli`,
# since conftest.py imports this module in every session.


def codes_of(text: str, path: str = "a.layer.yaml") -> list[tuple[int, int, str]]:
    """The (line, column, code) of each error in a declaration that does not load."""
    from layergen.declaration.load import parse_declaration
    from layergen.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as info:
        parse_declaration(path, text.encode())
    return [(d.line, d.col, d.code) for d in info.value.diagnostics]


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
    """The module a declaration renders to, compiled (so it is valid Python)."""
    from layergen.declaration.load import parse_declaration
    from layergen.kinds import KINDS
    from layergen.render.context import build_context
    from layergen.render.render import render

    raw = text.encode() if isinstance(text, str) else text
    analysis = parse_declaration(path, raw)
    kind = analysis.decl.kind
    code = render(KINDS[kind].template, build_context(analysis.ir, package="p", source=path))
    compile(code, path, "exec", dont_inherit=True)
    return code


# A call block indented with tabs.
BLOCK = "layer: Tabs\nparams:\n  rate: {type: float, default: 0.5}\ncall: |\n  if training:\n  \ty = x * rate\n  else:\n  \ty = x\n  return y\n"


# Edits to the Scaler project, by hand and in its declaration, and the files they touch.


def add_method(module_file: Path, name: str = "mine") -> None:
    """A hand edit: a method `name` before the layer's `call`."""
    edit(
        module_file,
        "    def call(self",
        f"    def {name}(self):\n        return 1\n\n    def call(self",
    )


def add_bias(declaration: Path) -> None:
    """A declaration change: a param `bias`, added in `call`."""
    edit(declaration, "params:\n", "params:\n  bias: {type: float, default: 0.0}\n")
    edit(declaration, "call: x * scale * gain", "call: x * scale * gain + bias")


def declaration_path(root: Path) -> Path:
    return root / "layers" / "scaler.layer.yaml"


def module_path(root: Path) -> Path:
    return root / "layers" / "scaler.py"


def generated_tests(root: Path) -> Path:
    return root / "tests" / "test_scaler.py"


def conflicted_then_put_back(root: Path) -> None:
    """A hand edit in `call`, a declaration change to `call` and to the params; the run writes
    a conflict, and the person puts the file back as it was."""
    edit(module_path(root), "        return x", "        x = x  # mine\n        return x")
    mine = module(root)
    add_bias(declaration_path(root))
    assert cli("generate", "layers").exit_code == 1  # the call conflicts; bias merged elsewhere
    module_path(root).write_text(mine)


def package_imports(root: Path) -> str:
    return (root / "layers" / "__init__.py").read_text()
