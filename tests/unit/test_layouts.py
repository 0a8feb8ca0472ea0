"""Declared sharding: `layout` on weights and sublayers, checked where it is
written, and the folder's `get_layout_map` keyed on the paths Keras gives the weights.

The keys are checked here as Keras reads them (`re.fullmatch` of a variable path, in
`keras.distribution.LayoutMap`); the generated tests check them again on each layer, and
on JAX under `ModelParallel` (tests/e2e/test_model_parallel.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from layergen.commands.generate import generate as generate_command
from layergen.config import load_config
from layergen.declaration.layouts import default_name, layout_key
from layergen.declaration.load import parse_declaration
from layergen.diagnostics import DiagnosticError

EXPERTS = """\
layer: Experts
params:
  num_experts: {type: int, min: 1}
weights:
  expert_kernel:
    shape: (num_experts, x[-1], x[-1])
    layout: [model, null, null]
  bias: {shape: "x[-1]", initializer: zeros, layout: [null]}
sublayers:
  router:
    class: keras.layers.Dense
    args: {units: num_experts}
    layout: {kernel: [null, model]}
call: ops.einsum("...d,edf->...f", x, expert_kernel) * ops.sum(router(x)) + bias
example:
  params: {num_experts: 4}
  input_shape: [4, 8]
"""


def without_layouts(text: str) -> str:
    text = re.sub(r", layout: \[[^\]]*\]", "", text)
    return "".join(line for line in text.splitlines(True) if "layout:" not in line)


def errors(text: str) -> list[tuple[int, int, str, str]]:
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("a.layer.yaml", text.encode())
    return [(d.line, d.col, d.code, d.message) for d in info.value.diagnostics]


# -- what a declaration may say, and the located errors ----------------------------------------


def test_layouts_of_weights_and_sublayers_reach_the_ir_by_path_in_the_layer():
    ir = parse_declaration("a.layer.yaml", EXPERTS.encode()).ir
    assert ir.layouts == {
        "expert_kernel": ("model", None, None),
        "bias": (None,),
        "router/kernel": (None, "model"),
    }


def test_a_sublayer_named_in_its_args_leads_its_paths():
    text = EXPERTS.replace(
        "args: {units: num_experts}", "args: {units: num_experts, name: \"'gate'\"}"
    )
    assert "gate/kernel" in parse_declaration("a.layer.yaml", text.encode()).ir.layouts


def test_a_private_sublayers_paths_start_with_the_name_keras_gives_it():
    """`_router` is created with `name="router"` (keras-hub's `self._feedforward_output_dense`
    is `feedforward_output_dense`): its weights' paths, and so its keys, drop the `_`."""
    text = EXPERTS.replace("  router:", "  _router:").replace("router(x)", "_router(x)")
    layouts = parse_declaration("a.layer.yaml", text.encode()).ir.layouts
    assert layouts["router/kernel"] == (None, "model")
    assert "_router/kernel" not in layouts


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("[model, null, null]", "[modle, null, null]", (7, 14, "unknown-axis", "`modle`")),
        ("[model, null, null]", "[model, model, null]", (7, 21, "bad-layout", "already splits")),
        (
            "[model, null, null]",
            "[model, null]",
            (7, 13, "bad-layout", "2 entries for a weight of 3"),
        ),
        ("[model, null, null]", "[model, null, null, null]", (7, 13, "bad-layout", "4 entries")),
        ("layout: [null]}", "layout: [batch, null]}", (8, 54, "bad-layout", "of 1 dim")),
        ("{kernel: [null, model]}", "{kernel: [null, modle]}", (13, 29, "unknown-axis", "modle")),
        ("{kernel: [null, model]}", "{kernel/: [null]}", (13, 14, "bad-layout", "not the path")),
        ("{kernel: [null, model]}", "{kernel: null}", (13, 22, "wrong-type", "a list")),
        ("[model, null, null]", "model", (7, 13, "wrong-type", "a list")),
    ],
)
def test_a_bad_layout_is_located_where_it_is_written(old, new, expected):
    text = EXPERTS.replace(old, new)
    line, col, code, words = expected
    found = [e for e in errors(text) if e[2] == code]
    assert found, errors(text)
    assert found[0][:3] == (line, col, code), found
    assert words in found[0][3]


