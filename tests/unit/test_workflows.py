"""The everyday workflows of issue 21 that lost an edit or left stale code behind a green
`--check`: `--force`, class and file renames, saves during a run, `resolve` then more
declaration changes, marker-like strings, module-level assignments, `sync`, partial writes
and conflicts at the end of a file. Each test failed on main before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from layergen.cli import app

from helpers import DECLARATION, module

runner = CliRunner()


def run(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


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


def test_a_conflict_in_an_emptied_module_can_be_settled(scaler_project):
    module_path(scaler_project).write_text("")
    edit(declaration_path(scaler_project), "call: x * scale * gain", "call: x * scale + gain")
    assert run("generate", "layers").exit_code == 1
    settle_both_ways(scaler_project)


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
