"""A newcomer's first minutes: the README's commands, and a scaffold's tests that print no noise.

About 40 s: one `layergen new`, then its tests on TensorFlow, JAX and torch.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, pytest_in

pytestmark = pytest.mark.e2e


def readme_commands() -> list[str]:
    """The README's first code block: its two commands."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, flags=re.DOTALL).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_the_readme_starts_with_the_scaffold_and_the_suite_ci_runs():
    scaffold, suite = readme_commands()
    # Each command makes a venv of its own: the second is fresh after the first.
    venvs = [re.search(r"python3 -m venv (\S+)", c).group(1) for c in (scaffold, suite)]
    assert len(set(venvs)) == 2
    assert "layergen new ScaledDense --weights kernel,scale,bias && pytest" in scaffold
    # The scaffold lands in a named folder beside the clone, not an anonymous one.
    assert "mktemp" not in scaffold and "cd ../my-layers" in scaffold
    ci = (REPO / ".ci" / "run").read_text()
    assert suite in ci


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory) -> Path:
    """`layergen new` in an empty folder, as the README's first command runs it."""
    folder = tmp_path_factory.mktemp("my-layers")
    result = subprocess.run(
        [sys.executable, "-m", "layergen", "new", "ScaledDense", "--weights", "kernel,scale,bias"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # It says where the layer and its tests are, and what to do next.
    assert (
        "layers/scaled_dense.py" in result.stdout and "tests/test_scaled_dense.py" in result.stdout
    )
    assert "pytest tests/test_scaled_dense.py" in result.stdout
    return folder


@pytest.mark.parametrize("backend", ["tensorflow", "jax", "torch"])
def test_the_scaffold_tests_pass_without_a_warning(scaffold, backend):
    """The frameworks' own DeprecationWarnings (NumPy 2's `copy` keyword in Keras's backends)
    are filtered by the generated conftest; a user's own warning still shows."""
    (scaffold / "tests" / "test_users_own.py").write_text(
        "import warnings\n\n\ndef test_mine():\n"
        '    warnings.warn("my own deprecation", DeprecationWarning)\n'
    )
    result = pytest_in(
        scaffold,
        *("-q", "-p", "no:cacheprovider", "-rw"),
        KERAS_BACKEND=backend,
        KERAS_HOME=str(scaffold / ".keras"),
    )
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:]
    assert re.fullmatch(r"\d+ passed, 1 warning in .*", summary), result.stdout[-3000:]
    assert "my own deprecation" in result.stdout


def test_a_rerun_on_jax_finds_all_it_compiled_kept(scaffold):
    """JAX compiles each operation for each shape and dtype it meets (most of a JAX test
    file's time): the generated conftest keeps what it compiled in pytest's cache, so
    running a layer's tests again compiles nothing new, and prints no warning."""
    kept = scaffold / ".pytest_cache" / "d" / "jax"
    runs = []
    for _ in range(2):
        result = pytest_in(
            scaffold,
            *("-q", "-rw", "tests/test_scaled_dense.py"),
            KERAS_BACKEND="jax",
            KERAS_HOME=str(scaffold / ".keras"),
        )
        assert result.returncode == 0, result.stdout[-3000:]
        summary = result.stdout.strip().splitlines()[-1]
        assert re.fullmatch(r"\d+ passed in .*", summary), result.stdout[-3000:]
        runs.append(sorted(p.name for p in kept.iterdir()) if kept.is_dir() else [])
    assert runs[0], "nothing JAX compiled was kept"
    assert runs[1] == runs[0], "the rerun compiled again"
