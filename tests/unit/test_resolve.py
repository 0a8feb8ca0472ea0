"""`layergen resolve` (layergen/commands/resolve.py): settling a conflict either way.

Regression tests: no conflict passes unnoticed, no edit is lost; everyday workflows that lost an
edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

from helpers import (
    HAND_CALL,
    declaration_path,
    edit,
    edit_call_by_hand_and_in_the_declaration,
    module,
    module_path,
)
from helpers import cli as run


def test_resolve_takes_either_side(scaler_project):
    edit_call_by_hand_and_in_the_declaration(scaler_project)
    run("generate", "layers")
    conflicted = module(scaler_project)
    assert run("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    assert "<<<<<<<" not in module(
        scaler_project
    ) and "return x * self.scale + self.gain" in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0
    (scaler_project / "layers" / "scaler.py").write_text(conflicted)
    assert run("resolve", "layers/scaler.py", "--ours").exit_code == 0
    assert HAND_CALL in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0
    assert run("resolve", "layers/scaler.py").exit_code == 2  # which side?


# -- a lock record is reused only when it fits the files it was made with -------------------------


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


def test_resolve_theirs_takes_a_member_back_from_the_person(scaler_project):
    """`--theirs` took the generated member but left it under `hand_written`: every later
    declaration change to it repeated the `[hand-written]` report."""
    edit(
        declaration_path(scaler_project),
        "call: x * scale * gain\n",
        "call: x * scale * gain\nhand_written: [build]\n",
    )
    assert run("generate", "layers").exit_code == 0
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    assert run("generate", "layers").exit_code == 1  # `Scaler.build` is yours, and changes
    result = run("resolve", "layers/scaler.py", "--theirs")
    assert result.exit_code == 0, result.output
    # said at the member: `--theirs` replaced code of the person's
    assert "layers/scaler.py:25: took the generated `Scaler.build` in place of yours" in (
        result.output
    ), result.output
    assert "hand_written" not in declaration_path(scaler_project).read_text()
    assert 'initializer="zeros"' in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0
    edit(declaration_path(scaler_project), "initializer: zeros", "initializer: ones")
    result = run("generate", "layers")
    assert result.exit_code == 0 and "[hand-written]" not in result.output, result.output
    assert 'initializer="ones"' in module(scaler_project)


def test_resolve_ours_keeps_the_member_the_persons(scaler_project):
    edit(
        declaration_path(scaler_project),
        "call: x * scale * gain\n",
        "call: x * scale * gain\nhand_written: [build]\n",
    )
    assert run("generate", "layers").exit_code == 0
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    assert run("generate", "layers").exit_code == 1
    assert run("resolve", "layers/scaler.py", "--ours").exit_code == 0
    assert "hand_written: [build]" in declaration_path(scaler_project).read_text()
    assert 'initializer="ones"' in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0
