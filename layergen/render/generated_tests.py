"""A generated test as data: what the templates write out, and what skips and reports read.

The tests of a module are chosen in Python, one small builder per check (`test_builders.py`,
after ruff's rule registry); the template loops over the list. Test names live here, never
recovered from rendered text.
"""

from __future__ import annotations

from dataclasses import dataclass

from .render import literal

SKIP = "pytest.mark.skip"


@dataclass(frozen=True)
class GeneratedTest:
    """One function of a generated test module.

    `body`: its statements, indented by 4, without the trailing newline. `params`: the
    fixtures it takes. `marks`: its decorators, as code, without the `@`. `fixture`: a
    pytest fixture the tests after it take, not a test.
    """

    name: str
    body: str
    params: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()
    fixture: bool = False

    @property
    def skip_reason(self) -> str | None:
        """The code of the reason it is skipped for, if a mark skips it."""
        for mark in self.marks:
            if mark.startswith(f"{SKIP}(reason="):
                return mark[len(f"{SKIP}(reason=") : -1]
        return None


def skip_mark(*parts: str) -> str:
    """`pytest.mark.skip` with the reason written in parts, one string literal each."""
    return f"{SKIP}(reason={' '.join(map(literal, parts))})"


def call(function: str, *args: str, **keywords: str | None) -> str:
    """The code of a call: positional arguments, then each keyword that has a value."""
    given = [*args, *(f"{k}={v}" for k, v in keywords.items() if v is not None)]
    return f"{function}({', '.join(given)})"


def body(*lines: str) -> str:
    """Statements indented by 4 (an empty line stays empty)."""
    return "\n".join(f"    {line}" if line else "" for line in lines)


def names_of(tests: list[GeneratedTest]) -> list[str]:
    """The names of the tests (the fixtures left out), in the module's order."""
    return [t.name for t in tests if not t.fixture]


@dataclass(frozen=True)
class Helper:
    """A definition of a generated test module the tests (or the support module) call:
    `code`, whole, without the trailing newline."""

    name: str
    code: str
