"""`layergen resolve`: settle the conflicts in files, keeping one side of each."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from ..update.conflicts import Side
from .report import Echo, shown
from .run import one_run


def resolve(files: list[Path], side: Side | None, *, echo: Echo, quiet: bool = False) -> int:
    """`side` None: the person said neither or both; the exit status. The project's
    configuration is read once the arguments are known to be right."""
    from ..config import load_config
    from ..update.settle import settle
    from ..writes import write

    if side is None:
        raise DiagnosticError(
            [
                Diagnostic(
                    "resolve",
                    1,
                    1,
                    "bad-option",
                    "say which side to keep",
                    "pass --ours or --theirs",
                )
            ]
        )
    missing = [
        Diagnostic(str(f), None, None, "no-such-file", "no such file")
        for f in files
        if not f.is_file()
    ]
    if missing:
        raise DiagnosticError(missing)
    config = load_config()
    resolved = [f.resolve() for f in files]
    with one_run(config, "write", echo):
        done = settle(resolved, side, config.root)
        given_back = _given_back(done.taken, done.lock)
        write({**done.texts, **given_back, **(done.lock.files() if done.lock else {})})
    if not quiet:
        for f in resolved:
            echo(f"{'resolved' if f in done.resolved else 'no conflict':10} {shown(f)}")
        _say_taken(done.taken, done.texts, echo)
    if not given_back:
        return 0
    from .generate import generate  # the declarations changed: their files and the lock follow

    return generate(list(given_back), config, echo=echo, quiet=quiet)


def _say_taken(taken: dict[Path, list[str]], texts: dict[Path, str], echo: Echo) -> None:
    """Each member of the person's that `--theirs` replaced with its generation, at its line:
    it was theirs, so it is said (a conflict elsewhere in the file is what they may have had
    in mind)."""
    from ..textfiles import read_text
    from ..update import members

    for path, names in taken.items():
        text = texts.get(path) or read_text(path) or ""
        for name in names:
            echo(
                f"{shown(path)}:{members.line(text, name)}: took the generated `{name}`"
                " in place of yours; it is the declaration's again (no longer hand_written)"
            )


def _given_back(taken: dict[Path, list[str]], lock) -> dict[Path, str]:
    """The declarations of members whose generation `--theirs` took, without them under
    `hand_written`: they are the declaration's again, and its next changes are made to them."""
    from ..sync import without_hand_written
    from ..textfiles import read_text

    out: dict[Path, str] = {}
    for path, names in taken.items():
        key = lock.key(path)
        for declaration, record in lock.records.items():
            file = lock.root / declaration
            if key in record.outputs and file.is_file():
                text = out.get(file) or read_text(file)
                if without_hand_written(text, names) != text:
                    out[file] = without_hand_written(text, names)
    return out
