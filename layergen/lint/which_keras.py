"""Which Keras a file uses, told by following its imports, never by how a name is spelled.

`from ...modeling_tf_utils import keras` is whatever that module binds `keras` to: followed
through the project's own modules (relative and absolute imports, an `__init__` that
re-exports), every way a module-level import may bind it (a `try`/`except ImportError`
fallback, the branches of an `if`) is read, down to `keras` (Keras 3), `tf_keras` or
`tensorflow.keras` (Keras 2). An `import keras` that a version check refuses on Keras 3
(`if keras.__version__ ... > 2: raise`) is Keras 2. Where the ways disagree, the file's
Keras cannot be told: the rules read it as Keras 2 (those for Keras 3 only stay quiet),
and `keras-ambiguous` says so, once per file, when selected.
"""

from __future__ import annotations

import ast

from .kinds import absolute, module_parts
from .source import SourceFile, imported, rebind, walk

KERAS2 = ("tf_keras", "tensorflow.keras", "tensorflow.python.keras")


def generation(name: str) -> int | None:
    """3 for Keras 3's names, 2 for Keras 2's, None for the others."""
    if name == "keras" or name.startswith("keras."):
        return 3
    if any(name == prefix or name.startswith(prefix + ".") for prefix in KERAS2):
        return 2
    return None


def bindings(source: SourceFile) -> dict[str, list[tuple[str, ast.stmt]]]:
    """Each module-level name an import binds -> every dotted name it may stand for, with
    the import (all branches of `try`, `if` and `with`, in order)."""
    if "_bindings" in source.__dict__:
        return source.__dict__["_bindings"]
    found: dict[str, list[tuple[str, ast.stmt]]] = {}

    def visit(body: list[ast.stmt]) -> None:
        for number, node in enumerate(body):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for local, name in imported(node):
                    if generation(name) == 3 and _refuses_keras3(body[number + 1 :]):
                        name = "tf_keras" + name[len("keras") :]
                    found.setdefault(local, []).append((name, node))
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.With):
                visit(node.body)

    visit(source.tree.body)
    source.__dict__["_bindings"] = found
    return found


def _refuses_keras3(after: list[ast.stmt]) -> bool:
    """`if parse(keras.__version__).major > 2: raise ...` after the import: Keras 2 only."""
    for node in after:
        if not (isinstance(node, ast.If) and any(isinstance(n, ast.Raise) for n in node.body)):
            continue
        if not any(
            isinstance(n, ast.Attribute) and n.attr == "__version__" for n in walk(node.test)
        ):
            continue
        for compare in (n for n in walk(node.test) if isinstance(n, ast.Compare)):
            for op, right in zip(compare.ops, compare.comparators):
                value = right.value if isinstance(right, ast.Constant) else None
                if (
                    (isinstance(op, ast.Gt) and value == 2)
                    or (isinstance(op, (ast.GtE, ast.Eq)) and value == 3)
                    or (isinstance(op, ast.NotEq) and value == 2)
                ):
                    return True
    return False


class Modules:
    """The files of a run by their module's name, to follow an import into them."""

    def __init__(self, sources: list[SourceFile]):
        self.by_last: dict[str, list[tuple[tuple[str, ...], SourceFile]]] = {}
        for source in sources:
            parts = module_parts(source.path)
            if parts:
                self.by_last.setdefault(parts[-1], []).append((parts, source))

    def find(self, parts: tuple[str, ...]) -> SourceFile | None:
        for candidate, source in self.by_last.get(parts[-1], ()):
            if candidate[-len(parts) :] == parts:
                return source
        return None

    def names(self, source: SourceFile, local: str, seen: frozenset = frozenset()) -> set[str]:
        """Every dotted name outside the project that `local` may stand for in `source`."""
        found: set[str] = set()
        for name, _ in bindings(source).get(local, ()):
            found |= self.follow(source, name, seen)
        return found

    def follow(self, source: SourceFile, name: str, seen: frozenset) -> set[str]:
        parts = absolute(source.path, name)
        module = self.find(parts)
        if module is not None and module is not source:  # `import pkg.keras2 as keras`
            key = (module.path, "*")
            stars = set() if key in seen else self.names(module, "*", seen | {key})
            return {n.removesuffix(".*") for n in stars} or {name}  # a shim: what it re-exports
        for cut in range(len(parts) - 1, 0, -1):  # the module it is imported from
            module = self.find(parts[:cut])
            if module is None or module is source:
                continue
            key = (module.path, parts[cut])
            if key in seen:
                return {name}
            inner = self.names(module, parts[cut], seen | {key})
            return {".".join((n, *parts[cut + 1 :])) for n in inner} if inner else {name}
        return {name}


def follow(sources: list[SourceFile]) -> None:
    """Read every file's Keras imports as what they stand for (see the module's text)."""
    modules = Modules(sources)
    for source in sources:
        changed: dict[str, str] = {}
        for local, ways in bindings(source).items():
            names = modules.names(source, local)
            kinds = {generation(n) for n in names} - {None}
            if not kinds:
                continue
            chosen = sorted(n for n in names if generation(n) == min(kinds))[0]
            if len(kinds) > 1 and source.ambiguous is None:
                source.ambiguous = ways[0][1]
            if chosen != source.imports.get(local):
                changed[local] = chosen
        if changed:
            rebind(source, changed)
