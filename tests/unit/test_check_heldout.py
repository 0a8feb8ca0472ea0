"""`layergen check` on layers written by someone who never saw the rules
(tests/fixtures/lint_heldout/): each buggy file has one planted bug, named in its first line

    # HELDOUT bug=<rule> class=<Class> line=<N>

and must get exactly that finding, inside that class; each correct file must get none.
`also=<rule>` names a real bug the author did not plant: the generated tests prove it
(see test_fix_then_generated_tests_pass below: saving and loading fails).

Then `--fix`: the fixable ones, fixed, pass the tests `layergen tests` writes for them.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from layergen.lint.engine import check_files
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

from helpers import FIXTURES, layergen, run_pytest

HELDOUT = FIXTURES / "lint_heldout"
HEADER = re.compile(r"# HELDOUT (?:bug=(\S+) |correct )class=(\w+)(?: line=(\d+))?(?: also=(\S+))?")


def header(path: Path) -> tuple[str | None, str, int | None, str | None]:
    match = HEADER.match(path.read_text().splitlines()[0])
    assert match, f"{path}: no HELDOUT header"
    bug, cls, line, also = match.groups()
    return bug, cls, int(line) if line else None, also


def findings(path: Path) -> list[tuple[str, int]]:
    report = check_files([path], CheckSettings(root=path.parent, select=frozenset(RULES)))
    assert not report.errors
    return [(f.code, f.line) for f in report.findings.get(path, [])]


def class_span(path: Path, name: str) -> range:
    node = next(
        n
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, ast.ClassDef) and n.name == name
    )
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return range(start, node.end_lineno + 1)


def statement_span(path: Path, line: int) -> range:
    """The lines of the statements (or `def`s) that start on `line`: a finding anywhere in them counts."""
    nodes = [
        n
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, ast.stmt) and n.lineno == line
    ]
    return range(line, max([line, *(n.end_lineno for n in nodes)]) + 1)


@pytest.mark.parametrize("path", sorted(HELDOUT.glob("buggy/*.py")), ids=lambda p: p.stem)
def test_each_planted_bug_is_flagged_at_its_class_and_nothing_else(path):
    bug, cls, line, also = header(path)
    assert bug in RULES and (also is None or also in RULES)
    found = findings(path)
    planted = [(code, at) for code, at in found if code == bug]
    assert len(planted) == 1, found
    at = planted[0][1]
    assert at in class_span(path, cls) and at in statement_span(path, line), (found, line)
    others = sorted(code for code, _ in found if code != bug)
    assert others == ([also] if also else []), found
    assert all(at in class_span(path, cls) for _, at in found)


@pytest.mark.parametrize("path", sorted(HELDOUT.glob("correct/*.py")), ids=lambda p: p.stem)
def test_correct_layers_have_no_finding(path):
    _, cls, _, also = header(path)
    found = findings(path)
    assert [code for code, _ in found] == ([also] if also else []), found
    assert all(at in class_span(path, cls) for _, at in found)


# `layergen tests` needs the values the code does not tell.
TESTS_ARGS = {
    "gated_linear_unit": ["--example", "units=4"],
    "feed_forward": [],
    "token_position_embedding": [
        *("--example", "vocab_size=10", "--example", "max_length=8"),
        *("--example", "embed_dim=4", "--input-shape", "2,8"),
    ],
    "transformer_encoder": [
        *("--example", "num_heads=2", "--example", "key_dim=4", "--example", "ff_dim=8"),
        *("--input-shape", "2,5,8"),
    ],
    "rms_norm": [],
    "conv_bn_act": ["--example", "filters=4", "--input-shape", "2,8,8,3"],
    "mlp_head": ["--example", "num_classes=3", "--input-shape", "2,6"],
}
SAVE_AND_LOAD = "test_save_and_load_without_custom_objects"


def failed(outcomes: dict[str, str]) -> set[str]:
    return {name for name, outcome in outcomes.items() if outcome == "failed"}


@pytest.mark.e2e
def test_fix_then_generated_tests_pass(tmp_path):
    """The fixable held-out layers: their generated tests fail where a test can see the bug,
    and pass once `layergen check --fix` has run (TensorFlow)."""
    project = tmp_path / "demo"
    (project / "layers").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (project / "layers" / "__init__.py").write_text("")
    fixable = {bug for bug in RULES if RULES[bug].fixable}
    for stem in TESTS_ARGS:
        path = HELDOUT / "buggy" / f"{stem}.py"
        assert header(path)[0] in fixable
        shutil.copy(path, project / "layers" / path.name)
    assert {header(p)[0] for p in HELDOUT.glob("buggy/*.py")} & fixable == {
        header(HELDOUT / "buggy" / f"{stem}.py")[0] for stem in TESTS_ARGS
    }  # every fixable rule of the held-out set is here

    def generate_and_run() -> dict[str, str]:
        for stem, args in TESTS_ARGS.items():
            result = layergen("tests", f"layers/{stem}.py", *args, cwd=project)
            assert result.returncode == 0, result.stdout + result.stderr
        return run_pytest(project, "tensorflow")

    before = generate_and_run()
    assert len(before) > 50
    # The bugs a test can see fail before the fix (training not passed on, or a sublayer's
    # dtype, change nothing the tests compare in float32 inference).
    assert {
        "test_gated_linear_unit::test_base_layer_arguments_pass_through",
        "test_gated_linear_unit::test_config_round_trip",
        "test_feed_forward::test_config_round_trip",
        "test_token_position_embedding::test_config_round_trip",
        f"test_rms_norm::{SAVE_AND_LOAD}",
    } <= failed(before)

    # Every rule, the opt-in ones too (`unregistered` is off by default).
    every_rule = ("--select", ",".join(sorted(RULES)))
    result = layergen("check", "--fix", *every_rule, "layers", cwd=project)
    assert result.returncode == 1, result.stdout + result.stderr  # unbuilt-sublayer is left
    result = layergen("check", *every_rule, "layers", cwd=project)
    left = re.findall(r"layers/(\w+)\.py:\d+:\d+: \w+: .* \[([\w-]+)\]", result.stdout)
    assert sorted(left) == [
        ("conv_bn_act", "unbuilt-sublayer"),
        ("transformer_encoder", "unbuilt-sublayer"),
    ], result.stdout

    after = generate_and_run()
    assert len(after) == len(before)
    # What fails is what the unfixable finding left says: these two cannot be loaded.
    assert failed(after) == {
        f"test_conv_bn_act::{SAVE_AND_LOAD}",
        f"test_transformer_encoder::{SAVE_AND_LOAD}",
    }, failed(after)
