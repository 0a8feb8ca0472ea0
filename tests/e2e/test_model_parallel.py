"""End to end: layers that declare layouts are sharded by the generated
`get_layout_map` under `keras.distribution.ModelParallel`, on JAX with 8 host CPU devices.

The generated tests of each example check its own sharding against one device
(tests/e2e/test_generated.py runs them); here, the docs' model made of the three sharded
examples runs as written, a sublayer renamed in a declaration stays sharded once the project
is generated again, and one renamed by hand in the code (how keras-hub's hand-written regexes
drift from the layers) fails the generated tests. About 3 minutes on two cores.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from helpers import OWN_EXAMPLES, REPO, layergen, make_project, run_pytest

pytestmark = pytest.mark.e2e

EIGHT_DEVICES = {
    "KERAS_BACKEND": "jax",
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "TF_CPP_MIN_LOG_LEVEL": "3",
}
SHARDED = ["token_embedding", "column_parallel_dense", "mixture_of_experts"]


@pytest.fixture
def project(tmp_path):
    root = make_project(tmp_path, {})
    (root / "examples").mkdir()
    for name in SHARDED:
        source = OWN_EXAMPLES / f"{name}.layer.yaml"
        (root / "examples" / source.name).write_text(source.read_text())
    result = layergen("generate", "examples", cwd=root)
    assert result.returncode == 0, result.stderr
    return root


def docs_example() -> tuple[str, str]:
    """The docs' model sharded by the generated layout map, and what it prints there."""
    section = (REPO / "docs" / "model-parallelism.md").read_text()
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    printed = re.search(r"It prints.*?```\n(.*?)```", section, re.DOTALL).group(1)
    return code, printed


def test_the_docs_model_is_sharded_by_the_generated_layout_map(project):
    """About 30 s: the docs' example as written, then one fit step on the mesh."""
    check = """
import numpy as np
specs = {w.path: tuple(w.value.sharding.spec) for w in model.weights}
assert specs == {
    "token_embedding/embeddings": ("model", None),
    "column_parallel_dense/kernel": (None, "model"),
    "column_parallel_dense/bias": ("model",),
    "mixture_of_experts/expert_kernel": ("model", None, None),
    "mixture_of_experts/expert_output_kernel": ("model", None, None),
    "mixture_of_experts/router/kernel": (None, "model"),
    "logits/kernel": (None, "model"),
    "logits/bias": (None,),  # no key: whole on every device
}, specs
model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
tokens = np.random.default_rng(0).integers(0, 1024, (8, 16))
history = model.fit(tokens, tokens, epochs=1, verbose=0)
assert np.isfinite(history.history["loss"][0])
print("sharded and trained")
"""
    code, printed = docs_example()
    result = subprocess.run(
        [sys.executable, "-c", code + check],
        cwd=project,
        env={**os.environ, **EIGHT_DEVICES, "KERAS_HOME": str(project / ".keras")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout == printed + "sharded and trained\n"


def test_a_sublayer_renamed_in_its_declaration_stays_sharded(project):
    """About 60 s: `router` becomes `gate`; generated again, the layout map keys the new
    path and the generated ModelParallel tests pass on JAX."""
    declaration = project / "examples" / "mixture_of_experts.layer.yaml"
    text = declaration.read_text()
    declaration.write_text(text.replace("router:", "gate:").replace("router(x)", "gate(x)"))
    result = layergen("generate", "examples", cwd=project)
    assert result.returncode == 0, result.stderr
    layout_map = (project / "examples" / "layout_map.py").read_text()
    assert "mixture_of_experts(?:_\\d+)?/gate/kernel" in layout_map
    assert "router" not in layout_map
    outcomes = run_pytest(project, "jax", "tests/test_mixture_of_experts.py")
    sharded = {n: o for n, o in outcomes.items() if "layout_map" in n or "model_parallel" in n}
    assert len(sharded) == 6 and set(sharded.values()) == {"passed"}, sharded


def test_a_sublayer_renamed_by_hand_in_the_code_fails_the_generated_tests(project):
    """About 60 s: the layout map still keys `router/kernel`; the generated test says which
    declared weight is no longer split (the key test passes: no key matches `gate/kernel`)."""
    module = project / "examples" / "mixture_of_experts.py"
    code = module.read_text()
    assert 'name="router"' in code
    module.write_text(code.replace('name="router"', 'name="gate"'))
    test = "tests/test_mixture_of_experts.py::test_model_parallel_shards_each_weight_as_declared"
    assert run_pytest(project, "jax", test) == {
        "test_mixture_of_experts::test_model_parallel_shards_each_weight_as_declared": "failed"
    }
