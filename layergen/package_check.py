"""What a package's `__init__.py` imports and lists exists: checked on the text a run
leaves (`package_init`), so that no run, and no `--check`, is green while `import` of the
package, or `from package import *`, would fail.

Checked with `ast` alone: the imports of the folder's modules (a module the run deletes, one
not in the folder, a class a module no longer defines) and the names of an `__all__` written as
a list of names. Each problem is a located error naming the line to change: layergen edits
only the imports at the top of the file and an `__all__` that is one list of names.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError

_HINT = (
    " (layergen edits only the imports at the top of the file and an `__all__` that is one"
    " list of names)"
)


def verified(
    text: str,
    gone: list[tuple[str, str]],
    deleted: set[str],
    path: Path,
    present: frozenset[str] | None,
    package: str | None = None,
    elsewhere: frozenset[str] = frozenset(),
    taken: frozenset[str] = frozenset(),
) -> str:
    """`text`, the file as the run leaves it, if what it imports and lists exists; else the
    located errors. `gone`: (module, class) pairs no declaration declares any more;
    `deleted`: the folder's modules the run deletes; `present`: the folder's modules and
    packages (None: not known, not checked); `package`: the folder's import path;
    `elsewhere`: the import paths of every module the run deletes, in any folder; `taken`:
    those of every name the run takes away from a module it writes (`module.Name`)."""
    if not gone and present is None and not elsewhere and not taken:
        return text
    tree = ast.parse(text)
    found = [
        *_imports(tree, gone, deleted, present),
        *_listed(tree, gone, present),
        *_deleted_elsewhere(tree, package, elsewhere),
        *_taken_elsewhere(tree, package, taken),
    ]
    found = list({id(node): (node, *rest) for node, *rest in reversed(found)}.values())[::-1]
    if found:
        raise DiagnosticError(
            [
                Diagnostic(
                    str(path),
                    node.lineno,
                    node.col_offset + 1,
                    "stale-import",
                    f"{message}: `import` of the package would fail",
                    hint + _HINT,
                )
                for node, message, hint in sorted(found, key=lambda f: f[0].lineno)
            ]
        )
    return text


def _imports(tree: ast.Module, gone, deleted: set[str], present):
    """`from .module import ...` of a module that is not there, or of a gone class."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.level == 1 and node.module):
            continue
        module = node.module.split(".")[0]
        if module in deleted:
            names = ", ".join(a.name for a in node.names)
            yield node, f"imports `{names}` from `.{node.module}`, a module deleted with its declaration", "remove the import, or change it"
        elif present is not None and module not in present:
            yield node, f"imports from `.{node.module}`, which is not in the folder", "remove the import, or change it"
        else:
            for alias in node.names:
                if (node.module, alias.name) in gone:
                    yield node, f"imports `{alias.name}` from `.{node.module}`, which no longer defines it", "remove the import, or change it"


def _deleted_elsewhere(tree: ast.Module, package: str | None, deleted: frozenset[str]):
    """Imports, relative or absolute, of a module the run deletes in another folder."""
    if not deleted:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (base := _source(node, package)) is not None:
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        hit = next((t for t in targets for d in deleted if t == d or t.startswith(f"{d}.")), None)
        if hit is not None:
            yield node, f"imports from `{hit}`, a module deleted with its declaration", "remove the import, or change it"


def _taken_elsewhere(tree: ast.Module, package: str | None, taken: frozenset[str]):
    """Imports, relative or absolute, of a name the run takes away from a module (a class
    renamed or declared no more, a name a rewritten package binds no more)."""
    for node in ast.walk(tree) if taken else ():
        if isinstance(node, ast.ImportFrom) and (base := _source(node, package)) is not None:
            for alias in node.names:
                if f"{base}.{alias.name}" in taken:
                    yield node, f"imports `{alias.name}` from `{base}`, which no longer defines it", "import the name it has now, or remove the import"


def _source(node: ast.ImportFrom, package: str | None) -> str | None:
    """The import path a `from ... import` reads from (None: above the project's top)."""
    parts = package.split(".") if package else []
    if not node.level:
        return node.module or ""
    if node.level > len(parts):
        return None
    return ".".join(
        [*parts[: len(parts) - node.level + 1], *([node.module] if node.module else [])]
    )


def _listed(tree: ast.Module, gone, present):
    """Names in `__all__` that nothing binds (`from package import *` raises on them)."""
    if any(
        isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body
    ):  # names made on demand
        return
    stars = any(
        isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
        for n in ast.walk(tree)
    )
    bound = bound_names(tree) | set(present or ())
    classes = {name for _, name in gone}
    for node in ast.walk(tree):
        if not binds_all(node) or node.value is None:
            continue
        literal = isinstance(node.value, ast.List | ast.Tuple)
        for constant in ast.walk(node.value):
            if not (isinstance(constant, ast.Constant) and isinstance(constant.value, str)):
                continue
            name = constant.value
            if name in bound:
                continue
            if name in classes:
                yield constant, f"`__all__` lists `{name}`, a class no declaration declares any more", f"take `{name}` out of `__all__`"
            elif literal and present is not None and not stars:
                yield constant, f"`__all__` lists `{name}`, which nothing in the file binds", f"take `{name}` out of `__all__`, or import it"


def binds_all(node: ast.AST) -> bool:
    """Whether the statement binds `__all__`, however (`=`, `: list[str] =`, `+=`)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    else:
        return False
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def bound_names(tree: ast.Module) -> set[str]:
    """Every name the module binds, wherever (but through a star import)."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return bound
