"""The stages flow one way: no import cycle, and no module imports a later stage.

Every import counts: one inside `if TYPE_CHECKING:` (a type shared by two stages lives below
both) and one inside a function (an import all the same, made later).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "layergen"

# Stages, earliest first: a module may import its own stage and the earlier ones.
STAGES = [
    [
        "diagnostics",
        "textfiles",
        "writes",
        "kinds",
        "keras_names",
        "keras_classes",
        "config",
        "output",
        "jsonc",  # JSON with comments, edited in place (the editor's settings)
        "class_renames",  # which class of a module's code was renamed (the merge reads it)
    ],
    ["declaration"],  # the declaration: YAML with positions, models, code, checks, the IR
    ["render", "isort_order"],  # contexts from the IR, Jinja, black; the project's import order
    ["update"],  # lock, 3-way merge, conflicts, one run at a time
    [
        "targets",
        "renames",  # which gone declaration a new one was (rename following)
        "claims",
        "inputs",
        "render_many",
        "layout_maps",  # a folder's layout_map.py, from its declarations' records
        "package_init",  # a folder's __init__.py: its classes imported and exported
        "package_check",  # every name a package __init__.py imports or lists exists
        "move_imports",  # `mv` rewrites every import of the moved module and class
        "generate",
        "base_history",  # a lost base rendered again from its declaration, for the run
        "move",  # `layergen mv`: a run planned by generate, on the person's word
        "golden",
        "introspect",
    ],
    ["handwritten", "sync"],
    ["scaffold", "schema", "init", "lint"],
    ["watch"],  # the watcher; it is handed the commands it runs
    ["adopt"],  # reads a hand-written class and decides what its declaration states
    ["commands"],  # one module per subcommand, and the one reporter
    ["cli", "__main__"],
]
STAGE = {name: number for number, names in enumerate(STAGES) for name in names}


def imports() -> dict[str, set[str]]:
    """Every layergen module (dotted, without `layergen.`) and the layergen modules it imports."""
    return {module: set(found) for module, found in _read_imports().items()}


@functools.cache
def _read_imports() -> dict[str, frozenset[str]]:
    """The import graph, parsed from the package's files once per session."""
    graph: dict[str, frozenset[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        package = parts[:-1]  # the package a relative import starts from
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts) or "__init__"
        tree = ast.parse(path.read_text())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[: len(package) - (node.level - 1)]
                if node.module:
                    found.add(".".join([*base, node.module]))
                else:
                    found.update(".".join([*base, a.name]) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("layergen."):
                found.add(node.module.removeprefix("layergen."))
        graph[name] = frozenset(m for m in found if m and m != name)
    return graph


def stage(module: str) -> int:
    return STAGE[module.split(".")[0]]


def test_the_graph_holds_every_module():
    """The graph is read from layergen's own files: an empty one would pass every test below."""
    graph = imports()
    assert len(graph) == len(list(PACKAGE.rglob("*.py")))
    assert "declaration.code" in graph["declaration.analyze"]


def test_every_module_has_a_stage():
    assert [m for m in imports() if m.split(".")[0] not in STAGE and m != "__init__"] == []


def test_no_module_imports_a_later_stage():
    upward = [
        f"{m} -> {d}"
        for m, deps in imports().items()
        if m != "__init__"
        for d in deps
        if d.split(".")[0] in STAGE and stage(d) > stage(m)
    ]
    assert upward == []


def test_there_is_no_import_cycle():
    graph = imports()
    modules = {m for m in graph}
    seen: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> list[str] | None:
        seen[module] = 1
        for dep in sorted(graph[module] & modules):
            if seen.get(dep) == 1:
                return [*path, module, dep]
            if dep not in seen and (cycle := visit(dep, [*path, module])):
                return cycle
        seen[module] = 2
        return None

    for module in sorted(graph):
        if module not in seen:
            cycle = visit(module, [])
            assert cycle is None, " -> ".join(cycle)
