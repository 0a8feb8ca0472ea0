"""The problem matcher `init` writes in `.vscode/tasks.json` reads every kind of problem
the commands print: each kind is produced here by running the commands on a project, and
each line they print that names a problem (`... [code]`) must reach the Problems panel
with its file, line, kind and message."""

from __future__ import annotations

import json
import re
import shutil

from helpers import DECLARATION, add_method, edit
from helpers import cli as run

DROPOUT = """\
import keras


class Drop(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras.layers.Dense(4)
        self.dropout = keras.layers.Dropout(0.5)

    def call(self, x, training=None):
        return self.dropout(self.dense(x))
"""
# A line that names a problem: a location, a kind, a message, a code; not a hint.
PROBLEM_LINE = re.compile(r"^\S.*: [a-z][\w -]*: .* \[[\w-]+\]$")


def _outputs(root) -> list[str]:
    """What the commands print for each kind of problem, run as a person runs them."""
    layers = root / "layers"
    outputs = []

    def printed(*args: str, codes: tuple[int, ...]) -> None:
        result = run(*args)
        assert result.exit_code in codes, result.output
        outputs.append(result.output)

    # hand-written: a member the person owns meets a declaration change; warning: no base
    (layers / "owned.layer.yaml").write_text(
        DECLARATION.replace("Scaler", "Owned").replace("params:", "hand_written: [call]\nparams:")
    )
    printed("generate", codes=(0,))
    edit(layers / "owned.layer.yaml", "call: x * scale * gain", "call: x * scale * gain * 2")
    shutil.rmtree(root / ".layergen" / "base")
    printed("generate", codes=(1,))
    # conflict: a hand edit and a declaration change to the same member
    (layers / "gain.layer.yaml").write_text(DECLARATION.replace("Scaler", "Gain"))
    printed("generate", codes=(0, 1))
    edit(layers / "gain.py", "return x * self.scale", "return 2 * x * self.scale")
    edit(layers / "gain.layer.yaml", "call: x * scale * gain", "call: x * scale + gain")
    printed("generate", codes=(1,))
    # orphan: a module edited by hand whose declaration is gone
    (layers / "twin.layer.yaml").write_text(DECLARATION.replace("Scaler", "Twin"))
    printed("generate", "layers/twin.layer.yaml", codes=(1,))  # the conflict waits
    add_method(layers / "twin.py")
    (layers / "twin.layer.yaml").unlink()
    printed("generate", codes=(1,))
    # error: a broken declaration
    (layers / "bad.layer.yaml").write_text("layer: Bad\ncall: x * sclae\nparms: {}\n")
    printed("generate", "layers/bad.layer.yaml", codes=(2,))
    # warning: `layergen check` on a hand-written layer
    (root / "drop.py").write_text(DROPOUT)
    printed("check", "--select", "ALL", "drop.py", codes=(1,))
    return outputs


def test_the_problem_matcher_reads_every_kind_of_problem_the_commands_print(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    assert run("init").exit_code == 0
    tasks = json.loads((tmp_path / ".vscode" / "tasks.json").read_text())["tasks"]
    patterns = {json.dumps(t["problemMatcher"]["pattern"]) for t in tasks}
    (pattern,) = map(json.loads, patterns)  # one for every task
    regexp = re.compile(pattern["regexp"])
    kinds = set()
    for line in "\n".join(_outputs(tmp_path)).splitlines():
        if not PROBLEM_LINE.match(line):
            continue
        match = regexp.match(line)
        assert match, line
        problem = {k: match.group(pattern[k]) for k in ("file", "line", "severity", "message")}
        assert (tmp_path / problem["file"]).is_file(), (problem, line)
        assert int(problem["line"]) >= 1 and problem["message"], line
        assert f": {problem['severity']}: {problem['message']} [" in line
        kinds.add(problem["severity"])
    assert kinds >= {"error", "warning", "conflict", "hand-written", "orphan"}, kinds
