"""`layergen adopt FILE[:Class] | FOLDER`: put hand-written layers under a declaration.

For each class: the fixes `check` would make (`**kwargs`, `get_config`, registration) are
made first; the class is read with libcst (never imported); its declaration is written
beside the module (`<module>.layer.yaml`); the module becomes the generated one in place
through the normal generate pipeline (lock, base, tests, package `__init__.py`), where the
members the declaration cannot state as the code does stay the person's, byte for byte.
All classes of a run are adopted, or none (every reason said, located).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..adopt.evidence import evidenced
from ..adopt.located import refused
from ..adopt.module import Share, adopted_module, share
from ..adopt.observed import observed, observed_call
from ..adopt.ownership import Ownership, decide, person_words
from ..adopt.proof import body_text, proves
from ..adopt.reader import Found, code, output_shape, read_module
from ..adopt.shapes import shaped
from ..adopt.trial import Trial
from ..adopt.trial import trial as trial_run
from ..adopt.writer import CALL_TEST, declaration
from ..diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..textfiles import Seen, read_text
from .report import shown
from .run import SAVE_RETRIES, Mode, changed_during_run, one_run

Echo = Callable[..., None]
# What `check --fix` fixes that adopt fixes on the way (they change no saved weight).
FIXED = ("init-kwargs", "config-missing", "unregistered")
# What `check` finds that adopt leaves as it is (a fix would change what the layer
# computes), the generated tests each breaks stated skipped: see `writer.STATED`.
STATED = ("sublayer-dtype",)


@dataclass
class Adopted:
    module: Path
    declaration: Path
    found: Found
    owner: Ownership
    text: str  # the declaration
    source: str  # the module after the fixes
    fixes: list[str]
    seen: Seen  # the module as read: a save since is never overwritten
    given: Any = None  # the example's values and input shape, to declare the class again
    shape: Any = None
    person: dict = field(default_factory=dict)  # the values the person gave
    shape_given: bool = False  # the person gave the input's shape

    def failing(self, failures: dict[str, str]) -> Adopted:
        """This class with the generated tests that failed on it stated in its declaration."""
        if failures == self.found.failing:
            return self
        declared = self._declared(replace(self.found, failing=failures), self.given, self.shape)
        return declared or self  # skips add no problem to an example declared once already

    def observed_example(self, root: Path) -> Adopted | None:
        """This class with the example the project's tests make of it, where they make one
        other than its example (and the format takes it)."""
        if self.shape_given:  # the person's input shape stands
            return None
        seen = observed_call(root, self.module, self.found, self.person)
        if seen is None or seen == (self.given, self.shape):
            return None
        return self._declared(self.found, *seen)

    def _declared(self, found: Found, given, shape) -> Adopted | None:
        """This class declared again with `found`'s facts and that example (None where the
        declaration cannot be written)."""
        text, problems = declaration(self.module, found, self.owner, found.package, given, shape)
        if problems:
            return None
        return replace(self, found=found, given=given, shape=shape, text=text)


def adopt_command(
    targets: list[str],
    config,
    *,
    echo: Echo,
    diff: bool = False,
    examples: list[str] | None = None,
    input_shape: str | None = None,
    observe: bool = True,
    trial: bool = True,
) -> int:
    """`layergen adopt` as the person typed it: `--example name=value`, `--input-shape 2,4`,
    `--no-observe`, `--no-trial`."""
    from ..handwritten import parse_examples, parse_input_shape

    shape = parse_input_shape(input_shape)
    return adopt(
        targets,
        config,
        echo=echo,
        mode="diff" if diff else "write",
        examples=parse_examples(examples or []),
        input_shape=list(shape) if shape else None,
        observe=observe,
        trial=trial,
    )


def adopt(
    targets: list[str],
    config,
    *,
    echo: Echo,
    mode: Mode = "write",
    examples: dict[str, Any] | None = None,
    input_shape: list[int] | None = None,
    observe: bool = True,
    trial: bool = True,
) -> int:
    """Adopt every layer class the targets name; the exit status. Raises DiagnosticError.
    `observe`: run the project's tests for what static evidence lacks (observed.py).
    `trial`: run the generated tests on the code as adopted first, and state each that
    fails skipped with its failure (trial.py)."""
    from ..writes import Changed

    with one_run(config, mode, echo):
        for attempt in range(SAVE_RETRIES + 1):
            try:
                return _adopt(
                    targets, config, echo, mode, examples or {}, input_shape, observe, trial
                )
            except Changed as exc:  # saved by an editor meanwhile: read it again, as it is now
                if attempt == SAVE_RETRIES:
                    raise DiagnosticError([changed_during_run(exc.path)]) from None
        raise AssertionError("unreachable")


def _adopt(targets, config, echo, mode, examples, input_shape, observe, trial) -> int:
    from ..update.lock import Lock

    lock = Lock.read(config.root)
    wanted: list[tuple[Path, str | None, bool]] = []  # module, class, named one
    for item in targets:
        path_text, _, name = item.rpartition(":") if _has_class(item) else (item, "", "")
        path = Path(os.path.abspath(path_text))
        if path.is_dir():
            wanted += [(p, None, False) for p in _modules(path)]
        else:
            wanted.append((path, name or None, bool(name)))
    errors: list[Diagnostic] = []
    adopted: list[Adopted] = []
    for path, name, named in wanted:
        if not path.is_file():
            errors.append(Diagnostic(str(path), None, None, "no-file", "no such file"))
            continue
        done, declared = _declared(path, lock)
        if done is not None and (name in declared if named else _all_declared(path, declared)):
            what = f"`{name}`" if named else "every layer class of it"
            echo(f"{shown(path)}: already adopted: `{done}` declares {what}; nothing to do")
            continue
        if done is not None and not declared:  # generated from a declaration elsewhere
            echo(f"{shown(path)}: already adopted: `{done}` declares it; nothing to do")
            continue
        try:
            adopted += _read(
                path, name, named, config, lock, examples, input_shape, errors, declared, observe
            )
        except DiagnosticError as exc:
            errors.extend(exc.diagnostics)
    if errors:
        raise DiagnosticError(errors)
    if not adopted:
        return 0
    return _write(adopted, config, lock, echo, mode, trial, observe)


def _has_class(item: str) -> bool:
    head, _, tail = item.rpartition(":")
    return bool(head) and tail.isidentifier()


def _modules(folder: Path) -> list[Path]:
    skipped = {"__pycache__", ".venv", "venv", "tests", "test"}
    out = []
    for path in sorted(folder.rglob("*.py")):
        parts = set(path.relative_to(folder).parts[:-1])
        if parts & skipped or path.name.startswith("test_") or path.name == "__init__.py":
            continue
        text = read_text(path)
        if "class " in text and read_module(str(path), text):
            out.append(path)
    return out


def _declared(module: Path, lock) -> tuple[str | None, list[str]]:
    """The declaration that generates `module`, if any, and the classes it declares beside
    the module, in order (none for a declaration elsewhere)."""
    from ..handwritten import declared_by

    beside = module.with_name(module.stem + ".layer.yaml")
    if beside.is_file():
        return str(shown(beside)), _classes(beside)
    return declared_by(module, lock), []


def _classes(declaration: Path) -> list[str]:
    """The classes a declaration file declares, one a document."""
    from ..declaration.yamlfile import load_documents
    from ..kinds import KINDS

    docs = load_documents(str(declaration), declaration.read_bytes())
    return [str(d.data[k]) for d in docs for k in KINDS if k in d.data]


def _all_declared(module: Path, declared: list[str]) -> bool:
    layers = read_module(str(module), read_text(module))
    return all(f.cls.name in declared for f in layers)


def _fixed(path: Path, text: str, lines: range) -> tuple[str, list[str], list]:
    """The module with what `check --fix` fixes of the kinds in FIXED within `lines` (the
    adopted class), what was fixed, and the findings it has no safe fix for."""
    from ..lint.engine import check_files
    from ..lint.fixes import apply_fixes
    from ..lint.settings import load_settings

    settings = load_settings(select=[*FIXED, *STATED])
    report = check_files([path], settings, texts={path: text}, only={path})
    found = [f for f in report.findings.get(path, []) if f.line in lines]
    findings = [f for f in found if f.fix is not None and f.code in FIXED]
    unfixed = [f for f in found if f not in findings]
    if not findings:
        return text, [], unfixed
    notes = [f"{shown(path)}:{f.line}:{f.col}: fixed: {f.message} [{f.code}]" for f in findings]
    return apply_fixes(text, [f.fix for f in findings], settings.style), notes, unfixed


def _read(
    path, name, named, config, lock, examples, input_shape, errors, declared=(), observe=True
) -> list[Adopted]:
    """The classes of the module at `path` to adopt: `name`, or every layer class but those
    its declaration already `declared` (each becomes a document of that declaration)."""
    seen = Seen.read(path)
    original = seen.text or ""
    found = read_module(str(path), original)  # located as the person's file reads
    layers = {f.cls.name: f for f in found}
    if name is not None:
        if name not in layers:
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(path),
                        1,
                        1,
                        "no-class",
                        f"no layer class `{name}` (a class with a `call` method) in this file",
                        did_you_mean(name, list(layers)),
                    )
                ]
            )
        chosen = [layers[name]]
    else:
        chosen = [f for f in found if f.cls.name not in declared]
        if not found:  # a folder lists only modules with a layer: this one was named
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(path),
                        1,
                        1,
                        "no-class",
                        "no layer class (a class with a `call` method) in this file",
                        "name a module that defines a Keras layer, or its folder",
                    )
                ]
            )
    staying = _tested_by_tests(path, {*declared, *(f.cls.name for f in chosen)}, lock, layers)
    if staying is not None:
        errors.append(staying)
        return []
    ready = []
    for item in chosen:
        if item.problems:
            errors.extend(item.problems)
            continue
        memory = _remembered(path, item.cls.name, lock)
        # values the project's own calls of the class pass, where none is given
        given = evidenced(config.root, item, {**memory.get("examples", {}), **examples})
        person = {**memory.get("examples", {}), **examples}
        shape = stated = input_shape or memory.get("input_shape")
        given, shape = shaped(config.root, item, given, person, shape)  # inputs by evidence
        why = None  # what the project's tests show, where static evidence lacks it
        if observe:
            given, shape, why = observed(config.root, path, item, given, shape, person)
        _, problems = declaration(path, item, decide(item), item.package, given, shape)
        if why is not None:  # the refusal says why running the tests did not help
            problems = [_unobserved(p, why) for p in problems]
        if problems:  # located in the file as it is
            errors.extend(problems)
            continue
        ready.append((item, given, shape, person, stated is not None))
    if not ready:
        return []
    # what `check --fix` fixes in the classes, then each class read again from the result
    lines = {n for item, *_ in ready for n in item.lines}
    source, fixes, unfixed = _fixed(path, original, lines)
    decl = path.with_name(path.stem + ".layer.yaml")
    # the declaration's documents on disk come first: a class is rendered after them
    before = read_text(decl) if declared else ""
    render = _renderer(decl, path, config, before)
    out = []
    for item, given, shape, person, shape_given in ready:
        # what `check` finds and adopt leaves: the tests each breaks fail on the code as it is
        left = [(f.code, f.message) for f in unfixed if f.line in item.lines]
        item = next(f for f in read_module(str(path), source) if f.cls.name == item.cls.name)
        item.unfixed = left
        owner = decide(item)
        text, _ = declaration(path, item, owner, item.package, given, shape)
        owner, text = _comments_kept(render, item, owner, text, given, shape, path)
        # `call` and the output shape in the declaration, where they generate the same
        call = item.methods.get("call")  # none: the base's (a class that changes its base)
        body = body_text(call) if call is not None else None
        if body is not None:
            trial_owner = owner.declaring("call", call=body)
            trial, _ = declaration(path, item, trial_owner, item.package, given, shape)
            if proves(render, trial, "call", item):
                owner, text = trial_owner, trial
        method = item.methods.get("compute_output_shape")
        expression = output_shape(method, item) if method is not None else None
        if expression is not None:
            trial_owner = owner.declaring("compute_output_shape", output_shape=expression)
            trial, _ = declaration(path, item, trial_owner, item.package, given, shape)
            if proves(render, trial, "compute_output_shape", item):
                owner, text = trial_owner, trial
        owner, text = _declare_sublayers(render, item, owner, text, given, shape, path)
        owner, text = _reading_what_is_set(render, item, owner, text, given, shape, path)
        # as on disk, after the documents declared already
        refusals = refused(config, path, decl, layers[item.cls.name], then(before, text))
        if refusals:
            errors.extend(refusals)
            continue
        first = [] if out else fixes
        out.append(
            Adopted(
                path,
                decl,
                item,
                owner,
                text,
                source,
                first,
                seen,
                given,
                shape,
                person,
                shape_given,
            )
        )
    return out


def _comments_kept(render, item: Found, owner: Ownership, text: str, given, shape, path):
    """The ownership where each declared member with comments generates as the same code as
    the person's, and its comments go back into the generated one line by line (the module
    then keeps them in it, as a merge keeps a hand edit's comments); one that does not is the
    person's, for the generated one would drop them."""
    from ..adopt.ownership import COMMENTED, has_comments
    from ..adopt.proof import same_method
    from ..update import members
    from ..update.merge import with_comments

    commented = [m for m in owner.declared if has_comments(item, m)]
    if not commented:
        return owner, text
    try:
        generated = render(text)
    except DiagnosticError:
        generated = None

    def kept(member: str) -> bool:  # the generated member, with the comments put back
        if generated is None or not same_method(generated, member, item):
            return False
        ours = item.methods[member]
        made = members.member(generated, f"{item.cls.name}.{member}")
        return with_comments(ours, made) is not ours

    handed = [m for m in commented if not kept(m)]
    if not handed:
        return owner, text
    for member in handed:
        owner = owner.handing(member, COMMENTED)
    return owner, declaration(path, item, owner, item.package, given, shape)[0]


