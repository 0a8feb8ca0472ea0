"""Reading the files a person may have written or changed: their text, or a located error.

Every such file (a generated module or test after hand edits, a package `__init__.py`,
pyproject.toml, the lock, VS Code's tasks) is read through `read_text`: a file that is not
UTF-8 (a valid `# coding: latin-1` module is enough), a folder where the file should be, or a
file that cannot be opened is a located diagnostic, never a traceback. Its Python is parsed
through `parse_python`, which locates a syntax error the same way.

Text comes back exactly as stored. `split_line_ends` gives it with `\\n` alone, for
merging against what layergen generated, and which line ends the file had, so that
`with_line_ends` can put them back (a CRLF module stays CRLF).
"""

from __future__ import annotations

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
        if not path.is_file() and path.exists():  # a folder, or a pipe that would never end
            folder = path.is_dir()
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(path),
                        None,
                        None,
                        "cannot-read",
                        "cannot read the file: "
                        + ("a folder is in its place" if folder else "it is a pipe or a device"),
                        "move the folder away" if folder else "put the file in its place",
                    )
                ]
            )
        data = path.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            return None
        raise DiagnosticError(
            [Diagnostic(str(path), None, None, "no-such-file", "no such file")]
        ) from None
    except OSError as exc:
        raise DiagnosticError(
            [
                Diagnostic(
                    str(path),
                    None,
                    None,
                    "cannot-read",
                    f"cannot read the file: {exc.strerror or exc}",
                    "check its permissions",
                )
            ]
        ) from None
    return data


def same_text(path: Path, text: str) -> bool:
    """Whether the file holds exactly `text` (False when it is missing or unreadable)."""
    try:
        return path.is_file() and path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False


def split_line_ends(text: str) -> tuple[str, str]:
    """`text` with `\\n` line ends, and the ends it had: `\\r\\n` when its first line ends so."""
    first = text.find("\n")
    if first > 0 and text[first - 1] == "\r":
        return text.replace("\r\n", "\n"), "\r\n"
    return text, "\n"


def with_line_ends(text: str, ends: str) -> str:
    """`text` (with `\\n` line ends) with the line ends `split_line_ends` found."""
    return text if ends == "\n" else text.replace("\n", ends)


def parse_python(path: Path, text: str, doing: str = "read") -> libcst.Module:
    """The file's libcst tree; its syntax error is located (`doing`: what could not be done)."""
    import libcst as cst

    try:
        return cst.parse_module(text)
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
