"""Inputs named like Python's builtins: the generated tests pass.

`build` indexed the builtin (`map[-1]`) and generate exited 0; the unit tests check the
code, this runs it. One layer with seven such inputs, its generated tests on JAX: about 30 s.
"""

from __future__ import annotations

import pytest

from helpers import layergen, run_pytest

pytestmark = pytest.mark.e2e

DECLARATION = """\
layer: BuiltinNamed
doc: Inputs named like Python's builtins.
inputs: {map: {}, filter: {}, min: {}, id: {}, type: {}, print: {}, range: {}}
weights:
  w:
    shape: map[-1]
    initializer: ones
call: map * w + filter + min + id + type + print + range
"""


def test_inputs_named_like_builtins_give_tests_that_pass(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "builtin_named.layer.yaml").write_text(DECLARATION)
    result = layergen("generate", "layers", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    outcomes = run_pytest(tmp_path, "jax")
    assert len(outcomes) >= 9 and set(outcomes.values()) == {"passed"}, outcomes
