"""The rendering helpers, and the templates' promise to write black's style up front."""

from __future__ import annotations

import ast
import difflib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layergen.config import BlackStyle, Config
from layergen.declaration.load import load_declaration
from layergen.generate import plan
from layergen.keras_names import LAYER_ATTRIBUTES
from layergen.kinds import KINDS
from layergen.render.context import build_context
from layergen.render.render import block, format_code, literal, render_source
from layergen.render.tests_context import build_test_context
from layergen.writes import write

from helpers import ACCEPTANCE, EXTRA_EXAMPLES, OWN_EXAMPLES, quote

EXAMPLES = sorted(OWN_EXAMPLES.glob("*.yaml")) + sorted(ACCEPTANCE.glob("*.yaml"))
if EXTRA_EXAMPLES is not None:  # a set named on purpose, such as the team's shared examples
    EXAMPLES += sorted(EXTRA_EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "it's",
        'say "hi"',
        "both ' and \"",
        "back\\slash",
        "new\nline",
        "{braces}",
        "",
        {"a": ["b", ("c",)], "d": (1, 2.5, None, True)},
        ("one",),
        (),
        [],
        1e-05,
    ],
)
def test_literal_reads_back_as_the_value_and_is_what_black_writes(value):
    text = literal(value)
    assert eval(text) == value
    assert format_code(f"x = {text}\n") == f"x = {text}\n"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.recursive(
        st.text() | st.integers() | st.booleans() | st.none(),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    )
)
def test_literal_of_any_value_reads_back_and_is_black_stable(value):
    text = literal(value)
    assert eval(text) == value
    assert format_code(f"x = {text}\n", BlackStyle(line_length=10_000)) == f"x = {text}\n"


def test_block_indents_statements_and_leaves_blank_lines_empty():
    assert (
        block("a = 1\n\nif a:\n    b = 2\n", 8)
        == "        a = 1\n\n        if a:\n            b = 2"
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_black_only_splits_lines_that_are_too_long(path):
    """Templates write what black would, so black (which formats twice whenever its
    input changes) has little to do. What is left is a declaration's long lines."""
    analysis = load_declaration(path)
    kind = KINDS[analysis.decl.kind]
    rendered = [
        render_source(kind.template, build_context(analysis.ir, package="p", source="s")),
        render_source(
            kind.test_template, build_test_context(analysis.ir, module="p.m", source="s")
        ),
    ]
    for source in rendered:
        formatted = format_code(source)
        matcher = difflib.SequenceMatcher(
            None, source.splitlines(), formatted.splitlines(), autojunk=False
        )
        for tag, i1, i2, _, _ in matcher.get_opcodes():
            if tag != "equal":
                changed = source.splitlines()[i1:i2]
                assert any(
                    len(line) > 88 for line in changed
                ), f"black rewrote {changed} in\n{source}"


def test_the_support_module_is_written_as_black_writes_it():
    """It is not run through black (every run would pay for it): the template must be."""
    from pathlib import Path

    from layergen.render.support import support_files

    (text,) = support_files(Path("tests")).values()
    assert format_code(text) == text


@pytest.mark.parametrize("when, asserted", [("true", True), ("use_scale", False), (None, True)])
def test_a_weight_created_always_makes_the_test_assert_trainable_weights(tmp_path, when, asserted):
    """`when: true` was read as "conditional" by the test context alone."""
    from helpers import layergen_in_process

    condition = f"\n    when: {when}" if when else ""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "scaler.layer.yaml").write_text(
        "layer: Scaler\nparams:\n  use_scale: {type: bool, default: true}\n"
        f"weights:\n  scale:\n    shape: x[-1]{condition}\ncall: x * scale if use_scale else x\n"
    )
    result = layergen_in_process("generate", "layers", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    test_module = (tmp_path / "tests" / "test_scaler.py").read_text()
    asserted_call = "support.assert_fit_step_trains_every_weight(EXAMPLE)\n"
    assert (asserted_call in test_module) is asserted


def test_templates_write_values_with_the_literal_filter_and_old_templates_keep_pyrepr():
    from layergen.render.render import environment

    env = environment()
    for name in ("literal", "pyrepr"):
        template = env.from_string("{{ value | " + name + " }}")
        assert template.render(value=("a", 1)) == '("a", 1)'


def test_import_lines_from_one_module_are_merged_as_isort_does():
    """keras-hub's TransformerDecoder imports two helpers of one module on two
    `imports` lines; ruff's isort wants them on one (aliased ones stay apart)."""
    from layergen.render.render import import_block

    lines = [
        "import keras",
        "from m.utils import merge_mask",
        "from m.attention import CachedAttention",
        "from m.utils import compute_mask, MASK_VALUE",
        "from m.utils import other as renamed",
    ]
    assert import_block(lines) == (
        "import keras\n"
        "from m.attention import CachedAttention\n"
        "from m.utils import MASK_VALUE, compute_mask, merge_mask\n"
        "from m.utils import other as renamed"
    )


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
        "package: quoting.registered\n"  # a package that is not a dotted name is refused (test_load.py)
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
