"""The project's own code passes the formatter and linter it asks of generated code."""

from __future__ import annotations

import ast
import io
import os
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

from helpers import REPO

OWN_CODE = ["layergen", "tests", "benchmarks"]


def test_black_leaves_the_project_unchanged():
    """black keeps its results where it does when run by hand (not in this session's fresh
    XDG_CACHE_HOME, conftest.py), so a file it found clean is read again only once changed
    (its size and time, else its hash, differ): a first run takes seconds, later ones less."""
    by_hand = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    result = subprocess.run(
        [sys.executable, "-m", "black", "--check", *OWN_CODE],
        cwd=REPO,
        env=by_hand,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", *OWN_CODE], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


CITED_ISSUE = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """The comments and docstrings of a module with their lines; a file that is not Python
    (a fixture of a syntax error) is read whole. A string the code uses is data, not prose."""
    source = path.read_text(encoding="utf-8")
    if not CITED_ISSUE.search(source):  # its comments and docstrings are its text: none cites
        return
    try:
        tree = ast.parse(source)
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (SyntaxError, tokenize.TokenError):
        yield 1, source
        return
    yield from ((t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT)
    for node in ast.walk(tree):
        if isinstance(node, DOCUMENTED) and ast.get_docstring(node, clean=False):
            yield node.body[0].lineno, ast.get_docstring(node, clean=False)


def test_no_comment_or_docstring_cites_an_issue_number():
    """A reader of the repository cannot look an issue up: a test says what it proves, and
    code why it exists, in words."""
    cited = [
        f"{path.relative_to(REPO)}:{line}: {CITED_ISSUE.search(text).group()}"
        for folder in OWN_CODE
        for path in sorted((REPO / folder).rglob("*.py"))
        for line, text in prose(path)
        if CITED_ISSUE.search(text)
    ]
    assert cited == [], "\n".join(cited)
