"""`layergen adopt` runs the generated tests on the code as adopted before it writes
anything (`adopt/trial.py`): a test that fails there fails on the person's code too
(adopting changes no behaviour), so it is stated skipped in the declaration with the
failure as its reason and printed, and the suite adopt leaves is green: one a team can
gate on, every deviation it tolerates written down."""

from __future__ import annotations

import pytest

from helpers import cli, run_pytest

pytestmark = pytest.mark.trial  # adopt's trial runs here (tests/conftest.py turns it off)
# adopt with its trial runs generated suites in fresh processes (seconds each): end to end
E2E = pytest.mark.e2e

# `ops.ones` makes float32 whatever the policy: the sum is float32 under a mixed one, which
# nothing in the code says (no cast, no dtype): only running it shows it.
SHIFT = """\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class Shift(keras.layers.Layer):
    def call(self, inputs):
        return inputs + ops.ones(ops.shape(inputs))
"""

MIXED = "test_mixed_precision_matches_float32"


@E2E
def test_a_generated_test_that_fails_on_the_adopted_code_is_stated_with_its_failure(
    project, monkeypatch
):
    monkeypatch.setenv("KERAS_BACKEND", "jax")  # the trial's backend: the quickest to start
    (project / "layers" / "shift.py").write_text(SHIFT)
    result = cli("adopt", "layers/shift.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "shift.layer.yaml").read_text()
    stated = text.partition(f"    {MIXED}: ")[2].splitlines()[0]
    assert "failed on the code as adopted" in stated and "an output is float32" in stated, text
    assert f"Shift skips {MIXED}: " in result.output, result.output
    ran = "the generated tests on the code as adopted: 2 failed, 6 passed, 2 skipped"
    assert ran in result.output, result.output  # its two policies failed
    outcomes = run_pytest(project, "jax")
    assert outcomes and "failed" not in outcomes.values(), outcomes
    assert all(o == "skipped" for n, o in outcomes.items() if n.startswith(f"test_shift::{MIXED}"))
    assert text.count("failed on the code as adopted") == 1, text  # the other tests passed
    assert cli("generate", "--check").exit_code == 0


def test_only_generated_tests_are_stated_and_an_uncollected_module_is_said(tmp_path):
    """The trial itself, on test modules that import nothing heavy: a failing test of the
    person's in a generated module is never stated (theirs to mend); a failure says its
    paths from the project, not from the scratch copy it ran in; a module that cannot be
    collected is said, and nothing of it skipped."""
    from layergen.adopt.trial import trial

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    tests = tmp_path / "tests"
    generated = (
        "def test_generated():\n"
        "    assert 1 == 2, f'\\x1b[1mone is not two\\x1b[0m in {__file__}'\n"
    )
    mine = "\n\ndef test_mine():\n    assert False\n"
    broken = "import no_such_module\n\n\ndef test_generated():\n    pass\n"
    files = {tests / "test_a.py": generated + mine, tests / "test_b.py": broken}
    tried = trial(
        tmp_path, files, (), {tests / "test_a.py": generated, tests / "test_b.py": broken}
    )
    assert tried.failed == {
        tests / "test_a.py": {"test_generated": "AssertionError: one is not two in tests/test_a.py"}
    }, tried
    assert tried.counted() == {"failed": 1, "failed of yours": 1, "uncollected": 1}, tried
    assert "test_b" in tried.why and "No module named 'no_such_module'" in tried.why, tried.why
    assert not (tests / "test_a.py").exists()  # run in a scratch copy: nothing written here


HEADS = '''\
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="mine")
class Heads(keras.layers.Layer):
    def __init__(self, num_heads, **kwargs):
        super().__init__(**kwargs)
        self.num_heads = num_heads

    def call(self, x):
        """Splits the features into heads.

        Args:
            x: a tensor of shape (batch_size, features).
        """
        features = ops.shape(x)[-1]
        return ops.reshape(x, (-1, self.num_heads, features // self.num_heads))

    def get_config(self):
        return {**super().get_config(), "num_heads": self.num_heads}
'''

HEADS_TEST = """\
import numpy as np
import pytest

from layers.heads import Heads


@pytest.fixture
def features():
    return 6


def test_heads(features):
    layer = Heads(num_heads=3)
    assert layer(np.ones((2, features), "float32")).shape == (2, 3, 2)
"""


@E2E
def test_an_example_the_code_refuses_gives_way_to_the_call_the_projects_tests_make(
    project, monkeypatch
):
    """`num_heads=3` from the project's test, the input's shape from `call`'s docstring
    (`features` is no param: 4): the reshape fails, so every generated test that calls the
    layer would be stated skipped. The project's test makes it on 6 features: that example,
    observed (one construction's values and its call's shape), is tried, and kept, since
    its tests pass."""
    monkeypatch.setenv("KERAS_BACKEND", "jax")  # the trial's and observation's backend
    (project / "layers" / "heads.py").write_text(HEADS)
    (project / "layers" / "heads_test.py").write_text(HEADS_TEST)
    result = cli("adopt", "layers/heads.py")
    assert result.exit_code == 0, result.output
    text = (project / "layers" / "heads.layer.yaml").read_text()
    assert "input_shape: [2, 6]" in text and "observed in layers/heads_test.py" in text, text
    assert "failed on the code as adopted" not in text, text
    said = "Heads's example as its tests make it (observed in layers/heads_test.py::test_heads):"
    assert said in result.output and "0 generated tests fail with it" in result.output
    ran = result.output.rpartition("\n")[0].splitlines()[-1]  # the same suite, run again
    assert ran.startswith("the generated tests on the code as adopted: ") and "failed" not in ran


@E2E
def test_an_example_call_that_raises_is_said_with_what_to_do(project, monkeypatch):
    """No test of the project makes `Heads`: the person's `num_heads=3` and the docstring's
    4 features fail the reshape, every test that calls the layer is stated, and adopt says
    the example call raises and where to give one."""
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    (project / "layers" / "heads.py").write_text(HEADS)
    result = cli("adopt", "layers/heads.py", "--example", "num_heads=3")
    assert result.exit_code == 0, result.output
    warning = "  warning: Heads's example call raises ("
    assert warning in result.output and "`example:` in layers/heads.layer.yaml" in result.output
    assert cli("generate", "--check", "layers").exit_code == 0


def test_the_scratch_copy_never_writes_through_a_link_nor_into_itself(tmp_path):
    """A linked tests folder is made anew in the copy (adopt's files written there, never
    into the folder it links to), a file of a MiB or more is linked, a virtual environment
    is left out by what it holds (not by its name: `mypkg/env/` is a package), and a
    scratch folder inside the project is not copied into itself."""
    from layergen.adopt.trial import _mirror

    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (elsewhere / "tests").mkdir(parents=True)
    (elsewhere / "tests" / "test_mine.py").write_text("def test_mine():\n    pass\n")
    (root / "mypkg" / "env").mkdir(parents=True)
    (root / "mypkg" / "env" / "__init__.py").write_text("")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / "weights.bin").write_bytes(b"0" * (1 << 20))
    (root / "tests").symlink_to(elsewhere / "tests")
    scratch = root / "tmp" / "scratch"  # a TMPDIR in the project
    scratch.mkdir(parents=True)
    _mirror(root, scratch, {root / "tests" / "test_new.py": "x = 1\n"}, ())
    assert sorted(p.name for p in (elsewhere / "tests").iterdir()) == ["test_mine.py"]
    assert not (scratch / "tests").is_symlink()
    assert (scratch / "tests" / "test_new.py").read_text() == "x = 1\n"
    assert (scratch / "tests" / "test_mine.py").is_file()
    assert (scratch / "mypkg" / "env" / "__init__.py").is_file()
    assert not (scratch / ".venv").exists() and (scratch / "weights.bin").is_symlink()
    assert not (scratch / "tmp" / "scratch").exists()


def test_a_failure_keras_wraps_is_said_by_its_cause():
    import xml.etree.ElementTree as ET

    from layergen.adopt.trial import _reason

    message = (
        "ValueError: Exception encountered when calling Odd.call().\n\n"
        '\x1b[1mbad "quoted" value\x1b[0m\n\nArguments received by Odd.call():\n  x=...'
    )
    failure = ET.Element("failure", message=message)
    assert _reason(failure) == 'ValueError: bad "quoted" value'
