"""Writing a run's files, all or none (layergen/writes.py): kills, saves during a run, permissions.

Regression tests: everyday workflows that lost an edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from layergen.config import Config
from layergen.generate import plan
from layergen.writes import write

from helpers import cli as run
from helpers import declaration_path, edit, module, module_path, snapshot

# -- a killed run leaves every file whole ----------------------------------------------------------

N_LAYERS = 6


# A kill between creating a temporary file and renaming it leaves that file behind: `write()`
# names them `.<target name>.<random>.tmp`, next to their target. Nothing else may be left.
STRAY = re.compile(r"^\.(?P<target>.+)\.[A-Za-z0-9_]+\.tmp$")


CHILD = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from layergen.config import Config
    from layergen.generate import plan
    from layergen.writes import write

    root, mode = Path(sys.argv[1]), sys.argv[2]
    outputs = plan(sorted((root / "layers").glob("*.yaml")), Config(root=root))
    real_replace, real_fdopen = os.replace, os.fdopen

    def ready():
        (root / "READY").write_text("")

    if mode == "after-first-rename":
        def replace(src, dst):
            real_replace(src, dst)
            ready()
            time.sleep(600)
        os.replace = replace
    elif mode == "mid-file":
        class HalfWriter:
            def __init__(self, handle):
                self.handle = handle
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                return self.handle.__exit__(*exc)
            def write(self, text):
                self.handle.write(text[: len(text) // 2])
                self.handle.flush()
                ready()
                time.sleep(600)
        os.fdopen = lambda *args, **kwargs: HalfWriter(real_fdopen(*args, **kwargs))
    else:  # a slow disk: the parent kills at a random moment of the writes
        def replace(src, dst):
            time.sleep(0.02)
            real_replace(src, dst)
        os.replace = replace
        ready()
    write(outputs)
    (root / "DONE").write_text("")
""")


def declarations(root: Path, version: int) -> None:
    folder = root / "layers"
    folder.mkdir(exist_ok=True)
    for i in range(N_LAYERS + (version == 2)):  # version 2 adds a layer: its files are new
        (folder / f"layer_{i}.layer.yaml").write_text(
            f"layer: Layer{i}\ndoc: Version {version} of layer {i}.\n"
            f"params:\n  rate: {{type: float, default: 0.{version}}}\ncall: x * rate\n"
        )


def file_bytes(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def kill_run(root: Path, mode: str, delay: float | None = None) -> None:
    for marker in ("READY", "DONE"):
        (root / marker).unlink(missing_ok=True)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), mode], cwd=root)
    try:
        deadline = time.monotonic() + 120
        while not (root / "READY").exists():
            assert child.poll() is None, "the generating process ended before it was killed"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(delay or 0)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()


def check_whole(root: Path, before: dict[Path, bytes], new: dict[Path, str]) -> list[Path]:
    """Every target old or new in full; nothing else but temporary files. Returns the stray ones."""
    strays = []
    for path in root.rglob("*"):
        if not path.is_file() or path.name in ("READY", "DONE") or path.suffix == ".yaml":
            continue
        if path in new:
            content = path.read_bytes()
            assert content == new[path].encode() or content == before.get(
                path
            ), f"{path} is neither old nor new"
        elif path in before:
            assert path.read_bytes() == before[path]
        else:
            match = STRAY.match(path.name)
            assert match and (path.parent / match["target"]) in new, f"unexpected file {path}"
            strays.append(path)
    return strays


@pytest.fixture(scope="module")
def generated_once(tmp_path_factory):
    """Version 1 generated and version 2 declared, with what a complete run of version 2 writes."""
    root = tmp_path_factory.mktemp("killed")
    (root / "pyproject.toml").write_text("[project]\nname = 'killed'\n")
    declarations(root, 1)
    write(plan(sorted((root / "layers").glob("*.yaml")), Config(root=root)))
    declarations(root, 2)
    return root, file_bytes(root), plan(sorted((root / "layers").glob("*.yaml")), Config(root=root))


@pytest.fixture
def project(generated_once):
    """The project as version 1 left it (the generated files name their absolute path: same folder each time)."""
    root, before, new = generated_once
    for path in [p for p in root.rglob("*") if p.is_file() and p not in before]:
        path.unlink()
    for path, content in before.items():
        path.write_bytes(content)
    assert (
        len([p for p in new if p in before and new[p].encode() != before[p]]) >= N_LAYERS
    )  # the run changes files
    return root, before, new


