"""Reconcile (layergen/update/apply.py and merge.py): members a person owns, undo of a run,
a lost lock. Each test here failed on the code of commit 2811b3d.

Regression tests: everyday workflows that lost an edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import (
    DECLARATION,
    cli,
    conflicted_then_put_back,
    declaration_path,
    edit,
    generated_tests,
    module,
    module_path,
)
from helpers import cli as run

# The Scaler declaration with its call taken over as the format says: no `call:` key.
TAKEN_OVER = DECLARATION.replace(
    "call: x * scale * gain\n",
    "hand_written: [call]\nexample:\n  input_shape: [2, 3]\n  reference: x * scale * gain\n",
)


def test_taking_over_a_generated_call_keeps_its_body(scaler_project):
    """The call, still as generated, became the stand-in `return x` and every
    later run exited 0."""
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(TAKEN_OVER)
    for args in (("generate", "layers"), ("generate", "layers"), ("generate", "--check", "layers")):
        assert cli(*args).exit_code == 0, args
        assert "        return x * self.scale * self.gain\n" in module(scaler_project)


def test_a_change_to_an_owned_build_is_said_on_every_run(scaler_project):
    """With `hand_written: [build]` and the build still as generated, a new
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


def conflicted_run(root, rename_class: bool = False) -> dict:
    """A hand edit in `call`, a declaration change to `call` and a new param (and maybe a new
    class name); the run writes a conflict into the module and updates the tests cleanly.
    Returns every file as it was before that run."""
    from helpers import snapshot

    layers = root / "layers"
    edit(layers / "scaler.py", "        return x", "        x = x  # mine\n        return x")
    before = snapshot(root)
    declaration = layers / "scaler.layer.yaml"
    edit(declaration, "params:\n", "params:\n  bias: {type: float, default: 0.0}\n")
    edit(declaration, "call: x * scale * gain", "call: x * scale * gain + bias")
    if rename_class:
        edit(declaration, "layer: Scaler", "layer: Gainer")
    assert cli("generate", "layers").exit_code == 1  # the call conflicts
    return before


def put_back(root, before: dict, *names: str) -> None:
    for name in names:
        (root / name).write_bytes(before[name])


def test_every_file_a_run_wrote_is_merged_again_after_an_undo(scaler_project):
    """A conflicted run undone with `git checkout`: the module was merged
    again against the run's base, the test module the same run updated cleanly was not (its
    new param read as deleted by hand, and the tests stopped checking it), `--check` 0."""
    before = conflicted_run(scaler_project)
    put_back(scaler_project, before, "layers/scaler.py", "tests/test_scaler.py")
    assert cli("generate", "--check", "layers").exit_code == 1
    assert cli("generate", "--force", "layers").exit_code == 0
    tests = (scaler_project / "tests" / "test_scaler.py").read_text()
    assert '"bias"' in tests, tests[:2000]
    assert "self.bias = bias" in module(scaler_project)
    assert cli("generate", "--check", "layers").exit_code == 0


