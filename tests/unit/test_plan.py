"""layergen/update/plan.py: a planned run is a value. No command edits it (a variant is
`dataclasses.replace`), and reconcile makes each change it plans in the lock once."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from layergen.config import load_config
from layergen.generate import find_declarations, plan_run
from layergen.update.apply import reconcile
from layergen.update.changes import Step

from helpers import cli


def made_steps(monkeypatch) -> list:
    """Every lock change made from now on, in order (the steps themselves)."""
    made = []
    for kind in typing.get_args(Step):

        def to(self, lock, _to=kind.to):
            made.append(self)
            _to(self, lock)

        monkeypatch.setattr(kind, "to", to)
    return made


def planned(root):
    """The run of `layergen generate layers`, the declaration's text edited (rendered again)."""
    declaration = root / "layers" / "scaler.layer.yaml"
    text = declaration.read_text() + "# rendered again\n"
    return plan_run(find_declarations([root / "layers"]), load_config(), texts={declaration: text})


def test_a_planned_run_refuses_every_change(scaler_project):
    plan = planned(scaler_project)
    module = scaler_project / "layers" / "scaler.py"
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.generated = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.support[module] = "x = 1\n"  # type: ignore[index]
    with pytest.raises(AttributeError):
        plan.changes.forget(module)


def test_a_variant_of_a_plan_leaves_the_plan_as_it_was(scaler_project):
    plan = planned(scaler_project)
    note = scaler_project / "note.txt"
    variant = dataclasses.replace(plan, support={**plan.support, note: "x\n"})
    assert variant.support[note] == "x\n" and note not in plan.support
    assert variant.generated == plan.generated


def test_reconcile_makes_each_planned_change_once(scaler_project, monkeypatch):
    plan = planned(scaler_project)
    assert plan.changes  # rendered again: the lock is to remember it
    made = made_steps(monkeypatch)
    reconcile(plan)
    planned_steps = {id(step) for step in plan.changes.steps}
    made_of_plan = [id(step) for step in made if id(step) in planned_steps]
    assert sorted(made_of_plan) == sorted(planned_steps)  # each one, once


def test_layergen_tests_makes_each_change_to_the_lock_once(scaler_project, monkeypatch):
    (scaler_project / "layers" / "gain.py").write_text(
        "import keras\n\n\n"
        '@keras.saving.register_keras_serializable(package="demo")\n'
        "class Gain(keras.layers.Layer):\n"
        "    def call(self, x):\n"
        "        return x * 2.0\n"
    )
    assert cli("tests", "layers/gain.py").exit_code == 0
    (scaler_project / "layers" / "gain.py").unlink()  # its tests go, and the lock forgets them
    made = made_steps(monkeypatch)
    result = cli("tests")
    assert result.exit_code == 0, result.output
    assert made and len({id(step) for step in made}) == len(made)