def test_a_kill_after_the_first_rename_leaves_old_and_new_files_whole(project):
    root, before, new = project
    kill_run(root, "after-first-rename")
    assert not (root / "DONE").exists()
    strays = check_whole(root, before, new)
    changed = [p for p in new if p.exists() and p.read_bytes() != before.get(p)]
    assert len(changed) == 1  # the first file renamed; every other one untouched
    # write() stages every file before the first rename: the others wait, complete, beside their targets.
    waiting = {s.parent / STRAY.match(s.name)["target"]: s for s in strays}
    assert changed[0] not in waiting and waiting
    assert all(stray.read_bytes() == new[target].encode() for target, stray in waiting.items())


def test_a_kill_in_the_middle_of_a_file_leaves_the_target_untouched(project):
    root, before, new = project
    kill_run(root, "mid-file")
    (stray,) = check_whole(root, before, new)
    target = stray.parent / STRAY.match(stray.name)["target"]
    assert (
        new[target].encode().startswith(stray.read_bytes())
        and stray.read_bytes() != new[target].encode()
    )
    assert all(p.read_bytes() == before[p] for p in new if p.exists())  # nothing renamed yet
    assert [p for p in new if not p.exists()] == [p for p in new if p not in before]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_kill_at_a_random_moment_leaves_every_file_whole(project, seed):
    root, before, new = project
    kill_run(root, "random", delay=random.Random(seed).uniform(0.0, 0.02 * len(new)))
    check_whole(root, before, new)
    write(new)  # the next run completes the work and clears the leftovers
    assert all(p.read_bytes() == new[p].encode() for p in new)
    assert not [p for p in root.rglob("*.tmp") if STRAY.match(p.name)]


def test_written_files_keep_the_usual_permissions(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    target = tmp_path / "module.py"
    write({target: "x = 1\n"})
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


# -- a save that lands while a run writes is never overwritten ------------------------------------

SAVED = "        # saved in the editor while layergen ran\n"


def save_in_the_editor(root: Path) -> None:
    edit(
        module_path(root),
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n" + SAVED,
    )


@pytest.mark.parametrize("when", ["before the writes", "while staging"])
def test_a_save_during_a_run_is_kept_and_merged(scaler_project, monkeypatch, when):
    import tempfile

    import layergen.writes as writes

    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    saves = []
    owner, name = (writes, "write") if when == "before the writes" else (tempfile, "mkstemp")
    original = getattr(owner, name)

    def saving(*args, **kwargs):
        if not saves:
            saves.append(True)
            save_in_the_editor(scaler_project)
        return original(*args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(owner, name, saving)
        assert run("generate", "layers").exit_code == 0
    code = module(scaler_project)
    assert SAVED in code and "return x * self.scale + self.gain" in code
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_file_that_keeps_changing_is_reported_and_never_overwritten(scaler_project, monkeypatch):
    import layergen.writes as writes

    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    original = writes.write
    count = []

    def saving(*args, **kwargs):
        count.append(True)
        module_path(scaler_project).write_text(module(scaler_project) + f"# save {len(count)}\n")
        return original(*args, **kwargs)

    monkeypatch.setattr(writes, "write", saving)
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "layers/scaler.py" in result.output
    assert "[changed-during-run]" in result.output and "nothing was written" in result.output
    after = snapshot(scaler_project)
    assert after["layers/scaler.py"].endswith(f"# save {len(count)}\n".encode())
    assert {k: v for k, v in after.items() if k != "layers/scaler.py"} == {
        k: v for k, v in before.items() if k != "layers/scaler.py"
    }


# -- a failed write puts back what it replaced: "nothing was written" is true ---------------------


def test_a_failed_rename_of_the_lock_leaves_every_file_as_it_was(scaler_project, monkeypatch):
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        # mine\n",
    )
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    before = snapshot(scaler_project)
    original = os.replace

    def failing(src, dst, *args, **kwargs):
        if Path(dst).name == "layergen.lock":
            raise PermissionError(13, "Permission denied", str(dst))
        return original(src, dst, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", failing)
        result = run("generate", "layers")
    assert result.exit_code == 2 and "nothing was written" in result.output
    assert snapshot(scaler_project) == before
    result = run("generate", "layers")
    assert result.exit_code == 0 and "[conflict]" not in result.output
    assert "        # mine\n" in module(scaler_project)
