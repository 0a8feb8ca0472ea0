"""What `generate` says of a declaration adopt wrote, said where the person can act: in their
module, at the code the declaration's line came from. Adopt writes the declaration from the
code; a declaration `generate` refuses is a limit of adopt, never the person's to edit."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic
from .reader import Found


def in_module(module: Path, found: Found, text: str, diagnostics, declaration: Path):
    """`diagnostics` of the declaration `text` (at `declaration`) moved into `module`: each at
    the argument, input or weight its line declares, else at the class."""
    out = []
    for d in diagnostics:
        if Path(d.path) != declaration:
            out.append(d)
            continue
        line, column = origin(found, text, d.line)
        out.append(
            Diagnostic(
                str(module),
                line,
                column,
                d.code,
                f"adopt cannot declare this as written: {d.message}",
                f"`{found.cls.name}` stays as it is, hand-written (a limit of adopt, which"
                " writes the declaration from this code)",
            )
        )
    return out


def origin(found: Found, text: str, line: int | None) -> tuple[int, int]:
    """Where in the module the declaration's `line` comes from: an argument of `__init__`
    (`params`), of `call` (`inputs`), a weight's creation (`weights`), else the class."""
    lines = text.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return found.line, found.column
    section = key = None
    for current in lines[:line]:
        if current[:1].isalpha():
            section, key = current.split(":", 1)[0], None
        elif current.startswith("  ") and current[2:3].isalpha():
            key = current[2:].split(":", 1)[0]
    if section == "params":
        arg = next((a for a in found.cls.args if a.name == key), None)
        if arg is not None:
            return arg.line, arg.column
    if section == "weights":
        weight = next((w for w in found.weights if w.attribute == key), None)
        if weight is not None:
            return weight.line, 1
    return found.line, found.column


def refused(config, module: Path, declaration: Path, found: Found, text: str) -> list:
    """Why `generate` would refuse the declaration `text` adopt is about to write for
    `found`, located in the module; empty when it generates."""
    from ..diagnostics import DiagnosticError
    from ..generate import plan_run

    try:
        plan_run([declaration], config, texts={declaration: text})
    except DiagnosticError as exc:
        return in_module(module, found, text, exc.diagnostics, declaration)
    return []