def _reading_what_is_set(render, item: Found, owner: Ownership, text: str, given, shape, path):
    """The ownership where no declared member reads a param's attribute (`self.units`) that
    the adopted class never sets: an `__init__` that stays the person's and stores it under
    another name (`self._units = units`). Such a member stays the person's."""
    from ..adopt.attributes import attributes_read, attributes_set
    from ..update import members

    if "__init__" in owner.declared:
        return owner, text  # the generated `__init__` stores every param as `self.<param>`
    params = {a.name for a in item.cls.args}
    unset = params - attributes_set(item.node)
    if not unset:
        return owner, text
    try:
        generated = render(text)
    except DiagnosticError:
        return owner, text  # refused where it is checked
    if generated is None:
        return owner, text
    handed = False
    for member in list(owner.declared):
        node = members.member(generated, f"{item.cls.name}.{member}")
        read = sorted(attributes_read(node) & unset) if node is not None else []
        if not read:
            continue
        stored = next((a for a, arg in item.stored.items() if arg == read[0]), None)
        why = f"it would read `self.{read[0]}`, which your `__init__` does not set" + (
            f" (it stores `self.{stored}`)" if stored else ""
        )
        owner = owner.handing(member, why)
        if member == "call":
            owner = replace(owner, call=None)
        elif member == "compute_output_shape":
            owner = replace(owner, output_shape=None)
        elif member == "build":
            owner = replace(
                owner, sublayers=[s for s in owner.sublayers if s.get("create") != "build"]
            )
        handed = True
    if not handed:
        return owner, text
    return owner, declaration(path, item, owner, item.package, given, shape)[0]


