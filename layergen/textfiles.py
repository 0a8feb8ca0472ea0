"""Reading the files a person may have written or changed: their text, or a located error.

Every such file (a generated module or test after hand edits, a package `__init__.py`,
pyproject.toml, the lock, VS Code's tasks) is read through `read_text`: a file that is not
UTF-8 (a valid `# coding: latin-1` module is enough), a folder where the file should be, or a
file that cannot be opened is a located diagnostic, never a traceback. Its Python is parsed
through `parse_python`, which locates a syntax error the same way.

Text comes back exactly as stored. `split_line_ends` gives it with `\\n` alone and no
byte order mark, for merging against what layergen generated, and which line ends (and
mark) the file had, so that `with_line_ends` can put them back (a CRLF module stays CRLF).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, DiagnosticError

if TYPE_CHECKING:
    import libcst


def read_text(path: Path, *, missing_ok: bool = False) -> str | None:
    """The file's text, line ends as they are; None for a missing file when `missing_ok`."""
    data = read_bytes(path, missing_ok=missing_ok)
    return None if data is None else decode(str(path), data)


def decode(path: str, data: bytes) -> str:
    """The text of a file's bytes; one that is not UTF-8 is an error at its first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1
        hint = "layergen reads and writes UTF-8: save the file as UTF-8"
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            hint = "the file is UTF-16: save it as UTF-8"
        raise DiagnosticError(
            [
                Diagnostic(
                    path,
                    data.count(b"\n", 0, exc.start) + 1,
                    column,
                    "encoding",
                    f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                    hint,
                )
            ]
        ) from None


def read_bytes(path: Path, *, missing_ok: bool = False) -> bytes | None:
    """The file's bytes; None for a missing file when `missing_ok`."""
    try:
        if path.is_dir():
            raise _cannot_read(path, "a folder is in its place", "move the folder away")
        if path.exists() and not path.is_file():  # reading a pipe would wait forever
            raise _cannot_read(path, "it is a pipe or a device", "put the file in its place")
        return path.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            return None
        raise DiagnosticError(
            [Diagnostic(str(path), None, None, "no-such-file", "no such file")]
        ) from None
    except OSError as exc:
        raise _cannot_read(path, exc.strerror or str(exc), "check its permissions") from None


def _cannot_read(path: Path, why: str, hint: str) -> DiagnosticError:
    return DiagnosticError(
        [Diagnostic(str(path), None, None, "cannot-read", f"cannot read the file: {why}", hint)]
    )


def same_text(path: Path, text: str) -> bool:
    """Whether the file holds exactly `text` (False when it is missing or unreadable)."""
    try:
        return path.is_file() and path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False


_BOM = "\ufeff"  # a UTF-8 byte order mark, as some Windows editors save it


def split_line_ends(text: str) -> tuple[str, str]:
    """`text` with `\\n` line ends and no byte order mark, and the form it had: its line ends
    (`\\r\\n` when its first line ends so), after the mark if it began with one."""
    mark = _BOM if text.startswith(_BOM) else ""
    text = text.removeprefix(mark)
    first = text.find("\n")
    if first > 0 and text[first - 1] == "\r":
        return text.replace("\r\n", "\n"), mark + "\r\n"
    return text, mark + "\n"


def with_line_ends(text: str, ends: str) -> str:
    """`text` (with `\\n` line ends) in the form `split_line_ends` found."""
    mark = _BOM if ends.startswith(_BOM) else ""
    ends = ends.removeprefix(mark)
    return mark + (text if ends == "\n" else text.replace("\n", ends))


@functools.lru_cache(maxsize=16)
def parsed(text: str) -> libcst.Module:
    """libcst's tree of `text`, made once for the texts met last (a run parses the same text
    as it reads, merges and compares it; trees are immutable). It raises
    `libcst.ParserSyntaxError` as `libcst.parse_module` does."""
    import libcst as cst

    return cst.parse_module(text)


def parse_python(path: Path, text: str, doing: str = "read") -> libcst.Module:
    """The file's libcst tree; its syntax error is located (`doing`: what could not be done)."""
    import libcst as cst

    try:
        return parsed(text)
    except cst.ParserSyntaxError as exc:
        line, column, why = exc.raw_line, exc.raw_column + 1, exc.message
    except RecursionError:  # nested deeper than the parser goes
        line, column, why = 1, 1, "nested too deeply to parse"
    raise DiagnosticError(
        [
            Diagnostic(
                str(path),
                line,
                column,
                "python-syntax",
                f"cannot {doing} this file: invalid Python ({why})",
                "fix the file, then run layergen again",
            )
        ]
    )


READ_PAUSES = (0.01, 0.03, 0.1, 0.3)  # seconds between reads of a file that moves while read
EMPTY_SETTLES = sum(READ_PAUSES)  # seconds a file stays empty before it is taken as emptied


@dataclass(frozen=True)
class Seen:
    """A file as a run read it: its text (None: it did not exist) and its stamp (inode, size,
    modification time) taken just before, so that a save since, even one that put back the
    same text, is told from no change (`writes.write` checks it before overwriting)."""

    text: str | None  # None: no file there
    stamp: tuple[int, int, int] | None = None

    @classmethod
    def read(cls, path: Path) -> Seen:
        """The file as it is between two saves. An editor saving in place empties the file for
        an instant, then writes it: an empty file is read again once it has been empty for
        `EMPTY_SETTLES` seconds, counted from its modification time (a module emptied by hand
        long ago is read at once, and so is one that stays empty), and one that changed while
        it was read is read again a moment later. Taking a half-saved file for the person's
        text would merge into nothing."""
        waited_on = None  # the stamp of the empty file last waited on
        for pause in READ_PAUSES:
            seen, settles_in = cls._read_once(path)
            if settles_in is not None and (settles_in == 0 or seen.stamp == waited_on):
                return seen
            if settles_in is not None:
                waited_on = seen.stamp
            time.sleep(pause if settles_in is None else settles_in)
        return cls._read_once(path)[0]

    @classmethod
    def _read_once(cls, path: Path) -> tuple[Seen, float | None]:
        """The file read once, and in how many seconds it is settled: 0 now, None once it
        stops changing while it is read."""
        stamp = _stamp(path)
        if stamp is None or not path.is_file():  # a folder in its place: for the writer to say
            return cls(None), 0
        seen = cls(read_text(path, missing_ok=True), stamp)
        if seen.text is None or len(seen.text.encode()) != stamp[1] or _stamp(path) != stamp:
            return seen, None
        return seen, _empty_for_less_than(stamp)

    def still(self, path: Path) -> bool:
        """Whether `path` is still as it was seen."""
        if self.text is None:
            return not path.is_file()
        return (self.stamp is None or _stamp(path) == self.stamp) and same_text(path, self.text)


def _empty_for_less_than(stamp: tuple[int, int, int]) -> float:
    """Seconds until a whole file of this stamp has been empty `EMPTY_SETTLES` (0: it has
    text, or has been empty that long). Its modification time is when it was emptied; a time
    on a whole second may be a file system's rounding, and one in the future a clock's skew:
    both count as now."""
    _, size, modified = stamp
    if size:
        return 0.0
    if modified % 10**9 == 0:
        return EMPTY_SETTLES
    return min(EMPTY_SETTLES, max(0.0, EMPTY_SETTLES - (time.time_ns() - modified) / 10**9))


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, modification time) of the file; None when it is missing or unreadable."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns
