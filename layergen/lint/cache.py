"""The findings of files already checked, in `.layergen/check-cache/` (as ruff's cache).

A file's findings are kept under a key made of its path and text and those of every file
they can depend on (deps.Graph), the registration functions of the run, the settings and
the checker's own source: change any of them and the file is checked again. What a file
defines and names (deps.Names), its registration functions and its class headers
(deps.headers) are kept by its text's hash, so a repeat run parses nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .deps import Names
from .edits import as_json, from_json
from .rules.base import Finding
from .settings import CheckSettings

FOLDER = Path(".layergen", "check-cache")  # its own folder: .layergen/base/ is committed
NAME = "cache.json"
KEEP = 20_000  # entries of each kind; past that, only this run's are kept


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _salt(settings: CheckSettings) -> str:
    """What every finding depends on besides the files: the checker and its settings."""
    from .. import __version__

    lint = Path(__file__).parent
    code = [(p.relative_to(lint).as_posix(), p.read_bytes()) for p in sorted(lint.rglob("*.py"))]
    chosen = (
        sorted(settings.select),
        sorted(settings.registrars),
        settings.package,
    )
    return hashlib.blake2b(repr((__version__, code, chosen)).encode(), digest_size=16).hexdigest()


class CheckCache:
    def __init__(self, settings: CheckSettings):
        self.path = settings.root / FOLDER / NAME
        self.salt = _salt(settings)
        self.summaries: dict[str, list] = (
            {}
        )  # text hash -> [defined, used, classes, refs, registrars, headers]
        self.findings: dict[str, list] = (
            {}
        )  # key -> [[[code, line, col, message, hint, fix]], not run]
        self.used: set[str] = set()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("salt") == self.salt:
                self.summaries, self.findings = data["summaries"], data["findings"]
        except (OSError, ValueError, KeyError, TypeError):
            pass  # no cache, or one we cannot read: start afresh

    def summary(self, digest: str) -> tuple[Names, set[str] | None, str | None] | None:
        """What a file of this text holds: its names, and if it parsed, its registration
        functions and class headers (None: it was not parsed)."""
        found = self.summaries.get(digest)
        if found is None:
            return None
        self.used.add(digest)
        defined, used, classes, refs, registrars, headers = found
        names = Names(
            frozenset(defined),
            frozenset(used),
            None if classes is None else frozenset(classes),
            frozenset(refs),
        )
        return names, None if registrars is None else set(registrars), headers

    def remember(
        self, digest: str, names: Names, registrars: set[str] | None, headers: str | None
    ) -> None:
        self.summaries[digest] = [
            sorted(names.defined),
            sorted(names.used),
            None if names.classes is None else sorted(names.classes),
            sorted(names.refs),
            None if registrars is None else sorted(registrars),
            headers,
        ]
        self.used.add(digest)

    def get(self, key: str) -> tuple[list[Finding], list[str]] | None:
        """A file's findings and the selected rules not run on it."""
        known = self.findings.get(key)
        if known is None:
            return None
        self.used.add(key)
        found, not_run = known
        findings = [
            Finding(c, ln, col, m, h, from_json(fix) if fix else None)
            for c, ln, col, m, h, fix in found
        ]
        return findings, not_run

    def put(self, key: str, findings: list[Finding], not_run: list[str]) -> None:
        found = [
            [f.code, f.line, f.col, f.message, f.hint, as_json(f.fix) if f.fix else None]
            for f in findings
        ]
        self.findings[key] = [found, not_run]
        self.used.add(key)

    def save(self) -> None:
        for table in (self.summaries, self.findings):
            if len(table) > KEEP:
                for key in [k for k in table if k not in self.used]:
                    del table[key]
        data = {"salt": self.salt, "summaries": self.summaries, "findings": self.findings}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# written by layergen check: not for version control\n*\n")
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data), encoding="utf-8")
            os.replace(temporary, self.path)  # a concurrent run reads the old or the new file
        except OSError:
            pass  # a read-only project is checked all the same
