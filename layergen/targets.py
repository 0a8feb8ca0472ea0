"""Where a declaration's outputs go: its module, its test module, its import path."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from .config import Config
from .diagnostics import Diagnostic, DiagnosticError
from .kinds import KINDS

SUFFIXES = tuple(kind.suffix for kind in KINDS.values())


@dataclass(frozen=True)
class Target:
    """Where one declaration's outputs go."""

    declaration: Path
    module: Path
    test: Path
    dotted: str  # the module's import path from `import_root`
    package: str  # the registration package
    import_root: Path

    def registration(self, declared: str | Literal[False] | None) -> str:
        """The package a class registers under: the declared one, else the default; "" where
        the declaration says it is not registered (`package: false`)."""
        return "" if declared is False else declared or self.package

    def test_of(self, cls: str, index: int) -> Path:
        """The test module of the module's class `cls`, its `index`th (a declaration file
        declares one class a document): the first class's is named after the module, as a
        module of one class has it; each further one's after the module and the class, so
        adding or removing a class renames no other's tests."""
        if index == 0:
            return self.test
        return test_module(self.test.parent, self.test.stem.removeprefix("test_"), cls)

    def placed(
        self, recorded: Path | None, taken: Collection[Path], renamed: bool = False
    ) -> Target:
        """This target with its test module where it goes: named as the lock recorded it,
        in the tests folder configured now (a declaration keeps its tests' names), else
        `test_<module>.py`, else, where another declaration's tests have that name
        (`layers.py` in two folders) or a test module on disk imports another module (the
        lock lost), with the module's folders before its name, as few as set it apart:
        `test_vit_det_layers.py`. `renamed`: a declaration renamed or moved, whose old tests
        (importing its old module) it takes along: the files on disk are not read."""
        if recorded is not None:
            return replace(self, test=self.test.parent / recorded.name)
        test, folders = self.test, self.dotted.split(".")[:-1]
        for depth in range(1, len(folders) + 1):
            if test not in taken and (renamed or not self._tests_another(test)):
                break
            test = test_module(self.test.parent, "_".join([*folders[-depth:], self.module.stem]))
        return replace(self, test=test)

    def _tests_another(self, test: Path) -> bool:
        """A test module on disk that imports nothing from this module (another module's,
        which a lost lock no longer names): only a declaration the lock does not record
        reads it."""
        from .textfiles import read_text

        try:
            text = read_text(test, missing_ok=True)
        except DiagnosticError:  # not text: not this module's tests either
            return True
        return text is not None and f"from {self.dotted} import " not in text


def test_module(tests_dir: Path, module: str, cls: str | None = None) -> Path:
    """The name of a test module: `test_<module>.py` for a module's only (or first) class,
    `test_<module>_<class>.py` for each of several. The one place this rule is stated, for
    declarations and `layergen tests` alike."""
    return tests_dir / f"test_{module}{'_' + snake(cls) if cls else ''}.py"


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def stem(path: Path) -> str:
    name = path.name
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def module_of(declaration: Path) -> Path:
    """The module a declaration generates: beside it, named after it (the one place this
    rule is stated; `declarations_beside` reads it the other way)."""
    return declaration.parent / f"{stem(declaration)}.py"


def declarations_beside(module: Path) -> list[Path]:
    """The declarations on disk whose module `module` is (one of each kind may be there)."""
    if module.suffix != ".py":
        return []
    candidates = (module.with_name(module.stem + suffix) for suffix in SUFFIXES)
    return [d for d in candidates if module_of(d) == module and d.is_file()]


def target(declaration: Path, config: Config, registered: str | None = None) -> Target:
    """`registered`: the package the declaration's class was registered under when the lock
    last recorded it; it stays the default, so models saved with that class still load."""
    name = stem(declaration)
    folder = declaration.parent
    try:
        try:
            parts = folder.relative_to(config.root).parts
        except ValueError:  # the path reaches the project through a link: where it leads
            parts = folder.resolve().relative_to(config.root).parts
    except ValueError:
        raise DiagnosticError(
            [
                Diagnostic(
                    str(declaration),
                    1,
                    1,
                    "outside-project",
                    f"the declaration is outside the project {config.root}",
                    "run layergen from the project, or move the file into it",
                )
            ]
        ) from None
    import_root = config.root
    if parts and parts[0] == "src":  # the src layout: src/ is not part of import paths
        parts = parts[1:]
        import_root = config.root / "src"
    for part in (*parts, name):
        if not part.isidentifier():
            raise DiagnosticError(
                [
                    Diagnostic(
                        str(declaration),
                        1,
                        1,
                        "bad-module-name",
                        f"`{part}` cannot be part of a Python import path",
                        "use letters, digits and underscores",
                    )
                ]
            )
    dotted = ".".join((*parts, name))
    # The project's name, not the folder's: `layers` would collide across projects.
    package = config.package or registered or config.project_name
    return Target(
        declaration,
        module_of(declaration),
        test_module(config.tests_dir, name),
        dotted,
        package,
        import_root,
    )


Written = dict[Path, tuple[str, Path]]  # {file: (its role, who writes it)}


def tests_kept(lock, leaving: set[Path] = frozenset()) -> Written:
    """The test modules `layergen tests` keeps in step, each written for its hand-written
    module; those of modules in `leaving` left out (a declaration takes them over: `adopt`)."""
    written: Written = {}
    for key, entry in lock.handwritten.items():
        module = lock.root / entry["module"]
        if module not in leaving:
            written[lock.root / key] = ("tests", module)
    return written


def second_writer(writer: Path, outputs: list[tuple[str, Path]], written: Written):
    """The first of `writer`'s outputs ((role, file) each) that another writes (`written`),
    as a located error; None when each file has one writer."""
    import os

    for mine, path in outputs:
        if path in written and written[path][1] != writer:
            theirs, other = written[path]
            return Diagnostic(
                str(writer),
                1,
                1,
                "duplicate-test",
                f"its {mine} would overwrite the {theirs} of {os.path.relpath(other)}"
                f" ({os.path.relpath(path)})",
                "rename one of the files",
            )
    return None


def declarations_write(lock) -> Written:
    """The files the lock records for its declarations still on disk: modules and tests."""
    written: Written = {}
    for key, record in lock.records.items():
        declaration = lock.root / key
        if key.endswith(SUFFIXES) and not record.orphaned and declaration.is_file():
            for i, output in enumerate(record.outputs):
                written[lock.root / output] = ("tests" if i else "module", declaration)
    return written
