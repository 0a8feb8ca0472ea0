"""Write every file of a run, or none.

All temporary files are written first, each beside its target; then the renames, in the
order given (the lock's index last), then the deletions. A kill leaves each file either
as it was or complete. Right before its rename (or deletion) a file must still be what the
run read (`expected`): an editor saving during a run takes no lock, and its save is never
overwritten. A changed file stops the write: what was renamed so far is put back and
`Changed` raised, for the caller to plan again from what is on disk now. A rename that
fails is put back the same way, so that "nothing was written" stays true.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError
from .textfiles import Seen, same_text


class Changed(Exception):
    """A file changed on disk after the run read it; nothing was written."""

    def __init__(self, path: Path):
        super().__init__(str(path))
        self.path = path


def write(
    outputs: dict[Path, str],
    delete: Iterable[Path] = (),
    expected: Mapping[Path, Seen] | None = None,
) -> list[Path]:
    """Write every changed file and delete `delete`; return the files that changed.

    `expected`: the files the run read, as it read them.
    """
    expected = expected or {}
    umask = os.umask(0)
    os.umask(umask)
    staged: list[tuple[str, Path, bytes | None]] = []  # temporary file, target, its old bytes
    done: list[tuple[Path, bytes | None, bytes | None]] = []  # target, old bytes, new bytes
    listings: dict[Path, list[str]] = {}  # folder -> its temporary files, listed once
    current: Path | None = None  # the file being written, for an error
    try:
        for path, text in outputs.items():
            current = path
            for leftover in _leftovers(path, listings):  # from a run that was killed
                leftover.unlink(missing_ok=True)
            if same_text(path, text):
                continue
            # Found now, not at its rename after others were renamed; a pipe is never read.
            if path.is_dir():
                raise IsADirectoryError(errno.EISDIR, "a folder is in the way", str(path))
            if path.exists() and not path.is_file():
                raise OSError(errno.EEXIST, "something that is not a file is in the way", str(path))
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            staged.append((tmp, path, _bytes(path)))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            # mkstemp makes 0600 files: keep the old file's mode, or the usual one.
            os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~umask)
        for tmp, path, old in staged:
            current = path
            _unchanged(path, expected)
            os.replace(tmp, path)
            done.append((path, old, outputs[path].encode()))
        for path in delete:
            current = path
            if path.exists():
                _unchanged(path, expected)
                old = _bytes(path)
                path.unlink()
                done.append((path, old, None))
    except Changed:
        _unstage(staged)
        _put_back(done)
        raise
    except (
        OSError
    ) as exc:  # a read-only folder, a folder in the way, a full disk: the user's to fix
        _unstage(staged)
        failed = _put_back(done)
        raise DiagnosticError([_cannot_write(current, exc, failed)]) from None
    except BaseException:
        _unstage(staged)
        raise
    return [path for path, _, _ in done]


def _unchanged(path: Path, expected: Mapping[Path, Seen]) -> None:
    """Raise `Changed` if `path` is not as the run read it (files it did not read pass)."""
    if path in expected and not expected[path].still(path):
        raise Changed(path)


def _put_back(done: list[tuple[Path, bytes | None, bytes | None]]) -> list[Path]:
    """Undo the renames and deletions in `done`, last first, where the file is still what this
    write made it (a save since is the person's, and stays); the files that could not be."""
    failed = []
    for path, old, new in reversed(done):
        if _bytes(path) != new:
            continue
        try:
            if old is None:
                path.unlink()
            else:
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
                with os.fdopen(fd, "wb") as handle:
                    handle.write(old)
                os.replace(tmp, path)
        except OSError:
            failed.append(path)
    return failed


def _cannot_write(path: Path | None, exc: OSError, failed: list[Path]) -> Diagnostic:
    if not failed:
        return Diagnostic(
            str(path or exc.filename),
            1,
            1,
            "cannot-write",
            f"cannot write here: {exc.strerror or exc}",
            "check the folder's permissions and free space",
        )
    return Diagnostic(
        str(path or exc.filename),
        1,
        1,
        "partly-written",
        f"cannot write here: {exc.strerror or exc}; these files were already written and"
        f" could not be put back: {', '.join(str(p) for p in failed)}",
        "fix the cause, then run layergen again: it completes the run",
    )


def _bytes(path: Path) -> bytes | None:
    """The file's bytes; None when there is no regular file (reading a pipe would wait forever)."""
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _leftovers(path: Path, listings: dict[Path, list[str]]) -> list[Path]:
    """Temporary files `write` left beside `path` (`.name.XXXX.tmp`), one listing a folder."""
    folder = path.parent
    if folder not in listings:
        try:
            listings[folder] = [n for n in os.listdir(folder) if n.endswith(".tmp")]
        except OSError:  # no folder yet
            listings[folder] = []
    prefix = f".{path.name}."
    return [
        folder / n
        for n in listings[folder]
        if n.startswith(prefix) and len(n) >= len(prefix) + len(".tmp")
    ]


def _unstage(staged: list[tuple[str, Path, bytes | None]]) -> None:
    for tmp, _, _ in staged:
        if os.path.exists(tmp):  # not renamed yet
            os.unlink(tmp)
