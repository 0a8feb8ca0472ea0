"""A model-based test of editing a generated project: hand edits, declaration edits and every
command, in random orders, with the invariants of issue 10 checked after every step.

- No hand edit is lost, except by `--force` or by settling a conflict with the generated side.
- `generate --check` exits 1 exactly when `generate` would change a file or report a conflict,
  and writes nothing.
- After `generate` exits 0, the declaration is all in the code (`--check` is clean); after it
  exits 1, the conflict is in a file, between markers.
- Every file parses as Python, except while it holds conflict markers.
"""

from __future__ import annotations

import ast
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from typer.testing import CliRunner

from layergen.cli import app

from helpers import snapshot

pytestmark = pytest.mark.e2e  # minutes: generated tests on backends, or many CLI runs

runner = CliRunner()
CALLS = ["x * scale * gain", "x * scale + gain", "(x - gain) * scale"]
MEMBERS = ["call", "build", "get_config", "compute_output_shape"]


def declaration(call: str, default: float, shift: bool) -> str:
    return (
        "layer: Scaler\n"
        "doc: Multiplies by a learnable per-unit scale.\n"
        "params:\n"
        f"  gain: {{type: float, default: {default}}}\n"
        + ("  shift: {type: float, default: 0.0}\n" if shift else "")
        + "weights:\n  scale:\n    shape: x[-1]\n    initializer: ones\n"
        f"call: {call}\n"
    )


