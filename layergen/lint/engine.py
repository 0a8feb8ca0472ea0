"""Find the files, read them, run the rules, and drop what `# layergen: ignore[...]` silences."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from .checks import Finding, Run, check_class
from .kinds import classify
from .rules import RULES
from .settings import CheckSettings
from .source import SourceFile, read_source

SKIPPED_FOLDERS = {"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"}
IGNORE = re.compile(r"#\s*layergen:\s*ignore(?:\[([\w\s,-]*)\])?")


@dataclass
class Report:
    files: dict[Path, SourceFile] = field(default_factory=dict)
    findings: dict[Path, list[Finding]] = field(default_factory=dict)
    errors: list[Diagnostic] = field(default_factory=list)  # unusable input: exit 2
    checked: int = 0

    def diagnostics(self, shown=str) -> list[Diagnostic]:
        return [
            Diagnostic(
                shown(path), f.line, f.col, f.code, f.message, f.hint, RULES[f.code].severity
            )
            for path, found in self.findings.items()
            for f in found
        ]


def python_files(paths: list[Path], settings: CheckSettings) -> list[Path]:
    """The .py files under `paths`; hidden folders, virtual environments and `exclude` are skipped."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise DiagnosticError(
            [Diagnostic(str(p), 1, 1, "no-such-file", "no such file or folder") for p in missing]
        )
    found: dict[Path, None] = {}
    for path in paths:
        if path.is_file():
            found[path] = None
            continue
        for folder, folders, files in os.walk(path):
            folders[:] = sorted(
                d
                for d in folders
                if not d.startswith(".") and d not in SKIPPED_FOLDERS and not _excluded(d, settings)
            )
            for name in sorted(files):
                if name.endswith(".py") and not _excluded(name, settings):
                    found[Path(folder) / name] = None
    return list(found)


def _excluded(name: str, settings: CheckSettings) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in settings.exclude)


def default_paths(settings: CheckSettings) -> list[Path]:
    """The project (every Python file in it that defines Keras classes) and the configured paths outside it."""
    return [
        settings.root,
        *(p for p in settings.paths if p.exists() and settings.root not in p.parents),
    ]


def check_files(
    paths: list[Path], settings: CheckSettings, texts: dict[Path, str] | None = None
) -> Report:
    """Check `paths`; `texts` gives the text to use for some of them (a fix's result)."""
    report = Report()
    for path in paths:
        text = (texts or {}).get(path)
        if text is None:
            try:
                with open(
                    path, encoding="utf-8", newline=""
                ) as handle:  # line endings kept as they are
                    text = handle.read()
            except (OSError, UnicodeDecodeError) as exc:
                report.errors.append(
                    Diagnostic(str(path), 1, 1, "unreadable", f"cannot read the file: {exc}")
                )
                continue
        report.checked += 1
        if "class" not in text:
            continue  # nothing here can be a Keras class
        try:
            report.files[path] = read_source(str(path), text)
        except SyntaxError as exc:
            report.errors.append(
                Diagnostic(
                    str(path),
                    exc.lineno or 1,
                    exc.offset or 1,
                    "python-syntax",
                    f"invalid Python: {exc.msg}",
                )
            )
    sources = list(report.files.values())
    classify(sources)
    classes: dict = {}
    homes: dict = {}
    registrars = set(settings.registrars)
    for source in sources:
        registrars |= source.registrars
        for cls in source.classes:
            classes.setdefault(cls.name, cls)
            homes.setdefault(cls.name, source)
    subclasses: dict = {}
    for cls in (c for source in sources for c in source.classes):
        direct = {b.rsplit(".", 1)[-1] for b in cls.bases}
        for parent in cls.parents:
            if parent.name in direct:
                subclasses.setdefault(parent.name, []).append(cls)
    for path, source in report.files.items():
        run = Run(classes, registrars, settings.package or path.parent.name, subclasses, homes)
        found = [
            f
            for cls in source.classes
            for f in check_class(source, cls, run)
            if f.code in settings.select and not _silenced(source, f)
        ]
        if found:
            report.findings[path] = sorted(found, key=lambda f: (f.line, f.col, f.code))
    return report


def _silenced(source: SourceFile, finding: Finding) -> bool:
    line = source.lines[finding.line - 1] if finding.line <= len(source.lines) else ""
    match = IGNORE.search(line)
    if match is None:
        return False
    codes = match.group(1)
    return codes is None or finding.code in {c.strip() for c in codes.split(",")}