def _unobserved(problem: Diagnostic, why: str) -> Diagnostic:
    if problem.code != "unknown-example":
        return problem
    return replace(problem, message=f"{problem.message}; its tests were run to observe one: {why}")


def _declare_sublayers(render, item: Found, owner: Ownership, text: str, given, shape, path):
    """The sublayers the class creates, declared where the generated module provably
    creates them as the code does: those `__init__` creates first after storing its
    arguments, then those its `build` creates and builds one after the other (only where
    `build` is the person's, or absent: a generated one would build them otherwise); else
    the ownership as it was."""
    import ast
    import re
    from dataclasses import replace

    from ..adopt.sublayers import in_build, leading
    from ..render.context import KERAS_OBJECT_TYPES

    if not re.search(r"^import keras\s*$", item.module_text, flags=re.MULTILINE):
        return owner, text  # `keras.layers` is then not Keras 3's, as in the generated module
    params = {a.name for a in item.cls.args}
    plain = {p for p in params if owner.types.get(p) not in KERAS_OBJECT_TYPES}
    if "__init__" in owner.declared and item.init_code and "build" not in owner.declared:
        statements = ast.parse(item.init_code).body
        subs = leading(statements, plain, params)
        if subs:
            rest = "\n".join(ast.unparse(s) for s in statements[len(subs) :]) or None
            trial_owner = replace(owner, sublayers=subs, init_rest=rest)
            owner, text = _proven(render, item, owner, text, trial_owner, given, shape, path, plain)
    if (
        "build" in owner.hand_written
        and person_words(item, "build") is None
        and not any(w.method == "build" for w in item.weights)
    ):
        stored = {attr: arg for attr, arg in item.stored.items() if arg in params}
        subs = in_build(code(item.methods["build"]), item.shape_locals, stored)
        if subs:
            trial_owner = owner.declaring("build", sublayers=[*owner.sublayers, *subs])
            owner, text = _proven(render, item, owner, text, trial_owner, given, shape, path, plain)
    return owner, text


