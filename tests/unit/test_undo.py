"""Undo of a run (layergen/update/members.py `put_back`, the lock's `Entry.undo`): a run counts
as undone when every member it changed stands as it was before it, a whole-file put-back or
all its members put back; a hand edit that takes back part of a run is a hand edit, and stays.
"""

from __future__ import annotations

from helpers import cli, declaration_path, edit, module, module_path

BIAS = "  bias: {shape: 'x[-1]', initializer: zeros}\n"


def test_taking_back_part_of_a_clean_run_by_hand_stays(scaler_project):
    """The declaration added a bias weight (build and call); later the person removed
    `+ self.bias` from `call` by hand: every generate put it back, exit 0, no word, as if the
    run had been undone, though `build` still created the bias."""
    edit(declaration_path(scaler_project), "weights:\n", "weights:\n" + BIAS)
    edit(
        declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale * gain + bias"
    )
    assert cli("generate", "layers").exit_code == 0
    assert "        return x * self.scale * self.gain + self.bias\n" in module(scaler_project)
    edit(module_path(scaler_project), " + self.bias\n", "\n")
    for args in (("generate", "layers"), ("generate", "--check", "layers")):
        assert cli(*args).exit_code == 0, args
        code = module(scaler_project)
        assert "        return x * self.scale * self.gain\n" in code, args
        assert 'name="bias"' in code  # the rest of the run stands


def test_every_member_of_a_run_put_back_is_an_undo(scaler_project):
    """All the members a run changed put back by hand (another member edited besides): the
    run is undone, and the next run merges its changes again."""
    before = module(scaler_project)
    edit(declaration_path(scaler_project), "weights:\n", "weights:\n" + BIAS)
    edit(
        declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale * gain + bias"
    )
    assert cli("generate", "layers").exit_code == 0
    module_path(scaler_project).write_text(
        before.replace(
            "    def compute_output_shape(self, input_shape):\n",
            "    def compute_output_shape(self, input_shape):\n        # mine\n",
        )
    )
    assert cli("generate", "--check", "layers").exit_code == 1
    assert cli("generate", "layers").exit_code == 0
    code = module(scaler_project)
    assert "+ self.bias\n" in code and 'name="bias"' in code and "        # mine\n" in code


def test_a_comment_typed_after_an_undo_keeps_it_an_undo(scaler_project):
    """An editor's undo of a run, then a comment typed in a member the run changed: the
    members stand as before it, comments aside, and the run's changes merge again."""
    before = module(scaler_project)
    edit(declaration_path(scaler_project), "weights:\n", "weights:\n" + BIAS)
    edit(
        declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale * gain + bias"
    )
    assert cli("generate", "layers").exit_code == 0
    module_path(scaler_project).write_text(  # the comment at the end of `build`
        before.replace(
            'initializer="ones",\n        )\n', 'initializer="ones",\n        )\n        # mine\n'
        )
    )
    assert cli("generate", "layers").exit_code == 0
    code = module(scaler_project)
    assert "+ self.bias\n" in code and 'name="bias"' in code and "        # mine\n" in code
