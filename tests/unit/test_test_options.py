"""What a declaration says of its generated tests:
`tests: {skip: {name: reason}}` turns a generated test off with a reason shown in every
run, and `noise` states what a random layer promises of its noise."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from layergen.cli import app

from helpers import snapshot

runner = CliRunner()

ROUTER = """\
layer: Router
doc: Scores every token for each expert.
params:
  experts: {type: int, min: 1}
weights:
  kernel:
    shape: (x[-1], experts)
call: ops.reshape(ops.matmul(x, kernel), (-1, experts))
output_shape: (x[0] * x[1], experts)
example:
  params: {experts: 4}
  input_shape: [2, 5, 3]
tests:
  skip:
    test_save_and_load_without_custom_objects: the reshape needs a static batch
    test_mixed_precision_matches_float32: routing "flips" under float16
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def generate(project, name: str, text: str):
    """`name`: the declaration's file name, its suffix left out for a layer."""
    name = name if name.endswith(".yaml") else f"{name}.layer.yaml"
    (project / "layers" / name).write_text(text)
    return runner.invoke(app, ["generate", "layers"])


def test_a_skipped_test_is_marked_with_its_reason_above_its_decorators(project):
    result = generate(project, "router", ROUTER)
    assert result.exit_code == 0, result.output
    lines = (project / "tests" / "test_router.py").read_text().splitlines()
    save = lines.index("def test_save_and_load_without_custom_objects(tmp_path):")
    assert lines[save - 1] == ('@pytest.mark.skip(reason="the reshape needs a static batch")')
    mixed = lines.index("def test_mixed_precision_matches_float32(policy):")
    assert lines[mixed - 2 : mixed] == [
        "@pytest.mark.skip(reason='routing \"flips\" under float16')",
        '@pytest.mark.parametrize("policy", sorted(support.MIXED_PRECISION_EPS))',
    ]
    marked = [line for line in lines if line.startswith("@pytest.mark.skip")]
    assert len(marked) == 2


def test_an_unknown_test_name_is_a_located_error_and_nothing_is_written(project):
    text = ROUTER.replace(
        "test_save_and_load_without_custom_objects", "test_save_and_load_without_custom_object"
    )
    (project / "layers" / "router.layer.yaml").write_text(text)
    before = snapshot(project)
    result = runner.invoke(app, ["generate", "layers"])
    assert result.exit_code == 2
    assert (
        "layers/router.layer.yaml:15:5: error: `test_save_and_load_without_custom_object`"
        " is not a test"
        " generated for this declaration [unknown-test]"
    ) in result.output
    assert "did you mean `test_save_and_load_without_custom_objects`?" in result.output
    assert "Traceback" not in result.output
    assert snapshot(project) == before


def test_skips_reach_the_tests_of_the_other_kinds(project):
    loss = (
        "loss: Gap\ncall: ops.mean(ops.abs(y_pred - y_true), axis=-1)\n"
        "tests:\n  skip:\n    test_reduction: a reason\n"
    )
    result = generate(project, "gap.loss.yaml", loss)
    assert result.exit_code == 0, result.output
    text = (project / "tests" / "test_gap.py").read_text()
    assert '@pytest.mark.skip(reason="a reason")\n@pytest.mark.parametrize' in text
    assert "\nimport pytest\n" in text


NOISY = """\
layer: Drop
params:
  rate: {type: float, default: 0.5, min: 0.0, lt: 1.0}
random: true
call:
  train: |
    kept = keras.random.uniform((ops.shape(x)[0], 1), seed=seed_generator) >= rate
    return ops.where(kept, x / (1.0 - rate), 0.0)
  infer: x
noise:
  unbiased: true
  shape: (x[0], 1)
"""


def test_noise_renders_its_checks(project):
    result = generate(project, "drop", NOISY)
    assert result.exit_code == 0, result.output
    text = (project / "tests" / "test_drop.py").read_text()
    assert "def test_inference_is_the_mean_of_training():" in text
    assert "def declared_noise_shape(x_shape):\n    return (x_shape[0], 1)" in text
    assert "def test_noise_is_drawn_once_per_cell_of_its_declared_shape():" in text


@pytest.mark.parametrize(
    "text, where",
    [
        (
            NOISY.replace("shape: (x[0], 1)", "shape: (y[0], 1)"),
            "12:11: error: unknown name in shape `y`",
        ),
        ("loss: Gap\ncall: y_pred\nnoise: {unbiased: true}\n", "3:1: error: `noise` is for layers"),
    ],
    ids=["unknown name in the noise shape", "noise on a loss"],
)
def test_noise_mistakes_are_located(project, text, where):
    name = "gap.loss" if text.startswith("loss") else "drop.layer"
    (project / "layers" / f"{name}.yaml").write_text(text)
    result = runner.invoke(app, ["generate", "layers"])
    assert result.exit_code == 2
    assert result.output.startswith(f"layers/{name}.yaml:{where}")


def test_the_schema_describes_tests_and_noise(project):
    result = runner.invoke(app, ["schema"])
    schema = json.loads(result.output)
    assert "tests" in schema["properties"] and "noise" in schema["properties"]
    text = json.dumps(schema)
    assert "unbiased" in text and "skip" in text
