"""The project's own code passes the formatter and linter it asks of generated code."""

from __future__ import annotations

import subprocess
import sys

from helpers import REPO

OWN_CODE = ["layergen", "tests", "benchmarks"]


def test_black_leaves_the_project_unchanged():
    result = subprocess.run(
        [sys.executable, "-m", "black", "--check", *OWN_CODE],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", *OWN_CODE], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
