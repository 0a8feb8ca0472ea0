"""Two runs at once on one project: neither loses the other's lock records."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e  # minutes: generated tests on backends, or many CLI runs

ROUNDS = 20


def declaration(name: str, round_: int) -> str:
    return f"layer: {name}\nparams:\n  rate: {{type: float, default: {round_}.5}}\ncall: x * rate\n"


def test_twenty_rounds_of_two_concurrent_generate_runs_keep_every_edit(tmp_path):
    root = tmp_path
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    layers = root / "layers"
    layers.mkdir()
    names = {"a": "Alpha", "b": "Beta"}
    for stem, name in names.items():
        (layers / f"{stem}.layer.yaml").write_text(declaration(name, 0))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    first = subprocess.run(
        [sys.executable, "-m", "layergen", "generate", "layers"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert first.returncode == 0, first.stderr
    for stem in names:  # a hand edit in each module, which every round must keep
        module = layers / f"{stem}.py"
        module.write_text(
            module.read_text().replace(
                "    def call(", f"    def mine_{stem}(self):\n        return 1\n\n    def call(", 1
            )
        )
    for round_ in range(1, ROUNDS + 1):
        for stem, name in names.items():
            (layers / f"{stem}.layer.yaml").write_text(declaration(name, round_))
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "layergen", "generate", f"layers/{stem}.layer.yaml", "-q"],
                cwd=root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for stem in names
        ]
        for run in runs:
            _, err = run.communicate(timeout=240)
            assert run.returncode == 0, err
        for stem in names:
            text = (layers / f"{stem}.py").read_text()
            assert f"rate={round_}.5" in text, (round_, stem)  # the declaration reached the code
            assert f"def mine_{stem}(self):" in text  # the hand edit is kept
    lock = json.loads((root / "layergen.lock").read_text())
    assert {"layers/a.py", "layers/b.py", "tests/test_a.py", "tests/test_b.py"} <= set(
        lock["files"]
    )
    check = subprocess.run(
        [sys.executable, "-m", "layergen", "generate", "--check", "layers"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stderr  # the lock agrees with every file
    assert not list(root.rglob("*.tmp"))