def _proven(render, item: Found, owner, text, trial_owner, given, shape, path, plain):
    """`trial_owner` and its declaration where every member it declares generates as the
    class has it (the members declared before too: sublayers change what `build` traces
    and `call` guards), else `owner` and `text` as they were."""
    from ..adopt.proof import same_build, same_init, same_method, same_output_shape

    trial, _ = declaration(path, item, trial_owner, item.package, given, shape)
    try:
        generated = render(trial)
    except DiagnosticError:
        return owner, text
    if generated is None:
        return owner, text
    checks = {
        "__init__": lambda: (
            same_init(generated, item, plain)
            if trial_owner.sublayers
            else same_method(generated, "__init__", item)
        ),
        "build": lambda: same_build(generated, item),
        "call": lambda: same_method(generated, "call", item),
        "compute_output_shape": lambda: same_output_shape(generated, item),
    }
    for member in trial_owner.declared:
        if member in checks and not checks[member]():
            return owner, text
    return trial_owner, trial


def _tested_by_tests(path: Path, adopted: set[str], lock, layers: dict) -> Diagnostic | None:
    """A class staying in the module whose tests `layergen tests` keeps in step: once the
    module is generated, nothing would (its tests would go stale behind a green check)."""
    key = lock.key(path)
    for entry in lock.handwritten.values():
        other = entry["class"]
        if entry["module"] == key and other not in adopted:
            found = layers.get(other)
            return Diagnostic(
                str(path),
                found.line if found else 1,
                found.column if found else 1,
                "adopt-tested-class",
                f"`{other}` stays in this module, and `layergen tests` keeps its tests in step;"
                " a generated module's tests are its declaration's only",
                f"adopt `{other}` too, or move it into a module of its own first",
            )
    return None


