"""`tests: {skip: {test_name: reason}}`: generated tests a declaration turns off.

Each named test gets `@pytest.mark.skip(reason=...)` above its decorators, so the
reason shows in every run. The names are checked against the tests generated for the
declaration: a name that is not one is a located error. The other-values test named for
one call input (`...[start_index]`) leaves that input out of it (`declaration/branches.py`
decides): the name is checked against the declaration's keyword inputs. A layer's tests are data
(`test_builders.py`) and are marked there; the other kinds' templates write their tests
whole, and their names are read from the text.
"""

from __future__ import annotations

import dataclasses
import re

from ..declaration.branches import OTHER_VALUES_TEST
from ..declaration.ir import Skip
from ..diagnostics import Diagnostic, did_you_mean
from .generated_tests import GeneratedTest, names_of, skip_mark
from .render import literal

TEST = re.compile(r"^def (test_\w+)\(", re.MULTILINE)


def skip_tests(
    tests: list[GeneratedTest], skips: tuple[Skip, ...], path: str, inputs: list[str] = ()
) -> tuple[list[GeneratedTest], list[Diagnostic]]:
    """The tests with the skip marks added, and an error per unknown test; `inputs`: the
    keyword inputs of `call`, which the other-values test may be named for."""
    reasons = {s.test: s.reason for s in skips}
    marked = [
        (
            dataclasses.replace(t, marks=(skip_mark(reasons[t.name]), *t.marks))
            if t.name in reasons and not t.fixture
            else t
        )
        for t in tests
    ]
    names = [*names_of(tests), *(f"{OTHER_VALUES_TEST}[{name}]" for name in inputs)]
    return marked, unknown_tests(names, skips, path)


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


def apply_skips(text: str, skips: tuple[Skip, ...], path: str) -> tuple[str, list[Diagnostic]]:
    """The test module `text` of a kind other than layer with the skip marks added, and
    an error per unknown test."""
    lines = text.split("\n")
    starts = {m.group(1): text.count("\n", 0, m.start()) for m in TEST.finditer(text)}
    for skip in sorted(skips, key=lambda s: -starts.get(s.test, -1)):  # bottom up
        if skip.test in starts:
            line = starts[skip.test]
            while line > 0 and lines[line - 1].startswith("@"):
                line -= 1
            lines.insert(line, f"@pytest.mark.skip(reason={literal(skip.reason)})")
    return "\n".join(lines), unknown_tests(list(starts), skips, path)
