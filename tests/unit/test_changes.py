"""layergen/update/changes.py and the frozen lock: planning and reconcile only read
the lock; what changes in it is a `LockChanges`, made once on a copy before the write."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from layergen.config import load_config
from layergen.generate import find_declarations, plan_run
from layergen.update.apply import reconcile
from layergen.update.changes import LockChanges
from layergen.update.lock import FrozenLock, Lock, Record

from helpers import cli, edit, module


def state(lock: Lock) -> tuple:
    """Everything a change to the lock could touch."""
    return (
        dict(lock.entries),
        dict(lock.records),
        copy.deepcopy(dict(lock.handwritten)),
        dict(lock._rendered),
        dict(lock._undo_texts),
    )


def plan_and_reconcile(root: Path, prefer: str = "merge"):
    """Plan the run of `layergen generate layers` and reconcile it, writing nothing; the lock
    as read must come out of both as it went in."""
    config = load_config()
    plan = plan_run(find_declarations([root / "layers"]), config)
    assert plan.lock.frozen
    before = state(plan.lock)
    outcome = reconcile(plan, prefer=prefer)
    assert state(plan.lock) == before
    assert outcome.lock is not plan.lock and not outcome.lock.frozen
    return plan, outcome


def test_the_lock_as_read_refuses_every_change(scaler_project):
    lock = Lock.read(scaler_project)
    path = scaler_project / "layers" / "scaler.py"
    key = lock.key(scaler_project / "layers" / "scaler.layer.yaml")
    for change in (
        lambda: lock.forget(path),
        lambda: lock.record(path, "x = 1\n"),
        lambda: lock.settle_owned(path, {}),
        lambda: lock.keep_record(key, ()),
        lambda: lock.remember(path, Record("inputs", ()), {}),
        lambda: lock.set_handwritten("tests/test_x.py", None),
    ):
        with pytest.raises(FrozenLock):
            change()
    for table in (lock.entries, lock.records, lock.handwritten):
        with pytest.raises(TypeError):
            table["new"] = None  # type: ignore[index]
    assert state(lock) == state(Lock.read(scaler_project))


def test_a_run_that_follows_a_rename_changes_only_the_lock_it_writes(scaler_project):
    """A declaration renamed, file and class, with a hand edit in its module: planning finds
    the rename, reconcile moves the files; the records change in the outcome's lock only."""
    layers = scaler_project / "layers"
    edit(layers / "scaler.py", "        return x", "        x = x  # mine\n        return x")
    text = (layers / "scaler.layer.yaml").read_text().replace("layer: Scaler", "layer: Gainer")
    (layers / "scaler.layer.yaml").unlink()
    (layers / "gainer.layer.yaml").write_text(text)
    plan, outcome = plan_and_reconcile(scaler_project)
    assert plan.moved[layers / "gainer.py"] == layers / "scaler.py"
    assert "layers/scaler.layer.yaml" in plan.lock.records
    assert "layers/gainer.layer.yaml" not in plan.lock.records
    assert "layers/scaler.layer.yaml" not in outcome.lock.records
    assert outcome.lock.records["layers/gainer.layer.yaml"].name == "Gainer"
    assert "# mine" in outcome.files[layers / "gainer.py"]
    assert layers / "scaler.py" in outcome.deleted
    # And the CLI writes the same thing.
    assert cli("generate", "layers").exit_code == 0
    assert "# mine" in (layers / "gainer.py").read_text()


def test_an_undone_conflicted_run_is_planned_without_changing_the_lock(scaler_project):
    """The undo of a run that wrote conflicts (`Entry.undo`): merged again against the base
    that run used; the lock as read keeps its undo entry, the outcome's moves on."""
    from helpers import snapshot

    layers = scaler_project / "layers"
    edit(layers / "scaler.py", "        return x", "        x = x  # mine\n        return x")
    before = snapshot(scaler_project)
    declaration = layers / "scaler.layer.yaml"
    edit(declaration, "params:\n", "params:\n  bias: {type: float, default: 0.0}\n")
    edit(declaration, "call: x * scale * gain", "call: x * scale * gain + bias")
    assert cli("generate", "layers").exit_code == 1  # the call conflicts, `bias` merges
    (layers / "scaler.py").write_bytes(before["layers/scaler.py"])  # `git checkout`
    assert Lock.read(scaler_project).entries["layers/scaler.py"].undo is not None
    _, outcome = plan_and_reconcile(scaler_project)
    assert "<<<<<<<" in outcome.files[layers / "scaler.py"]  # the conflict, made again
    _, forced = plan_and_reconcile(scaler_project, prefer="generated")
    assert "x * self.scale * self.gain + self.bias" in forced.files[layers / "scaler.py"]
    assert module(scaler_project).encode() == before["layers/scaler.py"]  # nothing written


def test_changes_are_made_in_order_on_a_copy(scaler_project):
    lock = Lock.read(scaler_project)
    path = scaler_project / "layers" / "scaler.py"
    changes = LockChanges()
    changes.record(path, "first\n")
    changes.record(path, "second\n")
    changes.forget(scaler_project / "tests" / "test_scaler.py")
    done = changes.applied(lock)
    assert done.base(path) == "second\n"
    assert "tests/test_scaler.py" not in done.entries
    assert "tests/test_scaler.py" in lock.entries and lock.base(path) != "second\n"
    assert not (LockChanges() + LockChanges()) and (LockChanges() + changes).steps == changes.steps
