"""The everyday workflows of issue 21 that lost an edit or left stale code behind a green
`--check`: `--force`, class and file renames, saves during a run, `resolve` then more
declaration changes, marker-like strings, module-level assignments, `sync`, partial writes
and conflicts at the end of a file. Each test failed on main before its fix."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import DECLARATION, cli, edit, module, snapshot

run = cli  # `layergen ARGS` in this process


def add_method(module_file: Path) -> None:
    """A hand edit: a method `mine` before the layer's `call`."""
    edit(
        module_file,
        "    def call(self",
        "    def mine(self):\n        return 1\n\n    def call(self",
    )


def add_bias(declaration: Path) -> None:
    """A declaration change: a param `bias`, added in `call`."""
    edit(declaration, "params:\n", "params:\n  bias: {type: float, default: 0.0}\n")
    edit(declaration, "call: x * scale * gain", "call: x * scale * gain + bias")


def declaration_path(root: Path) -> Path:
    return root / "layers" / "scaler.layer.yaml"


def module_path(root: Path) -> Path:
    return root / "layers" / "scaler.py"


def generated_tests(root: Path) -> Path:
    return root / "tests" / "test_scaler.py"


# -- 1. --force settles conflicting lines only, after the line merge ---------------------------


def test_force_keeps_a_hand_line_that_merges_cleanly(scaler_project):
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        # my hand line\n",
    )
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    assert run("generate", "--force", "layers").exit_code == 0
    code = module(scaler_project)
    assert "        # my hand line\n" in code and 'initializer="zeros"' in code


