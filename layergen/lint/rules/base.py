"""What every rule module holds and gives: its `Rule` (metadata, the `--explain` text), and
the `Finding`s its `check(source, cls, run)` yields, each with a typed fix (`lint/edits.py`)
or None."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..edits import Fix
    from ..source import ClassInfo, SourceFile


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str  # error: breaks saving, loading, training or a backend; warning: breaks a setting or a habit
    summary: str
    why: str
    bad: str
    good: str
    fixable: bool = False
    # On unless --select or `select` says otherwise: the rules whose findings are bugs,
    # at 90% precision or more on real code (benchmarks/check_corpus.py).
    default: bool = True
    keras3_only: bool = False  # not run on Keras 2 classes (rules.not_run)
    layers_only: bool = False  # run on layers only (not on losses, constraints, ...)

    def explain(self) -> str:
        fix = "`layergen check --fix` rewrites it." if self.fixable else "Not fixed automatically."
        if not self.default:
            fix += " Off by default: turn it on with `--select`."
        return (
            f"{self.code} ({self.severity}): {self.summary}\n\n{self.why}\n\n{fix}\n\n"
            f"Flagged:\n\n{_indent(self.bad)}\nInstead:\n\n{_indent(self.good)}"
        )


def _indent(code: str) -> str:
    return "".join(f"    {line}\n" if line else "\n" for line in code.strip("\n").splitlines())


@dataclass
class Finding:
    code: str
    line: int
    col: int
    message: str
    hint: str | None = None
    fix: Fix | None = None  # what --fix does about it; None when the finding is not fixable


@dataclass
class Run:
    """What the checks need to know about the other files of the run."""

    classes: dict[str, list[tuple[SourceFile, ClassInfo]]]  # by name (see kinds.find_class)
    registrars: set[str]  # decorator names that register (configured or found)
    package: str
    subclasses: dict[int, list[ClassInfo]]  # by the id of their direct parent
    homes: dict[int, SourceFile]  # the file of each class, by its id
    select: frozenset[str] = frozenset()  # the rules to run (a rule off costs nothing)


def at(
    source: SourceFile,
    node: ast.AST,
    code: str,
    message: str,
    hint: str | None = None,
    fix: Fix | None = None,
) -> Finding:
    return Finding(code, node.lineno, source.column(node), message, hint, fix)
