"""Regeneration keeps hand edits: member-by-member merge, 3-way fallback, conflicts, --check, --diff."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from layergen.cli import app
from layergen.update.merge import merge

runner = CliRunner()

DECLARATION = """\
layer: Scaler
doc: Multiplies by a learnable per-unit scale.
params:
  gain: {type: float, default: 1.0}
weights:
  scale:
    shape: x[-1]
    initializer: ones
call: x * scale * gain
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "scaler.layer.yaml").write_text(DECLARATION)
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["generate", "layers"]).exit_code == 0
    return tmp_path


def module(project: Path) -> str:
    return (project / "layers" / "scaler.py").read_text()


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def add_param(project: Path) -> None:
    text = DECLARATION.replace("  gain: {type: float, default: 1.0}\n", "  gain: {type: float, default: 1.0}\n  bias: {type: float, default: 0.0}\n")
    (project / "layers" / "scaler.layer.yaml").write_text(text.replace("call: x * scale * gain", "call: x * scale * gain + bias"))


HAND_METHOD = '''
    def describe(self):
        # written by hand
        return f"Scaler(gain={self.gain})"
'''
HAND_HELPER = '''

def double(layer):
    """A helper written by hand."""
    return layer.gain * 2
'''


def test_regeneration_keeps_hand_additions_and_applies_the_new_param(project):
    code = module(project).replace("    def call(", HAND_METHOD.lstrip("\n") + "\n    def call(", 1) + HAND_HELPER
    code = code.replace("import keras\n", "import keras\nimport math  # hand-added import\n", 1)
    (project / "layers" / "scaler.py").write_text(code)
    assert runner.invoke(app, ["generate", "--check", "layers"]).exit_code == 0  # hand edits are not "changes"

    add_param(project)
    before = snapshot(project)
    assert runner.invoke(app, ["generate", "--check", "layers"]).exit_code == 1
    assert snapshot(project) == before  # --check writes nothing
    diff = runner.invoke(app, ["generate", "--diff", "layers"])
    assert "+        self.bias = bias" in diff.output
    assert snapshot(project) == before  # --diff writes nothing

    result = runner.invoke(app, ["generate", "layers"])
    assert result.exit_code == 0, result.output
    merged = module(project)
    assert "def __init__(self, gain=1.0, bias=0.0, **kwargs):" in merged
    assert '"bias": self.bias,' in merged
    assert "return x * self.scale * self.gain + self.bias" in merged
    assert HAND_METHOD.strip() in merged
    assert HAND_HELPER.strip() in merged
    assert "import math  # hand-added import" in merged
    assert "bias" in (project / "tests" / "test_scaler.py").read_text()

    settled = snapshot(project)
    assert runner.invoke(app, ["generate", "layers"]).exit_code == 0
    assert snapshot(project) == settled  # a second run changes no byte
    assert runner.invoke(app, ["generate", "--check", "layers"]).exit_code == 0


def test_an_edit_that_does_not_collide_is_merged_three_way(project):
    code = module(project).replace(
        "    def build(self, input_shape):\n", "    def build(self, input_shape):\n        # hand: built once per input width\n", 1
    )
    (project / "layers" / "scaler.py").write_text(code)
    text = DECLARATION.replace("initializer: ones", "initializer: zeros")
    (project / "layers" / "scaler.layer.yaml").write_text(text)
    assert runner.invoke(app, ["generate", "layers"]).exit_code == 0
    merged = module(project)
    assert "# hand: built once per input width" in merged
    assert 'initializer="zeros"' in merged


def test_a_colliding_edit_is_reported_and_kept(project):
    code = module(project).replace("return x * self.scale * self.gain", "return x * self.scale * self.gain * 0.5  # mine")
    (project / "layers" / "scaler.py").write_text(code)
    (project / "layers" / "scaler.layer.yaml").write_text(DECLARATION.replace("call: x * scale * gain", "call: x * scale + gain"))
    result = runner.invoke(app, ["generate", "layers"])
    assert result.exit_code == 1
    assert "layers/scaler.py:" in result.output and "conflict: `Scaler.call`" in result.output and "[conflict]" in result.output
    assert "* 0.5  # mine" in module(project)  # the person's text is kept
    assert "return x * self.scale + self.gain" in (project / "layers" / "scaler.py.rej").read_text()
    # --force takes the generated version.
    assert runner.invoke(app, ["generate", "--force", "layers"]).exit_code == 0
    assert "return x * self.scale + self.gain" in module(project)
    assert "# mine" not in module(project)


