"""Render the declarations of a run: one after the other, or on every core for many.

A declaration's rendering (YAML, validation, code analysis, templates, black) is about
0.1 s and independent of the others', so past `PARALLEL_FROM` declarations (measured:
benchmarks/project_speed.py --break-even) a pool of forked processes shares them out.
Forked workers start with what the parent imported and compiled, so the parent warms
up first. Results come back in the declarations' order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, DiagnosticError
from .keras_names import FOUND_BY_PATH
from .update.lock import Lock, Record

if TYPE_CHECKING:
    from .config import Config
    from .targets import Target

# Below this many declarations to render, forking workers costs more than it saves. On an
# idle 2-core machine (`benchmarks/project_speed.py --break-even`) the pool ties from 4 and
# wins from 8 (1.15 s against 1.32 s); with the second core busy it lost up to 16.
PARALLEL_FROM = int(os.environ.get("LAYERGEN_PARALLEL_FROM", "8"))


@dataclass(frozen=True)
class Job:
    target: Target
    raw: bytes | None  # None: unreadable (loading it again reports why)
    golden: bool
    inputs: str  # the digest of everything its files are made from


@dataclass
class Rendered:
    files: dict[Path, str] = field(default_factory=dict)  # module, then test module
    sources: dict[Path, str] = field(default_factory=dict)  # path -> digest of its source
    record: Record | None = None
    errors: list[Diagnostic] = field(default_factory=list)
    black_results: dict[str, str] = field(default_factory=dict)  # those a worker used
    # Members the person owns whose body the declaration does not state (`hand_written: [call]`
    # without `call:`): layergen writes a stand-in once and has no generation of them to follow.
    unstated: frozenset[str] = frozenset()


def render_all(
    jobs: list[Job],
    config: Config,
    lock: Lock,
    progress: Callable[[list[Path]], Iterable[Path]] | None = None,
) -> Iterable[Rendered]:
    """Each job's rendering, in order."""
    shown = progress([j.target.declaration for j in jobs]) if progress else None
    # The cores are asked only for a pool's worth (multiprocessing costs a run 2 ms to import).
    if len(jobs) < PARALLEL_FROM or (workers := min(_cores(), len(jobs))) < 2:
        results = (render_one(job, config, lock) for job in jobs)
    else:
        warm_up(config)  # once, in the parent: each worker starts with it
        results = _in_pool(jobs, config, lock, workers)
    for result in results:
        if shown is not None:
            next(shown, None)
        yield result
    if shown is not None:
        for _ in shown:  # let the bar finish
            pass


def render_one(job: Job, config: Config, lock: Lock) -> Rendered:
    """One declaration file's module and test modules (one a class), or its located errors."""
    from .declaration.load import parse_declarations
    from .renames import content
    from .textfiles import read_bytes

    t = job.target
    out = Rendered()
    try:
        raw = read_bytes(t.declaration) if job.raw is None else job.raw
        analyses = parse_declarations(str(t.declaration), raw, mesh_axes=config.mesh_axes)
    except DiagnosticError as exc:
        out.errors = exc.diagnostics
        return out
    try:
        modules = [_render_class(a, i, job, config, lock, out) for i, a in enumerate(analyses)]
        if len(modules) == 1:
            out.sources[t.module], out.files[t.module] = render_file(
                t.module, *modules[0], config, lock
            )
        else:
            out.sources[t.module], out.files[t.module] = _one_module(
                t, analyses, [_source(*m, config) for m in modules], config, lock
            )
    except DiagnosticError as exc:  # a project template that fails
        return Rendered(errors=exc.diagnostics)
    out.files = {t.module: out.files.pop(t.module), **out.files}  # the module first
    if out.errors:
        return Rendered(errors=out.errors)
    first, *more = (
        (a.ir.name, t.registration(a.ir.package), tuple(sorted(a.ir.hand_written)))
        for a in analyses
    )
    out.unstated = frozenset(
        f"{a.ir.name}.call"
        for a in analyses
        if a.ir.call_written_by_layergen and "call" in a.ir.hand_written
    )
    out.record = Record(
        job.inputs,
        tuple(lock.key(path) for path in out.files),
        first[0],
        first[1],
        first[2],
        default_package=t.package,
        layouts=tuple(analyses[0].ir.layouts.items()),
        content=content(job.raw) if job.raw is not None else "",
        classes=tuple(more),
        warnings=_warnings(str(t.declaration), analyses),
    )
    return out


def _warnings(path: str, analyses) -> tuple[tuple[int, int, str, str, str], ...]:
    """What the declaration's classes warn of, as their record keeps it."""
    from .declaration.branches import branch_warnings

    said = [d for a in analyses for d in branch_warnings(path, a.ir)]
    return tuple((d.line, d.col, d.code, d.message, d.hint or "") for d in said)