def _renderer(decl: Path, module: Path, config, before: str = ""):
    """Renders a trial declaration's module (nothing written), its class declared after the
    documents `before` (those of the module's classes declared already)."""
    from ..generate import render as rendered
    from ..update.lock import Lock

    lock = Lock.read(config.root)  # once for every trial

    def render(text: str) -> str | None:
        return rendered({decl: then(before, text)}, config, lock)[decl].files.get(module)

    return render


def then(before: str, document: str) -> str:
    """A declaration's text with `document` declared after the documents `before`."""
    return f"{before.rstrip()}\n---\n{document}" if before.strip() else document


def _remembered(module: Path, name: str, lock) -> dict:
    """What `layergen tests` was told of the class (examples, input shape), if anything."""
    key = lock.key(module)
    for entry in lock.handwritten.values():
        if entry["module"] == key and entry["class"] == name:
            return entry
    return {}


@dataclass
class Planned:
    """A run adopting classes, planned: what it writes, each class's adopted module and its
    test module (with the text generated for it, before any merge with a person's tests)."""

    outcome: Any
    finals: dict[Path, str]
    tests: dict[tuple[Path, str], Path]  # (module, class) -> its test module
    generated: dict[Path, str]

    def test_of(self, a: Adopted) -> Path:
        return self.tests[(a.module, a.found.cls.name)]

    def trial(self, adopted: list[Adopted], root: Path) -> Trial:
        """The generated tests of the classes, run on the code as this run leaves it."""
        tests = {self.test_of(a): self.generated.get(self.test_of(a), "") for a in adopted}
        return trial_run(root, self.outcome.files, self.outcome.deleted, tests)


