"""A lost base (`.layergen/base/` missing: a clone of a repository that ignores it, with
`layergen.lock` committed) is recovered where the evidence is unambiguous: a file whose bytes
are the generation the lock records is its own base, and a class rename is known from the
lock's record of the class. Where nothing recovers it, every message says there is no base.
"""

from __future__ import annotations

import shutil

import pytest

from helpers import add_method, cli, declaration_path, edit, module, module_path


def lose_the_bases(root) -> None:
    shutil.rmtree(root / ".layergen")


def test_a_file_as_the_lock_recorded_it_is_its_own_base(scaler_project):
    """No hand edit anywhere: the next declaration change merged against nothing and
    conflicted on untouched code, labelled edited by hand."""
    lose_the_bases(scaler_project)
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    assert "[no-base]" not in result.output and "[conflict]" not in result.output
    assert 'initializer="zeros"' in module(scaler_project)
    assert "<<<<<<<" not in module(scaler_project)
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_run_rebuilds_a_lost_base_and_check_stays_green_before_it(scaler_project):
    """Runs stayed green without rebuilding the base, so a hand edit made later had nothing
    to merge against. `--check` on a fresh clone (the CI) stays 0: the base is bookkeeping
    the file itself proves."""
    lose_the_bases(scaler_project)
    assert cli("generate", "--check", "layers").exit_code == 0
    assert cli("generate", "layers").exit_code == 0
    assert any((scaler_project / ".layergen").rglob("*scaler.py*"))
    # A hand edit now, then a declaration change elsewhere: a clean 3-way merge.
    edit(module_path(scaler_project), "        return x", "        # mine\n        return x")
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    code = module(scaler_project)
    assert "        # mine\n" in code and 'initializer="zeros"' in code


def test_a_conflict_without_a_base_says_so_in_its_message(scaler_project):
    """The markers said "no base" while the message said "`Scaler.call` was edited by hand and
    the declaration changes it too", even where the declaration changed only the doc."""
    lose_the_bases(scaler_project)
    edit(module_path(scaler_project), "        return x", "        # mine\n        return x")
    edit(declaration_path(scaler_project), "doc: Multiplies", "doc: Scales")
    result = cli("generate", "layers")
    assert result.exit_code == 1 and "[no-base]" in result.output, result.output
    conflicts = [line for line in result.output.splitlines() if line.endswith("[conflict]")]
    assert conflicts, result.output
    for line in conflicts:
        assert "edited by hand" not in line and "no base" in line, line
    assert "        # mine\n" in module(scaler_project)


@pytest.mark.parametrize("how", ["declaration", "mv"])
def test_a_class_renamed_without_a_base_carries_the_persons_members(scaler_project, how):
    """The renamed class was written without the person's method and comment, and the old
    class, with them, stayed beside it as a second registered class."""
    lose_the_bases(scaler_project)
    add_method(module_path(scaler_project), "extra")
    edit(module_path(scaler_project), "        return x", "        # mine\n        return x")
    if how == "mv":
        args = ("mv", "layers/scaler.layer.yaml", "layers/booster.layer.yaml", "--class", "Booster")
        result = cli(*args)
        path = scaler_project / "layers" / "booster.py"
    else:
        edit(declaration_path(scaler_project), "layer: Scaler", "layer: Booster")
        result = cli("generate", "layers")
        path = module_path(scaler_project)
    assert "[no-base]" in result.output, result.output
    code = path.read_text()
    assert "class Scaler" not in code and code.count("register_keras_serializable") == 1, code
    booster = code.split("class Booster(")[1]
    assert "    def extra(self):" in booster and "        # mine\n" in booster
    assert cli("resolve", str(path.relative_to(scaler_project)), "--ours").exit_code == 0
    assert cli("generate", "--check", "layers").exit_code == 0
    code = path.read_text()
    assert "class Scaler" not in code and "    def extra(self):" in code
