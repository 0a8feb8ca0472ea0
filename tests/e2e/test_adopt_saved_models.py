"""`layergen adopt` on real hand-written layers: for each class, a model saved
with the original class loads with the adopted one in a fresh process and gives the same
outputs (inference and training), losses, weights and weight paths; `generate --check` is
clean afterwards; the generated tests pass on TensorFlow, JAX and torch; a class adopt cannot carry gets a located error.

The layers: keras-hub 0.32.0's (tests/fixtures/keras_hub/), the held-out hand-written set
(tests/fixtures/tests_heldout/), the seed articles' and the buggy ones
(tests/fixtures/handwritten/, one class per module as adopt asks), and three more with an
activity loss, a custom gradient and a mask (tests/fixtures/adopt/).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, layergen, run_pytest

pytestmark = pytest.mark.e2e
DRIVER = Path(__file__).with_name("adopt_models.py")
BACKEND = os.environ.get("LAYERGEN_ADOPT_BACKEND", "jax")

HELDOUT = {  # module -> (class, constructor arguments)
    "bias_add": ("BiasAdd", {}),
    "feature_gate": ("FeatureGate", {}),
    "gated_linear": ("GatedLinear", {"units": 3}),
    "l2_normalize": ("L2Normalize", {}),
    "leaky_clip": ("LeakyClip", {}),
    "noisy_scale": ("NoisyScale", {"seed": 3}),  # random draws in training
    "plain_dense": ("PlainDense", {"units": 3}),
    "prelu_like": ("ChannelPReLU", {}),
    "residual_dense": ("ResidualDense", {}),  # a sublayer
    "rms_norm": ("RMSNorm", {}),
    "scaled_dense": ("ScaledDense", {"units": 3}),
    "sequence_mean": ("SequenceMean", {}),
    "simple_layer_norm": ("SimpleLayerNorm", {}),
    "standardize": ("Standardize", {}),
    "swish": ("Swish", {}),
    "temperature_softmax": ("TemperatureSoftmax", {}),
    "time_mix": ("TimeMix", {}),
}
HUB = {  # module -> (class, arguments, input shape, extra)
    "alibi_bias": ("AlibiBias", {}, [2, 4, 3, 3], {}),
    "f_net_encoder": ("FNetEncoder", {"intermediate_dim": 8}, [2, 3, 4], {}),
    "position_embedding": ("PositionEmbedding", {"sequence_length": 5}, [2, 3, 4], {}),
    "rotary_embedding": ("RotaryEmbedding", {}, [2, 3, 4], {}),
    "sine_position_encoding": ("SinePositionEncoding", {}, [2, 3, 4], {}),
    "token_and_position_embedding": (
        "TokenAndPositionEmbedding",
        {"vocabulary_size": 10, "sequence_length": 5, "embedding_dim": 4},
        [2, 3],
        {"dtype": "int32"},  # masks: mask_zero is off, its input has no zeros
    ),
    "transformer_encoder": (
        "TransformerEncoder",
        {"intermediate_dim": 8, "num_heads": 2, "dropout": 0.1},  # sublayers, dropout
        [2, 3, 4],
        {},
    ),
    "mixtral_moe": (
        "MixtralMoeExperts",
        {"num_experts": 2, "hidden_dim": 4, "intermediate_dim": 8},
        [6, 4],
        {},
    ),
}
SPLIT = {  # hand-written modules of several layers: one module per class first
    "seeds": {
        "ScaledDense": {"units": 3},
        "OffsetSwish": {},
        "DropoutAndScale": {},  # a random sublayer
        "MyDense": {},  # a non-trainable weight
        "RunningMaxScale": {},  # state updated in training
    },
    "buggy": {"NoKwargs": {}, "ForgetfulConfig": {}},  # what `check` fixes
}
OWN = {
    "activity_penalty": ("ActivityPenalty", {"units": 3}, {}),  # a loss
    "clipped_identity": ("ClippedGradientScale", {}, {}),  # a custom gradient
    "masked_scale": ("MaskedScale", {}, {"mask": True}),  # a mask
}
# What adopt cannot carry, and says where.
REFUSED = {
    "refused/star_args.py": r"star_args\.py:7:9: error: `call` takes `\*args`.*\[adopt-call\]",
    "refused/broken.py": r"broken\.py:\d+:\d+: error: cannot adopt this file: invalid Python",
}
REFUSED_TEXTS = {  # written into the project: a call whose inputs are not stated, bad Python
    "refused/star_args.py": (
        "import keras\n\n\nclass SumAll(keras.layers.Layer):\n"
        '    """Adds every tensor it is given."""\n\n'
        "    def call(self, *tensors):\n        return sum(tensors[1:], tensors[0])\n"
    ),
    "refused/broken.py": (
        "import keras\n\n\nclass Broken(keras.layers.Layer):\n"
        "    def call(self, x)\n        return x\n"
    ),
}
# Layers whose code does not say their input's rank: `layergen tests` was told once, and
# adopt takes what it remembers (and replaces those tests, keeping the one added by hand).
TOLD = {
    "hub/alibi_bias.py:AlibiBias": "2,4,3,3",
    "hub/rotary_embedding.py:RotaryEmbedding": "2,3,4",
    "hub/sine_position_encoding.py:SinePositionEncoding": "2,3,4",
    "hub/transformer_encoder.py:TransformerEncoder": "2,3,4",
}
HAND_TEST = (
    "\n\ndef test_added_by_hand():\n"
    "    assert SinePositionEncoding(max_wavelength=100).max_wavelength == 100\n"
)
EXAMPLES = {  # required arguments whose type the code does not say
    "hub/token_and_position_embedding.py": [
        "vocabulary_size=10",
        "sequence_length=5",
        "embedding_dim=4",
    ],
    "hub/position_embedding.py": ["sequence_length=5"],
    "hub/f_net_encoder.py": ["intermediate_dim=8"],
    "hub/transformer_encoder.py": ["intermediate_dim=8", "num_heads=2"],
    "hub/mixtral_moe.py": ["num_experts=2", "hidden_dim=4", "intermediate_dim=8"],
}


def make_project(root: Path) -> tuple[list[dict], list[str]]:
    """The project of hand-written layers, the models to save, and the adopt targets."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'adoptdemo'\n")
    specs, targets = [], []
    shutil.copytree(FIXTURES / "tests_heldout", root / "heldout", ignore=_no_readme)
    (root / "heldout" / "__init__.py").write_text("")
    for module, (name, args) in HELDOUT.items():
        specs.append(_spec("heldout", module, name, args, [2, 3, 4]))
        targets.append(f"heldout/{module}.py")
    shutil.copytree(FIXTURES / "keras_hub", root / "hub", ignore=_no_readme)
    for module, (name, args, shape, extra) in HUB.items():
        specs.append({**_spec("hub", module, name, args, shape), "registered": False, **extra})
        targets.append(f"hub/{module}.py:{name}")
    (root / "hand").mkdir()
    (root / "hand" / "__init__.py").write_text("")
    for source, classes in SPLIT.items():
        text = (FIXTURES / "handwritten" / f"{source}.py").read_text()
        for name, args in classes.items():
            module = f"{source}_{_snake(name)}"
            (root / "hand" / f"{module}.py").write_text(_one_class(text, name))
            specs.append(_spec("hand", module, name, args, [2, 3, 4]))
            targets.append(f"hand/{module}.py")
    shutil.copytree(FIXTURES / "adopt", root / "own", ignore=_no_readme)
    (root / "own" / "__init__.py").write_text("")
    for module, (name, args, extra) in OWN.items():
        specs.append({**_spec("own", module, name, args, [2, 3, 4]), **extra})
        targets.append(f"own/{module}.py")
    for target, text in REFUSED_TEXTS.items():
        (root / target).parent.mkdir(exist_ok=True)
        (root / target).write_text(text)
    (root / "specs.json").write_text(json.dumps(specs))
    return specs, targets


