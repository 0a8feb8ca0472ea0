"""Find the files, read them, run the rules, and drop what `# layergen: ignore[...]` silences."""

from __future__ import annotations

import fnmatch
import gc
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from .cache import CheckCache, text_hash
from .deps import Graph, Names, digest, may_be_keras, prefilter
from .deps import headers as class_headers
from .kinds import classify
from .rules import RULES, Finding, Run, check_class, not_run
from .settings import CheckSettings
from .source import SourceFile, decode, encoding_of, read_source
from .which_keras import follow as follow_imports

SKIPPED_FOLDERS = {"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"}
# Test files and folders build layers to test them (unregistered, without config, ...):
# skipped when a folder is searched; a file named on the command line is checked all the same.
TEST_FILES = ("test_*.py", "*_test.py", "conftest.py", "tests", "test")
IGNORE = re.compile(r"#\s*layergen:\s*ignore(?:\[([\w\s,-]*)\])?")


@dataclass
class Report:
    files: dict[Path, SourceFile] = field(default_factory=dict)
    findings: dict[Path, list[Finding]] = field(default_factory=dict)
    errors: list[Diagnostic] = field(default_factory=list)  # unreadable files: exit 2
    skipped: list[Diagnostic] = field(default_factory=list)  # warnings: links to nothing
    undecodable: dict[Path, str] = field(default_factory=dict)  # why Python cannot decode it
    not_run: dict[Path, list[str]] = field(default_factory=dict)  # selected rules not run
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
            [
                Diagnostic(str(p), None, None, "no-such-file", "no such file or folder")
                for p in missing
            ]
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
    return any(fnmatch.fnmatch(name, pattern) for pattern in (*TEST_FILES, *settings.exclude))


def default_paths(settings: CheckSettings) -> list[Path]:
    """The project (every Python file in it that defines Keras classes) and the configured paths outside it."""
    return [
        settings.root,
        *(p for p in settings.paths if p.exists() and settings.root not in p.parents),
    ]


def check_files(*args, **kwargs) -> Report:
    """See `_check_files`. The cyclic garbage collector is paused meanwhile: the trees of a
    run (millions of objects) live until it ends, and it walked them again and again
    (45% of the time on keras-hub, measured); they are collected after, as usual."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _check_files(*args, **kwargs)
    finally:
        if paused:
            gc.enable()


@contextmanager
def deep_enough():
    """Python parses an expression nested about 3,000 deep (3 times its recursion limit);
    the rules walk expressions recursively, up to 4 frames a level: what parsed is checked."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 12 * limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _check_files(
    paths: list[Path],
    settings: CheckSettings,
    texts: dict[Path, str] | None = None,
    cache: CheckCache | None = None,
    read_all: bool = False,
    only: set[Path] | None = None,
) -> Report:
    """Check `paths`; `texts` gives the text to use for some of them (a fix's result).
    Files that cannot change a finding are not parsed (deps.prefilter); with `cache`,
    neither are files whose findings it holds, unless a file checked again needs them.
    `read_all` turns the prefilter off (to compare). With `only`, the other paths are
    context (the project around the files named): read, not reported."""
    report = Report()
    read: dict[Path, str] = {}
    for path in paths:
        text = (texts or {}).get(path)
        if text is None and path.is_symlink() and not path.exists():
            report.skipped.append(  # no file Python could import: nothing to check
                Diagnostic(
                    str(path),
                    None,
                    None,
                    "dangling-link",
                    f"skipped: a symbolic link to nothing ({os.readlink(path)})",
                    "remove the link, or skip it with `exclude` in [tool.layergen.check]",
                    "warning",
                )
            )
            continue
        if text is None and not path.is_file():  # a pipe: reading it would wait forever
            report.errors.append(
                Diagnostic(
                    str(path),
                    1,
                    1,
                    "unreadable",
                    "not a file (a pipe or a device): it is not read",
                    "skip it with `exclude` in [tool.layergen.check]",
                )
            )
            continue
        if text is None:
            try:
                text, undecodable = decode(path.read_bytes())
            except OSError as exc:
                report.errors.append(
                    Diagnostic(str(path), 1, 1, "unreadable", f"cannot read the file: {exc}")
                )
                continue
            if undecodable:  # invalid Python, as Python would say: a finding, if it matters
                report.undecodable[path] = undecodable
        report.checked += 1
        read[path] = text
    names: dict[Path, Names] = {}
    registrars: dict[Path, set[str]] = {}  # the registration functions each file defines
    headers: dict[Path, str] = {}  # what a parent's rules read of the file (deps.headers)
    hashes = {path: text_hash(text) for path, text in read.items()} if cache else {}
    for path, text_key in hashes.items():
        known = cache.summary(text_key)
        if known is not None:
            names[path] = known[0]
            if known[1] is not None:  # it parsed
                registrars[path], headers[path] = known[1], known[2]
    remembered = set(names)

    def known(path: Path) -> bool:  # parsed now unless the cache knows what it holds
        return (cache is not None and path in registrars) or _parse(report, path, read[path])

    # The files that may be Keras classes are parsed first: the prefilter reads the names
    # their code uses (Names.of_source), and those of the others from their text. A Keras
    # module without classes is parsed too: that it does not parse is a finding.
    first = {path for path in read if read_all or may_be_keras(read[path]) or "keras" in read[path]}
    ok = {path for path in read if path in first and known(path)}  # in order

    def names_of(path: Path) -> Names:
        if path not in names:
            source = report.files.get(path) if path in first else None
            names[path] = Names.of_source(source) if source else Names.of(read[path])
        return names[path]

    kept = [
        path
        for path in (list(read) if read_all else prefilter(read, names_of))
        if path in ok or (path not in first and known(path))
    ]
    for path in report.files:  # parsed now: what the cache graph reads of it
        names[path] = names_of(path).linked(report.files[path])
        registrars[path] = report.files[path].registrars
        if cache is not None:
            headers[path] = class_headers(report.files[path])
    if cache is not None:  # what a next run needs not read again, parsed or not
        for path in names.keys() - remembered:
            parsed = path in report.files
            cache.remember(
                hashes[path],
                names[path],
                registrars[path] if parsed else None,
                headers[path] if parsed else None,
            )
    everyone = set(settings.registrars).union(*registrars.values())
    keys, wanted = {}, kept
    if cache is not None:
        keys, wanted = _cached(cache, report, read, kept, names, hashes, headers, everyone)
    # In the order of `paths`, whatever order they were parsed in: the first class of a
    # name is the one the rules find by that name, with the cache or without.
    report.files = {path: report.files[path] for path in read if path in report.files}
    if only is not None:
        wanted = [path for path in wanted if path in only]
    with deep_enough():
        checked = _check(report.files, wanted, everyone, settings)
    for path, (found, skipped) in checked.items():
        if cache is not None:
            cache.put(keys[path], found, skipped)
        if found:
            report.findings[path] = found
        if skipped:
            report.not_run[path] = skipped
    if cache is not None:
        cache.save()
    if only is not None:
        report.findings = {p: f for p, f in report.findings.items() if p in only}
        report.not_run = {p: n for p, n in report.not_run.items() if p in only}
        report.skipped = [d for d in report.skipped if Path(d.path) in only]
        report.checked = sum(1 for path in read if path in only)
    return report


