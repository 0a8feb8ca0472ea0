"""The lock file: what layergen generated last, the base of every 3-way merge.

`layergen.lock` sits beside pyproject.toml; commit it with the code. It maps each
generated file (relative to the project root) to the text generated for it, so a
member that differs from it was edited by a person.
"""

from __future__ import annotations

import json
from pathlib import Path

NAME = "layergen.lock"
VERSION = 1


class Lock:
    def __init__(self, root: Path, files: dict[str, str] | None = None):
        self.root = root
        self.files = dict(files or {})

    @property
    def path(self) -> Path:
        return self.root / NAME

    @classmethod
    def read(cls, root: Path) -> "Lock":
        path = root / NAME
        if not path.is_file():
            return cls(root)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(root, {k: v["generated"] for k, v in data.get("files", {}).items()})
        except (ValueError, KeyError, TypeError, AttributeError):
            return cls(root)  # an unreadable lock: every file is treated as hand-written

    def base(self, path: Path) -> str | None:
        return self.files.get(self._key(path))

    def record(self, path: Path, generated: str) -> None:
        self.files[self._key(path)] = generated

    def text(self) -> str:
        files = {k: {"generated": v} for k, v in sorted(self.files.items())}
        return json.dumps({"version": VERSION, "files": files}, indent=1, ensure_ascii=False) + "\n"

    def _key(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.resolve().as_posix()
