"""The rules of `layergen check` tested as data (ruff's `resources/test/fixtures/` is
the model): `tests/fixtures/lint_rules/<rule-code>/` holds small modules of layer code as
people write them, one case each, its docstring saying what it shows.

- A line a finding is expected on ends with a marker comment, `# expect: <code>` (several
  codes: `# expect: config-missing, unregistered`). A file with a marker of its folder's
  rule is a positive case; one without is a negative case: code the rule must stay silent
  on (the false positives real code showed).
- Each file is checked alone, as `layergen check FILE` would, with its markers taken out
  (a comment can change how black lays out a fixed line): with its folder's rule
  selected alone, its findings, as (line, code), are the markers of that rule, exactly;
  with every rule selected, they are all of its markers (a near-miss of one rule trips no
  other rule unmarked).
- For a fixable rule, each positive case has `<name>.fixed.py`: the file (without its
  markers) after `layergen check --fix --select <rule>`, byte for byte (the file itself
  where the rule offers no fix). That file holds nothing left to fix. A negative case
  gets no fix at all.

A new rule: a module in `layergen/lint/rules/`, its row in `MODULES`, and its folder of
tests/fixtures/lint_rules/ with at least one positive and one negative case (and a
`.fixed.py` per positive case when it is fixable);
`test_every_rule_has_positive_and_negative_fixtures` holds every rule to that.

To write the `.fixed.py` expectations from what `--fix` does now (a new case, or a fix
changed on purpose), run

    LAYERGEN_UPDATE_FIXTURES=1 python -m pytest tests/unit/test_lint_rule_fixtures.py

which writes each positive case's `.fixed.py` instead of comparing it (and removes the one
of a case that has no finding any more); review them with `git diff` before committing:
they are the expectation from then on.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from layergen.lint.engine import check_files
from layergen.lint.fixes import apply_fixes
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

from helpers import FIXTURES

RULE_FIXTURES = FIXTURES / "lint_rules"
MARKER = re.compile(r"[ \t]*#[ \t]*expect:[ \t]*([\w \t,-]+?)[ \t]*$", re.MULTILINE)
UPDATE = os.environ.get("LAYERGEN_UPDATE_FIXTURES") == "1"
FIXED = ".fixed.py"


def cases() -> list[Path]:
    """Every fixture module (not the expected results of a fix), in a stable order."""
    return sorted(p for p in RULE_FIXTURES.glob("*/*.py") if not p.name.endswith(FIXED))


def expected(path: Path) -> set[tuple[int, str]]:
    """The (line, code) of every marker of the file."""
    found = set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found |= {(number, code.strip()) for code in match.group(1).split(",")}
    return found


def unmarked(path: Path) -> str:
    """The file's text without its markers (every line stays where it was)."""
    return MARKER.sub("", path.read_text())


def check(path: Path, select: frozenset[str]):
    """The findings of the file, its markers taken out, checked alone with `select`."""
    settings = CheckSettings(root=path.parent, package="demo", select=select)
    report = check_files([path], settings, texts={path: unmarked(path)})
    assert not report.errors, report.errors
    return report.findings.get(path, []), settings


def fixed_path(path: Path) -> Path:
    return path.with_name(path.stem + FIXED)


@pytest.mark.parametrize("path", cases(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_findings_are_the_markers(path):
    rule = path.parent.name
    markers = expected(path)
    unknown = {code for _, code in markers} - set(RULES)
    assert not unknown, f"markers name no rule: {unknown}"
    alone, _ = check(path, frozenset({rule}))
    assert {(f.line, f.code) for f in alone} == {m for m in markers if m[1] == rule}
    everything, _ = check(path, frozenset(RULES))
    assert {(f.line, f.code) for f in everything} == markers


@pytest.mark.parametrize(
    "path",
    [p for p in cases() if RULES[p.parent.name].fixable],
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
def test_fix_gives_the_fixed_file(path):
    rule = frozenset({path.parent.name})
    found, settings = check(path, rule)
    fixes = [f.fix for f in found if f.fix is not None]
    text = unmarked(path)
    if not found:  # a negative case: nothing to fix, and no expectation of a fix
        if UPDATE:
            fixed_path(path).unlink(missing_ok=True)
        assert not fixes and not fixed_path(path).exists()
        return
    fixed = apply_fixes(text, fixes, settings.style) if fixes else text
    if UPDATE:
        fixed_path(path).write_text(fixed)
    assert fixed_path(
        path
    ).exists(), f"no {fixed_path(path).name}: run with LAYERGEN_UPDATE_FIXTURES=1"
    assert fixed == fixed_path(path).read_text()
    # As `--fix` checks again after writing: what it wrote holds nothing left to fix.
    again, _ = check(fixed_path(path), rule)
    assert [f for f in again if f.fix is not None] == []


def test_every_rule_has_positive_and_negative_fixtures():
    folders = {p.name for p in RULE_FIXTURES.iterdir() if p.is_dir()}
    assert folders == set(RULES), "one folder per rule, named by its code"
    for code, rule in RULES.items():
        files = [p for p in cases() if p.parent.name == code]
        positive = [p for p in files if any(c == code for _, c in expected(p))]
        negative = [p for p in files if p not in positive]
        assert positive and negative, f"{code}: needs a positive and a negative case"
        if rule.fixable:
            missing = [p.name for p in positive if not fixed_path(p).exists()]
            assert not missing, f"{code}: no .fixed.py for {missing}"
    for fixed in RULE_FIXTURES.glob(f"*/*{FIXED}"):
        source = fixed.with_name(fixed.name.removesuffix(FIXED) + ".py")
        assert source.exists() and RULES[fixed.parent.name].fixable, f"stray {fixed}"
