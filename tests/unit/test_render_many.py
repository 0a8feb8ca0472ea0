"""Rendering many declarations on a pool of processes (layergen/render_many.py).

Regression tests: inputs that gave tracebacks, broken code reported as success.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import DECLARATION


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads children from /proc")
def test_pool_workers_end_quietly_with_a_killed_parent(tmp_path):
    """A SIGKILLed run's workers rendered on and printed BrokenPipe tracebacks handing their
    results to nobody. About 3 s."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    for number in range(12):
        (tmp_path / "layers" / f"s{number}.layer.yaml").write_text(
            DECLARATION.replace("Scaler", f"Scaler{number}")
        )
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as err:
        parent = subprocess.Popen(
            [sys.executable, "-m", "layergen", "generate", "layers"],
            cwd=tmp_path,
            env={**os.environ, "LAYERGEN_PARALLEL_FROM": "2"},
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while not workers and parent.poll() is None and time.monotonic() < deadline:
            workers = [
                int(pid)
                for task in Path(f"/proc/{parent.pid}/task").glob("*")
                for pid in _read(task / "children").split()
            ]
            time.sleep(0.01)
        assert workers, "the run ended before it started a worker"
        time.sleep(0.3)  # a job or two under way
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)
    assert "Traceback" not in stderr.read_text(), stderr.read_text()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    """Running, and not a zombie waiting for its (dead) parent to be reaped."""
    stat = _read(Path(f"/proc/{pid}/stat"))
    return bool(stat) and stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_declarations_of_several_documents_render_alike_on_a_pool(tmp_path, monkeypatch):
    """A declaration file of several classes renders in a worker as in the parent: one
    module with every class, a test module a class."""
    import layergen.render_many as render_many

    from helpers import cli

    second = "---\nlayer: Shifter{n}\ncall: x + 1.0\n"
    texts = {
        f"s{n}.layer.yaml": DECLARATION.replace("Scaler", f"Scaler{n}") + second.format(n=n)
        for n in range(3)
    }
    outputs = []
    for parallel_from in (100, 2):
        root = tmp_path / str(parallel_from)
        (root / "layers").mkdir(parents=True)
        (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
        for name, text in texts.items():
            (root / "layers" / name).write_text(text)
        monkeypatch.chdir(root)
        monkeypatch.setattr(render_many, "PARALLEL_FROM", parallel_from)
        assert cli("generate", "layers").exit_code == 0
        outputs.append(
            {
                str(p.relative_to(root)): p.read_text()
                for p in root.rglob("*.py")
                if "__pycache__" not in p.parts
            }
        )
    assert outputs[0] == outputs[1]
    assert "tests/test_s2_shifter2.py" in outputs[0]
    assert "class Shifter2(" in outputs[0]["layers/s2.py"]
