"""`tests: {skip: {test_name: reason}}`: generated tests a declaration turns off.

Each named test gets `@pytest.mark.skip(reason=...)` above its decorators, so the
reason shows in every run. The names are checked against the tests generated for the
declaration (`test_builders.py`, `object_builders.py`), never read back from rendered
text: a name that is not one is a located error.
"""

from __future__ import annotations

import dataclasses

from ..declaration.ir import Skip
from ..diagnostics import Diagnostic, did_you_mean
from .generated_tests import GeneratedTest, names_of, skip_mark


def skip_tests(
    tests: list[GeneratedTest], skips: tuple[Skip, ...], path: str
) -> tuple[list[GeneratedTest], list[Diagnostic]]:
    """The tests with the skip marks added, and an error per unknown test."""
    reasons = {s.test: s.reason for s in skips}
    marked = [
        (
            dataclasses.replace(t, marks=(skip_mark(reasons[t.name]), *t.marks))
            if t.name in reasons and not t.fixture
            else t
        )
        for t in tests
    ]
    return marked, unknown_tests(names_of(tests), skips, path)


def unknown_tests(names: list[str], skips: tuple[Skip, ...], path: str) -> list[Diagnostic]:
    """An error for each skip that names no generated test."""
    errors = []
    for skip in skips:
        if skip.test not in names:
            hint = did_you_mean(skip.test, names) or f"the tests are {', '.join(names)}"
            message = f"`{skip.test}` is not a test generated for this declaration"
            errors.append(
                Diagnostic(path, skip.pos.line, skip.pos.col, "unknown-test", message, hint)
            )
    return errors
