"""Plan every output file of a run, then write them all or none.

`plan_run()` loads, validates and renders; it returns a `Plan` (every file's text, and what
changes in the lock, which it only reads) or raises a `DiagnosticError` holding every
problem of every file. Reconciling and writing come after (`commands/run.py`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .base_history import rendered_base
from .claims import Unclaimed, unclaimed
from .config import MESH_AXES, Config
from .declaration.layouts import LAYOUT_MODULE
from .diagnostics import Diagnostic, DiagnosticError
from .layout_maps import Sharded, folder_layouts, layout_map_file, name_clashes
from .renames import (
    class_named,
    moved_away,
    moved_files,
    name_taken,
    read_declaration,
    renamed_by_hand,
    renamed_from,
    taken_origins,
)
from .render.support import HOST_DEVICES
from .render_many import Job, Rendered, render_all
from .targets import SUFFIXES, Target, module_of, second_writer, target, tests_kept
from .textfiles import Seen, split_line_ends, with_line_ends
from .update.changes import LockChanges
from .update.lock import Lock, Record
from .update.plan import Plan

CONFTEST = '''"""Written by layergen: lets the generated tests import the project's modules."""

import atexit
import importlib.metadata
import importlib.util
import os
import shutil
import sys
import tempfile

import pytest
from packaging.version import Version

# A failed check of the support module shows the values it compared.
pytest.register_assert_rewrite("layergen_support")

for relative in {roots!r}:
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), relative))
    if root not in sys.path:
        sys.path.insert(0, root)

# Keras keeps its config in KERAS_HOME; keep test runs out of ~/.keras, in a folder of
# this run's that goes when the run ends.
if "KERAS_HOME" not in os.environ:
    os.environ["KERAS_HOME"] = tempfile.mkdtemp(prefix="keras-home-")
    atexit.register(shutil.rmtree, os.environ["KERAS_HOME"], ignore_errors=True)

# Deprecation warnings the frameworks raise in their own code (NumPy 2's `copy`
# keyword in Keras's backends...) say nothing of your layers; yours still show.
FRAMEWORKS = {frameworks!r}

# The packages whose XLA reads XLA_FLAGS, each with its releases known to have XLA's
# flag for its older CPU fusion emitters: from the first, up to the second (not
# included); None: none tried.
XLA_WITH_FUSION_EMITTERS_FLAG = {fusion_emitters_flag!r}


def pytest_configure(config):
    for framework in FRAMEWORKS:
        config.addinivalue_line(
            "filterwarnings", rf"ignore::DeprecationWarning:{{framework}}(\\.|$)"
        )
    keep_jax_compilations(config)
    compile_jax_quickly()
{devices}

def keep_jax_compilations(config):
    """JAX compiles each operation for each shape and dtype it meets, most of a JAX test
    run's time: keep what it compiled in pytest's cache (`pytest --cache-clear` empties
    it), as a rerun meets nearly all of it again. JAX reads these when it is imported,
    in this process or in one the tests start; your own settings win."""
    cache = getattr(config, "cache", None)  # None under `-p no:cacheprovider`
    if cache is None or "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return
    try:
        folder = cache.mkdir("jax")
    except OSError:  # pytest itself only warns that it cannot write its cache
        return
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(folder)
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")


def compile_jax_quickly():
    """A test run compiles hundreds of small programs and runs each a few times: most of
    a first JAX run goes to XLA optimizing them. Ask for quick compiles, for every JAX
    test of this run: JAX's switch (a lower XLA optimization level, on any device), and
    on CPU XLA's older fusion emitters, the flag only where every XLA installed is known
    to have it, as XLA stops the process at a flag it does not know. JAX reads both
    when it starts. Your own JAX_DISABLE_MOST_OPTIMIZATIONS, whatever its value, turns
    both off."""
    if not jax_starts_in_this_run() or "JAX_DISABLE_MOST_OPTIMIZATIONS" in os.environ:
        return
    os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
    flag = "--xla_cpu_use_fusion_emitters"
    flags = os.environ.get("XLA_FLAGS", "")
    if flag not in flags and every_xla_knows_fusion_emitters_flag():
        os.environ["XLA_FLAGS"] = f"{{flags}} {{flag}}=false".strip()


