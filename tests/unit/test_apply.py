"""Reconcile (layergen/update/apply.py and merge.py): members a person owns, undo of a run,
a lost lock. Issue 34: each test failed on main at 2811b3d."""

from __future__ import annotations

from helpers import DECLARATION, cli, edit, module

# The Scaler declaration with its call taken over as the format says: no `call:` key.
TAKEN_OVER = DECLARATION.replace(
    "call: x * scale * gain\n",
    "hand_written: [call]\nexample:\n  input_shape: [2, 3]\n  reference: x * scale * gain\n",
)


def test_taking_over_a_generated_call_keeps_its_body(scaler_project):
    """Issue 34 item 1: the call, still as generated, became the stand-in `return x` and every
    later run exited 0."""
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(TAKEN_OVER)
    for args in (("generate", "layers"), ("generate", "layers"), ("generate", "--check", "layers")):
        assert cli(*args).exit_code == 0, args
        assert "        return x * self.scale * self.gain\n" in module(scaler_project)


def test_a_change_to_an_owned_build_is_said_on_every_run(scaler_project):
    """Issue 34 item 1: with `hand_written: [build]` and the build still as generated, a new
    weight rewrote the person's build, was said once, then `--check` exited 0."""
    declaration = scaler_project / "layers" / "scaler.layer.yaml"
    edit(declaration, "call: x * scale * gain\n", "call: x * scale * gain\nhand_written: [build]\n")
    assert cli("generate", "layers").exit_code == 0
    build = module(scaler_project).split("def build")[1].split("def call")[0]
    edit(declaration, "weights:\n", "weights:\n  shift: {shape: 'x[-1]', initializer: zeros}\n")
    edit(declaration, "call: x * scale * gain", "call: x * scale * gain + shift")
    for args in (("generate", "layers"), ("generate", "layers"), ("generate", "--check", "layers")):
        result = cli(*args)
        assert result.exit_code == 1 and "[hand-written]" in result.output, (args, result.output)
        assert module(scaler_project).split("def build")[1].split("def call")[0] == build
    assert cli("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    assert "self.shift = self.add_weight(" in module(scaler_project)
    assert cli("generate", "--check", "layers").exit_code == 0