def test_an_undo_of_a_run_that_renamed_the_class_renames_it_again(scaler_project):
    """A conflicted run that also renamed the class, undone with `git
    checkout`: the hand edit survived only in a dead class of the old name."""
    before = conflicted_run(scaler_project, rename_class=True)
    put_back(scaler_project, before, "layers/scaler.py", "tests/test_scaler.py")
    assert cli("generate", "layers").exit_code == 1  # the conflict, made again
    code = module(scaler_project)
    assert "class Scaler" not in code and "class Gainer(" in code
    assert "        x = x  # mine\n" in code
    assert cli("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    tests = (scaler_project / "tests" / "test_scaler.py").read_text()
    assert "Scaler" not in tests and "Gainer" in tests
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_change_to_an_owned_member_is_still_said_after_a_class_rename(scaler_project):
    """A pending `[hand-written]` report disappeared when the class was
    renamed in the declaration."""
    declaration = scaler_project / "layers" / "scaler.layer.yaml"
    edit(declaration, "call: x * scale * gain\n", "call: x * scale * gain\nhand_written: [build]\n")
    assert cli("generate", "layers").exit_code == 0
    edit(declaration, "initializer: ones", "initializer: zeros")
    assert cli("generate", "layers").exit_code == 1
    edit(declaration, "layer: Scaler", "layer: Gainer")
    for args in (("generate", "layers"), ("generate", "--check", "layers")):
        result = cli(*args)
        assert result.exit_code == 1 and "`Gainer.build`" in result.output, result.output
    assert "class Gainer(" in module(scaler_project)


def test_a_lost_lock_labels_nothing_edited_by_hand(scaler_project):
    """With `layergen.lock` and `.layergen/` gone, untouched generated code
    was labelled "edited by hand", and keeping that side dropped the declaration change."""
    import shutil

    (scaler_project / "layergen.lock").unlink()
    shutil.rmtree(scaler_project / ".layergen")
    edit(
        scaler_project / "layers" / "scaler.layer.yaml",
        "call: x * scale * gain",
        "call: x * scale + gain",
    )
    result = cli("generate", "layers")
    assert result.exit_code == 1 and "[no-base]" in result.output, result.output
    code = module(scaler_project)
    assert "edited by hand" not in code and "<<<<<<< in the file (no base" in code
    assert code.count("<<<<<<<") == 1  # the call alone: every other member is as generated
    assert cli("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_lost_base_folder_is_no_dead_end(scaler_project):
    """`.layergen/base/` missing with the lock there (a clone of a repository
    that ignores `.layergen/`): every command exited 2, its hint naming no way out."""
    import shutil

    shutil.rmtree(scaler_project / ".layergen")
    assert cli("generate", "--check", "layers").exit_code == 0  # the files are as recorded
    # Edited by hand: the file is no longer its own base (tests/unit/test_lost_base.py).
    edit(module_path(scaler_project), "        return x", "        x = x  # mine\n        return x")
    edit(scaler_project / "layers" / "scaler.layer.yaml", "initializer: ones", "initializer: zeros")
    result = cli("generate", "layers")
    assert result.exit_code == 1 and "[no-base]" in result.output, result.output
    assert cli("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    assert cli("generate", "layers").exit_code == 0
    assert cli("generate", "--check", "layers").exit_code == 0
    assert 'initializer="zeros"' in module(scaler_project)


def test_an_undo_followed_by_one_more_edit_is_still_an_undo(scaler_project):
    """An editor's undo to the text before a conflicted run, one more
    keystroke, then save: only a byte-exact put-back was recognised, so the declaration's
    changes read as deleted by hand; `--check` 0, the new param never reached the layer."""
    before = conflicted_run(scaler_project)
    put_back(scaler_project, before, "layers/scaler.py")
    edit(
        scaler_project / "layers" / "scaler.py",
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        # one more keystroke\n",
    )
    assert cli("generate", "--check", "layers").exit_code == 1
    assert cli("generate", "layers").exit_code == 1  # the call's conflict, made again
    code = module(scaler_project)
    assert "self.bias = bias" in code and '"bias": self.bias' in code
    assert "        # one more keystroke\n" in code and "        x = x  # mine\n" in code


def test_force_without_a_base_drops_no_line_it_was_not_shown(scaler_project):
    """Found by the stateful test: with the lock lost and a conflict already in the
    file, `generate` showed that conflict alone, and `--force` then took the generated side of
    every member that differed from the generation, hand edits elsewhere included."""
    import shutil

    edit(
        scaler_project / "layers" / "scaler.py",
        "        return x",
        "        x = x  # mine\n        return x",
    )
    edit(
        scaler_project / "layers" / "scaler.layer.yaml",
        "call: x * scale * gain",
        "call: x * scale + gain",
    )
    assert cli("generate", "layers").exit_code == 1  # the call: a conflict, in the file
    edit(
        scaler_project / "layers" / "scaler.py",
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        # kept by hand\n",
    )
    (scaler_project / "layergen.lock").unlink()
    shutil.rmtree(scaler_project / ".layergen")
    result = cli("generate", "--force", "layers")
    assert "[no-base]" in result.output, result.output
    assert "        # kept by hand\n" in module(scaler_project)


@pytest.mark.parametrize("then", ["--force", "--check", "resolve"])
def test_a_file_put_back_after_a_conflicted_run_is_merged_again(scaler_project, then):
    """Found by an attack on 0.1: a person who put their file back as it was before a run that
    wrote conflicts (an editor's undo, `git checkout`) lost the changes that had merged
    cleanly too: they read as hand edits against the new base, and `--check` said all was
    up to date."""
    conflicted_then_put_back(scaler_project)
    if then == "--check":
        assert run("generate", "--check", "layers").exit_code == 1
        return
    if then == "resolve":  # the conflict is made again, against the base it was made from
        assert run("generate", "layers").exit_code == 1
        assert run("resolve", "layers/scaler.py", "--ours").exit_code == 0
    else:
        assert run("generate", "--force", "layers").exit_code == 0
    code = module(scaler_project)
    assert "self.bias = bias" in code and '"bias": self.bias' in code
    assert run("generate", "--check", "layers").exit_code == 0


# -- only what the declaration cannot say is left to the person; their members are reported


def hand_written_of(root: Path) -> list[str]:
    from ruamel.yaml import YAML

    return list(YAML(typ="safe").load(declaration_path(root).read_text()).get("hand_written") or [])


OFFSET = "  offset: {shape: 'x[-1]', initializer: zeros}\ncall: x * scale * gain + offset\n"


def test_a_comment_above_build_freezes_nothing(scaler_project):
    edit(
        module_path(scaler_project),
        "    def build(self",
        "    # weights are made here\n    def build(self",
    )
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert hand_written_of(scaler_project) == []
    edit(declaration_path(scaler_project), "call: x * scale * gain\n", OFFSET)
    assert run("generate", "layers").exit_code == 0
    code = module(scaler_project)
    assert "    # weights are made here\n    def build(self" in code
    assert "self.offset = self.add_weight(" in code


def test_a_helper_class_with_its_own_init_freezes_nothing(scaler_project):
    helper = "\n\nclass Helper:\n    def __init__(self):\n        self.ready = True\n"
    module_path(scaler_project).write_text(module(scaler_project) + helper)
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert hand_written_of(scaler_project) == []
    edit(declaration_path(scaler_project), "default: 1.0", "default: 2.0")
    assert run("generate", "layers").exit_code == 0
    assert "def __init__(self, gain=2.0, **kwargs):" in module(scaler_project)
    assert "class Helper:" in module(scaler_project)


def test_a_call_edited_in_another_spacing_is_carried_not_frozen(scaler_project):
    edit(
        module_path(scaler_project),
        "return x * self.scale * self.gain",
        "return x * self.scale * self.gain*2",
    )
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert hand_written_of(scaler_project) == []
    assert "gain*2" in declaration_path(scaler_project).read_text()
    assert "return x * self.scale * self.gain * 2\n" in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0
    edit(declaration_path(scaler_project), "gain*2", "gain*3")
    assert run("generate", "layers").exit_code == 0
    assert "return x * self.scale * self.gain * 3\n" in module(scaler_project)


def test_a_call_the_declaration_cannot_say_is_left_to_the_person(scaler_project):
    edit(module_path(scaler_project), "import keras\n", "import keras\nimport numpy as np\n")
    edit(
        module_path(scaler_project),
        "return x * self.scale * self.gain",
        "return x * self.scale * np.float32(2.0)",
    )
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 0, result.output
    assert hand_written_of(scaler_project) == ["call"]
    assert "np.float32(2.0)" in module(scaler_project)
    assert "call: x * scale * gain" in declaration_path(scaler_project).read_text()
    assert run("sync", "layers/scaler.py").exit_code == 0  # owned: nothing to carry
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_change_to_a_hand_owned_member_is_reported_until_settled(scaler_project):
    edit(
        declaration_path(scaler_project),
        "call: x * scale * gain\n",
        "call: x * scale * gain\nhand_written: [build]\n",
    )
    edit(
        module_path(scaler_project),
        '            initializer="ones",\n',
        '            initializer="ones",\n            trainable=True,\n',
    )
    assert run("generate", "layers").exit_code == 0
    edit(declaration_path(scaler_project), "call: x * scale * gain\n", OFFSET)
    for args in (("generate", "layers"), ("generate", "--check", "layers"), ("generate", "layers")):
        result = run(*args)
        assert result.exit_code == 1, args
        line = module(scaler_project).splitlines().index("    def build(self, input_shape):") + 1
        assert f"layers/scaler.py:{line}: " in result.output and "`Scaler.build`" in result.output
        assert "[hand-written]" in result.output
    assert "self.offset" not in module(scaler_project).split("def call")[0]  # never rewritten
    assert run("resolve", "layers/scaler.py", "--ours").exit_code == 0  # seen: keep mine
    assert run("generate", "layers").exit_code == 0
    assert run("generate", "--check", "layers").exit_code == 0
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    assert run("generate", "layers").exit_code == 1  # a new change: said again
    assert run("resolve", "layers/scaler.py", "--theirs").exit_code == 0  # take the generated one
    code = module(scaler_project)
    assert "self.offset = self.add_weight(" in code and 'initializer="zeros"' in code
    assert "trainable=True" not in code
    assert run("generate", "--check", "layers").exit_code == 0


# The Scaler declaration with its call written in Python: the reference keeps the contract.
PYTHON_OWNED = DECLARATION.replace(
    "call: x * scale * gain\n",
    "hand_written: [call]  # written in layers/scaler.py\n"
    "example:\n  input_shape: [2, 3]\n  reference: x * scale * gain\n",
)


def test_a_call_written_in_python_from_the_start(scaler_project):
    declaration_path(scaler_project).write_text(PYTHON_OWNED)
    module_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 0
    code = module(scaler_project)
    assert "    def call(self, x):\n        return x\n" in code  # written once, to start from
    module_path(scaler_project).write_text(
        code.replace(
            "        return x\n", "        y = x * self.scale\n        return y * self.gain\n"
        )
    )
    assert run("generate", "--check", "layers").exit_code == 0
    assert run("sync", "layers/scaler.py").exit_code == 0
    edit(declaration_path(scaler_project), "default: 1.0", "default: 2.0")
    assert run("generate", "layers").exit_code == 0
    code = module(scaler_project)
    assert "y = x * self.scale\n" in code and "gain=2.0" in code
    assert "x * scale * gain" in generated_tests(scaler_project).read_text()  # still checked


def test_hand_written_names_a_member_of_the_class(scaler_project):
    edit(
        declaration_path(scaler_project),
        "call: x * scale * gain\n",
        "call: x * scale * gain\nhand_written: [cal]\n",
    )
    result = run("generate", "layers")
    assert result.exit_code == 2 and "[unknown-member]" in result.output
    assert "scaler.layer.yaml:10:" in result.output and "`call`" in result.output
