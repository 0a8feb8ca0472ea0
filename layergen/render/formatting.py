"""black, one top-level statement at a time, each piece formatted once per process.

black's cost grows with the file it formats, yet most of a generated test module is the same
test functions in every layer. A top-level `def` or `class` that follows a blank line comes out
of black the same wherever it stands: two blank lines before it, and nothing carried over from
the statement above. The one thing black decides for the whole file is the Python versions it
targets, inferred from the features the file uses; they decide where a split line gains a
trailing comma. So the file is cut before each such statement, the versions are inferred once
from the features of all its pieces, and each piece is formatted with those versions, through a
cache the whole run shares. What does reach across statements (`# fmt: off`, a comment between
two statements, form feeds) keeps the file whole. tests/unit/test_formatting.py compares the
result with black's own on every example and on generated mixtures.

black's results are also kept between runs, as Jinja keeps compiled templates: the same text in
the same mode of the same black always comes out the same, so a test function that an earlier
run formatted (for another layer, or for this one before an edit) costs a lookup.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import hashlib
import itertools
import json
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import BLACK_DEFAULTS, BlackStyle, user_cache

if TYPE_CHECKING:
    import black

# Directives black reads across lines, and whitespace other than spaces, tabs and line
# breaks (\f, \r, \v, \u2028, ...), which black may read otherwise than the rules below
# (a vertical tab line before the module docstring is blank to it): such a file is
# formatted whole, as black would.
_WHOLE_FILE_MARKS = ("fmt:", "yapf:")
_ODD_WHITESPACE = re.compile(r"[^\S \t\n]")
_DEFINITION = re.compile(r"@|def |async def |class ")
_LINE = re.compile(r"(?<=\n)")  # splits after each line break, keeping it
# Blank lines, comments and lone backslashes (the line joins the next) may come first.
_DOCSTRING_FIRST = re.compile(r"(?:[ \t]*(?:#.*|\\)?\n)*[ \t]*[rRuUbBfF]{0,2}[\"']")
# A layer's module is its imports and its class, both its own: cut, it would cost a second
# parse to infer the versions and save nothing. A test module is a dozen pieces, most shared.
_WORTH_CUTTING = 3


def format_code(code: str, style: BlackStyle = BLACK_DEFAULTS) -> str:
    """`black.format_str(code)` as the project's black would format the file."""
    import black

    mode = _mode(style)
    # Preview features are black's to change at any release: those may relate statements.
    pieces = [code] if mode.preview or mode.unstable else _pieces(code)
    if len(pieces) < _WORTH_CUTTING:  # a file of its own: the lock keeps its text
        return black.format_str(code, mode=mode)
    whole = mode
    try:
        if not mode.target_versions:  # black infers them from the whole file: so do we
            future = _future_imports(pieces[0]) if "__future__" in pieces[0] else frozenset()
            versions = frozenset.intersection(*(_targets(piece, future) for piece in pieces))
            if not versions:  # features no one version has: black says so, for the whole file
                return black.format_str(code, mode=whole)
            mode = dataclasses.replace(mode, target_versions=set(versions))
        # black formats twice when its first pass changes the text; a piece's trailing
        # blank lines, which it always drops, would cost each piece that second pass.
        formatted = [_format_piece(piece.rstrip(" \t\n") + "\n", mode) for piece in pieces]
        if not all(piece.strip() for piece in formatted):  # a piece black reads as nothing
            return black.format_str(code, mode=whole)
        return "\n\n".join(formatted)
    except black.InvalidInput:  # cut where no statement starts, or not Python: black's own word
        return black.format_str(code, mode=whole)


def black_mode(style: BlackStyle) -> black.Mode:
    """black's mode for the project's settings (layergen check --fix formats its lines so)."""
    return _mode(style)


@functools.lru_cache(maxsize=64)
def _mode(style: BlackStyle) -> black.Mode:
    import black

    if style.target_versions:
        names = {name.upper() for name in style.target_versions}
        # A name black does not know is black's to report, when the user runs it.
        versions = {v for v in black.TargetVersion if v.name in names}
    elif style.requires_python:
        from black.files import infer_target_version

        inferred = infer_target_version({"project": {"requires-python": style.requires_python}})
        versions = set(inferred or ())
    else:
        versions = set()
    return black.Mode(
        target_versions=versions,
        line_length=style.line_length,
        string_normalization=not style.skip_string_normalization,
        magic_trailing_comma=not style.skip_magic_trailing_comma,
        preview=style.preview,
        unstable=style.unstable,
    )


def _pieces(code: str) -> list[str]:
    """`code` cut before each top-level `def` or `class` (or its first decorator) that blank
    lines separate from the code above; one piece where it cannot be cut.

    A cut inside a string or brackets leaves a piece black cannot parse, and then the file is
    formatted whole: so text is enough, no parse is needed to find the statements.
    """
    if any(mark in code for mark in _WHOLE_FILE_MARKS) or _ODD_WHITESPACE.search(code):
        return [code]
    # Python's lines, which end at "\n" only: str.splitlines also ends them at \v, \x1c or
    # \u2028, which may stand inside a comment or a string.
    lines = _LINE.split(code)
    # black puts one blank line, not two, between a module docstring and a decorator
    docstring_first = _DOCSTRING_FIRST.match(code) is not None
    cuts = [0]
    above = ""  # the last line that is not blank
    for number, line in enumerate(lines):
        if (
            _DEFINITION.match(line)
            and _blank(lines[number - 1])
            and above
            and not above.lstrip(" \t").startswith("#")  # a comment above goes with the definition
            and not above.rstrip("\n").endswith("\\")  # the blank line continues the line above
            and not (docstring_first and len(cuts) == 1 and line.startswith("@"))
        ):
            cuts.append(number)
        if not _blank(line):
            above = line
    cuts.append(len(lines))
    return ["".join(lines[a:b]) for a, b in itertools.pairwise(cuts)]


