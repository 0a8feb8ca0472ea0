"""A moved module's imports, rewritten across the project as an IDE's move does (rope's
`MoveModule`): `layergen mv` moves a layer's module, and every import of it follows; a class
renamed in its declaration is renamed wherever it is imported, as an IDE's rename does.

Each import of the old module, relative or absolute, in any statement (under `if`, `try`, in a
function), names the new one in the same style; `from pkg import module` and attribute
chains (`pkg.module.Class`) follow too. A class renamed with the move is renamed where it is
imported, and so are the names its import bound: their uses in the module (libcst's scope
analysis) and their entries in `__all__`. An alias (`import ... as name`) stays as written.
Comments and every other line stay as the person wrote them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError
from .textfiles import Seen

# Folders no project module lives in (tools' caches, virtual environments: a folder with a
# `pyvenv.cfg`).
_SKIPPED = {"__pycache__", "node_modules", "site-packages", "build", "dist"}


@dataclass(frozen=True)
class Moved:
    """A module moved (dotted import paths), its class renamed or not."""

    old: str
    new: str
    old_class: str
    new_class: str

    @property
    def old_package(self) -> str:
        return self.old.rpartition(".")[0]

    @property
    def old_name(self) -> str:
        return self.old.rpartition(".")[2]


def dotted(path: Path, root: Path) -> str:
    """A module's import path (`src/` is no part of it, as in `targets.target`)."""
    parts = path.with_suffix("").relative_to(root).parts
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def import_path(path: Path, root: Path) -> str | None:
    """`dotted`, or None for a file reached through a link from outside the project."""
    try:
        return dotted(path, root)
    except ValueError:
        return None


def project_modules(root: Path) -> Iterator[Path]:
    """The project's Python files: neither hidden folders nor virtual environments."""
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(
            f
            for f in folders
            if not f.startswith(".")
            and f not in _SKIPPED
            and not os.path.exists(os.path.join(folder, f, "pyvenv.cfg"))
        )
        yield from (Path(folder) / f for f in sorted(files) if f.endswith(".py"))


def followed_imports(
    root: Path, renamed: list[tuple[Path, str, Path, str]], skip: set[Path]
) -> dict[Path, tuple[Seen, str]]:
    """The project's files (but `skip`, those the run writes) that import a module or class
    `renamed` ((old module, old class, new module, new class): a move, a class rename, or
    both), each as read and rewritten to follow every one of them."""
    moves = [
        Moved(dotted(old, root), dotted(new, root), was, now) for old, was, new, now in renamed
    ]
    moves = [m for m in moves if (m.old, m.old_class) != (m.new, m.new_class)]
    found = {}
    for path in project_modules(root) if moves else ():
        if path in skip:
            continue
        seen = Seen.read(path)
        text = seen.text
        for moved in moves:
            if text is not None and moved.old_name in text:
                text = rewrite(text, dotted(path, root), path.name == "__init__.py", moved, path)
        if text != seen.text:
            found[path] = (seen, text)
    return found


