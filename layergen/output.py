"""What a run did to each file, and the one-line summary of a multi-file run.

Styles are ANSI colours that `typer.echo` drops when the output is not a terminal, so
piped or CI output stays plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from pathlib import Path

ORDER = ("created", "updated", "removed", "wrote", "conflicted", "unchanged")
COLOURS = {
    "created": "green",
    "updated": "yellow",
    "removed": "magenta",
    "wrote": "green",
    "conflicted": "red",
    "unchanged": None,
}


def file_states(
    outputs: Iterable[Path],
    changed: Collection[Path],
    created: Collection[Path] | None = None,
    conflicted: Collection[Path] = (),
    removed: Collection[Path] = (),
) -> dict[Path, str]:
    """`created`: the changed files that did not exist before (None: not known, say `wrote`).
    `removed`: files among `outputs` the run deleted (a renamed declaration's old files,
    those of a deleted one)."""
    states = {}
    for path in outputs:
        if path in removed:
            states[path] = "removed"
        elif path in conflicted:
            states[path] = "conflicted"
        elif path not in changed:
            states[path] = "unchanged"
        elif created is None:
            states[path] = "wrote"
        else:
            states[path] = "created" if path in created else "updated"
    return states


def summary(states: dict[Path, str]) -> str:
    counts = {state: sum(1 for s in states.values() if s == state) for state in ORDER}
    always = ("unchanged",) if counts["wrote"] else ("created", "updated", "unchanged")
    parts = [f"{n} {state}" for state, n in counts.items() if n or state in always]
    total = len(states)
    return f"{total} file{'s' if total != 1 else ''}: {', '.join(parts)}"


# The last line of a `--check` that found stale files: the command that fixes it.
CHECK_FIX = "run `layergen generate` to bring them up to date"


def stale(changed: Iterable[Path], bookkeeping: Callable[[Path], bool]) -> list[str]:
    """What `--check` says of the files a run would change: each of the person's, then
    layergen's bookkeeping (the lock, `.layergen/`) in one line, then the fix."""
    changed = list(changed)
    kept = [path for path in changed if bookkeeping(path)]
    lines = [f"would change {shown(path)}" for path in changed if path not in kept]
    if kept:
        names = sorted({"layergen.lock" if p.suffix == ".lock" else ".layergen/" for p in kept})
        count = f"{len(kept)} file{'s' if len(kept) != 1 else ''}"
        lines.append(f"would change layergen's bookkeeping ({' and '.join(names)}: {count})")
    if lines:
        lines.append(f"stale: {CHECK_FIX}")
    return lines


def styled(state: str) -> str:
    import typer

    colour = COLOURS.get(state)
    text = f"{state:10}"
    return typer.style(text, fg=colour) if colour else text


def progress_bar(quiet: bool, threshold: int = 4):
    """A progress bar on stderr for runs of more than a few declarations, on a terminal only."""
    import sys

    if quiet or not sys.stderr.isatty():
        return None

    def show(declarations: list[Path]):
        if len(declarations) < threshold:
            yield from declarations
            return
        from rich.progress import track  # rich comes with typer

        yield from track(
            declarations, description="generating", console=_stderr_console(), transient=True
        )

    return show


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def shown(path: Path) -> Path:
    """`path` relative to the working folder when it is inside it (as a person typed it)."""
    try:
        return Path(path).relative_to(Path.cwd())
    except ValueError:
        return Path(path)