class EditingAProject(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.previous = os.getcwd()
        self.root = Path(tempfile.mkdtemp(prefix="layergen-stateful-"))
        (self.root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
        (self.root / "layers").mkdir()
        self.spec = {"call": CALLS[0], "default": 1.0, "shift": False}
        self.write_declaration()
        os.chdir(self.root)
        assert self.cli("generate", "layers").exit_code == 0
        self.marks: set[str] = set()  # hand edits that must survive
        self.count = 0

    def teardown(self):
        os.chdir(self.previous)
        shutil.rmtree(self.root, ignore_errors=True)

    # -- helpers ------------------------------------------------------------------------------

    @property
    def module(self) -> Path:
        return self.root / "layers" / "scaler.py"

    @property
    def test_module(self) -> Path:
        return self.root / "tests" / "test_scaler.py"

    def texts(self) -> str:
        return "".join(
            p.read_text()
            for p in (self.module, self.test_module, self.root / "layers" / "scaler.layer.yaml")
        )

    def write_declaration(self) -> None:
        path = self.root / "layers" / "scaler.layer.yaml"
        if path.exists():  # edits that sync carried into the declaration: the person rewrites them
            self.marks = {m for m in self.marks if m not in path.read_text()}
        path.write_text(declaration(**self.spec))

    def cli(self, *args: str):
        result = runner.invoke(app, list(args))
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
        return result

    def has_markers(self) -> bool:
        return any("<<<<<<< yours" in p.read_text() for p in (self.module, self.test_module))

    def mark(self) -> str:
        self.count += 1
        return f"hand edit {self.count}"

    def forget_lost_marks(self) -> None:
        """After an explicit act that may drop hand edits: track what is left."""
        text = self.texts()
        self.marks = {m for m in self.marks if m in text}

    # -- hand edits ---------------------------------------------------------------------------

    @precondition(lambda self: not self.has_markers())
    @rule(member=st.sampled_from(MEMBERS))
    def comment_in_a_member(self, member):
        code = self.module.read_text()
        head = code.find(f"    def {member}(self")
        if head < 0:
            return
        body = code.index("\n", code.index("):", head)) + 1
        mark = self.mark()
        self.module.write_text(code[:body] + f"        # {mark}\n" + code[body:])
        self.marks.add(mark)

    @precondition(lambda self: not self.has_markers())
    @rule()
    def change_the_call_by_hand(self):
        code = self.module.read_text()
        start = code.find("    def call(self")
        end = code.find("\n    def ", start + 1)
        if start < 0 or "        return " not in code[start:end]:
            return
        mark = self.mark()
        at = code.index("        return ", start)
        line_end = code.index("\n", at)
        self.module.write_text(code[:line_end] + f" * 0.5  # {mark}" + code[line_end:])
        self.marks.add(mark)

    @precondition(lambda self: not self.has_markers())
    @rule()
    def add_a_method(self):
        code = self.module.read_text()
        if "    def call(self" not in code:
            return
        mark = self.mark()
        method = f"    def helper_{self.count}(self):\n        return '{mark}'\n\n"
        self.module.write_text(code.replace("    def call(self", method + "    def call(self", 1))
        self.marks.add(mark)

    @precondition(lambda self: not self.has_markers())
    @rule()
    def add_a_test(self):
        mark = self.mark()
        self.test_module.write_text(
            self.test_module.read_text()
            + f"\n\ndef test_hand_{self.count}():\n    assert '{mark}'\n"
        )
        self.marks.add(mark)

    @precondition(lambda self: not self.has_markers())
    @rule()
    def delete_compute_output_shape(self):
        code = self.module.read_text()
        start = code.find("    def compute_output_shape(")
        if start < 0:
            return
        end = code.find("\n    def ", start + 1)
        self.module.write_text(code[:start] + code[end + 1 :])

    # -- declaration edits --------------------------------------------------------------------

    @rule(call=st.sampled_from(CALLS), default=st.sampled_from([1.0, 2.0]), shift=st.booleans())
    def edit_the_declaration(self, call, default, shift):
        self.spec = {"call": call, "default": default, "shift": shift}
        self.write_declaration()

    @precondition(lambda self: not self.has_markers())
    @rule()
    def edit_the_call_on_both_sides(self):
        """The case that matters most, made common: the same lines changed by hand and in the declaration."""
        self.change_the_call_by_hand()
        self.spec = {**self.spec, "call": CALLS[(CALLS.index(self.spec["call"]) + 1) % len(CALLS)]}
        self.write_declaration()

    # -- commands -----------------------------------------------------------------------------

    @rule()
    def generate(self):
        result = self.cli("generate", "layers")
        assert result.exit_code in (0, 1), result.output
        if result.exit_code == 1:
            assert "[conflict]" in result.output and self.has_markers()
        else:
            assert not self.has_markers()
            assert (
                self.cli("generate", "--check", "layers").exit_code == 0
            ), "generate left work undone"

    @rule()
    def check_tells_the_truth(self):
        before = snapshot(self.root)
        check = self.cli("generate", "--check", "layers").exit_code
        assert snapshot(self.root) == before, "--check wrote something"
        copy = Path(tempfile.mkdtemp(prefix="layergen-copy-")) / "p"
        shutil.copytree(self.root, copy)
        try:
            os.chdir(copy)
            generated = self.cli("generate", "layers").exit_code
            would = generated == 1 or snapshot(copy) != before
        finally:
            os.chdir(self.root)
            shutil.rmtree(copy.parent, ignore_errors=True)
        assert check == (1 if would else 0), (check, generated)

    @rule()
    def sync(self):
        result = self.cli("sync", "layers/scaler.py")
        assert result.exit_code in (0, 1), result.output
        if result.exit_code == 1:
            assert "[conflict]" in result.output and self.has_markers()

    @rule()
    def tests_for_the_module(self):
        # A hand-written-style run over the module: never touches its own merge target badly.
        if self.has_markers():
            return
        result = self.cli("tests", "layers/scaler.py", "--input-shape", "2,4")
        assert result.exit_code in (0, 1), result.output

    @precondition(lambda self: self.has_markers())
    @rule(side=st.sampled_from(["--ours", "--theirs"]))
    def settle(self, side):
        assert self.cli("resolve", "layers/scaler.py", "tests/test_scaler.py", side).exit_code == 0
        if side == "--theirs":
            self.forget_lost_marks()  # taking the generated side is an explicit act

    @rule()
    def force(self):
        assert self.cli("generate", "--force", "layers").exit_code == 0
        self.forget_lost_marks()

    # -- invariants ---------------------------------------------------------------------------

    @invariant()
    def no_hand_edit_is_lost(self):
        text = self.texts()
        lost = [m for m in self.marks if m not in text]
        assert not lost, lost

    @invariant()
    def an_unsettled_conflict_fails_check(self):
        if self.has_markers():
            assert self.cli("generate", "--check", "layers").exit_code == 1

    @invariant()
    def every_file_parses_unless_it_holds_markers(self):
        for path in (self.module, self.test_module, *self.root.glob("tests/test_*.py")):
            text = path.read_text()
            if "<<<<<<< yours" not in text:
                ast.parse(text)


EditingAProject.TestCase.settings = settings(
    max_examples=int(os.environ.get("LAYERGEN_STATEFUL_EXAMPLES", "20")),
    stateful_step_count=16,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
test_editing_a_project = EditingAProject.TestCase