def _spec(package: str, module: str, name: str, args: dict, shape: list[int]) -> dict:
    return {"module": f"{package}.{module}", "class": name, "args": args, "shape": shape}


def _no_readme(folder, names):
    return [n for n in names if n.endswith(".md") or n == "__pycache__"]


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _one_class(text: str, name: str) -> str:
    """The module with its other classes left out: the move adopt's hint asks for."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    drop = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name != name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            drop.update(range(first - 1, node.end_lineno))
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def _driver(project: Path, mode: str) -> dict[str, list[str]]:
    env = {**os.environ, "KERAS_BACKEND": BACKEND, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, str(DRIVER), mode, "specs.json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULTS ")), None)
    assert line is not None, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(line[len("RESULTS ") :])


@pytest.fixture(scope="module")
def adopted(tmp_path_factory):
    project = tmp_path_factory.mktemp("adopt")
    specs, targets = make_project(project)
    saved = _driver(project, "save")
    assert all(not v for v in saved.values()), saved
    for target, shape in TOLD.items():
        told = layergen("tests", target, "--input-shape", shape, *_flags(target), cwd=project)
        assert told.returncode == 0, told.stderr
    with open(project / "tests" / "test_sine_position_encoding.py", "a") as file:
        file.write(HAND_TEST)
    refused = {}  # asked before anything is adopted: each alone, all-or-nothing
    for target in REFUSED:
        before = (project / target).read_bytes()
        refused[target] = layergen("adopt", target, *_flags(target), cwd=project)
        assert (project / target).read_bytes() == before
    args = [a for t in targets for a in EXAMPLES.get(t.split(":")[0], [])]
    flags = [f for a in args for f in ("--example", a)]
    done = layergen("adopt", *targets, *flags, cwd=project)
    return project, specs, targets, done, refused


def test_every_class_adopts(adopted):
    project, specs, targets, done, _ = adopted
    assert done.returncode == 0, done.stdout + done.stderr
    reports = re.findall(r"^adopted (\w+) .*?(\d+)%\)", done.stdout, flags=re.MULTILINE)
    assert sorted(name for name, _ in reports) == sorted(s["class"] for s in specs)
    for target in targets:
        module = project / target.split(":")[0]
        assert module.with_name(module.stem + ".layer.yaml").is_file(), target
    # The fixes `check` makes, said: keras-hub's layers are not registered, NoKwargs has no
    # **kwargs, ForgetfulConfig's get_config forgets `shift`.
    assert "[unregistered]" in done.stdout
    assert "[init-kwargs]" in done.stdout
    assert "[config-missing]" in done.stdout


def test_tests_of_layergen_tests_are_replaced_keeping_hand_added_ones(adopted):
    project, _, _, done, _ = adopted
    assert done.returncode == 0
    text = (project / "tests" / "test_sine_position_encoding.py").read_text()
    assert "hub/sine_position_encoding.layer.yaml" in text  # the declaration's tests now
    assert HAND_TEST.strip() in text
    lock = json.loads((project / "layergen.lock").read_text())
    assert not lock.get("handwritten")  # `layergen generate` derives them no more


def test_saved_models_load_with_the_adopted_classes(adopted):
    project, specs, _, done, _ = adopted
    assert done.returncode == 0
    loaded = _driver(project, "load")
    assert loaded == {s["module"]: [] for s in specs}


def test_generate_check_is_clean_and_adopt_again_changes_nothing(adopted):
    project, _, targets, done, _ = adopted
    assert done.returncode == 0
    check = layergen("generate", "--check", "heldout", "hub", "hand", "own", cwd=project)
    assert check.returncode == 0, check.stdout + check.stderr
    before = {p: p.read_bytes() for p in project.rglob("*.py")}
    again = layergen("adopt", *targets, cwd=project)
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("already adopted") == len(targets)
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == before


@pytest.mark.parametrize("backend", ["tensorflow", "jax", "torch"])
def test_generated_tests_pass(adopted, backend):
    project, _, _, done, _ = adopted
    assert done.returncode == 0
    outcomes = run_pytest(project, backend, "tests")
    failed = {t: o for t, o in outcomes.items() if o not in ("passed", "skipped")}
    assert outcomes and not failed, failed


def test_what_adopt_cannot_carry_is_located(adopted):
    _, _, _, _, refused = adopted
    for target, message in REFUSED.items():
        done = refused[target]
        assert done.returncode == 2
        assert re.search(message, done.stderr), done.stderr
        assert "nothing was written" in done.stderr


def _flags(target: str) -> list[str]:
    return [f for a in EXAMPLES.get(target.split(":")[0], []) for f in ("--example", a)]