def _blank(line: str) -> bool:
    return not line.strip(" \t\n")


def _format_piece(piece: str, mode: black.Mode) -> str:
    key = ("format", mode.get_cache_key(), piece)
    formatted = _KEPT.get(key)
    if formatted is None:
        import black

        formatted = _KEPT.put(key, black.format_str(piece, mode=mode))
    return formatted


def _targets(piece: str, future: frozenset[str]) -> frozenset[black.TargetVersion]:
    """The versions black would target for a file made of this piece alone."""
    import black

    key = ("targets", ",".join(sorted(future)), piece)
    names = _KEPT.get(key)
    if names is None:
        from black.parsing import lib2to3_parse

        node = lib2to3_parse(piece.lstrip())
        found = black.detect_target_versions(node, future_imports=set(future))
        names = _KEPT.put(key, ",".join(sorted(version.name for version in found)))
    return frozenset(black.TargetVersion[name] for name in names.split(",") if name)


@functools.lru_cache(maxsize=256)
def _future_imports(header: str) -> frozenset[str]:
    import black
    from black.parsing import lib2to3_parse

    return frozenset(black.get_future_imports(lib2to3_parse(header.lstrip())))


def take_used() -> dict[str, str]:
    """The results this process used (found or made) since the last call, in the order it
    used them. A pool's worker hands them to the parent with each rendering: the worker never
    saves (it ends with os._exit), and what it used must count as used."""
    return _KEPT.take_used()


def keep(results: dict[str, str]) -> None:
    """Results a worker used, saved with this process's own as used last."""
    _KEPT.keep(results)


class _Kept:
    """black's results from earlier runs, in one JSON file per black version under the user's
    cache folder: at most `LIMIT` of them, those used last.

    Read once per process, saved when it exits if it used any: the file as it is then (other
    processes may have saved meanwhile), with this process's results moved to its end in the
    order they were used, cut to the last `LIMIT` and renamed into place, so a reader never
    sees half a file. A cache that cannot be read is empty; one that cannot be written stays
    as it was: neither stops a run.
    """

    LIMIT = 1000

    def __init__(self) -> None:
        self._file: Path | None = None
        self._loaded: dict[str, str] | None = None
        self._used: dict[str, str] = {}  # this process's results, the one used last at the end
        self._registered = False

    def get(self, key: tuple[str, ...]) -> str | None:
        digest = _digest(key)
        found = self._used.pop(digest, None)
        if found is None:
            found = self._load().get(digest)
        if found is not None:
            self._use(digest, found)
        return found

    def put(self, key: tuple[str, ...], value: str) -> str:
        self._use(_digest(key), value)
        return value

    def take_used(self) -> dict[str, str]:
        used, self._used = self._used, {}
        return used

    def keep(self, results: dict[str, str]) -> None:
        for digest, value in results.items():
            self._used.pop(digest, None)
            self._use(digest, value)

    def _use(self, digest: str, value: str) -> None:
        self._used[digest] = value
        if len(self._used) > self.LIMIT:  # a long `watch`: only the last LIMIT can be kept
            del self._used[next(iter(self._used))]
        if not self._registered:  # forked workers never run it: they end with os._exit
            atexit.register(self.save)
            self._registered = True

    def save(self) -> None:
        if not self._used:
            return
        self._load()
        path, used, self._used = self._file, self._used, {}
        if path is None:
            return  # no cache folder
        merged = _read(path)
        for digest, value in used.items():
            merged.pop(digest, None)
            merged[digest] = value
        self._loaded = kept = dict(list(merged.items())[-self.LIMIT :])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        except OSError:
            return  # a read-only home: black runs every time
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(kept, out)
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _load(self) -> dict[str, str]:
        if self._loaded is None:  # where it is, once: a later chdir or setting does not move it
            folder = user_cache()
            self._file = folder / "black" / f"{black_version()}.json" if folder else None
            self._loaded = _read(self._file) if self._file else {}
        return self._loaded


@functools.cache
def black_version() -> str:
    """Without importing black itself, as black's own `__version__` reads it (importing
    importlib.metadata alone costs a fast run 12 to 30 ms)."""
    try:
        from _black_version import version
    except ImportError:
        from importlib.metadata import version as of

        return of("black")
    return version


def _read(path: Path) -> dict[str, str]:
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: `[[[[...` nested deep
        return {}
    if not isinstance(entries, dict) or not all(isinstance(v, str) for v in entries.values()):
        return {}
    return entries


def _digest(key: tuple[str, ...]) -> str:
    return hashlib.sha256("\0".join(key).encode()).hexdigest()


_KEPT = _Kept()