def test_a_member_deleted_by_hand_stays_deleted(project):
    code = module(project)
    start = code.index("    def compute_output_shape")
    end = code.index("    def get_config")
    (project / "layers" / "scaler.py").write_text(code[:start] + code[end:])
    assert runner.invoke(app, ["generate", "layers"]).exit_code == 0
    assert "compute_output_shape" not in module(project)


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_merge_replaces_untouched_members_and_keeps_edited_ones():
    base = dedent('''
        class A:
            def f(self):
                return 1

            def g(self):
                return 2
        ''')
    current = base.replace("return 2", "return 22")
    new = base.replace("return 1", "return 11").replace("return 2", "return 3")
    result = merge(base, current, new)
    assert "return 11" in result.text  # untouched by hand: replaced
    assert "return 22" in result.text  # edited by hand, changed by the generator: a conflict
    assert [c.member for c in result.conflicts] == ["A.g"]


# -- property: no hand edit is ever lost ----------------------------------------

PARAM_NAMES = ["alpha", "beta_", "gamma_", "delta"]
steps = st.lists(
    st.one_of(
        st.tuples(st.just("param"), st.sets(st.sampled_from(PARAM_NAMES))),
        st.tuples(st.just("method"), st.integers(0, 99)),
        st.tuples(st.just("helper"), st.integers(0, 99)),
        st.tuples(st.just("comment"), st.sampled_from(["call", "build", "get_config", "__init__"])),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps)
def test_no_hand_edit_is_ever_lost(tmp_path_factory, sequence):
    from layergen.config import Config
    from layergen.generate import plan_run, write
    from layergen.update.apply import reconcile

    root = tmp_path_factory.mktemp("prop")
    (root / "layers").mkdir()
    declaration = root / "layers" / "scaler.layer.yaml"
    config = Config(root)

    def regenerate(params: set[str]) -> None:
        extra = "".join(f"  {p}: {{type: float, default: 0.5}}\n" for p in sorted(params))
        declaration.write_text(DECLARATION.replace("params:\n", "params:\n" + extra))
        outcome = reconcile(plan_run([declaration], config))
        write({**outcome.files, **outcome.rejects()})

    regenerate(set())
    path = root / "layers" / "scaler.py"
    marks: list[str] = []
    for kind, value in sequence:
        code = path.read_text()
        if kind == "param":
            regenerate(value)
        elif kind == "method":
            mark = f"return {value} + 1000  # hand method {len(marks)}"
            code = code.replace("    def call(", f"    def hand_{len(marks)}(self):\n        {mark}\n\n    def call(", 1)
            marks.append(mark)
        elif kind == "helper":
            mark = f"# hand helper {len(marks)}: {value}"
            code += f"\n\n{mark}\ndef helper_{len(marks)}():\n    return {value}\n"
            marks.append(mark)
        else:
            mark = f"# hand note {len(marks)} in {value}"
            head = f"    def {value}(self"
            at = code.index(head)
            body = code.index("\n", code.index("):", at)) + 1
            code = code[:body] + f"        {mark}\n" + code[body:]
            marks.append(mark)
        if kind != "param":
            path.write_text(code)
        for mark in marks:
            assert mark in path.read_text(), (mark, sequence)


def test_sync_after_a_constructor_argument_is_added_by_hand(project):
    import os
    import subprocess
    import sys

    code = module(project).replace("def __init__(self, gain=1.0, **kwargs):", "def __init__(self, gain=1.0, shift=0.25, **kwargs):")
    code = code.replace("        self.gain = gain\n", "        self.gain = gain\n        self.shift = shift\n")
    code = code.replace("return x * self.scale * self.gain", "return x * self.scale * self.gain + self.shift")
    (project / "layers" / "scaler.py").write_text(code)
    result = runner.invoke(app, ["sync", "layers/scaler.py"])
    assert result.exit_code == 0, result.output
    declaration = (project / "layers" / "scaler.layer.yaml").read_text()
    assert "shift: {type: float, default: 0.25}" in declaration
    assert "doc: Multiplies by a learnable per-unit scale." in declaration  # the rest is kept
    synced = module(project)
    assert '"shift": self.shift,' in synced  # get_config round-trips the new argument
    assert "+ self.shift" in synced  # the hand edit to call is kept
    tests = (project / "tests" / "test_scaler.py").read_text()
    assert '"shift": 0.25' in tests
    env = {**os.environ, "KERAS_BACKEND": "jax", "KERAS_HOME": str(project / ".keras")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning",
                          "tests/test_scaler.py"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]
    # A second sync changes nothing.
    before = snapshot(project)
    assert runner.invoke(app, ["sync", "layers/scaler.py"]).exit_code == 0
    assert {k: v for k, v in snapshot(project).items() if ".keras" not in k} == {k: v for k, v in before.items() if ".keras" not in k}


def test_sync_without_a_declaration_is_a_located_error(project):
    (project / "layers" / "orphan.py").write_text("class Orphan:\n    pass\n")
    result = runner.invoke(app, ["sync", "layers/orphan.py"])
    assert result.exit_code == 2
    assert "orphan.py:1:1: error: no declaration" in result.output


def test_sync_can_pass_over_modules_without_declarations(project):
    (project / "layers" / "orphan.py").write_text("class Orphan:\n    pass\n")
    result = runner.invoke(app, ["sync", "--skip-undeclared", "layers/orphan.py", "layers/scaler.py"])
    assert result.exit_code == 0, result.output


class CountingFormatter:
    """Stands in for black, counting the sources it is given."""

    def __init__(self, monkeypatch):
        from layergen.render import render

        self.real = render.format_code
        self.sources: list[str] = []
        monkeypatch.setattr(render, "format_code", self)

    def __call__(self, code: str, line_length: int = 88) -> str:
        self.sources.append(code)
        return self.real(code, line_length)


def test_an_unchanged_rendering_is_not_formatted_again(project, monkeypatch):
    from layergen.config import load_config
    from layergen.generate import plan_run

    black = CountingFormatter(monkeypatch)
    declaration = project / "layers" / "scaler.layer.yaml"
    run = plan_run([declaration], load_config())
    assert black.sources == []  # module and tests both came from the lock
    assert run.generated[project / "layers" / "scaler.py"] == module(project)

    add_param(project)
    assert runner.invoke(app, ["generate", "layers"]).exit_code == 0
    assert len(black.sources) == 2  # the new param changes the module and the tests
    assert "bias=0.0" in module(project)
    plan_run([declaration], load_config())
    assert len(black.sources) == 2  # and the lock now holds the new texts


def test_a_lock_text_that_does_not_match_its_source_is_never_used(project, monkeypatch):
    """A lock merged by hand may pair one branch's text with another's source digest."""
    import json

    from layergen.config import load_config
    from layergen.generate import plan_run

    lock = project / "layergen.lock"
    data = json.loads(lock.read_text())
    entry = data["files"]["layers/scaler.py"]
    entry["generated"] = entry["generated"].replace("class Scaler", "class Tampered")
    lock.write_text(json.dumps(data))
    black = CountingFormatter(monkeypatch)
    run = plan_run([project / "layers" / "scaler.layer.yaml"], load_config())
    assert len(black.sources) == 1
    assert "class Scaler(keras.layers.Layer)" in run.generated[project / "layers" / "scaler.py"]


def test_a_new_line_length_formats_again(project, monkeypatch):
    import black as real_black

    before = module(project)
    black = CountingFormatter(monkeypatch)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.layergen]\nline-length = 40\n")
    assert runner.invoke(app, ["generate", "layers"]).exit_code == 0
    assert len(black.sources) == 2
    after = module(project)
    assert after != before
    assert real_black.format_str(after, mode=real_black.Mode(line_length=40)) == after
