"""`tests: {skip: {test_name: reason}}`: generated tests a declaration turns off.

Each named test gets `@pytest.mark.skip(reason=...)` above its decorators, so the
reason shows in every run. The names are checked against the tests the template
rendered, the one list of them: a name that is not one is a located error.
"""

from __future__ import annotations

import re

from ..declaration.ir import Skip
from ..diagnostics import Diagnostic, did_you_mean
from .render import literal

TEST = re.compile(r"^def (test_\w+)\(", re.MULTILINE)


def apply_skips(text: str, skips: tuple[Skip, ...], path: str) -> tuple[str, list[Diagnostic]]:
    """The test module `text` with the skip marks added, and an error per unknown test."""
    lines = text.split("\n")
    starts = {m.group(1): text.count("\n", 0, m.start()) for m in TEST.finditer(text)}
    errors = []
    for skip in sorted(skips, key=lambda s: -starts.get(s.test, -1)):  # bottom up
        if skip.test not in starts:
            hint = did_you_mean(skip.test, starts) or f"the tests are {', '.join(starts)}"
            message = f"`{skip.test}` is not a test generated for this declaration"
            errors.append(
                Diagnostic(path, skip.pos.line, skip.pos.col, "unknown-test", message, hint)
            )
            continue
        line = starts[skip.test]
        while line > 0 and lines[line - 1].startswith("@"):
            line -= 1
        lines.insert(line, f"@pytest.mark.skip(reason={literal(skip.reason)})")
    return "\n".join(lines), errors
