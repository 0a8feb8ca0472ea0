"""The `layout_map.py` of a folder of declarations: one `get_layout_map(device_mesh)` that
shards every layer of the folder as its declaration says.

A run knows the layouts of the declarations it renders or takes from the lock (their
records keep them); the folder's other declarations, generated in earlier runs, are known
from their records in the lock, so generating one file keeps the others' keys. Once a
folder has a layout map it keeps it, rewritten even when no layout is left: a map that
kept a removed layout would still shard that weight.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .config import Config
from .declaration.layouts import LAYOUT_MODULE, default_name, layout_key, name_pattern
from .diagnostics import Diagnostic
from .update.changes import LockChanges
from .update.lock import Lock, Record

MODULE = f"{LAYOUT_MODULE}.py"


@dataclass(frozen=True)
class Sharded:
    """A declaration's class and its declared layouts."""

    declaration: Path
    name: str
    layouts: tuple[tuple[str, tuple[str | None, ...]], ...]


def folder_layouts(
    found: list[Sharded], lock: Lock, run_declarations: list[Path], followed: set[str] = frozenset()
) -> dict[Path, list[Sharded]]:
    """Each folder of the run that has (or had) a layout map: the classes in it that declare
    layouts, those of this run and those the lock knows from earlier runs (but those of
    declarations this run's follow, by key: renamed or moved, their records go)."""
    folders: dict[Path, list[Sharded]] = {}
    for item in found:
        folders.setdefault(item.declaration.parent, []).append(item)
    # The folders of the declarations followed lose their layouts: their maps are rewritten.
    for declaration in [*run_declarations, *(lock.root / key for key in followed)]:
        folder = declaration.parent
        if folder not in folders and lock.records.get(lock.key(folder / MODULE)) is not None:
            folders[folder] = []  # it has one from an earlier run
    by_key = {lock.key(folder): folder for folder in folders}
    in_run = {lock.key(d) for d in run_declarations} | set(followed)
    for key, record in lock.records.items():
        folder, _, _ = key.rpartition("/")
        if record.layouts and folder in by_key and key not in in_run:
            declaration = by_key[folder] / key.rpartition("/")[2]
            if declaration.is_file():  # a deleted declaration's layouts go with it
                folders[by_key[folder]].append(Sharded(declaration, record.name, record.layouts))
    return {folder: sorted(items, key=lambda s: s.name) for folder, items in folders.items()}


def name_clashes(folder: Path, items: list[Sharded], modules: set[Path]) -> list[Diagnostic]:
    """Classes whose layers Keras names alike (the map could not tell their weights apart),
    and a declaration whose module would be the layout map itself."""
    errors = []
    for item in items:
        for other in items:
            if other is not item and re.fullmatch(
                name_pattern(other.name), default_name(item.name)
            ):
                errors.append(
                    Diagnostic(
                        str(item.declaration),
                        1,
                        1,
                        "duplicate-name",
                        f"Keras names `{item.name}` layers `{default_name(item.name)}`, as it"
                        f" names `{other.name}` layers: the layout map would shard both alike",
                        "rename one of the classes",
                    )
                )
    if folder / MODULE in modules:
        errors.append(
            Diagnostic(
                str(folder / MODULE),
                1,
                1,
                "duplicate-name",
                f"`{MODULE}` is the module layergen writes for the folder's declared layouts",
                "rename the declaration whose module it is",
            )
        )
    return errors


def layout_map_file(
    folder: Path, items: list[Sharded], config: Config, lock: Lock, run: str
) -> tuple[dict[Path, str], bool, LockChanges]:
    """The folder's layout map module, whether it was taken from the lock as it is, and the
    record of its rendering for the lock."""
    path = folder / MODULE
    inputs = hashlib.sha256(repr((run, [(s.name, s.layouts) for s in items])).encode())
    reused = lock.reusable(path, inputs.hexdigest())
    if reused:
        return reused[1], True, LockChanges()
    from .render.render import format_code, render_source

    classes = [
        {
            "name": item.name,
            "default_name": default_name(item.name),
            "layouts": [(layout_key(item.name, p), axes) for p, axes in item.layouts],
        }
        for item in items
    ]
    context = {"mesh_axes": config.mesh_axes, "classes": classes}
    text = render_source(
        "layout_map.py.j2",
        context,
        user_templates=config.user_templates,
        line_length=config.line_length,
    )
    files = {path: format_code(text, config.black)}
    changes = LockChanges()
    changes.remember(path, Record(inputs.hexdigest(), (lock.key(path),)), files)
    return files, False, changes
