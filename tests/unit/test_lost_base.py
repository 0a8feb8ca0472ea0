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


def rename(root, how: str, doc: bool = False):
    """Scaler renamed Booster, in its declaration or with `mv`; the module it is in now."""
    if doc:  # another change with it: the declaration's text is no longer the one recorded
        edit(declaration_path(root), "doc: Multiplies", "doc: Scales")
    if how == "mv":
        args = ("mv", "layers/scaler.layer.yaml", "layers/booster.layer.yaml", "--class", "Booster")
        return cli(*args), root / "layers" / "booster.py"
    edit(declaration_path(root), "layer: Scaler", "layer: Booster")
    return cli("generate", "layers"), module_path(root)


def edit_by_hand(root) -> None:
    add_method(module_path(root), "extra")
    edit(module_path(root), "        return x", "        # mine\n        return x")


def only_booster_with_the_persons_members(code: str) -> None:
    assert "class Scaler" not in code and code.count("register_keras_serializable") == 1, code
    booster = code.split("class Booster(")[1]
    assert "    def extra(self):" in booster and "        # mine\n" in booster


@pytest.mark.parametrize("how", ["declaration", "mv"])
def test_a_class_renamed_without_a_base_carries_the_persons_members(scaler_project, how):
    """The renamed class was written without the person's method and comment, and the old
    class, with them, stayed beside it as a second registered class. The rename is known
    from the lock's records of the class; with another change besides, nothing proves a base."""
    lose_the_bases(scaler_project)
    edit_by_hand(scaler_project)
    result, path = rename(scaler_project, how, doc=True)
    assert "[no-base]" in result.output, result.output
    only_booster_with_the_persons_members(path.read_text())
    assert cli("resolve", str(path.relative_to(scaler_project)), "--ours").exit_code == 0
    assert cli("generate", "--check", "layers").exit_code == 0
    only_booster_with_the_persons_members(path.read_text())


@pytest.mark.parametrize("how", ["declaration", "mv"])
def test_a_lost_base_is_rendered_again_from_the_declaration_it_was_made_from(scaler_project, how):
    """The declaration renamed and nothing else: its text, with the class the lock records,
    renders the lost base again, proved by the digest the lock keeps; the rename merges."""
    lose_the_bases(scaler_project)
    edit_by_hand(scaler_project)
    result, path = rename(scaler_project, how)
    assert result.exit_code == 0, result.output
    assert "[base-from-declaration]" in result.output and "as it is now" in result.output
    assert "[no-base]" not in result.output and "<<<<<<<" not in path.read_text()
    only_booster_with_the_persons_members(path.read_text())
    assert cli("generate", "--check", "layers").exit_code == 0


def test_a_lost_base_is_rendered_again_from_the_declaration_in_git_history(scaler_project):
    """`.layergen/` ignored by git: a fresh clone with a hand-edited module and a doc change
    merged against nothing. The declaration as committed renders the base again, and the
    run says from which commit."""
    import subprocess

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=scaler_project, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    (scaler_project / ".gitignore").write_text(".layergen/\n")
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=dev", "-c", "user.email=dev@example.com", "commit", "-qm", "layers")
    commit = git("rev-parse", "--short=7", "HEAD").strip()
    lose_the_bases(scaler_project)  # the clone
    edit(module_path(scaler_project), "        return x", "        # mine\n        return x")
    edit(declaration_path(scaler_project), "doc: Multiplies", "doc: Scales")
    result = cli("generate", "layers")
    assert result.exit_code == 0, result.output
    assert f"as committed in {commit} on " in result.output, result.output
    code = module(scaler_project)
    assert "        # mine\n" in code and "Scales by a learnable" in code and "<<<<<<<" not in code