def test_force_takes_the_generated_side_of_conflicting_lines_only(scaler_project):
    edit(module_path(scaler_project), 'initializer="ones",', 'initializer="ones",  # mine')
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    # above build, by hand\n    def build(self, input_shape):\n        # my hand line\n",
    )
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    assert run("generate", "layers").exit_code == 1  # the initializer line: a conflict
    assert run("generate", "--force", "layers").exit_code == 0
    code = module(scaler_project)
    assert 'initializer="zeros",\n' in code and "# mine" not in code
    assert "    # above build, by hand\n" in code and "        # my hand line\n" in code
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_comment_above_a_member_is_no_conflict(scaler_project):
    """Its lines and the declaration's change are apart: the merge keeps both (it used to put
    the comment alone between markers, and `resolve --theirs` dropped it)."""
    edit(
        module_path(scaler_project),
        "    def call(self",
        "    # why call is so\n    def call(self",
    )
    edit(
        module_path(scaler_project),
        "        return x * self.scale * self.gain\n",
        "        return x * self.scale * self.gain * 2\n",
    )
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    assert run("generate", "layers").exit_code == 1
    code = module(scaler_project)
    start = code.index("<<<<<<<")
    assert "    # why call is so\n    def call(self" in code[:start]  # outside the conflict
    assert not any(line.isspace() for line in code.split("\n"))  # no line of spaces alone
    assert run("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    assert "    # why call is so\n" in module(scaler_project)


# -- 10. a conflict layergen writes is one that `resolve` and `--force` can settle -------------


def settle_both_ways(root: Path) -> None:
    conflicted = module(root)
    for side in ("--ours", "--theirs"):
        module_path(root).write_text(conflicted)
        assert run("resolve", "layers/scaler.py", side).exit_code == 0
        assert "<<<<<<<" not in module(root) and "=======" not in module(root)
        compile(module(root), "scaler.py", "exec")
    module_path(root).write_text(conflicted)
    assert run("generate", "--force", "layers").exit_code == 0
    compile(module(root), "scaler.py", "exec")


@pytest.mark.parametrize(
    "base, current, new",
    [
        ("x = 1\n", "x = 2", "x = 3\n"),  # the person's file has no final newline
        ("x = 1\n", "x = 2\n", "x = 3"),
        ("x = 1  # a\u2028b\n", "x = 2  # a\u2028b\n", "x = 3  # a\u2028b\n"),  # U+2028
        ("x = 1  # a\x85b\x0cc\n", "x = 2  # a\x85b\x0cc\n", "x = 3\n"),  # NEL, form feed
        ("def f():\n    return 1\n", "def f():\n    return 2", "def f():\n    return 3\n"),
    ],
)
def test_conflict_markers_stand_on_lines_of_their_own(base, current, new):
    from layergen.update import conflicts
    from layergen.update.merge import merge

    merged = merge(base, current, new)
    assert merged.conflicts
    rows = merged.text.split("\n")
    assert [r for r in rows if r.startswith(("<<<<<<<", "=======", ">>>>>>>"))] == [
        conflicts.OURS.strip("\n"),
        conflicts.SEPARATOR.strip("\n"),
        conflicts.THEIRS.strip("\n"),
    ]
    ours, theirs = (conflicts.resolve(merged.text, side) for side in ("ours", "theirs"))
    assert ours.rstrip("\n") == current.rstrip("\n") and theirs.rstrip("\n") == new.rstrip("\n")


def conflicted_then_put_back(root: Path) -> None:
    """A hand edit in `call`, a declaration change to `call` and to the params; the run writes
    a conflict, and the person puts the file back as it was."""
    edit(module_path(root), "        return x", "        # mine\n        return x")
    mine = module(root)
    add_bias(declaration_path(root))
    assert run("generate", "layers").exit_code == 1  # the call conflicts; bias merged elsewhere
    module_path(root).write_text(mine)


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


def test_sync_after_a_file_is_put_back_keeps_the_declaration_change(scaler_project):
    """Found by a second attack: `sync` read the put-back module against the new base and
    wrote it into the declaration, dropping the declaration's change (exit 0)."""
    conflicted_then_put_back(scaler_project)
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 1 and "conflict" in result.output, result.output
    assert "call: x * scale * gain + bias" in declaration_path(scaler_project).read_text()


def test_a_file_put_back_at_the_new_path_of_a_renamed_declaration(scaler_project):
    """Found by a second attack: a run that renamed the file and wrote conflicts into it left
    the lock pointing at a base stored under the old name only (exit 2 from then on)."""
    edit(module_path(scaler_project), "        return x", "        # mine\n        return x")
    mine = module(scaler_project)
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    edit(declaration_path(scaler_project), "doc: Multiplies", "doc: Now multiplies")
    declaration_path(scaler_project).rename(scaler_project / "layers" / "amp.layer.yaml")
    assert run("generate", "layers").exit_code == 1
    (scaler_project / "layers" / "amp.py").write_text(mine)
    for command in (("generate", "--check", "layers"), ("generate", "layers")):
        result = run(*command)
        assert result.exit_code == 1 and "[bad-lock]" not in result.output, result.output


def test_a_conflict_in_an_emptied_module_can_be_settled(scaler_project):
    module_path(scaler_project).write_text("")
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    assert run("generate", "layers").exit_code == 1
    settle_both_ways(scaler_project)


MASKED = """\
layer: MaskedScale
params:
  factor: {type: float, default: 2.0}
call: x * factor
masking: mask
example:
  input_shape: [2, 3, 4]
  inputs: [[1.0, 2.0, 3.0, 4.0]]
  reference: x * factor
"""


@pytest.fixture
def masked_project(scaler_project):
    (scaler_project / "layers" / "masked_scale.layer.yaml").write_text(MASKED)
    assert run("generate", "layers").exit_code == 0
    return scaler_project


@pytest.mark.parametrize(
    "edited, member, dropped",
    [
        (
            "layers/masked_scale.py",
            "    def compute_mask(self, x, mask=None):\n",
            "masking: mask\n",
        ),
        (
            "tests/test_masked_scale.py",
            "def test_inference_outputs_match_the_numpy_reference():\n",
            "  reference: x * factor\n",
        ),
    ],
)
def test_a_member_edited_by_hand_and_dropped_by_the_generator_is_a_conflict(
    masked_project, edited, member, dropped
):
    """Found by an attack on 0.1: a generated member a person had edited, which the generator
    no longer writes, was kept silently (a layer still passing masks on; a test calling helpers
    no longer generated), and `--check` said all was up to date."""
    path = masked_project / edited
    edit(path, member, member + "    # reviewed by hand\n")
    edit(masked_project / "layers" / "masked_scale.layer.yaml", dropped, "")
    assert run("generate", "--check", "layers").exit_code == 1
    result = run("generate", "layers")
    assert result.exit_code == 1 and "conflict" in result.output, result.output
    text = path.read_text()
    assert "<<<<<<<" in text and "# reviewed by hand" in text  # the person's version is kept
    assert run("generate", "--force", "layers").exit_code == 0  # the generated side: it goes
    assert member not in path.read_text()
    assert run("generate", "--check", "layers").exit_code == 0


# -- 6. a module-level assignment changed on both sides is one member ----------------------------


def test_a_module_assignment_changed_on_both_sides_is_a_conflict(scaler_project):
    edit(generated_tests(scaler_project), 'ARGS = {"gain": 1.0}', 'ARGS = {"gain": 3.0}')
    edit(declaration_path(scaler_project), "default: 1.0", "default: 2.0")
    result = run("generate", "layers")
    assert result.exit_code == 1 and "tests/test_scaler.py" in result.output
    text = generated_tests(scaler_project).read_text()
    assert '=======\nARGS = {"gain": 2.0}\n>>>>>>>' in text
    assert run("resolve", "tests/test_scaler.py", "--theirs").exit_code == 0
    text = generated_tests(scaler_project).read_text()
    assert text.count("\nARGS = ") == 1 and 'ARGS = {"gain": 2.0}' in text


def test_a_module_assignment_changed_on_one_side_takes_that_side(scaler_project):
    edit(
        generated_tests(scaler_project),
        'INPUT_SHAPES = {"x": (2, 4)}',
        'INPUT_SHAPES = {"x": (3, 4)}',
    )
    edit(declaration_path(scaler_project), "default: 1.0", "default: 2.0")
    assert run("generate", "layers").exit_code == 0
    text = generated_tests(scaler_project).read_text()
    assert 'INPUT_SHAPES = {"x": (3, 4)}' in text and 'ARGS = {"gain": 2.0}' in text
    assert text.count("\nARGS = ") == 1 and text.count("\nINPUT_SHAPES = ") == 1


# -- 2. a class rename changes references to the class, nothing else -----------------------------


def test_a_class_rename_changes_only_references_to_the_class(scaler_project):
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Dense")
    assert run("generate", "layers").exit_code == 0
    helper = (
        "\n\ndef widest(layer):\n"
        "    Dense = keras.layers.Dense  # a local of its own\n"
        "    return isinstance(layer, Dense)\n"
        "\n\ndef mine(layer):\n"
        '    """Dense layers: see Dense."""\n'
        "    return isinstance(layer, Dense)\n"
    )
    module_path(scaler_project).write_text(module(scaler_project) + helper)
    test = (
        "\n\ndef test_by_hand():\n"
        "    other = keras.layers.Dense(4)\n"
        "    assert isinstance(make_layer(), Dense) and not isinstance(other, Dense)\n"
    )
    generated_tests(scaler_project).write_text(generated_tests(scaler_project).read_text() + test)
    edit(declaration_path(scaler_project), "layer: Dense", "layer: MyDense")
    assert run("generate", "layers").exit_code == 0
    code, tests = module(scaler_project), generated_tests(scaler_project).read_text()
    assert "class MyDense(keras.layers.Layer):" in code
    assert (
        "    Dense = keras.layers.Dense  # a local of its own\n    return isinstance(layer, Dense)\n"
        in code
    )
    assert '    """Dense layers: see Dense."""\n    return isinstance(layer, MyDense)\n' in code
    assert "    other = keras.layers.Dense(4)\n" in tests
    assert "isinstance(make_layer(), MyDense) and not isinstance(other, MyDense)" in tests
    assert "from layers.scaler import MyDense\n" in tests
    assert run("generate", "--check", "layers").exit_code == 0


# -- 4. a lock record is reused only when it fits the files it was made with ---------------------


def test_resolve_theirs_after_a_declaration_change_is_not_stale(scaler_project):
    edit(
        module_path(scaler_project),
        "return x * self.scale * self.gain",
        "return x * self.scale * self.gain * 0.5",
    )
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    assert run("generate", "layers").exit_code == 1
    edit(declaration_path(scaler_project), "call: x * scale + gain", "call: (x - gain) * scale")
    assert run("generate", "layers").exit_code == 1  # the markers are still there
    assert run("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    assert run("generate", "--check", "layers").exit_code == 1  # the new call is not there yet
    assert run("generate", "layers").exit_code == 0
    assert "return (x - self.gain) * self.scale\n" in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0


# -- 5. marker-like lines in a string are no conflict ---------------------------------------------

MARKED_CALL = '''call: |
  note = """
  <<<<<<< a
  =======
  >>>>>>> b
  """
  return x * scale * gain
'''


def test_marker_like_lines_in_a_string_are_no_conflict(scaler_project):
    declaration_path(scaler_project).write_text(
        DECLARATION.replace("call: x * scale * gain\n", MARKED_CALL)
    )
    assert run("generate", "layers").exit_code == 0
    edit(declaration_path(scaler_project), "return x * scale * gain", "return x * scale + gain")
    assert run("generate", "--check", "layers").exit_code == 1
    assert run("generate", "layers").exit_code == 0
    code = module(scaler_project)
    assert "return x * self.scale + self.gain" in code and "=======\n" in code
    result = run("resolve", "layers/scaler.py", "--ours")
    assert result.exit_code == 0 and "no conflict" in result.output
    assert module(scaler_project) == code
    assert run("generate", "--check", "layers").exit_code == 0
    # A real conflict in that file is still one, and resolve settles it, string kept.
    edit(module_path(scaler_project), "return x * self.scale + self.gain", "return x * self.scale")
    edit(declaration_path(scaler_project), "return x * scale + gain", "return x * gain")
    assert run("generate", "layers").exit_code == 1
    assert run("generate", "layers").exit_code == 1
    assert run("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    code = module(scaler_project)
    assert "return x * self.gain" in code and code.count("=======\n") == 1


# -- 3. a save that lands while a run writes is never overwritten -------------------------------

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


# -- 9. a failed write puts back what it replaced: "nothing was written" is true -----------------


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


# -- 8. renamed or deleted declarations leave nothing generated behind ------------------------


def package_imports(root: Path) -> str:
    return (root / "layers" / "__init__.py").read_text()


def test_a_renamed_declaration_file_takes_its_module_and_tests_along(scaler_project):
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        # mine\n",
    )
    generated_tests(scaler_project).write_text(
        generated_tests(scaler_project).read_text()
        + "\n\ndef test_by_hand():\n    assert make_layer()\n"
    )
    declaration_path(scaler_project).rename(scaler_project / "layers" / "amp.layer.yaml")
    edit(
        scaler_project / "layers" / "amp.layer.yaml",
        "call: x * scale * gain",
        "call: x * scale + gain",
    )
    assert run("generate", "--check", "layers").exit_code == 1
    assert run("generate", "layers").exit_code == 0
    moved = (scaler_project / "layers" / "amp.py").read_text()
    assert "        # mine\n" in moved and "return x * self.scale + self.gain" in moved
    assert "def test_by_hand():" in (scaler_project / "tests" / "test_amp.py").read_text()
    assert not module_path(scaler_project).exists() and not generated_tests(scaler_project).exists()
    assert "from .amp import Scaler\n" in package_imports(scaler_project)
    assert "from .scaler import" not in package_imports(scaler_project)
    assert 'package="demo"' in moved  # the registration stays: saved models still load
    assert run("generate", "--check", "layers").exit_code == 0
    lock = (scaler_project / "layergen.lock").read_text()
    assert "layers/scaler" not in lock and "tests/test_scaler.py" not in lock


def test_a_file_and_its_class_renamed_at_once_take_the_hand_edits_along(scaler_project):
    """Found by the stateful test: the hand edits were left in an orphan module (exit 1)."""
    add_method(module_path(scaler_project))
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    result = run("generate", "layers")
    assert result.exit_code == 0
    moved = (scaler_project / "layers" / "gainer.py").read_text()
    assert "class Gainer(" in moved and "    def mine(self):" in moved
    assert not module_path(scaler_project).exists() and not generated_tests(scaler_project).exists()
    # what went is said, as what came is
    assert "removed    layers/scaler.py\n" in result.output
    assert "removed    tests/test_scaler.py\n" in result.output
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_deleted_layer_and_a_new_loss_are_not_paired_as_a_rename(scaler_project):
    """The lone-rename pairing needs the same kind: a layer's hand edits never go to a loss."""
    add_method(module_path(scaler_project))
    declaration_path(scaler_project).unlink()
    loss = Path(__file__).parents[2] / "examples" / "smooth_l1_error.loss.yaml"
    shutil.copy(loss, scaler_project / "layers" / loss.name)
    result = run("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output
    assert "    def mine(self):" in module(scaler_project)
    assert "def mine(" not in (scaler_project / "layers" / "smooth_l1_error.py").read_text()


def test_a_deleted_layer_and_a_new_unrelated_one_are_not_paired_as_a_rename(scaler_project):
    """Found by an attack on 0.1: one declaration deleted and an unrelated one added in the
    same folder were paired as a rename; the old edited module and its hand-added test were
    deleted and the edits moved into the new class (exit 0)."""
    edit(
        module_path(scaler_project),
        "    def call(self",
        "    def mine(self):\n        return self.scale\n\n    def call(self",
    )
    tests = generated_tests(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    declaration_path(scaler_project).unlink()
    other = Path(__file__).parents[2] / "examples" / "rms_norm.layer.yaml"
    shutil.copy(other, scaler_project / "layers" / other.name)
    result = run("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "    def mine(self):" in module(scaler_project)
    assert "def test_by_hand():" in tests.read_text()
    assert "def mine(" not in (scaler_project / "layers" / "rms_norm.py").read_text()
    assert "def test_by_hand(" not in (scaler_project / "tests" / "test_rms_norm.py").read_text()


def test_a_file_and_class_rename_with_a_new_param_is_followed_when_the_person_says_so(
    scaler_project,
):
    """Issue 34: file, class and params changed at once leave no evidence of a rename. A plain
    run keeps the old edited module as an orphan; `layergen mv OLD NEW` follows it."""
    add_method(module_path(scaler_project))
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    add_bias(declaration_path(scaler_project))
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    before = snapshot(scaler_project)
    result = run("generate", "--check", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output
    assert snapshot(scaler_project) == before
    assert run("mv", "layers/scaler.layer.yaml", "layers/gainer.layer.yaml").exit_code == 0
    moved = (scaler_project / "layers" / "gainer.py").read_text()
    assert "class Gainer(" in moved and "    def mine(self):" in moved
    assert "self.bias = bias" in moved
    assert not module_path(scaler_project).exists()
    assert run("generate", "--check", "layers").exit_code == 0


@pytest.mark.parametrize(
    "command", [("generate", "experimental"), ("new", "Scaler", "--dir", "experimental")]
)
def test_a_run_on_part_of_the_project_keeps_the_test_modules_of_the_rest(scaler_project, command):
    """Found by an attack on 0.1: a declaration of the same file name in another folder, run
    alone, took over the other layer's test module (its hand-added tests then called a class
    no longer imported), exit 0; the whole project's run said `duplicate-test`."""
    tests = generated_tests(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    (scaler_project / "experimental").mkdir()
    if command[0] == "generate":
        text = declaration_path(scaler_project).read_text().replace("Scaler", "ScalerV2")
        (scaler_project / "experimental" / "scaler.layer.yaml").write_text(text)
    before = snapshot(scaler_project)
    result = run(*command)
    assert result.exit_code == 2 and "[duplicate-test]" in result.output, result.output
    assert "layers/scaler.layer.yaml" in result.output
    assert snapshot(scaler_project) == before


def test_a_run_on_part_of_the_project_sees_a_class_registered_by_the_rest(scaler_project):
    (scaler_project / "experimental").mkdir()
    shutil.copy(
        declaration_path(scaler_project), scaler_project / "experimental" / "other.layer.yaml"
    )
    before = snapshot(scaler_project)
    for check in ("--check",), ():
        result = run("generate", *check, "experimental")
        assert result.exit_code == 2 and "[duplicate-name]" in result.output, result.output
        assert "experimental/other.layer.yaml:1:8: error:" in result.output
        assert "also declared in" in result.output and "layers/scaler.layer.yaml" in result.output
    assert snapshot(scaler_project) == before
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Renamed")  # not yet generated
    assert run("generate", "experimental").exit_code == 0


def test_projects_with_a_tests_folder_per_folder_are_no_duplicates(scaler_project):
    """Found by a second attack: a run on one folder with its own `--tests` compared the other
    folder's tests under this run's tests folder (a false `duplicate-test`)."""
    (scaler_project / "b").mkdir()
    text = declaration_path(scaler_project).read_text().replace("Scaler", "OtherScaler")
    (scaler_project / "b" / "scaler.layer.yaml").write_text(text)
    assert run("generate", "b", "--tests", "tests_b").exit_code == 0
    assert run("generate", "layers").exit_code == 0
    assert run("generate", "--check", "b", "--tests", "tests_b").exit_code == 0


def test_a_lone_rename_is_followed_while_another_folder_gains_a_layer(scaler_project):
    """Found by a second attack: a new declaration anywhere else in the run stopped the lone
    rename in this folder from being followed (the edits left in an orphan)."""
    add_method(module_path(scaler_project))
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    (scaler_project / "b").mkdir()
    (scaler_project / "b" / "brand.layer.yaml").write_text("layer: Brand\ncall: x * 2\n")
    assert run("generate", "layers", "b").exit_code == 0
    assert "    def mine(self):" in (scaler_project / "layers" / "gainer.py").read_text()


def test_an_orphan_is_never_taken_for_a_rename_later(scaler_project):
    """Found by a second attack: a deleted declaration's edited module, reported as an orphan,
    was taken by a later new declaration of the same shape, and deleted without a word."""
    add_method(module_path(scaler_project))
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1  # [orphan]
    for command in (
        ("generate", "layers"),  # a declaration of the same shape, written by hand
        ("new", "Twin", "--params", "gain:float=1.0", "--weights", "scale"),
    ):
        twin = scaler_project / "layers" / "twin.layer.yaml"
        if command[0] == "generate":
            twin.write_text(DECLARATION.replace("Scaler", "Twin"))
        result = run(*command)
        assert result.exit_code == 1 and "[orphan]" in result.output, result.output
        assert "    def mine(self):" in module(scaler_project)
        assert "def mine(" not in (scaler_project / "layers" / "twin.py").read_text()
        twin.unlink()
        (scaler_project / "layers" / "twin.py").unlink()


def test_new_never_takes_a_declaration_deleted_in_the_same_run(scaler_project):
    """`new` scaffolds a new layer: a declaration deleted beside it is no rename of it."""
    add_method(module_path(scaler_project))
    declaration_path(scaler_project).unlink()
    result = run("new", "Twin", "--params", "gain:float=1.0", "--weights", "scale")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "    def mine(self):" in module(scaler_project)


EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize(
    "old, new",
    [
        (None, None),  # two layers with no params or weights: nothing tells them apart
        ("stochastic_depth", "gaussian_jitter"),  # alike only in `seed` and its generator
    ],
)
def test_layers_alike_only_in_what_every_layer_has_are_no_rename(scaler_project, old, new):
    """Found by a third attack: two layers with no params and no weights, or sharing only a
    seed, were paired as a rename: the old module removed, its helper in the new one."""
    layers = scaler_project / "layers"
    if old is None:
        (layers / "swish.layer.yaml").write_text("layer: Swish\ncall: x * ops.sigmoid(x)\n")
        old, fresh = "swish", "layer: HardTanh\ncall: ops.clip(x, -1.0, 1.0)\n"
        new = "hard_tanh"
    else:
        shutil.copy(EXAMPLES / f"{old}.layer.yaml", layers)
        fresh = (EXAMPLES / f"{new}.layer.yaml").read_text()
    assert run("generate", "layers").exit_code == 0
    module_file = layers / f"{old}.py"
    module_file.write_text(module_file.read_text() + "\n\ndef helper():\n    return 1\n")
    (layers / f"{old}.layer.yaml").unlink()
    (layers / f"{new}.layer.yaml").write_text(fresh)
    result = run("generate", "layers")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "def helper(" in module_file.read_text()
    assert "def helper(" not in (layers / f"{new}.py").read_text()


def test_a_declaration_put_back_after_its_orphan_run_gets_its_tests_again(scaler_project):
    """Found by a third attack: the record kept for the orphan was taken as is by the fast
    path when the declaration came back: no test module, and `--check` said all was well."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    generated = module(scaler_project)
    edit(module_path(scaler_project), "    def call(self", "    # a note\n    def call(self")
    declared = declaration_path(scaler_project).read_text()
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1  # [orphan]; its test module removed
    assert not generated_tests(scaler_project).exists()
    declaration_path(scaler_project).write_text(declared)  # both put back (`git checkout`)
    module_path(scaler_project).write_text(generated)
    assert run("generate", "layers").exit_code == 0
    assert generated_tests(scaler_project).is_file()
    assert run("generate", "--check", "layers").exit_code == 0
    assert '"orphaned"' not in (scaler_project / "layergen.lock").read_text()


def test_an_orphan_deleted_by_hand_leaves_the_lock(scaler_project):
    """Found by a third attack: its entry and base text stayed in the lock for ever."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    edit(module_path(scaler_project), "    def call(self", "    # a note\n    def call(self")
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1
    module_path(scaler_project).unlink()  # as the orphan message asks
    assert run("generate", "layers").exit_code == 0
    assert "layers/scaler" not in (scaler_project / "layergen.lock").read_text()
    assert not list((scaler_project / ".layergen" / "base" / "layers").glob("scaler.py.*"))


def test_a_renamed_declarations_old_module_name_taken_by_another_is_a_located_error(scaler_project):
    """Found by a third attack: a declaration renamed, and a new one (a loss) given its old
    name, gave a false `changed-during-run` on every run."""
    declaration_path(scaler_project).rename(scaler_project / "layers" / "amp.layer.yaml")
    shutil.copy(
        EXAMPLES / "smooth_l1_error.loss.yaml", scaler_project / "layers" / "scaler.loss.yaml"
    )
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "changed-during-run" not in result.output, result.output
    assert (
        "layers/scaler.loss.yaml:1:1: error:" in result.output and "amp.layer.yaml" in result.output
    )
    assert snapshot(scaler_project) == before


def test_new_over_its_own_module_as_generated_starts_the_layer_over(scaler_project):
    """Found by a fourth attack: `new` refused a module the lock records as generated and
    nobody edited (the person deleted the declaration to start over)."""
    declaration_path(scaler_project).unlink()
    result = run("new", "Scaler", "--params", "units:int=4")
    assert result.exit_code == 0, result.output
    assert "self.units = units" in module(scaler_project)


def test_new_refuses_a_module_already_there(scaler_project):
    """Found by a third attack: `new` merged its scaffold into an orphan module of the same
    name (a deleted declaration's, edited by hand)."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    edit(module_path(scaler_project), "    def call(self", "    # a note\n    def call(self")
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1
    before = snapshot(scaler_project)
    result = run("new", "Scaler", "--params", "units:int")
    assert result.exit_code == 2 and "[exists]" in result.output, result.output
    assert "layers/scaler.py" in result.output
    assert snapshot(scaler_project) == before
    # --force: the person's choice; the new layer is merged in, their edit kept
    assert run("new", "Scaler", "--params", "units:int", "--force").exit_code in (0, 1)
    assert "    # a note\n" in module(scaler_project) and "self.units = units" in module(
        scaler_project
    )


PROJ_BLOCK = """\
layer: ProjBlock
inputs:
  x: {min_rank: 2}
sublayers:
  proj: {class: keras.layers.Dense, args: {units: 8}}
  norm: {class: keras.layers.LayerNormalization}
call: norm(proj(x))
output_shape: (*x[:-1], 8)
"""


def test_a_layer_of_sublayers_alone_renamed_with_its_file_takes_its_edits(scaler_project):
    """Found by a fourth attack: with only params and weights compared, a layer made of
    sublayers had nothing to be told by, and its rename was no longer followed."""
    layers = scaler_project / "layers"
    (layers / "proj_block.layer.yaml").write_text(PROJ_BLOCK)
    assert run("generate", "layers").exit_code == 0
    add_method(layers / "proj_block.py")
    (layers / "proj_block.layer.yaml").rename(layers / "dense_norm.layer.yaml")
    edit(layers / "dense_norm.layer.yaml", "ProjBlock", "DenseNorm")
    assert run("generate", "layers").exit_code == 0
    assert "    def mine(self):" in (layers / "dense_norm.py").read_text()
    assert not (layers / "proj_block.py").exists()


def test_a_declaration_put_back_after_an_orphan_run_of_its_tests_alone(scaler_project):
    """Found by a fourth attack: when only the test module had stayed (edited by hand), the
    declaration put back paired its new module with that test module by position: the
    hand-added test went into the layer's module and the test module was removed."""
    (scaler_project / "layers" / "keep.layer.yaml").write_text("layer: Keep\ncall: x * 2\n")
    tests = generated_tests(scaler_project)
    tests.write_text(tests.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    declared = declaration_path(scaler_project).read_text()
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 1  # [orphan]: the test module
    assert not module_path(scaler_project).exists()
    declaration_path(scaler_project).write_text(declared)
    assert run("generate", "layers").exit_code == 0
    assert "def test_by_hand(" in tests.read_text()
    assert "def test_by_hand(" not in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0


def test_two_declarations_swapping_files_never_move_one_edit_silently(scaler_project):
    """Found by a fourth attack: `block.layer.yaml` and `block_v2.layer.yaml` swapped (v2
    promoted): the lone-rename pairing gave each class the other's hand edit, exit 0. The
    gone declaration's class is declared again in the run, so it is no lone rename."""
    layers = scaler_project / "layers"
    for stem, name in (("block", "Block"), ("block_v2", "BlockV2")):
        (layers / f"{stem}.layer.yaml").write_text(DECLARATION.replace("Scaler", name))
    assert run("generate", "layers").exit_code == 0
    edit(
        layers / "block_v2.py",
        "    def call(self",
        "    def only_v2(self):\n        return 2\n\n    def call(self",
    )
    (layers / "block.layer.yaml").rename(layers / "block_v1.layer.yaml")
    (layers / "block_v2.layer.yaml").rename(layers / "block.layer.yaml")
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "[taken-module]" in result.output, result.output
    assert snapshot(scaler_project) == before


def test_a_class_moved_to_a_new_file_and_a_new_one_in_its_place_is_a_located_error(
    scaler_project,
):
    """Found by a fifth attack: the old version kept as `scaler_v1.layer.yaml` (class kept) and
    a new layer written in `scaler.layer.yaml`: the old class's hand edits and hand-added
    tests went to the new class (rewritten to name it), exit 0."""
    add_method(module_path(scaler_project))
    declaration_path(scaler_project).rename(scaler_project / "layers" / "scaler_v1.layer.yaml")
    declaration_path(scaler_project).write_text("layer: Gated\ncall: x * 2\n")
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2 and "[taken-module]" in result.output, result.output
    assert "layers/scaler.layer.yaml:1:1: error: it now declares Gated" in result.output
    assert snapshot(scaler_project) == before
    declaration_path(scaler_project).unlink()  # as the hint says: the move alone first
    assert run("generate", "layers").exit_code == 0
    assert "    def mine(self):" in (scaler_project / "layers" / "scaler_v1.py").read_text()


def test_a_module_named_like_another_declarations_test_module_is_refused(scaler_project):
    """Found by a fifth attack: with the tests beside the layers, `test_scaler.layer.yaml`
    wrote its module over Scaler's test module (exit 0)."""
    pyproject = scaler_project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "[tool.layergen]\ntests = 'layers'\n")
    assert run("generate", "layers").exit_code == 0
    assert (scaler_project / "layers" / "test_scaler.py").is_file()
    (scaler_project / "layers" / "test_scaler.layer.yaml").write_text(
        "layer: TestScaler\ncall: x * 2\n"
    )
    before = snapshot(scaler_project)
    for layers in ("layers", "layers/test_scaler.layer.yaml"):  # the run on part of it too
        result = run("generate", layers)
        assert result.exit_code == 2 and "[duplicate-test]" in result.output, result.output
        assert "module would overwrite the tests of" in result.output
        assert snapshot(scaler_project) == before


def test_tests_for_a_generated_module_are_refused_and_renames_still_follow(scaler_project):
    """Found by the stateful test: `layergen tests` on a declaration's module took its tests
    over (the declaration's record dropped), and a later rename of the declaration left two
    modules of the same class."""
    before = snapshot(scaler_project)
    result = run("tests", "layers/scaler.py", "--input-shape", "2,4")
    assert result.exit_code == 2 and "[generated-module]" in result.output
    assert "layers/scaler.py:1:1: error:" in result.output and "hint:" in result.output
    assert snapshot(scaler_project) == before
    declaration_path(scaler_project).rename(scaler_project / "layers" / "gainer.layer.yaml")
    assert run("generate", "layers").exit_code == 0
    layers = sorted(p.name for p in (scaler_project / "layers").glob("*.py"))
    assert layers == ["__init__.py", "gainer.py"]


def test_sync_keeps_the_comments_above_a_member_it_carries(scaler_project):
    """Found by the stateful test: a comment above `def call` was dropped when sync carried
    the hand-edited call into the declaration."""
    edit(module_path(scaler_project), "    def call(self", "    # why it halves\n    def call(self")
    edit(module_path(scaler_project), "return x * self.scale * self.gain\n", "return x * 0.5\n")
    assert run("sync", "layers").exit_code == 0
    assert "x * 0.5" in declaration_path(scaler_project).read_text()
    code = module(scaler_project)
    assert "    # why it halves\n    def call(self" in code and "return x * 0.5\n" in code
    assert run("generate", "--check", "layers").exit_code == 0


def test_sync_keeps_the_comments_in_a_member_it_carries(scaler_project):
    """A comment in `__init__` went when sync stated the new default in the declaration."""
    edit(
        module_path(scaler_project),
        "def __init__(self, gain=1.0, **kwargs):\n",
        "def __init__(self, gain=2.0, **kwargs):\n        # doubled, see issue 7\n",
    )
    assert run("sync", "layers").exit_code == 0
    assert "default: 2.0" in declaration_path(scaler_project).read_text()
    code = module(scaler_project)
    assert "gain=2.0, **kwargs):\n        # doubled, see issue 7\n" in code
    assert run("generate", "--check", "layers").exit_code == 0


def test_tests_alone_skip_a_remembered_module_a_declaration_now_generates(scaler_project):
    """A lock from before the refusal remembers the declaration's module as hand-written:
    `layergen tests` alone leaves its tests to the declaration."""
    import json

    lock = scaler_project / "layergen.lock"
    data = json.loads(lock.read_text())
    data["handwritten"] = {
        "tests/test_scaler.py": {"module": "layers/scaler.py", "class": "Scaler"}
    }
    lock.write_text(json.dumps(data, indent=1) + "\n")
    tests_before = generated_tests(scaler_project).read_text()
    assert run("tests").exit_code == 0
    assert generated_tests(scaler_project).read_text() == tests_before
    assert run("generate", "--check", "layers").exit_code == 0


def test_renames_while_a_conflict_is_unsettled_leave_one_module(scaler_project):
    """Found by the stateful test at 600 runs."""
    edit(module_path(scaler_project), "self.gain\n", "self.gain * 0.5  # mine\n")
    layers = scaler_project / "layers"
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    declaration_path(scaler_project).rename(layers / "gain_layer.layer.yaml")
    assert run("generate", "layers").exit_code == 1  # the call: a conflict
    (layers / "gain_layer.layer.yaml").rename(declaration_path(scaler_project))
    assert run("generate", "layers").exit_code == 1
    declaration_path(scaler_project).rename(layers / "gain_layer.layer.yaml")
    assert run("generate", "--force", "layers").exit_code == 0
    assert sorted(p.name for p in layers.glob("*.py")) == ["__init__.py", "gain_layer.py"]
    assert package_imports(scaler_project).count("import Scaler") == 1
    assert sorted(p.name for p in (scaler_project / "tests").glob("test_*.py")) == [
        "test_gain_layer.py"
    ]
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_declaration_moved_to_another_folder_keeps_its_registration(scaler_project):
    (scaler_project / "blocks").mkdir()
    declaration_path(scaler_project).rename(scaler_project / "blocks" / "scaler.layer.yaml")
    assert run("generate", "blocks").exit_code == 0
    assert 'package="demo"' in (scaler_project / "blocks" / "scaler.py").read_text()
    assert not module_path(scaler_project).exists()
    assert "from .scaler import Scaler" not in package_imports(scaler_project)
    assert "from .scaler import Scaler\n" in (scaler_project / "blocks" / "__init__.py").read_text()


def test_a_deleted_declaration_removes_what_was_generated_and_reports_hand_edits(scaler_project):
    (scaler_project / "layers" / "other.layer.yaml").write_text(
        DECLARATION.replace("Scaler", "Other")
    )
    assert run("generate", "layers").exit_code == 0
    declaration_path(scaler_project).unlink()
    assert run("generate", "layers").exit_code == 0  # nothing edited: all of it goes
    assert not module_path(scaler_project).exists() and not generated_tests(scaler_project).exists()
    assert "from .scaler import" not in package_imports(scaler_project)
    assert '"Scaler"' not in package_imports(scaler_project)

    (scaler_project / "layers" / "third.layer.yaml").write_text(
        DECLARATION.replace("Scaler", "Third")
    )
    assert run("generate", "layers").exit_code == 0
    third = scaler_project / "tests" / "test_third.py"
    third.write_text(third.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    (scaler_project / "layers" / "third.layer.yaml").unlink()
    for _ in range(2):  # every run says so
        result = run("generate", "layers")
        assert result.exit_code == 1 and "tests/test_third.py:1:" in result.output
        assert "[orphan]" in result.output and "third.layer.yaml" in result.output
    assert third.exists() and not (scaler_project / "layers" / "third.py").exists()
    assert "from .third import" not in package_imports(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 1
    third.unlink()
    assert run("generate", "layers").exit_code == 0
    assert run("generate", "--check", "layers").exit_code == 0


def test_a_renamed_class_is_exported_under_its_new_name_only(scaler_project):
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    assert run("generate", "layers").exit_code == 0
    init = package_imports(scaler_project)
    assert "from .scaler import Gainer\n" in init and "import Scaler" not in init
    assert '"Scaler"' not in init and '"Gainer"' in init
    # in its place, as a fresh package's: found by an attack, the import went after `__all__`
    assert init.endswith('\n\nfrom .scaler import Gainer\n\n__all__ = ["Gainer"]\n'), init
    assert "\n\n\n" not in init


def test_tests_for_a_hand_written_layer_follow_a_class_rename(scaler_project):
    # Two layers in the module: each has its test module, test_own_<class>.py. An argument
    # tells a class renamed from another one (two classes with none are not paired).
    layer = (
        "\n\nclass {}(keras.layers.Layer):\n"
        "    def __init__(self, factor=2.0, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.factor = factor\n\n"
        "    def call(self, x):\n        return x * self.factor\n"
    )
    (scaler_project / "layers" / "own.py").write_text(
        "import keras\n" + layer.format("Other") + layer.format("Mine")
    )
    assert run("tests", "layers/own.py", "--input-shape", "2,4").exit_code == 0
    old = scaler_project / "tests" / "test_own_mine.py"
    old.write_text(old.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    edit(scaler_project / "layers" / "own.py", "class Mine(", "class Yours(")
    assert run("tests", "layers/own.py", "--input-shape", "2,4").exit_code == 0
    new = scaler_project / "tests" / "test_own_yours.py"
    assert not old.exists() and "def test_by_hand():" in new.read_text()
    assert "from layers.own import Yours" in new.read_text()


def test_tests_of_a_removed_class_do_not_go_to_an_unrelated_new_one(scaler_project):
    """Found by an attack on 0.1: a class removed from a module and an unrelated one added
    were paired as a rename; the removed class's edited test module was deleted and its tests
    moved to the new class's, still calling the removed class."""
    layer = (
        "\n\nclass {0}(keras.layers.Layer):\n"
        "    def __init__(self, {1}=1.0, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.{1} = {1}\n\n"
        "    def call(self, x):\n        return x + self.{1}\n"
    )
    own = scaler_project / "layers" / "own.py"
    own.write_text(
        "import keras\n" + layer.format("Keep", "bias") + layer.format("Shift", "offset")
    )
    assert run("tests", "layers/own.py", "--input-shape", "2,4").exit_code == 0
    old = scaler_project / "tests" / "test_own_shift.py"
    old.write_text(old.read_text() + "\n\ndef test_by_hand():\n    assert make_layer()\n")
    own.write_text("import keras\n" + layer.format("Keep", "bias") + layer.format("Clip", "limit"))
    result = run("tests", "layers/own.py", "--input-shape", "2,4")
    assert result.exit_code == 1 and "[orphan]" in result.output, result.output
    assert "def test_by_hand():" in old.read_text()
    new = (scaler_project / "tests" / "test_own_clip.py").read_text()
    assert "def test_by_hand(" not in new and "Shift" not in new


# -- 7. only what the declaration cannot say is left to the person; their members are reported ----


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