def _render_class(
    analysis, index: int, job: Job, config: Config, lock: Lock, out: Rendered
) -> tuple[str, dict]:
    """Render one class's test module into `out`; its module's template and context."""
    from .render.context import build_context
    from .render.tests_context import build_test_context

    t, ir = job.target, analysis.ir
    if ir.package is False and t.dotted.split(".")[0] not in FOUND_BY_PATH:
        out.errors.append(
            analysis.doc.error(
                ("package",),
                "bad-package",
                "`package: false` leaves the class unregistered, and Keras finds an"
                f" unregistered class by its module path only in {', '.join(sorted(FOUND_BY_PATH))}",
                "drop `package: false` (or name a package): `load_model` needs the registration",
            )
        )
    if index and ir.layouts:
        out.errors.append(
            analysis.doc.error(
                ("layouts",),
                "layouts-first-class",
                "a module's layouts are declared by its first class",
                "declare this layer in a module of its own, or first in this file",
            )
        )
    source = os.path.relpath(t.declaration, config.root)
    context = build_context(
        ir, package=t.registration(ir.package), source=source, line_length=config.line_length
    )
    test = t.test_of(ir.name, index)
    golden = job.golden if index == 0 else test.with_suffix(".golden.json").is_file()
    test_context = build_test_context(ir, module=t.dotted, source=source, golden=golden)
    edit = None
    if ir.skips and "tests" in test_context:  # a layer's tests, as data
        from .render.skips import skip_tests

        inputs = [k.name for k in ir.keywords]  # the other-values test's, by name
        test_context["tests"], errors = skip_tests(
            test_context["tests"], ir.skips, str(t.declaration), inputs
        )
        out.errors += errors
    elif ir.skips:

        def skipped(text: str) -> str:
            from .render.skips import apply_skips

            text, errors = apply_skips(text, ir.skips, str(t.declaration))
            out.errors += errors
            return text

        edit = skipped
    out.sources[test], out.files[test] = render_file(
        test, ir.kind.test_template, test_context, config, lock, edit
    )
    return ir.kind.template, context


def _one_module(t: Target, analyses, sources: list[str], config: Config, lock: Lock):
    """The digest and text of the module of several classes."""
    from .render.render import format_code, one_module, source_digest

    digest = source_digest("\0".join(sources), config.black)
    text = lock.formatted(t.module, digest)
    if text is not None:
        return digest, text
    try:
        combined = one_module([format_code(s, config.black) for s in sources])
    except ValueError as exc:
        raise DiagnosticError(
            [
                a.doc.error(
                    (a.decl.kind,),
                    "module-name-clash",
                    f"the module-level name `{exc}` is defined by two of its classes' code"
                    " differently",
                    "give one of them another name",
                )
                for a in analyses[1:2]
            ]
        ) from None
    return digest, format_code(combined, config.black)


def _source(template: str, context: dict, config: Config) -> str:
    from .render.render import render_source, template_error

    try:
        return render_source(
            template, context, user_templates=config.user_templates, line_length=config.line_length
        )
    except Exception as exc:
        error = template_error(exc, template, config.user_templates)
        if error is None:
            raise
        raise DiagnosticError([error]) from None


def render_file(
    path: Path,
    template: str,
    context: dict,
    config: Config,
    lock: Lock,
    edit: Callable[[str], str] | None = None,
) -> tuple[str, str]:
    """A file's source digest and its formatted text. A source rendered before formats as it
    did then, and the lock has that text: black runs only for a new source. `edit`: applied
    to the rendered source before it is formatted."""
    from .render.render import format_code, render_source, source_digest, template_error

    try:
        text = render_source(
            template, context, user_templates=config.user_templates, line_length=config.line_length
        )
        if edit is not None:
            text = edit(text)
        digest = source_digest(text, config.black)
        return digest, lock.formatted(path, digest) or format_code(text, config.black)
    except Exception as exc:  # a project template's mistake, located; layergen's own raise on
        error = template_error(exc, template, config.user_templates)
        if error is None:
            raise
        raise DiagnosticError([error]) from None


def warm_up(config: Config) -> None:
    """Import and compile what rendering needs, once per process (and before forking)."""
    import black

    from .declaration import load  # noqa: F401
    from .kinds import KINDS
    from .render import context, tests_context  # noqa: F401
    from .render.render import environment

    env = environment(config.user_templates)
    for kind in KINDS.values():
        env.get_template(kind.template)
        env.get_template(kind.test_template)
    black.format_str("pass\n", mode=black.Mode())  # black loads its grammar on first use


_STATE: tuple = ()  # (config, lock), inherited by forked workers


def _in_pool(jobs: list[Job], config: Config, lock: Lock, workers: int) -> Iterable[Rendered]:
    import multiprocessing

    from .render import formatting

    global _STATE
    _STATE = (config, lock)
    pool = multiprocessing.get_context("fork").Pool(
        workers, initializer=_worker_started, initargs=(os.getpid(),)
    )
    try:
        for rendered in pool.imap(_render_in_worker, jobs):
            formatting.keep(rendered.black_results)  # a worker never saves them: the parent does
            yield rendered
        pool.close()  # every result is in: the workers end on their own
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
        _STATE = ()


def _worker_started(parent: int) -> None:
    """Signals as a plain process has them: the parent may hold SIGTERM and SIGINT (watch
    does, for a clean stop between runs), and a worker that inherited that would never end.
    And the worker ends with its parent: killed (SIGKILL, no clean-up), it left workers that
    rendered on and printed a BrokenPipe traceback for each result nobody would read."""
    import signal

    from .render import formatting

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _end_with_parent(parent)
    formatting.take_used()  # what the parent used before the fork is the parent's to save


def _end_with_parent(parent: int) -> None:
    """Ask the kernel (Linux's prctl) to kill this process when its parent dies."""
    import ctypes
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: no such call
        return
    prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before the call
        os._exit(0)


def _render_in_worker(job: Job) -> Rendered:
    from .render import formatting

    config, lock = _STATE
    rendered = render_one(job, config, lock)
    rendered.black_results = formatting.take_used()
    return rendered


def _cores() -> int:
    """The cores this process may use; 1 where workers cannot be forked (Windows)."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