def _cached(cache, report, read, kept, names, hashes, headers, registrars):
    """Take the findings the cache holds; parse what the other files need. Returns the
    key of every file and the files still to check."""
    graph = Graph(kept, names)
    own = {path: digest([str(path), hashes[path]]) for path in kept}
    everyone = digest([cache.salt, *sorted(registrars)])  # once: there may be thousands
    keys = {path: digest([everyone, key]) for path, key in graph.keys(own, headers).items()}
    wanted = []
    for path in kept:
        known = cache.get(keys[path])
        if known is None:
            wanted.append(path)
            continue
        found, skipped = known
        if found:
            report.findings[path] = found
        if skipped:
            report.not_run[path] = skipped
    needed = graph.context(wanted)
    for path in kept:
        if path in needed:
            _parse(report, path, read[path])
    return keys, wanted


def _parse(report: Report, path: Path, text: str) -> bool:
    """Parse the file into report.files (unless it is there); False for invalid Python,
    which is a finding of its own: the other files are checked all the same."""
    if path in report.files:
        return True
    line, col, message = 1, 1, report.undecodable.get(path)
    if message is None:
        try:
            report.files[path] = read_source(str(path), text)
            return True
        except SyntaxError as exc:
            line, col, message = exc.lineno or 1, exc.offset or 1, exc.msg
        except RecursionError:  # under the interpreter's own limit: CPython cannot compile it
            message = "an expression too deeply nested for Python to compile"
    report.findings[path] = [
        Finding(
            "python-syntax",
            line,
            col,
            f"invalid Python: {message}",
            "fix the syntax: the file's classes are not checked until it parses",
        )
    ]
    return False


def _check(
    files: dict[Path, SourceFile], wanted: list[Path], registrars: set[str], settings: CheckSettings
) -> dict[Path, tuple[list[Finding], list[str]]]:
    """The findings of the `wanted` files, the classes of all `files` known to the rules,
    and the selected rules not run on each (rules.not_run)."""
    sources = list(files.values())
    follow_imports(sources)
    subclasses = classify(sources)
    classes: dict = {}
    homes: dict = {}
    for source in sources:
        for cls in source.classes:
            classes.setdefault(cls.name, []).append((source, cls))
            homes[id(cls)] = source
    result = {}
    for path in wanted:
        source = files[path]
        run = Run(
            classes,
            registrars,
            settings.package or path.parent.name,
            subclasses,
            homes,
            settings.select,
        )
        found = [
            f
            for cls in source.classes
            for f in check_class(source, cls, run)
            if f.code in settings.select and not _silenced(source, f)
        ]
        if encoding_of(source.text) != "utf-8":  # --fix writes UTF-8: the cookie would lie
            found = [replace(f, fix=None) for f in found]
        skipped = set().union(*(not_run(source, cls, run) for cls in source.classes))
        result[path] = (sorted(found, key=lambda f: (f.line, f.col, f.code)), sorted(skipped))
    return result


def _silenced(source: SourceFile, finding: Finding) -> bool:
    line = source.lines[finding.line - 1] if finding.line <= len(source.lines) else ""
    match = IGNORE.search(line)
    if match is None:
        return False
    codes = match.group(1)
    return codes is None or finding.code in {c.strip() for c in codes.split(",")}