def test_an_unknown_axis_suggests_the_configured_ones():
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("a.layer.yaml", EXPERTS.encode(), mesh_axes=("data", "experts"))
    hints = {d.message: d.hint for d in info.value.diagnostics}
    assert hints["unknown mesh axis `model`"] == (
        "the mesh axes ([tool.layergen] mesh-axes): data, experts"
    )


def test_a_layout_needs_a_shape_of_known_rank():
    text = EXPERTS.replace("(num_experts, x[-1], x[-1])", "(num_experts, *x[1:])")
    ((line, col, code, message),) = errors(text)
    assert (line, col, code) == (7, 13, "bad-layout")
    assert "does not say how many dims" in message


def test_a_sublayer_with_a_computed_name_cannot_declare_layouts():
    text = EXPERTS.replace(
        "args: {units: num_experts}", 'args: {units: num_experts, name: "str(num_experts)"}'
    )
    ((line, _, code, message),) = errors(text)
    assert (line, code) == (12, "bad-layout")
    assert "computed" in message


def test_aggregation_is_for_non_trainable_state():
    state = "  moving_max: {shape: (), initializer: ones, trainable: false, aggregation: mean}\n"
    ok = EXPERTS.replace("sublayers:", state + "sublayers:")
    weight = next(
        w
        for w in parse_declaration("a.layer.yaml", ok.encode()).ir.weights
        if w.name == "moving_max"
    )
    assert weight.aggregation == "mean"
    trainable = ok.replace("trainable: false, ", "")
    assert [e[2] for e in errors(trainable)] == ["trainable-update"]
    (found,) = errors(ok.replace("aggregation: mean", "aggregation: max"))
    assert found[2:] == ("unknown-type", "unknown aggregation `max`")


@pytest.mark.parametrize("name", ["Dense", "Embedding_2", "Conv1D", "EinsumDense"])
def test_a_class_keras_names_as_its_own_layers_cannot_declare_layouts(name):
    ((line, col, code, message),) = errors(EXPERTS.replace("layer: Experts", f"layer: {name}"))
    assert (line, col, code) == (1, 8, "duplicate-name")
    assert "as it names `keras.layers." in message


# -- the LayoutMap keys, as Keras reads them ---------------------------------------------------


@pytest.mark.parametrize(
    "name", ["MixtureOfExperts", "MoEBlock", "RMSNorm", "HTTPServer2", "Dense3D", "layerA"]
)
def test_default_names_are_the_ones_keras_gives(name):
    keras = pytest.importorskip("keras")
    layer = type(name, (keras.layers.Layer,), {})()
    assert re.fullmatch(re.escape(default_name(name)) + r"(?:_\d+)?", layer.name), layer.name


@pytest.mark.parametrize(
    "path, matches",
    [
        ("moe_block/router/kernel", True),
        ("moe_block_12/router/kernel", True),
        ("encoder/layer_3/moe_block_1/router/kernel", True),
        ("moe_block/router/bias", False),  # another weight of the layer
        ("moe_block/kernel", False),  # the layer's own weight of that name
        ("moe_block/router/kernel/extra", False),
        ("moe_blocks/router/kernel", False),  # another layer's name
        ("my_moe_block/router/kernel", False),
        ("moe_block_x/router/kernel", False),
        ("moe_block/routers/kernel", False),
        ("moe_block/router_kernel", False),
    ],
)
def test_a_key_matches_one_weight_of_the_layers_of_its_class(path, matches):
    key = layout_key("MoEBlock", "router/kernel")
    assert default_name("MoEBlock") == "mo_e_block"
    assert bool(re.fullmatch(key, path.replace("moe_block", "mo_e_block"))) == matches


# -- the folder's layout_map.py ----------------------------------------------------------------


def generate(root: Path, *paths: str, mode: str = "write") -> int:
    config = load_config(root)
    return generate_command(
        [root / p for p in paths] or config.paths, config, echo=lambda *a, **k: None, mode=mode
    )


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "experts.layer.yaml").write_text(EXPERTS)
    return tmp_path


def keys(root: Path) -> dict[str, tuple]:
    namespace: dict = {}
    text = (root / "layers" / "layout_map.py").read_text()
    exec(
        compile(text.split("\ndef ")[0].replace("import keras", ""), "layout_map", "exec"),
        namespace,
    )
    return namespace["LAYOUTS"]


