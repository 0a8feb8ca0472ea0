"""`layergen watch`, driven with real file changes in a real process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("watchfiles")

TIMEOUT = 20.0  # seconds to wait for any one thing the watcher should do (a loaded machine is slow)


class Watcher:
    """`layergen watch` in a subprocess; its output (stdout and stderr together) collected as it comes."""

    def __init__(self, project: Path, *args: str):
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "layergen", "watch", *args],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, predicate, what: str, retouch: Path | None = None) -> None:
        """Poll until `predicate()`; rewrite `retouch` now and then, in case a save came before the watcher was set."""
        deadline = time.monotonic() + TIMEOUT
        next_touch = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            if predicate():
                return
            assert (
                self.proc.poll() is None
            ), f"watch exited ({self.proc.returncode}):\n{self.output}"
            if retouch is not None and time.monotonic() > next_touch:
                retouch.write_text(
                    retouch.read_text() + "\n"
                )  # a real change, so it is not ignored as a no-op
                next_touch = time.monotonic() + 2.0
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; output so far:\n{self.output}")

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=TIMEOUT)  # a run in progress finishes first
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._reader.join(timeout=5)
        return self.proc.returncode


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    (tmp_path / "layers").mkdir()
    return tmp_path


def test_watch_regenerates_on_save_and_survives_a_typo(project):
    declaration = project / "layers" / "double.layer.yaml"
    module = project / "layers" / "double.py"
    declaration.write_text("layer: Double\ncall: x * 2\n")
    watcher = Watcher(project)
    try:
        # It brings everything up to date first, then waits.
        watcher.wait_for(
            lambda: "layergen watch: watching layers" in watcher.output, "the first run"
        )
        assert "x * 2" in module.read_text()
        assert (project / "tests" / "test_double.py").is_file()

        # A save regenerates the module.
        declaration.write_text("layer: Double\ncall: x * 3\n")
        watcher.wait_for(
            lambda: module.is_file() and "x * 3" in module.read_text(),
            "the module regenerated",
            retouch=declaration,
        )
        generated = module.read_text()

        # A typo: a located error, nothing written, and the watcher goes on.
        mark = len(watcher.lines)
        declaration.write_text("layer: Double\ncall: x * thre\nparams:\n  three: float\n")
        error = "double.layer.yaml:2:11: error: unknown name `thre` [unknown-name]"
        watcher.wait_for(
            lambda: error in "\n".join(watcher.lines[mark:]),
            "the located error",
            retouch=declaration,
        )
        watcher.wait_for(
            lambda: watcher.lines[-1].startswith("layergen watch: watching"), "watching again"
        )
        assert "did you mean `three`?" in watcher.output
        assert watcher.proc.poll() is None
        assert module.read_text() == generated

        # Fixed: regenerated again.
        declaration.write_text(
            "layer: Double\ncall: x * three\nparams:\n  three: float\nexample:\n  params: {three: 3.0}\n"
        )
        watcher.wait_for(
            lambda: "x * self.three" in module.read_text(),
            "the fixed declaration regenerated",
            retouch=declaration,
        )
    finally:
        watcher.stop()
    assert "Traceback" not in watcher.output, watcher.output


def test_watch_reports_a_missing_folder_and_exits(project):
    result = subprocess.run(
        [sys.executable, "-m", "layergen", "watch", "nowhere"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "nowhere: error: no such file or folder [no-such-file]" in result.stderr


@contextmanager
def watching_in_a_thread():
    """`layergen watch` in a thread of this process, its lines collected; stopped on leaving."""
    from layergen.commands.watch import watch

    lines: list[str] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=watch,
        args=(None,),
        kwargs={"echo": lambda text, err=False: lines.append(text), "stop_event": stop},
    )
    thread.start()
    try:
        yield lines
    finally:
        stop.set()
        thread.join(timeout=TIMEOUT)
    assert not thread.is_alive()


def test_watch_stops_on_its_stop_event(project, monkeypatch):
    monkeypatch.chdir(project)
    (project / "layers" / "half.layer.yaml").write_text("layer: Half\ncall: x / 2\n")
    with watching_in_a_thread() as lines:
        deadline = time.monotonic() + TIMEOUT
        while (
            not any(line.startswith("layergen watch: watching") for line in lines)
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert (project / "layers" / "half.py").is_file()


def test_watch_stops_after_a_first_run_in_a_pool_of_processes(project, monkeypatch):
    """Workers forked while watch holds SIGTERM must not inherit that (they never ended)."""
    monkeypatch.setenv("LAYERGEN_PARALLEL_FROM", "2")
    for number in range(3):
        (project / "layers" / f"half{number}.layer.yaml").write_text(
            f"layer: Half{number}\ncall: x / 2\n"
        )
    watcher = Watcher(project)
    try:
        watcher.wait_for(
            lambda: "layergen watch: watching layers" in watcher.output, "the first run"
        )
        assert all((project / "layers" / f"half{n}.py").is_file() for n in range(3))
        watcher.proc.send_signal(signal.SIGTERM)
        watcher.proc.wait(timeout=TIMEOUT)
    finally:
        watcher.stop()


def test_watch_reports_a_half_typed_module_save_without_a_traceback(project, monkeypatch):
    """`sync` on a module with a syntax error (or not UTF-8) was a libcst
    traceback, printed on every save while a person typed; now a located error each time."""
    monkeypatch.chdir(project)
    (project / "layers" / "half.layer.yaml").write_text("layer: Half\ncall: x / 2\n")
    module = project / "layers" / "half.py"
    with watching_in_a_thread() as lines:

        def wait_for(text: str, saved: bytes | None = None) -> None:
            deadline = time.monotonic() + TIMEOUT
            next_save = time.monotonic() + 2.0
            while not any(text in line for line in lines):
                assert time.monotonic() < deadline, f"no {text!r} in:\n" + "\n".join(lines)
                if saved is not None and time.monotonic() > next_save:  # before it watched
                    module.write_bytes(saved + b"\n")
                    saved, next_save = saved + b"\n", time.monotonic() + 2.0
                time.sleep(0.05)

        wait_for("layergen watch: watching")
        generated = module.read_bytes()
        half_typed = generated.replace(b"return x / 2", b"return (x / 2")
        module.write_bytes(half_typed)
        wait_for("[python-syntax]", half_typed)
        latin_1 = b"# coding: latin-1\n# caf\xe9\n" + generated
        module.write_bytes(latin_1)
        wait_for("[encoding]", latin_1)
    output = "\n".join(lines)
    assert "layers/half.py:" in output and "Traceback" not in output, output


def test_each_watch_run_lets_its_trees_go(scaler_project, monkeypatch):
    """The trees and members' code a run keeps (a run meets them again) are let go when a
    watcher's run ends: a watcher runs for hours."""
    import libcst

    from layergen.commands.watch import runners
    from layergen.textfiles import parsed
    from layergen.update.merge import code

    generate, *_ = runners(quiet=True, echo=lambda *a, **k: None)
    module = scaler_project / "layers" / "scaler.py"
    module.write_text(module.read_text().replace("return", "# by hand\n        return", 1))
    parses = []
    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda text: parses.append(1) or real(text))
    assert generate([scaler_project / "layers" / "scaler.layer.yaml"]) == 0
    assert "# by hand" in module.read_text()
    assert parses  # the run parsed (it merged the edit) ...
    assert parsed.cache_info().currsize == code.cache_info().currsize == 0  # ... and let go