def jax_starts_in_this_run():
    """Whether JAX runs these tests and has yet to read its settings: the backend the
    environment names is JAX, and nothing imported JAX before this conftest."""
    return os.environ.get("KERAS_BACKEND") == "jax" and "jax" not in sys.modules


def every_xla_knows_fusion_emitters_flag():
    """Whether each XLA installed that reads XLA_FLAGS is a release known to have the
    flag: jaxlib's, and TensorFlow's, which Keras or a test may load in a JAX run."""
    installed = [p for p in XLA_WITH_FUSION_EMITTERS_FLAG if importlib.util.find_spec(p)]
    if "jaxlib" not in installed:
        return False
    distributions = importlib.metadata.packages_distributions()
    return all(
        knows_fusion_emitters_flag(package, distributions.get(package, []))
        for package in installed
    )


def knows_fusion_emitters_flag(package, distributions):
    """Whether the distributions installing `package` are releases known to have the
    flag (none found, or metadata unreadable: not known)."""
    known = XLA_WITH_FUSION_EMITTERS_FLAG[package]
    if known is None or not distributions:
        return False
    known_from, known_before = map(Version, known)
    for distribution in distributions:
        try:
            version = Version(importlib.metadata.version(distribution))
        except (importlib.metadata.PackageNotFoundError, ValueError, TypeError):
            return False  # its metadata unreadable (InvalidVersion is a ValueError)
        if not known_from <= version or version.release >= known_before.release:
            return False
    return True