def _plan(adopted: list[Adopted], config, lock) -> Planned:
    from ..generate import plan_run
    from ..targets import target
    from ..update.apply import reconcile
    from ..update.changes import LockChanges

    # A module's classes are its declaration's documents: those on disk, then those adopted.
    read = {a.declaration: Seen.read(a.declaration) for a in adopted}
    texts = {d: seen.text or "" for d, seen in read.items()}
    names = {d: _classes(d) if seen.text is not None else [] for d, seen in read.items()}
    for a in adopted:
        texts[a.declaration] = then(texts[a.declaration], a.text)
        names[a.declaration].append(a.found.cls.name)
    # adopt writes what it adopts: a declaration gone from disk (deleted, or renamed and not
    # generated yet) is the next `generate`'s, which sees the whole folder
    run = plan_run(list(texts), config, texts=texts, gone=False)
    tests = {  # where the run placed them
        (a.module, a.found.cls.name): replace(
            target(a.declaration, config), test=run.companions[a.module]
        ).test_of(a.found.cls.name, names[a.declaration].index(a.found.cls.name))
        for a in adopted
    }
    theirs = [
        _tests_taken(test)
        for test in tests.values()
        if test.is_file() and lock.key(test) not in lock.entries
    ]
    if theirs:  # a test module of the person's own: never merged into
        raise DiagnosticError(theirs)
    finals: dict[Path, str] = {}
    changes, moved = LockChanges(), dict(run.moved)  # what adopting adds to the run
    for a in adopted:  # one class after the other, in the module as the ones before left it
        generated = run.generated[a.module]
        before = finals.get(a.module, a.source)
        finals[a.module] = adopted_module(before, a.found.cls.name, generated, a.owner)
        for key, entry in run.lock.handwritten.items():  # its tests are the declaration's
            if entry["module"] == run.lock.key(a.module) and entry["class"] == a.found.cls.name:
                changes.handwritten(key, None)
                old = config.root / key
                new = tests[(a.module, a.found.cls.name)]
                if old != new and old.is_file():
                    moved[new] = old
    for module in finals:  # written as adopted, not merged: its new base has nothing to undo
        if run.lock.key(module) in run.lock.entries:  # (a class of it adopted before)
            changes.forget(module)
    outcome = reconcile(replace(run, changes=run.changes + changes, moved=moved))
    for a in adopted:  # the module as adopted over the merge of a file it had no base for
        outcome.files[a.module] = finals[a.module]
        outcome.conflicts.pop(a.module, None)
        if a.module in outcome.no_base:
            outcome.no_base.remove(a.module)
        outcome.files[a.declaration] = texts[a.declaration]
        outcome.read[a.module] = a.seen
        outcome.read[a.declaration] = read[a.declaration]  # as the run began
    return Planned(outcome, finals, tests, dict(run.generated))


def _tried(adopted: list[Adopted], planned: Planned, config, lock, observe: bool):
    """The classes with the generated tests that fail on the adopted code stated skipped,
    what running them showed, and what it changed of the examples. Where some fail and the
    project's tests make the class another way (observed.py: one construction's values and
    its call's shapes, which fit together), that example is tried too, and kept where fewer
    of its tests fail."""
    tried = planned.trial(adopted, config.root)
    shown = {_key(a): tried.of(planned.test_of(a)) for a in adopted}
    candidates = {}
    for a in adopted:
        if observe and tried.failed.get(planned.test_of(a)):
            other = a.observed_example(config.root)
            if other is not None:
                candidates[_key(a)] = other
    notes = []
    if candidates:
        others = [candidates.get(_key(a), a) for a in adopted]
        try:
            replanned = _plan(others, config, lock)
        except DiagnosticError:  # the example the tests make is one the format refuses
            replanned = None
        again = replanned.trial(others, config.root) if replanned is not None else None
        for other in (o for o in others if _key(o) in candidates) if again else ():
            now, before = again.of(replanned.test_of(other)), shown[_key(other)]
            if _better(now, before):
                shown[_key(other)] = now
                adopted = [other if _key(a) == _key(other) else a for a in adopted]
                notes.append(
                    f"{other.found.cls.name}'s example as its tests make it"
                    f" ({other.given.source}): {_failed(now)} generated tests fail with it,"
                    f" {_failed(before)} with the one found first"
                )
    final = [a.failing(shown[_key(a)].failed.get(planned.test_of(a), {})) for a in adopted]
    merged = Trial(why=tried.why)
    for a in adopted:
        merged.failed.update(shown[_key(a)].failed)
        merged.counts.update(shown[_key(a)].counts)
    return final, merged, notes


