"""`layergen watch`: regenerate each declaration when it is saved, and keep watching.

The watcher is handed its runs as callables: `generate(declarations)` when a
declaration is saved, `sync(modules)` when a generated module (a `.py` beside its
declaration) is edited by hand, each returning an exit status (the CLI hands in its
`generate` and `sync`, so output and diagnostics are exactly those of the commands; a
broken save prints its located errors, writes nothing, and watching goes on). A save
runs for what it touched only, in this warm process: `warm_up` loads the pipeline once,
after the first run, so the first save is as quick as the others.

A run starts with `layergen watch: generating ...` (or `syncing ...`) and ends with
`layergen watch: watching ...`: the background problem matcher of the VS Code task that
`layergen init` writes keys on these lines.

A file whose text is what the last run left (layergen's own writes, a save without a
change) starts nothing, so a run never sets off another one.
"""

from __future__ import annotations

import signal
import threading
import traceback
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError
from .output import shown as _shown

Echo = Callable[..., None]


Runner = Callable[[list[Path]], int]


def watch(
    paths: list[Path] | None,
    *,
    generate: Runner,
    sync: Runner | None = None,
    warm_up: Callable[[], None] | None = None,
    quiet: bool = False,
    echo: Echo | None = None,
    stop_event: threading.Event | None = None,
) -> None:
    """Generate everything under `paths` once, then again for each declaration that changes.

    `generate`, `sync`, `warm_up`: see above (`commands/watch.py` hands in layergen's own,
    printing through `echo`). Returns on Ctrl-C or when `stop_event` is set; raises
    `DiagnosticError` when the paths themselves are wrong (nothing to watch).
    """
    from watchfiles import watch as changes

    from .targets import SUFFIXES, declarations_beside

    echo = echo or _echo
    roots = [p.resolve() for p in paths] if paths else []
    if not roots:
        from .config import find_root, no_paths

        raise DiagnosticError([no_paths(find_root(Path.cwd()), "watch", "nothing to watch")])
    missing = [
        Diagnostic(str(p), None, None, "no-such-file", "no such file or folder")
        for p in roots
        if not p.exists()
    ]
    if missing:
        raise DiagnosticError(missing)
    files = {p for p in roots if p.is_file()}
    folders = [p for p in roots if p.is_dir()]
    watched = sorted(
        {*folders, *(p.parent for p in files)}
    )  # a file's folder: editors save by renaming
    syncing = sync is not None

    def is_declaration(path: Path) -> bool:
        return path in files or (
            path.name.endswith(SUFFIXES) and any(path.is_relative_to(f) for f in folders)
        )

    def declaration_beside(module: Path) -> Path | None:
        return next((d for d in declarations_beside(module) if is_declaration(d)), None)

    def wanted(change, path: str) -> bool:
        target = Path(path)
        return is_declaration(target) or (syncing and declaration_beside(target) is not None)

    known: dict[Path, bytes | None] = {}

    def remember(paths: Iterable[Path]) -> None:
        for path in paths:
            known[path] = _read(path)
            module = path.with_name(_stem(path, SUFFIXES) + ".py") if is_declaration(path) else None
            if module is not None:
                known[module] = _read(module)

    shown = ", ".join(str(_shown(p)) for p in roots)
    status = (lambda text: None) if quiet else (lambda text: echo(f"layergen watch: {text}"))

    try:
        status(f"generating {shown}")
        _run(generate, roots, echo)
        if warm_up is not None:
            warm_up()
        remember([*files, *(p for f in folders for p in f.rglob("*.yaml") if is_declaration(p))])
        status(f"watching {shown} (Ctrl-C to stop)")
        for batch in changes(
            *watched, watch_filter=wanted, step=50, stop_event=stop_event, raise_interrupt=True
        ):
            touched = sorted({Path(p) for _, p in batch})
            edited = [
                p for p in touched if p.is_file() and _read(p) != known.get(p)
            ]  # deleted: nothing to do
            declarations = [p for p in edited if is_declaration(p)]
            modules = [
                p
                for p in edited
                if p not in declarations and declaration_beside(p) not in declarations
            ]
            if modules:
                status(f"syncing {', '.join(str(_shown(p)) for p in modules)}")
                _run(sync, modules, echo)
                remember(declaration_beside(m) for m in modules)
            if declarations:
                status(f"generating {', '.join(str(_shown(p)) for p in declarations)}")
                _run(generate, declarations, echo)
                remember(declarations)
            if modules or declarations:
                status(f"watching {shown}")
    except KeyboardInterrupt:
        status("stopped")


def _run(runner: Runner, paths: Iterable[Path], echo: Echo) -> int:
    """One run, in this process; its exit status."""
    with (
        _signals_held() as held
    ):  # Ctrl-C during a run stops the watcher after it, never halfway through a write
        try:
            status = runner(list(paths))
        except Exception:  # a bug in layergen: show it, keep watching
            echo(traceback.format_exc(), err=True)
            status = 3
    if held:
        raise KeyboardInterrupt
    return status


@contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM until the block ends; yields the list of those that came."""
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    signals = [signal.SIGINT, signal.SIGTERM]
    previous = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in signals}
    try:
        yield held
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _read(path: Path) -> bytes | None:
    """The file's bytes (two saves that are not UTF-8 differ too), None if it cannot be read."""
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _stem(path: Path, suffixes: tuple[str, ...]) -> str:
    return next((path.name[: -len(s)] for s in suffixes if path.name.endswith(s)), path.stem)


def _echo(text: str, err: bool = False) -> None:
    import typer

    typer.echo(text, err=err)