def rewrite(text: str, module: str, is_package: bool, moved: Moved, path: Path) -> str:
    """`text`, the module `module` (dotted), with its imports of the moved module rewritten."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from .textfiles import parse_python

    tree = parse_python(path, text, "rewrite the imports of the moved module in")
    package = module if is_package else module.rpartition(".")[0]
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    try:
        return wrapper.visit(_transformer()(moved, package.split(".") if package else [])).code
    except cst.CSTValidationError as exc:  # a form not foreseen: said, never half done
        raise DiagnosticError(
            [
                Diagnostic(
                    str(path),
                    1,
                    1,
                    "bad-move",
                    f"cannot rewrite this file's imports of `{moved.old}` ({exc})",
                    f"change them to `{moved.new}` by hand, then run layergen again",
                )
            ]
        ) from None


@functools.cache
def _transformer():
    """The transformer's class, made once libcst is needed (a file imports the module)."""
    import libcst as cst
    from libcst.helpers import get_full_name_for_node
    from libcst.metadata import ScopeProvider

    def name_node(dotted_name: str) -> cst.Attribute | cst.Name:
        return cst.parse_expression(dotted_name)

    class Transformer(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (ScopeProvider,)

        def __init__(self, moved: Moved, package: list[str]):
            super().__init__()
            self.moved = moved
            self.package = package
            self.renamed: dict[cst.Name, str] = {}  # uses of a renamed binding -> new name
            self.bound: dict[str, str] = {}  # bindings renamed, old -> new (for `__all__`)
            self.module_uses: set[cst.CSTNode] = set()  # names bound to the moved module

        # Where an import leads, and how to name the new module in the same style.

        def resolved(self, node: cst.ImportFrom) -> str | None:
            module = get_full_name_for_node(node.module) if node.module else ""
            if not node.relative:
                return module
            level = len(node.relative)
            if level > len(self.package):
                return None
            base = self.package[: len(self.package) - level + 1]
            return ".".join([*base, *([module] if module else [])])

        def styled(self, node: cst.ImportFrom, target: str) -> cst.ImportFrom:
            """`node` importing from `target`: relative if it was and can be, else absolute."""
            parts = target.split(".") if target else []
            if node.relative:
                common = 0
                while (
                    common < min(len(parts), len(self.package))
                    and parts[common] == self.package[common]
                ):
                    common += 1
                if common:
                    level = len(self.package) - common + 1
                    rest = ".".join(parts[common:])
                    return node.with_changes(
                        relative=[cst.Dot() for _ in range(level)],
                        module=name_node(rest) if rest else None,
                    )
            return node.with_changes(
                relative=[],
                module=name_node(target),
                whitespace_after_from=cst.SimpleWhitespace(" "),
            )

        # The names the imports bind: renamed with the class (or the module), where they
        # are bound by these imports alone; else the import binds the old name still.

        def visit_Module(self, node: cst.Module) -> None:
            scope = self.get_metadata(ScopeProvider, node)
            moved, new_package = self.moved, self.moved.new.rpartition(".")
            renames = {moved.old_class: moved.new_class, moved.old_name: new_package[2]}
            for old, new in renames.items():
                if old == new or new in scope or old not in scope:
                    continue
                assignments = list(scope.assignments[old])
                if all(self._binds(getattr(a, "node", None), old) for a in assignments):
                    self.bound[old] = new
                    for access in (r for a in assignments for r in a.references):
                        if isinstance(access.node, cst.Name):
                            self.renamed[access.node] = new
            for assignment in scope.assignments:
                if self._binds_module(getattr(assignment, "node", None), assignment.name):
                    self.module_uses.update(r.node for r in assignment.references)

        def _binds(self, node, name: str) -> bool:
            """Whether `node` is an import binding `name` to the class or the moved module."""
            if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
                return False
            source = self.resolved(node)
            wanted = {
                self.moved.old: self.moved.old_class,
                self.moved.old_package: self.moved.old_name,
            }
            return source in wanted and any(
                a.name.value == name == wanted[source] and _bound_as(a) == name for a in node.names
            )

        def _binds_module(self, node, name: str) -> bool:
            """Whether `node` binds `name` to the moved module (`import m as name`, `from
            pkg import m`)."""
            if isinstance(node, cst.Import):
                return any(
                    get_full_name_for_node(a.name) == self.moved.old
                    and a.asname is not None
                    and get_full_name_for_node(a.asname.name) == name
                    for a in node.names
                )
            if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
                return self.resolved(node) == self.moved.old_package and any(
                    a.name.value == self.moved.old_name
                    and (get_full_name_for_node(a.asname.name) if a.asname else a.name.value)
                    == name
                    for a in node.names
                )
            return False

        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            if original in self.renamed:
                return updated.with_changes(value=self.renamed[original])
            return updated

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            return False  # its names are rewritten whole, in `leave_ImportFrom`

        def visit_Import(self, node: cst.Import) -> bool:
            return False

        def leave_SimpleStatementLine(self, original, updated):
            """`from pkg import module, other`: the module goes to a line of its own."""
            node = updated.body[0] if len(updated.body) == 1 else None
            if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
                return updated
            if self.resolved(node) != self.moved.old_package:
                return updated
            mine = [a for a in node.names if a.name.value == self.moved.old_name]
            others = [a for a in node.names if a.name.value != self.moved.old_name]
            if not mine or not others:
                return updated
            others[-1] = others[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            new_package, _, new_name = self.moved.new.rpartition(".")
            alias = self._renamed(mine[0], self.moved.old_name, new_name)
            moved = self.styled(node, new_package).with_changes(
                names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)],
                lpar=None,
                rpar=None,
            )
            return cst.FlattenSentinel(
                [
                    updated.with_changes(body=[node.with_changes(names=others)]),
                    cst.SimpleStatementLine(body=[moved]),
                ]
            )

        def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
            moved = self.moved
            source = self.resolved(original)
            if source == moved.old:
                updated = self.styled(updated, moved.new)
                if isinstance(updated.names, cst.ImportStar):
                    return updated
                return updated.with_changes(names=[self._class(a) for a in updated.names])
            if source == moved.old_package and not isinstance(updated.names, cst.ImportStar):
                names = [a for a in updated.names if a.name.value == moved.old_name]
                if names and len(names) == len(updated.names):
                    new_package, _, new_name = moved.new.rpartition(".")
                    updated = self.styled(updated, new_package)
                    return updated.with_changes(
                        names=[self._renamed(a, moved.old_name, new_name) for a in updated.names]
                    )
            return updated

        def _class(self, alias: cst.ImportAlias) -> cst.ImportAlias:
            if alias.name.value != self.moved.old_class:
                return alias
            return self._renamed(alias, self.moved.old_class, self.moved.new_class)

        def _renamed(self, alias: cst.ImportAlias, old: str, new: str) -> cst.ImportAlias:
            """`old` imported as `new`; where its uses keep the old name, bound as `old`."""
            if old == new:
                return alias
            if _bound_as(alias) == old and old not in self.bound:  # its uses keep `old`
                return alias.with_changes(name=cst.Name(new), asname=cst.AsName(name=cst.Name(old)))
            if alias.asname is not None and _bound_as(alias) == old:  # `X as X`: re-exported
                return alias.with_changes(
                    name=cst.Name(new), asname=alias.asname.with_changes(name=cst.Name(new))
                )
            return alias.with_changes(name=cst.Name(new))

        def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
            old = self.moved.old
            names = []
            for alias in updated.names:
                name = get_full_name_for_node(alias.name)
                if name == old or name.startswith(old + "."):
                    alias = alias.with_changes(name=name_node(self.moved.new + name[len(old) :]))
                names.append(alias)
            return updated.with_changes(names=names)

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
            """`pkg.module` and `pkg.module.Class` in code."""
            moved = self.moved
            name = get_full_name_for_node(original)
            if name == moved.old:
                return name_node(moved.new)
            if name == f"{moved.old}.{moved.old_class}":
                return name_node(f"{moved.new}.{moved.new_class}")
            if original.value in self.module_uses and original.attr.value == moved.old_class:
                return updated.with_changes(attr=cst.Name(moved.new_class))
            return updated

        def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString):
            """A renamed binding in `__all__`."""
            new = self.bound.get(original.evaluated_value) if self._in_all else None
            if new is not None:
                return updated.with_changes(value=updated.quote + new + updated.quote)
            return updated

        _in_all = False

        def visit_Assign(self, node: cst.Assign) -> None:
            self._in_all = any(_is_all_name(t.target) for t in node.targets)

        def leave_Assign(self, original, updated):
            self._in_all = False
            return updated

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._in_all = _is_all_name(node.target)

        def leave_AnnAssign(self, original, updated):
            self._in_all = False
            return updated

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._in_all = _is_all_name(node.target)

        def leave_AugAssign(self, original, updated):
            self._in_all = False
            return updated

    def _bound_as(alias: cst.ImportAlias) -> str:
        """The name an import binds (`from m import X as Y`: Y)."""
        return get_full_name_for_node(alias.asname.name if alias.asname else alias.name)

    def _is_all_name(target) -> bool:
        return isinstance(target, cst.Name) and target.value == "__all__"

    return Transformer