'''
# Written into the conftest of a project with sharded layers: what their tests need.
CONFTEST_DEVICES = """
    # The ModelParallel tests of the sharded layers need {host_devices} devices, which JAX makes of
    # the host's CPU from a flag it reads when it starts: asked for here, those tests
    # run in this process, where your own JAX tests see the devices too (without them,
    # they start a process of their own). A count of your own wins.
    flag = "--xla_force_host_platform_device_count"
    flags = os.environ.get("XLA_FLAGS", "")
    own_count = flag in flags or "JAX_NUM_CPU_DEVICES" in os.environ
    if jax_starts_in_this_run() and not own_count:
        os.environ["XLA_FLAGS"] = f"{{flags}} {{flag}}={host_devices}".strip()
"""
# The packages whose XLA reads XLA_FLAGS, with the releases whose XLA has
# `--xla_cpu_use_fusion_emitters`: from the first, up to the second, not included (later
# patch releases taken to keep it). jaxlib, tried: 0.4.38, 0.5.0 and 0.5.1 have none;
# 0.5.3, 0.6.2, 0.7.2, 0.8.3, 0.9.0, 0.9.2, 0.10.0 and 0.10.2 have it. TensorFlow: 2.19
# has none (beside jaxlib 0.5.3 it stopped at its first XLA-compiled function); 2.20 and
# 2.21 have it. torch_xla: not tried.
XLA_WITH_FUSION_EMITTERS_FLAG = {
    "jaxlib": ("0.5.3", "0.11"),
    "tensorflow": ("2.20", "2.22"),
    "torch_xla": None,
}
# The packages whose own deprecation warnings the generated tests' conftest hides.
FRAMEWORKS = ("keras", "tensorflow", "jax", "jaxlib", "torch", "numpy", "ml_dtypes", "h5py")


def find_declarations(paths: list[Path]) -> list[Path]:
    """The declarations in `paths`, as the user named them: a symlink stays where the link is."""
    found: list[Path] = []
    errors = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*.yaml") if p.name.endswith(SUFFIXES))
            if not inside:
                errors.append(
                    Diagnostic(
                        str(path),
                        1,
                        1,
                        "no-declarations",
                        "the folder holds no declarations",
                        f"declarations are files named like `my_layer.layer.yaml` ({', '.join(SUFFIXES)})",
                    )
                )
            found.extend(inside)
        elif path.is_file() and not path.name.endswith(SUFFIXES):
            errors.append(
                Diagnostic(
                    str(path),
                    1,
                    1,
                    "not-a-declaration",
                    "not a declaration: layergen renders files named like `my_layer.layer.yaml`",
                    f"name the declaration itself ({', '.join(SUFFIXES)}), or its folder;"
                    " `layergen sync` takes a generated module",
                )
            )
        elif path.is_file():
            found.append(path)
        else:
            errors.append(
                Diagnostic(str(path), None, None, "no-such-file", "no such file or folder")
            )
    if errors:
        raise DiagnosticError(errors)
    return list(dict.fromkeys(Path(os.path.abspath(p)) for p in found))


def plan(declarations: list[Path], config: Config) -> dict[Path, str]:
    """The text of every file a run would write, before any merging."""
    return plan_run(declarations, config).files


def plan_run(
    declarations: list[Path],
    config: Config,
    progress: Callable[[list[Path]], Iterable[Path]] | None = None,
    texts: dict[Path, str] | None = None,
    renames: bool = True,
    follow: dict[Path, str] | None = None,
    gone: bool = True,
    lock: Lock | None = None,
) -> Plan:
    """`progress`: an iterable wrapper shown while the declarations are rendered (a progress bar).
    `texts`: declarations' texts to use instead of what is on disk (`sync` tries its edits).
    `renames`: follow declarations renamed or moved since the last run (`new` scaffolds a
    layer that is none). `follow`: renames a person stated ({declaration: the lock's key of
    the one it was}, `layergen mv`). `gone`: settle the declarations gone from disk (their
    files removed, their classes exported no more); a run that changes only what it names
    (`adopt`) leaves them, and the renames it cannot see, to the next run. A declaration
    whose inputs and files are as the lock recorded them is taken from it. `lock`: the lock
    as the caller read it for this run (else read here). A class or module renamed or moved is a refactoring: every
    import of it in the project follows (`move_imports`). The lock is only read: what changes
    in it is in `Plan.changes`."""
    from .inputs import run_inputs
    from .move_imports import followed_imports

    lock = lock if lock is not None else Lock.read(config.root)
    run = run_inputs(config)
    raws = {
        d: texts[d].encode() if texts and d in texts else read_declaration(d) for d in declarations
    }
    errors: list[Diagnostic] = moved_away(lock, declarations, raws)
    # declaration -> the key it was renamed from
    renamed = renamed_from(lock, declarations, raws) if renames else {}
    renamed.update(follow or {})
    followed = set(renamed.values())  # the lock's keys of declarations renamed or moved
    # {file: (its role, the declaration that writes it)}: this run's, and those of the
    # project's other declarations, which a run on part of it leaves alone.
    written, registered_elsewhere = _others(lock, declarations, followed)
    slots = _slots(declarations, raws, renamed, lock, config, run, errors, written)
    jobs = [job for _, _, job in slots if job is not None]
    rendered = iter(list(render_all(jobs, config, lock, progress)) if jobs else [])
    taken = _Taken(written)
    for t, reused, _ in slots:
        result = None if reused else next(rendered)
        taken.add(t, reused, result, raws, renamed, lock, config, errors)
    errors.extend(
        duplicate_registrations(taken.registered, texts, config.mesh_axes, registered_elsewhere)
    )
    errors.extend(taken_origins(taken.moved, taken.written))
    folders = folder_layouts(taken.sharded, lock, [t.declaration for t, _, _ in slots], followed)
    for folder, items in folders.items():
        errors.extend(name_clashes(folder, items, {t.module for t, _, _ in slots}))
    if errors:
        raise DiagnosticError(errors)
    for folder, items in folders.items():  # `get_layout_map` of the folder's layers
        taken.layout_map(folder, items, config, lock, run)
    if slots:  # the tests' shared helpers, merged and updated like generated files
        taken.support_module(config, lock, run)
    left = unclaimed(lock, declarations, followed) if gone else Unclaimed()
    taken.changes.extend(left.changes)
    rewritten = followed_imports(
        config.root, taken.renamed, {*taken.outputs, *taken.moved.values(), *left.removed}
    )
    support, read = package_inits(
        taken.exports, taken.unexported + left.unexported, config, rewritten
    )
    if taken.outputs:
        support.update(written := conftest(config, taken.roots, sharded=any(folders.values())))
        read.update(dict.fromkeys(written, Seen(None)))
    unsettled = _unsettled_elsewhere(lock, {*taken.outputs, *taken.moved.values(), *left.removed})
    return Plan(
        taken.outputs,
        support,
        taken.sources,
        lock,
        taken.companions,
        taken.hand_written,
        unstated=taken.unstated,
        reused=frozenset(taken.reused),
        read=read,
        moved=taken.moved,
        removed={**left.removed, **taken.dropped},
        orphans={**left.kept, **taken.orphans},
        unsettled=unsettled,
        changes=taken.changes,
        rebase=functools.partial(rendered_base, plan=plan_run),
        warnings=tuple(taken.warnings),
    )


Slot = tuple[Target, "tuple[Record, dict[Path, str]] | None", "Job | None"]


def _slots(
    declarations: list[Path],
    raws: dict[Path, bytes | None],
    renamed: dict[Path, str],
    lock: Lock,
    config: Config,
    run: str,
    errors: list[Diagnostic],
    written: Collection[Path] = (),
) -> list[Slot]:
    """Each declaration: its target and either its files from the lock or a job to render
    (a declaration whose target cannot be told: its error, in `errors`). `written`: the files
    the project's other declarations write, whose names a new test module does not take."""
    slots: list[Slot] = []
    taken = _tests_taken(lock, declarations, renamed, written)
    for declaration in declarations:
        try:
            job = _job(
                declaration, raws[declaration], renamed.get(declaration), lock, config, run, taken
            )
        except DiagnosticError as exc:
            errors.extend(exc.diagnostics)
            continue
        reused = lock.reusable(declaration, job.inputs) if job.raw is not None else None
        slots.append((job.target, reused, None if reused else job))
    return slots


def _tests_taken(
    lock: Lock, declarations: list[Path], renamed: dict[Path, str], written: Collection[Path]
) -> set[Path]:
    """The test modules a new declaration's may not be named like: those `written` by the
    project's other declarations, and those the lock records for this run's own."""
    taken = set(written)
    for declaration in declarations:
        recorded = _recorded_test(lock, declaration, renamed.get(declaration))
        if recorded is not None:
            taken.add(recorded)
    return taken


def _recorded_test(lock: Lock, declaration: Path, was: str | None) -> Path | None:
    """The test module the lock records for the declaration under its own key (one renamed
    or moved is named afresh, after its new module)."""
    record = None if was else lock.records.get(lock.key(declaration))
    tests = [lock.root / o for o in (record.outputs if record else ())]
    return next((t for t in tests if t != module_of(declaration)), None)


def _job(
    declaration: Path,
    raw: bytes | None,
    was: str | None,
    lock: Lock,
    config: Config,
    run: str,
    taken: set[Path],
) -> Job:
    """What rendering the declaration takes: its target (its package as the lock registered
    it, under its key or the one it was renamed from: `was`; its test module placed among
    those `taken`, which it joins), its text and its inputs."""
    from .inputs import declaration_inputs

    recorded = lock.records.get(was or lock.key(declaration))
    registered = recorded and (recorded.default_package or recorded.package)
    t = target(declaration, config, registered or None)
    # one renamed or moved takes its old tests along (renames.moved_files), whose imports
    # still name its old module: only the others' placement reads the files on disk
    t = t.placed(_recorded_test(lock, declaration, was), taken, renamed=was is not None)
    taken.add(t.test)
    golden = t.test.with_suffix(".golden.json").is_file()  # recorded outputs: test them
    inputs = declaration_inputs(
        run, config.root, declaration, raw or b"", t.module, t.test, t.dotted, t.package, golden
    )
    return Job(t, raw, golden, inputs)


def render(
    texts: Mapping[Path, str | None], config: Config, lock: Lock | None = None
) -> dict[Path, Rendered]:
    """{declaration: its `Rendered` files}, each declaration rendered from its text in
    `texts` (None: as on disk): the render step alone, no run planned (nothing taken from the lock, no renames
    followed, no packages, conftest or support module). What `sync` and `adopt` try an edit
    with; the run they write is planned once, by `plan_run`. Raises every declaration's
    errors together."""
    from .inputs import run_inputs

    lock = lock if lock is not None else Lock.read(config.root)
    run = run_inputs(config)
    jobs, errors = [], []
    written, _ = _others(lock, list(texts), set())
    taken = _tests_taken(lock, list(texts), {}, written)
    for declaration, text in texts.items():
        try:
            raw = text.encode() if text is not None else read_declaration(declaration)
            jobs.append(_job(declaration, raw, None, lock, config, run, taken))
        except DiagnosticError as exc:
            errors.extend(exc.diagnostics)
    rendered = {job.target.declaration: r for job, r in zip(jobs, render_all(jobs, config, lock))}
    errors.extend(e for r in rendered.values() for e in r.errors)
    if errors:
        raise DiagnosticError(errors)
    return rendered


@dataclass
class _Taken:
    """What the run's declarations make, gathered one declaration at a time."""

    written: dict[Path, tuple[str, Path]]  # {file: (role, declaration)}, all declarations'
    outputs: dict[Path, str] = field(default_factory=dict)
    sources: dict[Path, str] = field(default_factory=dict)
    reused: set[Path] = field(default_factory=set)  # taken from the lock as they are
    exports: dict[Path, list[tuple[str, str]]] = field(
        default_factory=dict
    )  # folder -> (module, class)
    moved: dict[Path, Path] = field(
        default_factory=dict
    )  # a renamed declaration's new file -> its old one
    unexported: list[tuple[Path, str, str]] = field(default_factory=list)  # (folder, module, class)
    # (old module, old class, new module, new class) of each class renamed or moved
    renamed: list[tuple[Path, str, Path, str]] = field(default_factory=list)
    companions: dict[Path, Path] = field(default_factory=dict)
    hand_written: dict[Path, frozenset[str]] = field(default_factory=dict)
    unstated: dict[Path, frozenset[str]] = field(default_factory=dict)
    roots: set[Path] = field(default_factory=set)  # the modules' import roots
    registered: list[tuple[str, str, Path]] = field(default_factory=list)
    sharded: list[Sharded] = field(default_factory=list)  # declarations with layouts
    # The test modules of classes a declaration declares no more: as generated (removed),
    # or edited by hand (kept and reported, by the declaration's key).
    dropped: dict[Path, Seen] = field(default_factory=dict)
    orphans: dict[Path, str] = field(default_factory=dict)
    changes: LockChanges = field(default_factory=LockChanges)
    warnings: list[Diagnostic] = field(default_factory=list)  # said, as the records keep them

    def add(self, t: Target, reused, result, raws, renamed, lock: Lock, config, errors) -> None:
        """A declaration's files, taken from the lock (`reused`) or rendered (`result`)."""
        if reused:
            record, files = reused
        elif result.errors:
            errors.extend(result.errors)
            return
        else:
            record, files = result.record, result.files
            self.sources.update(result.sources)
            if result.unstated:
                self.unstated[t.module] = result.unstated
        outputs = [lock.root / key for key in record.outputs]
        clash = _overwritten(t, outputs, self.written)
        if clash:
            errors.append(clash)
            return
        self.written.update(
            {path: ("tests" if i else "module", t.declaration) for i, path in enumerate(outputs)}
        )
        self.roots.add(t.import_root)
        self.outputs.update(files)
        self.warnings += [
            Diagnostic(str(t.declaration), line, col, code, message, hint, severity="warning")
            for line, col, code, message, hint in record.warnings
        ]
        if reused:
            self.reused.update(files)
        elif not self._follow(t, record, files, raws, renamed, lock, config, errors):
            return
        self.companions[t.module] = t.test
        kept = frozenset(f"{name}.{m}" for name, _, members in record.declared() for m in members)
        if kept:
            self.hand_written[t.module] = kept
        for name, package, _ in record.declared():
            if t.module.parent != config.root:  # a module at the top of the project: no package
                self.exports.setdefault(t.module.parent, []).append((t.module.stem, name))
            if package:  # "": not registered
                self.registered.append((package, name, t.declaration))
        if record.layouts:
            self.sharded.append(Sharded(t.declaration, record.name, record.layouts))

    def _follow(self, t, record, files, raws, renamed, lock: Lock, config, errors) -> bool:
        """A rendered declaration: its class name checked against its module, the files of
        what it was (renamed or moved) taken along, and its record for the lock; whether the
        class name may be taken."""
        was_key = renamed.get(t.declaration) or lock.key(t.declaration)
        was = lock.records.get(was_key)
        taken = name_taken(t, raws[t.declaration], record.name, was, lock)
        taken = taken or renamed_by_hand(t, raws[t.declaration], record.name, lock)
        if taken:
            errors.append(taken)
            return False
        if was is not None:
            self.moved.update(moved_files(lock, was_key, was, t.module, t.test))
            old_module = config.root / was.outputs[0]
            if (old_module, was.name) != (t.module, record.name):
                self.unexported.append((old_module.parent, old_module.stem, was.name))
                self.renamed.append((old_module, was.name, t.module, record.name))
            self._dropped(was_key, was, t, record, lock)
        if t.declaration in renamed:
            self.changes.keep_record(renamed[t.declaration], ())
        self.changes.remember(t.declaration, record, files)
        return True

    def _dropped(self, was_key: str, was: Record, t: Target, record: Record, lock: Lock) -> None:
        """The further classes the declaration declares no more (a document removed): each
        leaves its package, and its test module goes (kept and reported, if edited by hand)."""
        declared = {name for name, _, _ in record.declared()}
        old_module = lock.root / was.outputs[0]
        for name, _, _ in was.classes:
            if name not in declared:
                self.unexported.append((old_module.parent, old_module.stem, name))
        outputs = {lock.root / key for key in record.outputs} | set(self.moved.values())
        for key, (name, _, _) in zip(was.outputs[2:], was.classes):
            path = lock.root / key
            if path in outputs:
                continue
            seen = Seen.read(path)
            if seen.text is None:
                self.changes.forget(path)
            elif split_line_ends(seen.text)[0] == lock.base(path):
                self.dropped[path] = seen
            else:
                self.orphans[path] = f"`{name}` of {was_key}"

    def layout_map(self, folder: Path, items: list[Sharded], config, lock: Lock, run: str):
        files, as_recorded, changes = layout_map_file(folder, items, config, lock, run)
        self.outputs.update(files)
        self.changes.extend(changes)
        if as_recorded:
            self.reused.update(files)
        if folder != config.root:
            self.exports.setdefault(folder, []).append((LAYOUT_MODULE, "get_layout_map"))

    def support_module(self, config: Config, lock: Lock, run: str) -> None:
        support_file = config.tests_dir / "layergen_support.py"
        reused = lock.reusable(support_file, run)
        if reused:
            self.outputs.update(reused[1])
            self.reused.update(reused[1])
            return
        from .render.support import support_files

        supported = support_files(config.tests_dir, user_templates=config.user_templates)
        self.outputs.update(supported)
        self.changes.remember(support_file, Record(run, (lock.key(support_file),)), supported)


def package_inits(
    exports: dict[Path, list[tuple[str, str]]],
    unexported: list[tuple[Path, str, str]],
    config: Config,
    rewritten: dict[Path, tuple[Seen, str]],
) -> tuple[dict[Path, str], dict[Path, Seen]]:
    """The `__init__.py` of each folder with classes to export (`exports`: folder -> (module,
    class)) or to export no more (`unexported`: (folder, module, class)), and each as read;
    the files whose imports followed a rename (`rewritten`: as read, and rewritten), those
    `__init__.py` included. No package of the project is left importing what the run deletes
    or takes away (`package_init.other_packages_checked`)."""
    from .move_imports import import_path
    from .package_init import other_packages_checked, package_init

    support: dict[Path, str] = {}
    read: dict[Path, Seen] = {}
    # The modules the run deletes (a gone class's module that no class is exported from),
    # by import path: no package may import them.
    written = {folder / f"{m}.py" for folder, items in exports.items() for m, _ in items}
    deleted = {folder / f"{m}.py" for folder, m, _ in unexported} - written
    elsewhere = frozenset(filter(None, (import_path(m, config.root) for m in deleted)))
    for folder in dict.fromkeys([*exports, *(f for f, _, _ in unexported)]):
        init = folder / "__init__.py"
        read[init] = rewritten[init][0] if init in rewritten else Seen.read(init)
        existing = rewritten[init][1] if init in rewritten else read[init].text
        gone = [(m, c) for f, m, c in unexported if f == folder]
        if existing is None:
            if folder in exports:
                support[init] = package_init(
                    None, exports[folder], style=config.black, imports=config.imports
                )
        else:
            text, line_ends = split_line_ends(existing)
            package = import_path(init, config.root)
            present = frozenset(
                [entry.name.split(".")[0] for entry in os.scandir(folder)]
                + [
                    f.relative_to(folder).parts[0]
                    for f in exports
                    if f.is_relative_to(folder) and f != folder
                ]
            )  # and the folders this run makes packages of
            new = package_init(
                text,
                exports.get(folder, []),
                gone,
                config.black,
                init,
                package,
                present,
                elsewhere,
                imports=config.imports,
            )
            support[init] = with_line_ends(new, line_ends)
    for path, (seen, text) in rewritten.items():
        support.setdefault(path, text)
        read.setdefault(path, seen)
    declared = {(f, m, c) for f, items in exports.items() for m, c in items}
    gone = {f"{import_path(f / f'{m}.py', config.root)}.{c}" for f, m, c in unexported}
    gone -= {f"{import_path(f / f'{m}.py', config.root)}.{c}" for f, m, c in declared}
    other_packages_checked(config.root, support, read, elsewhere, frozenset(gone))
    return support, read


def _unsettled_elsewhere(lock: Lock, outputs: set[Path]) -> dict[Path, list[int]]:
    """Generated files this run does not write nor move (`outputs`) that hold conflict markers,
    by the lines
    of their markers: a run on part of the project says so too, so no run, and no --check,
    is green while a conflict waits anywhere."""
    from .update import conflicts

    found = {}
    for key in lock.entries:
        path = lock.root / key
        if path in outputs or not key.endswith(".py"):
            continue
        text = Seen.read(path).text
        if text is None or "<<<<<<<" not in text:
            continue
        blocks = conflicts.blocks(split_line_ends(text)[0], lock.base(path))
        if blocks:
            found[path] = [block.start + 1 for block in blocks]
    return found


def _others(
    lock: Lock, declarations: list[Path], followed: set[str]
) -> tuple[dict[Path, tuple[str, Path]], list[tuple[str, str, Path]]]:
    """The declarations the lock records, on disk and not among this run's `declarations` (a
    run on part of the project leaves them alone) nor `followed` by one of them (keys):
    {file: (role, declaration)} for their modules and tests, where the lock says they were
    written (and the test modules `layergen tests` keeps, but for this run's modules), and
    their registrations (package, class, declaration) where the class is still
    the one recorded."""
    here = {lock.key(d) for d in declarations} | followed
    written = tests_kept(lock, leaving={module_of(d) for d in declarations})
    registered: list[tuple[str, str, Path]] = []
    for key, record in lock.records.items():
        declaration = lock.root / key
        if not key.endswith(SUFFIXES) or key in here or not declaration.is_file():
            continue
        for i, output in enumerate(record.outputs):
            written[lock.root / output] = ("tests" if i else "module", declaration)
        if record.name == class_named(read_declaration(declaration) or b""):
            registered += [(p, name, declaration) for name, p, _ in record.declared() if p]
    return written, registered


def _overwritten(
    t: Target, outputs: list[Path], written: dict[Path, tuple[str, Path]]
) -> Diagnostic | None:
    """The declaration `t` would write a file (`outputs`: its module, then its test modules)
    another one writes (`written`): two test modules of one name, a test module `layergen
    tests` keeps, or a test module named like a module (`tests = "layers"` and a declaration
    `test_foo.layer.yaml` beside `foo.layer.yaml`)."""
    roles = [("tests" if i else "module", path) for i, path in enumerate(outputs)]
    return second_writer(t.declaration, roles, written)


def conftest(
    config: Config, import_roots: Iterable[Path], sharded: bool = False
) -> dict[Path, str]:
    """The tests' conftest.py, when there is none yet (a person may edit it freely);
    `sharded`: the project has layers with layouts, tested under ModelParallel."""
    path = config.tests_dir / "conftest.py"
    if path.exists():
        return {}
    from .render.render import format_code

    # "." too: the tests import the support module beside them, also from a tests package.
    roots = sorted({".", *(os.path.relpath(root, config.tests_dir) for root in import_roots)})
    devices = CONFTEST_DEVICES.format(host_devices=HOST_DEVICES) if sharded else ""
    text = CONFTEST.format(
        roots=roots,
        frameworks=FRAMEWORKS,
        fusion_emitters_flag=XLA_WITH_FUSION_EMITTERS_FLAG,
        devices=devices,
    )
    return {path: format_code(text, config.black)}


def duplicate_registrations(
    registered: list[tuple[str, str, Path]],
    texts: dict[Path, str] | None = None,
    mesh_axes: tuple[str, ...] = MESH_AXES,
    elsewhere: Sequence[tuple[str, str, Path]] = (),
) -> list[Diagnostic]:
    """Two classes registered under one `package>Name`: a saved model would reload the wrong one.
    `elsewhere`: the registrations of declarations outside this run, named, not reported."""
    by_key: dict[tuple[str, str], list[Path]] = {}
    for package, name, declaration in [*registered, *elsewhere]:
        by_key.setdefault((package, name), []).append(declaration)
    outside = {declaration for _, _, declaration in elsewhere}
    errors = []
    for (package, name), paths in by_key.items():
        if len(paths) < 2:
            continue
        from .declaration.load import parse_declarations
        from .textfiles import read_bytes

        for path in paths:  # read again, for the place of the error (a rare, failing run)
            if path in outside:
                continue
            raw = texts[path].encode() if texts and path in texts else read_bytes(path)
            analyses = parse_declarations(str(path), raw, mesh_axes=mesh_axes)
            analysis = next((a for a in analyses if a.decl.name == name), analyses[0])
            others = ", ".join(os.path.relpath(p) for p in paths if p != path)
            errors.append(
                analysis.doc.error(
                    (analysis.decl.kind,),
                    "duplicate-name",
                    f"`{package}>{name}` is also declared in {others}; Keras would load one for the other",
                    "rename one of the classes, or give them different `package`s",
                )
            )
    return errors
