"""The rendering helpers, and the templates' promise to write black's style up front."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layergen.config import BlackStyle
from layergen.declaration.load import load_declaration
from layergen.kinds import KINDS
from layergen.render.context import build_context
from layergen.render.render import block, format_code, literal, render_source
from layergen.render.tests_context import build_test_context

from helpers import ACCEPTANCE, EXTRA_EXAMPLES, OWN_EXAMPLES

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
    """Issue 12: `when: true` was read as "conditional" by the test context alone."""
    from helpers import layergen

    condition = f"\n    when: {when}" if when else ""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "scaler.layer.yaml").write_text(
        "layer: Scaler\nparams:\n  use_scale: {type: bool, default: true}\n"
        f"weights:\n  scale:\n    shape: x[-1]{condition}\ncall: x * scale if use_scale else x\n"
    )
    result = layergen("generate", "layers", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    test_module = (tmp_path / "tests" / "test_scaler.py").read_text()
    assert ('"the layer has no trainable weights"' in test_module) is asserted


def test_templates_write_values_with_the_literal_filter_and_old_templates_keep_pyrepr():
    from layergen.render.render import environment

    env = environment()
    for name in ("literal", "pyrepr"):
        template = env.from_string("{{ value | " + name + " }}")
        assert template.render(value=("a", 1)) == '("a", 1)'


def test_import_lines_from_one_module_are_merged_as_isort_does():
    """Issue 35: keras-hub's TransformerDecoder imports two helpers of one module on two
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