def test_the_folder_exports_a_layout_map_of_every_declared_layout(project):
    assert generate(project, "layers") == 0
    assert keys(project) == {
        r"(?:.*/)?experts(?:_\d+)?/expert_kernel": ("model", None, None),
        r"(?:.*/)?experts(?:_\d+)?/bias": (None,),
        r"(?:.*/)?experts(?:_\d+)?/router/kernel": (None, "model"),
    }
    init = (project / "layers" / "__init__.py").read_text()
    assert "from .layout_map import get_layout_map\n" in init
    assert '"get_layout_map"' in init
    assert generate(project, "layers", mode="check") == 0  # as recorded: nothing to do


def test_renaming_a_sublayer_renames_its_keys(project):
    generate(project, "layers")
    declaration = project / "layers" / "experts.layer.yaml"
    declaration.write_text(EXPERTS.replace("router:", "gate:").replace("router(x)", "gate(x)"))
    assert generate(project, "layers") == 0
    found = keys(project)
    assert r"(?:.*/)?experts(?:_\d+)?/gate/kernel" in found
    assert not [k for k in found if "router" in k]
    module = (project / "layers" / "experts.py").read_text()
    assert 'name="gate"' in module and '"gate/kernel"' in module


def test_generating_one_declaration_keeps_the_others_keys(project):
    other = EXPERTS.replace("layer: Experts", "layer: Embed")
    (project / "layers" / "embed.layer.yaml").write_text(other)
    generate(project, "layers")
    both = keys(project)
    assert generate(project, "layers/experts.layer.yaml") == 0
    assert keys(project) == both
    (project / "layers" / "embed.layer.yaml").write_text(
        other.replace("[model, null, null]", "[null, model, null]")
    )
    assert generate(project, "layers/embed.layer.yaml") == 0
    changed = keys(project)
    assert changed[r"(?:.*/)?embed(?:_\d+)?/expert_kernel"] == (None, "model", None)
    assert changed[r"(?:.*/)?experts(?:_\d+)?/expert_kernel"] == ("model", None, None)


def test_a_layout_taken_out_leaves_the_map(project):
    generate(project, "layers")
    (project / "layers" / "experts.layer.yaml").write_text(without_layouts(EXPERTS))
    assert generate(project, "layers") == 0
    assert keys(project) == {}  # still written: an old key would still shard the weight


def test_a_folder_without_layouts_has_no_layout_map(project):
    (project / "layers" / "experts.layer.yaml").write_text(without_layouts(EXPERTS))
    assert generate(project, "layers") == 0
    assert not (project / "layers" / "layout_map.py").exists()
    assert "layout_map" not in (project / "layers" / "__init__.py").read_text()


def test_classes_keras_names_alike_cannot_share_a_layout_map(project):
    (project / "layers" / "experts_1.layer.yaml").write_text(
        EXPERTS.replace("layer: Experts", "layer: Experts_1")
    )
    with pytest.raises(DiagnosticError) as info:
        generate(project, "layers")
    (found,) = info.value.diagnostics
    assert found.code == "duplicate-name" and found.path.endswith("experts_1.layer.yaml")
    assert "`experts_1`" in found.message


def test_a_declaration_cannot_take_the_layout_maps_module(project):
    mapped = without_layouts(EXPERTS).replace("Experts", "Mapped")
    (project / "layers" / "layout_map.layer.yaml").write_text(mapped)
    with pytest.raises(DiagnosticError) as info:
        generate(project, "layers")
    (found,) = info.value.diagnostics
    assert found.code == "duplicate-name" and found.path.endswith("layout_map.py")


def test_mesh_axes_come_from_the_project(project):
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n[tool.layergen]\nmesh_axes = ['data', 'experts']\n"
    )
    with pytest.raises(DiagnosticError) as info:
        generate(project, "layers")
    assert {d.code for d in info.value.diagnostics} == {"unknown-axis"}
    text = EXPERTS.replace("model", "experts")
    (project / "layers" / "experts.layer.yaml").write_text(text)
    assert generate(project, "layers") == 0
    assert 'MESH_AXES = ("data", "experts")' in (project / "layers" / "layout_map.py").read_text()


@pytest.mark.parametrize("value", ["'model'", "[]", "['batch', 'batch']", "['a-b']", "[1]"])
def test_bad_mesh_axes_are_a_located_config_error(project, value):
    (project / "pyproject.toml").write_text(
        f"[project]\nname = 'demo'\n[tool.layergen]\nmesh-axes = {value}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        load_config(project)
    (found,) = info.value.diagnostics
    assert (found.line, found.code) == (4, "bad-config")
