"""Layergen's bookkeeping in review (layergen/update/lock.py): one base per generated file under
a stable name, and an undo's texts as changes to that base, so a small declaration change makes
a small diff of `.layergen/` and `layergen.lock`; bases under the hashed names of earlier
versions are still read, and moved to the stable ones.
"""

from __future__ import annotations

import subprocess

from helpers import cli, declaration_path, edit, module, module_path

BOOKKEEPING = (".layergen", "layergen.lock")


def git(root, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def committed(root) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "a run")


def bookkeeping_lines(root) -> int:
    """Lines added and deleted in layergen's bookkeeping since the last commit, new files
    included, each file on its own (no rename pairing)."""
    git(root, "add", "-A")
    stat = git(root, "diff", "--cached", "--numstat", "--no-renames", "--", *BOOKKEEPING)
    return sum(
        int(added) + int(deleted)
        for added, deleted, _ in (r.split("\t") for r in stat.splitlines())
    )


def test_a_one_param_change_is_a_small_diff_of_the_bookkeeping(scaler_project):
    """Each run deleted and added whole hashed copies of every base: one new param showed as
    hundreds of changed lines in review."""
    git(scaler_project, "init", "-q")
    git(scaler_project, "config", "user.email", "dev@example.com")
    git(scaler_project, "config", "user.name", "dev")
    committed(scaler_project)
    for name in ("bias", "shift", "floor"):  # the first change, and the ones after it
        edit(
            declaration_path(scaler_project),
            "params:\n",
            f"params:\n  {name}: {{type: float, default: 0.0}}\n",
        )
        assert cli("generate", "layers").exit_code == 0
        assert f"self.{name} = {name}" in module(scaler_project)
        assert bookkeeping_lines(scaler_project) < 60, git(scaler_project, "status", "--short")
        committed(scaler_project)
    bases = sorted(
        p.relative_to(scaler_project).as_posix()
        for p in (scaler_project / ".layergen" / "base").rglob("*")
        if p.is_file()
    )
    assert bases == [
        ".layergen/base/layers/scaler.py.base",
        ".layergen/base/tests/layergen_support.py.base",
        ".layergen/base/tests/test_scaler.py.base",
    ]


def test_an_undo_is_still_recognised_from_the_stored_changes(scaler_project):
    """The texts an undo needs are kept as changes to the base: a file put back as it was
    before a run is merged again (tests/unit/test_undo.py for what counts as an undo)."""
    before = module(scaler_project)
    edit(
        declaration_path(scaler_project),
        "params:\n",
        "params:\n  bias: {type: float, default: 0.0}\n",
    )
    assert cli("generate", "layers").exit_code == 0
    module_path(scaler_project).write_text(before)  # `git checkout` of the module
    assert cli("generate", "--check", "layers").exit_code == 1
    assert cli("generate", "layers").exit_code == 0
    assert "self.bias = bias" in module(scaler_project)


def test_bases_under_the_hashed_names_of_earlier_versions_are_read_and_moved(scaler_project):
    """A project whose bases were written by an earlier layergen keeps them."""
    folder = scaler_project / ".layergen" / "base"
    import hashlib

    for base in [p for p in folder.rglob("*") if p.is_file()]:
        digest = hashlib.sha256(base.read_text().encode()).hexdigest()
        base.rename(base.with_name(f"{base.name.removesuffix('.base')}.{digest[:12]}"))
    assert cli("generate", "--check", "layers").exit_code == 0
    edit(module_path(scaler_project), "        return x", "        # mine\n        return x")
    edit(declaration_path(scaler_project), "initializer: ones", "initializer: zeros")
    result = cli("generate", "layers")
    assert result.exit_code == 0 and "[no-base]" not in result.output, result.output
    code = module(scaler_project)
    assert "        # mine\n" in code and 'initializer="zeros"' in code
    left = sorted(p.name for p in folder.rglob("*") if p.is_file())
    assert left == ["layergen_support.py.base", "scaler.py.base", "test_scaler.py.base"]
