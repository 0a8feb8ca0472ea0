"""The kinds table: adding a kind is one row in layergen/kinds.py and one test template.

The throwaway kind here, a learning-rate schedule, is added exactly that way (the row is
inserted before the rest of layergen is imported, as an edit of the table would), and its
generated class and tests must work.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest
import yaml

from layergen.init import DECLARATION_FILES
from layergen.kinds import KINDS, declaration_files_pattern

from helpers import REPO

ADD_A_KIND = textwrap.dedent("""
    import sys
    from layergen import kinds

    kinds.KINDS["schedule"] = kinds.Kind(
        name="schedule",
        base="keras.optimizers.schedules.LearningRateSchedule",
        method="__call__",
        arguments=("step",),
        signature="step",
        reserved=frozenset(["get_config", "from_config"]),
        base_kwargs=None,
        template="object.py.j2",
        test_template="schedule_test.py.j2",
        test_shape=(1,),
        summary="Generate a LearningRateSchedule of this name; `call` sees step.",
    )
    from layergen.cli import main

    sys.argv = ["layergen", *sys.argv[1:]]
    main()
    """)

# The one template a new kind needs: the tests only it can have.
SCHEDULE_TESTS = """\
{% extends "_object_test.j2" %}
{% block kind_tests %}


def test_value_is_the_declared_formula():
    obj = make_object()
    for step in (0, 99, 100, 1000):
        expected = support.numpy(declared(step, obj))
        np.testing.assert_allclose(support.numpy(obj(step)), expected, rtol=1e-6)


def test_an_optimizer_saves_it_and_reads_it_back():
    optimizer = keras.optimizers.SGD(learning_rate=make_object())
    clone = keras.optimizers.SGD.from_config(optimizer.get_config())
    assert clone.get_config()["learning_rate"] == optimizer.get_config()["learning_rate"]
{% endblock %}
"""

DECLARATION = """\
schedule: HalvingSchedule
doc: Halves the learning rate every `every` steps.
params:
  initial: {type: float, default: 0.1, min: 0.0}
  every: {type: int, default: 100, min: 1}
call: initial * 0.5 ** ops.floor(ops.cast(step, "float32") / every)
"""


@pytest.mark.e2e
def test_a_new_kind_is_one_row_and_one_template(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n[tool.layergen]\ntemplates = 'templates'\n"
    )
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "schedule_test.py.j2").write_text(SCHEDULE_TESTS)
    (tmp_path / "schedules").mkdir()
    (tmp_path / "schedules" / "halving.schedule.yaml").write_text(DECLARATION)
    env = {**os.environ, "KERAS_BACKEND": "jax", "KERAS_HOME": str(tmp_path / ".keras")}
    run = [sys.executable, "-c", ADD_A_KIND, "generate", "schedules"]
    result = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    module = (tmp_path / "schedules" / "halving.py").read_text()
    assert "class HalvingSchedule(keras.optimizers.schedules.LearningRateSchedule):" in module
    assert "    def __call__(self, step):" in module
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
    passed = re.search(r"(\d+) passed", tests.stdout)
    assert passed and int(passed[1]) >= 4, tests.stdout[-3000:]


def test_every_kind_has_its_templates():
    templates = REPO / "layergen" / "templates"
    for kind in KINDS.values():
        assert (templates / kind.template).is_file() and (templates / kind.test_template).is_file()


def test_the_shipped_pre_commit_hook_watches_every_kind():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    generate = next(h for h in hooks if h["id"] == "layergen-generate")
    assert generate["files"] == declaration_files_pattern() == DECLARATION_FILES
