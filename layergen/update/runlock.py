"""One run at a time on a project: an OS lock held from reading the lock to the last rename.

Two runs at once (`layergen watch` and an editor task, two terminals) would each read
`layergen.lock`, and the one that wrote last would drop the other's records. The
second run waits for the first, saying so, and gives up with a located error after
a timeout. Read-only runs (`--check`, `--diff`) share the lock with each other.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError

TIMEOUT = float(os.environ.get("LAYERGEN_LOCK_TIMEOUT", "120"))


@contextmanager
def one_run_at_a_time(
    root: Path,
    *,
    shared: bool = False,
    timeout: float = TIMEOUT,
    waiting: Callable[[str], None] | None = None,
) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks in the standard library that fit; run unlocked
        yield
        return
    # The lock is on the project folder itself: no lock file to create, commit or ignore,
    # and a failed run has written nothing at all.
    path = root
    handle = os.open(root, os.O_RDONLY)
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    try:
        deadline = time.monotonic() + timeout
        said = False
        while True:
            try:
                fcntl.flock(handle, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise DiagnosticError(
                        [
                            Diagnostic(
                                str(path),
                                1,
                                1,
                                "busy",
                                f"another layergen run holds this project (waited {timeout:g} s)",
                                "let it finish, or stop it; set LAYERGEN_LOCK_TIMEOUT to wait longer",
                            )
                        ]
                    ) from None
                if not said and waiting is not None:
                    waiting("layergen: waiting for another layergen run on this project to finish")
                    said = True
                time.sleep(0.05)
        yield
    finally:
        os.close(handle)  # releases the lock
