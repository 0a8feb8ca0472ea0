"""Digests of everything a declaration's generated files are made from.

Two runs that give a declaration the same digest render the same files for it, so a
run whose digest matches the lock's record, with the files untouched since, can take
them as they are. Whatever a rendering reads goes in: the declaration's bytes and
place, layergen's version and code, every template (built-in and the project's own), black's
version and the configuration. Paths are relative to the project: a clone elsewhere
gives the same digests, and the lock does not change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

from .config import Config


def run_inputs(config: Config) -> str:
    """The digest of what every declaration of a run shares."""
    from . import __version__
    from .kinds import TEMPLATES
    from .render.formatting import black_version

    parts = [
        f"layergen {__version__}",
        _code_digest(),
        f"black {black_version()}",
        _folder_digest(TEMPLATES),
        _folder_digest(config.templates) if config.templates else "no project templates",
    ]
    for item in dataclasses.fields(config):
        if item.name in ("paths", "root"):  # which declarations run; what paths are relative to
            continue
        value = getattr(config, item.name)
        if isinstance(value, Path):
            value = _relative(value, config.root)
        elif isinstance(value, (set, frozenset)):  # a set's order changes from run to run
            value = sorted(value, key=repr)
        parts.append(f"{item.name}={value!r}")
    return _digest("\n".join(parts))


def declaration_inputs(run: str, root: Path, declaration: Path, raw: bytes, *where: object) -> str:
    """The digest of one declaration's rendering: the run's, its bytes, and `where` it goes."""
    place = [
        _relative(declaration, root),
        *(_relative(w, root) if isinstance(w, Path) else repr(w) for w in where),
    ]
    return _digest("\n".join([run, *place]) + "\n" + hashlib.sha256(raw).hexdigest())


def _folder_digest(folder: Path) -> str:
    """Every file of a folder, by name and content (a handful of small files: read each run)."""
    if not folder.is_dir():
        return f"no folder {folder.name}"
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(f"{path.relative_to(folder).as_posix()}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _code_digest() -> str:
    """layergen's own code (a checkout changes without a new version); the linter aside."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if not relative.startswith("lint/"):
            digest.update(f"{relative}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _relative(path: Path, root: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(root))).as_posix()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
