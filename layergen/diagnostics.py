"""Located diagnostics: every user mistake becomes one of these, never a traceback."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int | None  # None for what has no position: a missing file, a command-line option
    col: int | None
    code: str
    message: str
    hint: str | None = None
    severity: str = "error"

    def format(self) -> str:
        """One line, plus one for the hint: user text in them is escaped, so nothing can break a line or reach the terminal."""
        where = (
            escape(self.path)
            if self.line is None
            else f"{escape(self.path)}:{self.line}:{self.col}"
        )
        text = f"{where}: {self.severity}: {escape(self.message)} [{self.code}]"
        if self.hint:
            text += f"\n  hint: {escape(self.hint)}"
        return text


def escape(text: str) -> str:
    """`text` with every character that is not printable written as its Python escape.

    Line breaks (`\\n`, `\\r`, U+2028, ...), terminal control sequences (ESC and the
    other C0 and C1 controls) and invisible format characters (bidi overrides) would
    split a diagnostic's line or act on the terminal; spaces stay as they are.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else ascii(c)[1:-1] for c in text)


class DiagnosticError(Exception):
    """Raised with every diagnostic found; the CLI prints them and exits 2."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = sorted(
            set(diagnostics), key=lambda d: (d.path, d.line or 0, d.col or 0, d.code)
        )
        super().__init__("\n".join(d.format() for d in self.diagnostics))


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like `name`, for 'did you mean' hints."""
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    match = closest(name, candidates)
    return f"did you mean `{match}`?" if match else None