def _key(a: Adopted) -> tuple[Path, str]:
    return a.module, a.found.cls.name


def _failed(tried: Trial) -> int:
    return sum(len(failures) for failures in tried.failed.values())


def _better(now: Trial, before: Trial) -> bool:
    """Fewer generated tests fail, as many pass, and the module is collected."""
    a, b = now.counted(), before.counted()
    return (
        bool(a)
        and not a["uncollected"]
        and a["failed"] < b["failed"]
        and a["passed"] >= b["passed"]
    )


def _write(adopted: list[Adopted], config, lock, echo, mode, trial=True, observe=True) -> int:
    """Write what the classes' adoption changes (or print it, in `diff` mode). `trial`: run
    the generated tests on the result first (`_tried`), those that fail stated skipped."""
    from ..writes import write
    from .report import report_unsettled, unified_diff

    planned = _plan(adopted, config, lock)
    tried = None
    if trial:
        before = adopted
        adopted, tried, notes = _tried(adopted, planned, config, lock, observe)
        if any(a is not b for a, b in zip(adopted, before)):  # skips stated, an example
            planned = _plan(adopted, config, lock)
    outcome, finals = planned.outcome, planned.finals
    changed = outcome.changed()
    if mode == "diff":
        for path in changed:
            if not outcome.is_lock_file(path):
                echo(unified_diff(path, outcome.files.get(path, "")), nl=False)
    else:
        # a file saved by an editor meanwhile is never overwritten (`Changed`: adopt again)
        write(outcome.files, delete=outcome.deleted, expected=outcome.read)
    for a in adopted:
        for note in a.fixes:
            echo(note if mode != "diff" else note.replace(": fixed: ", ": would fix: ", 1))
        counted = share(finals[a.module], a.found.cls.name, a.owner)
        _report(a, counted, echo, "would adopt" if mode == "diff" else "adopted")
    if tried is not None:
        _report_trial(tried, notes, echo)
    if mode == "diff":
        return 0
    return 1 if report_unsettled(outcome, echo) else 0


def _report_trial(tried: Trial, notes: list[str], echo: Echo) -> None:
    """What running the generated tests on the adopted code showed."""
    for note in notes:
        echo(note)
    if tried.why is not None and not tried.counts:
        echo(f"warning: adopt did not run the generated tests: {tried.why}; run them yourself")
        return
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(tried.counted().items()))
    stated = " (each stated skipped above, with its failure)" if tried.failed else ""
    echo(f"the generated tests on the code as adopted: {counts}{stated}")
    if tried.why is not None:
        echo(f"warning: {tried.why}")


def _tests_taken(test: Path) -> Diagnostic:
    return Diagnostic(
        str(test),
        1,
        1,
        "adopt-tests",
        "the declaration's generated tests go here, and this test module is yours"
        " (layergen did not write it)",
        f"rename it (such as {test.stem}_mine.py), then adopt again",
    )


def _report(a: Adopted, counted: Share, echo, done: str) -> None:
    kept = ", ".join(a.owner.hand_written) or "nothing"
    echo(
        f"{done} {a.found.cls.name} ({shown(a.module)} -> {shown(a.declaration)}):"
        f" {counted.declared} of {counted.declared + counted.person} lines declared"
        f" ({counted.percent}%), {counted.person} yours (hand_written: {kept})"
    )
    for line in a.text.splitlines():  # where the example's values come from
        if line.startswith("example:  # "):
            echo(f"  {a.found.cls.name}'s example {line.split('# ', 1)[1]}")
    skips = a.text.partition("\ntests:\n  skip:\n")[2]  # the deviations it states
    for name, _, why in (line.strip().partition(": ") for line in skips.splitlines()):
        echo(f"  {a.found.cls.name} skips {name}: {json.loads(why)}")
    raised = a.found.failing.get(CALL_TEST, "")
    if raised and not raised.startswith("AssertionError"):  # the example call itself raises
        echo(
            f"  warning: {a.found.cls.name}'s example call raises ({raised}): the tests that"
            " call it are skipped; give an example the code takes (`example:` in"
            f" {shown(a.declaration)}) and drop their skips"
        )
