"""The generated tests of the classes a run adopts, run on the code as adopted before
anything is written (`layergen adopt`, unless `--no-trial`).

Adopting changes no behaviour, so a generated test that fails on the adopted code fails on
the person's code as it was: a deviation from what the test checks (a call that is not
deterministic in inference, a config that drops an argument), or an example the code does
not take. Either way the test cannot gate anything until someone acts, so adopt states it
skipped in the declaration with the failure as its reason, and prints it; the suite it
leaves is green and every failure it tolerates is written down.

The run is a pytest subprocess in a scratch copy of the project with adopt's files in it:
its folders made anew and its files copied (a test imports what the run wrote, never the
original through a link pytest resolves), files of a MiB or more linked (data, weights),
its virtual environments and version control left out.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TIME_LIMIT = 120  # seconds of generated tests per class adopted, at most
LEFT_OUT = {".git", ".hg", ".svn", "__pycache__", "node_modules"}  # and virtual environments
LINKED_FROM = 1 << 20  # bytes: a larger file (data, weights) is linked, not copied
REASON_LENGTH = 200
# terminal escapes and control characters, raw or as pytest's XML report writes them (#x1B)
CONTROL = re.compile(r"(?:\x1b|#x1B)\[[0-9;]*[A-Za-z]|#x[0-9A-F]{2}|[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class Trial:
    """What running the generated tests showed: per test module, the generated tests that
    failed and their failures, and the outcomes counted; why it showed nothing, if so."""

    failed: dict[Path, dict[str, str]] = field(default_factory=dict)
    counts: dict[Path, Counter] = field(default_factory=dict)
    why: str | None = None

    def of(self, test: Path) -> Trial:
        """What it showed of one test module."""
        return Trial(
            {test: self.failed[test]} if test in self.failed else {},
            {test: self.counts[test]} if test in self.counts else {},
            self.why,
        )

    def counted(self) -> Counter:
        return sum(self.counts.values(), Counter())


def trial(root: Path, files: dict[Path, str], deleted, tests: dict[Path, str]) -> Trial:
    """Run the test modules `tests` (path -> the text generated for it, before any merge
    with a person's tests) with the project as `files` and `deleted` leave it."""
    with tempfile.TemporaryDirectory(prefix="layergen-trial-") as scratch:
        scratch = Path(scratch)
        try:
            _mirror(root, scratch, files, deleted)
        except (OSError, ValueError) as exc:  # a file outside the project, a full disk
            return Trial(why=f"the project could not be copied to run them ({exc})")
        report = scratch / ".layergen-trial.xml"
        env = {
            **os.environ,
            # the backend Keras picks for the person (KERAS_BACKEND, else their keras.json)
            "PYTHONPATH": os.pathsep.join([str(scratch), os.environ.get("PYTHONPATH", "")]),
        }
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        command += ["-o", "addopts=", f"--junitxml={report}", "--continue-on-collection-errors"]
        command += [str(scratch / path.relative_to(root)) for path in tests]
        try:
            ran = subprocess.run(
                command,
                cwd=scratch,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIME_LIMIT * len(tests),
            )
        except subprocess.TimeoutExpired:
            return Trial(why=f"the generated tests ran past {TIME_LIMIT * len(tests)} s")
        except OSError as exc:
            return Trial(why=f"the generated tests could not be run ({exc})")
        if "No module named pytest" in ran.stderr:
            return Trial(why="pytest is not installed")
        try:
            cases = list(ET.parse(report).getroot().iter("testcase"))
        except (OSError, ET.ParseError):
            return Trial(why=f"pytest reported nothing ({_last_line(ran.stdout + ran.stderr)})")
    modules = {_dotted(path.relative_to(root)): path for path in tests}
    place = f"{scratch}{os.sep}"  # where the run was: its paths said from the project

    def reason(problem: ET.Element) -> str:
        return _reason(problem).replace(place, "")

    generated = {path: _test_names(text) for path, text in tests.items()}
    out = Trial()
    for case in cases:
        problem = next((c for c in case if c.tag in ("failure", "error")), None)
        if not case.get("classname"):  # a module that could not be collected: said
            path = modules.get(case.get("name", ""))
            if path is not None and problem is not None:
                out.counts.setdefault(path, Counter())["uncollected"] += 1
                out.why = f"{case.get('name')} could not be collected: {reason(problem)}"
            continue
        path = modules.get(case.get("classname", ""))
        if path is None:
            continue
        counts = out.counts.setdefault(path, Counter())
        name = case.get("name", "").partition("[")[0]
        if problem is None:
            counts["skipped" if any(c.tag == "skipped" for c in case) else "passed"] += 1
        elif name in generated[path]:
            counts["failed"] += 1
            out.failed.setdefault(path, {}).setdefault(name, reason(problem))
        else:  # a person's test that fails is theirs to mend: never stated
            counts["failed of yours"] += 1
    return out


def _mirror(root: Path, scratch: Path, files: dict[Path, str], deleted) -> None:
    """The project at `scratch`: its folders made anew (a linked one too: nothing is ever
    written through a link), its files copied but those of a MiB or more (data, weights)
    linked, `files` written over them, `deleted` left out; version control, virtual
    environments and the scratch folder itself (a TMPDIR in the project) left out."""
    gone = {Path(p) for p in deleted}
    visited = {root.resolve(), scratch.resolve()}
    for folder, dirs, names in os.walk(root, followlinks=True):
        here = Path(folder)
        target = scratch / here.relative_to(root)
        target.mkdir(parents=True, exist_ok=True)
        kept = []
        for name in dirs:
            real = (here / name).resolve()
            if name in LEFT_OUT or (here / name / "pyvenv.cfg").exists() or real in visited:
                continue
            visited.add(real)
            kept.append(name)
        dirs[:] = kept
        for name in names:
            source = here / name
            if source in gone or source in files:
                continue
            try:
                if source.suffix == ".py" or source.stat().st_size < LINKED_FROM:
                    shutil.copyfile(source, target / name)
                else:
                    os.symlink(source.resolve(), target / name)
            except OSError:  # unreadable, or a link to nothing: not the tests' to read
                continue
    for path, text in files.items():
        if path not in gone:
            place = scratch / Path(path).relative_to(root)
            place.parent.mkdir(parents=True, exist_ok=True)
            place.write_text(text, encoding="utf-8")


def _dotted(relative: Path) -> str:
    return ".".join(relative.with_suffix("").parts)


def _test_names(text: str) -> set[str]:
    """The test functions of a generated test module."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }


def _reason(problem: ET.Element) -> str:
    """The failure's first line: pytest's message, else the error line of its report."""
    message = (problem.get("message") or "").strip()
    if not message or message in ("collection failure",) or message.startswith("failed on"):
        lines = [
            line[1:].strip()
            for line in (problem.text or "").splitlines()
            if line.startswith("E ") and line[1:].strip()
        ]
        message = next((line for line in lines if re.match(r"\w+(Error|Exception)\b", line)), "")
        message = message or (lines[0] if lines else message)
    message = CONTROL.sub("", message)  # Keras bolds its messages for terminals
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    first = lines[0] if lines else "it failed"
    if first.endswith(":") and len(lines) > 1:  # `AssertionError: ` with its words below
        first = f"{first} {lines[1]}"
    elif "Exception encountered when calling" in first and len(lines) > 1:  # Keras's wrap
        kind = first.partition(":")[0]
        first = lines[1] if re.match(r"\w+(Error|Exception)\b", lines[1]) else f"{kind}: {lines[1]}"
    return first if len(first) <= REASON_LENGTH else first[: REASON_LENGTH - 3] + "..."


def _last_line(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no output"
