"""A failing `generate --check` (the pre-commit hook) says what is stale in the person's
terms, their files, with layergen's bookkeeping in one line, and ends with the command
that fixes it."""

from __future__ import annotations

from helpers import add_bias, declaration_path, edit
from helpers import cli as run

FIX = "run `layergen generate` to bring them up to date"


def test_a_stale_check_lists_the_persons_files_and_ends_with_the_fix(scaler_project):
    add_bias(declaration_path(scaler_project))
    result = run("generate", "--check")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert "would change layers/scaler.py" in lines and "would change tests/test_scaler.py" in lines
    assert not any(line.startswith("would change .layergen/") for line in lines), lines
    assert sum("bookkeeping" in line for line in lines) == 1, lines  # in one line
    assert lines[-1].endswith(FIX), lines


def test_a_comment_only_edit_says_the_bookkeeping_is_stale_and_the_fix(scaler_project):
    edit(declaration_path(scaler_project), "layer: Scaler", "# a note\nlayer: Scaler")
    result = run("generate", "--check")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert "layergen.lock" in lines[0] and len(lines) == 2, lines
    assert lines[-1].endswith(FIX), lines


def test_a_clean_check_says_nothing(scaler_project):
    result = run("generate", "--check")
    assert result.exit_code == 0 and result.output == "", result.output
