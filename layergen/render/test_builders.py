"""The generated tests of a layer, one builder per check, after ruff's rule registry.

Each builder reads the facts of the layer test template (`tests_context.py`, the same for
declared and hand-written layers) and returns the tests it writes, none where its check has
nothing to check. As in Keras's `run_layer_test`, the expectations are arguments and the
support module decides: a test is one call of a `support.assert_*`, with what the
declaration states.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .generated_tests import GeneratedTest, body, call, skip_mark
from .layer_facts import LayerFacts
from .render import literal

Builder = Callable[[LayerFacts], list[GeneratedTest]]


def _as_list(f: LayerFacts) -> str:
    return "as_list" if f.output_names else "support.as_list"


def _literals(parts: list[str]) -> str:
    return " ".join(map(literal, parts))


def shapes(f: LayerFacts) -> list[GeneratedTest]:
    line = "support.assert_output_shapes(EXAMPLE)"
    if f.output_shapes:
        line = call(
            "support.assert_output_shapes",
            "EXAMPLE",
            "declared_output_shapes",
            declared_reads_layer="True" if f.shapes_read_layer else None,
        )
    return [GeneratedTest("test_output_shapes_eager_symbolic_and_computed", body(line))]


def weights(f: LayerFacts) -> list[GeneratedTest]:
    lines = ["layer = make_layer()", f"layer({f.star}make_inputs())"]
    if f.weights:
        lines.append(f"{f.shape_targets} = INPUT_SHAPES.values()")
    lines.append("# name: (shape, trainable), or None where the example's arguments leave it out")
    if f.weights:
        lines.append("declared = {")
        for w in f.weights:
            value = f"({w['shape']}, {w['trainable']})"
            value += f" if {w['when']} else None" if w["when"] else ""
            lines.append(f"    {literal(w['name'])}: {value},")
        lines.append("}")
    else:
        lines.append("declared = {}")
    aggregated = [w for w in f.weights if w["aggregation"] and not w["when"]]
    aggregations = ", ".join(
        f"{literal(w['name'])}: {literal(w['aggregation'])}" for w in aggregated
    )
    lines.append(
        call(
            "support.assert_weights_match",
            "layer",
            "declared",
            aggregations=f"{{{aggregations}}}" if aggregated else None,
            exact_count="True" if f.exact_weight_count else None,
            sublayers=literal(f.sublayers) if f.sublayers else None,
        )
    )
    return [GeneratedTest("test_weights_match_declaration", body(*lines))]


def branches(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    if f.other_sides:
        lines = [
            "# Params flipped one at a time to the other side of declared `when`s: what",
            "# the layer then makes (True) or leaves out (False), and where it is declared.",
            f"sides = {literal(f.other_sides)}",
            "support.assert_other_sides_call_and_round_trip(EXAMPLE, sides)",
        ]
        name = "test_the_other_side_of_each_when_calls_and_round_trips"
        tests.append(GeneratedTest(name, body(*lines)))
    if f.unreached_sides:
        doc = [
            '"""A side of a declared `when`, or a call input, the example cannot reach: the',
            'reason says which, and what to give the example."""',
        ]
        marks = (skip_mark(*f.unreached_sides),)
        tests.append(
            GeneratedTest("test_every_declared_branch_is_reached", body(*doc), marks=marks)
        )
    if f.other_values:
        lines = [
            f"values = {literal(f.other_values)}",
            "cases = support.keyword_cases(EXAMPLE, values)",
            call(
                "support.assert_each_keyword_argument_runs",
                "EXAMPLE",
                "cases",
                symbolic_shapes="True" if f.keywords_shape_outputs else None,
            ),
        ]
        name = "test_each_call_input_with_a_value_other_than_its_default"
        tests.append(GeneratedTest(name, body(*lines)))
    return tests


def weights_read(f: LayerFacts) -> list[GeneratedTest]:
    if not f.weights_read:
        return []
    star, read = f.star, literal(f.weights_read)
    lines = ["layer = make_layer()", "inputs = make_inputs()", f"layer({star}inputs)"]
    lines.append("support.set_seeded_weights(layer)")
    if f.call_cases:
        lines += [
            "# The default call and the declared call cases: a weight only a call case reads",
            "# (an untied reverse projection) changes the outputs of that case.",
            'declared = [case["name"] for case in CALL_CASES]',
            "calls = [({}, inputs)]",
            "calls += [(keys, given) for name, keys, given in make_call_cases() if name in declared]",
            "",
            "def outputs():",
            "    return [",
            "        out",
            "        for keywords, given in calls",
            f"        for out in {_as_list(f)}(layer({star}given, training=False, **keywords))",
            "    ]",
            "",
            f"support.assert_weights_change_the_output(layer, {read}, outputs)",
        ]
    else:
        lines += [
            "support.assert_weights_change_the_output(",
            f"    layer, {read}, lambda: {_as_list(f)}(layer({star}inputs, training=False))",
            ")",
        ]
    name = "test_each_weight_the_inference_reads_changes_its_output"
    return [GeneratedTest(name, body(*lines))]


def base_arguments(f: LayerFacts) -> list[GeneratedTest]:
    line = "support.assert_base_layer_arguments_pass_through(EXAMPLE)"
    return [GeneratedTest("test_base_layer_arguments_pass_through", body(line))]


def config_round_trip(f: LayerFacts) -> list[GeneratedTest]:
    args = "[*ARGS, *make_objects()]" if f.objects else "ARGS"
    line = f"support.assert_config_round_trip(EXAMPLE, {args})"
    return [GeneratedTest("test_config_round_trip", body(line))]


def save_load(f: LayerFacts) -> list[GeneratedTest]:
    line = "support.assert_saves_and_loads_without_custom_objects(EXAMPLE, tmp_path)"
    name = "test_save_and_load_without_custom_objects"
    return [GeneratedTest(name, body(line), params=("tmp_path",))]


def fit_step(f: LayerFacts) -> list[GeneratedTest]:
    lines = []
    if not f.has_trainable:
        lines.append(
            "# No trainable weight is declared: the layer may have some (in sublayers) or none."
        )
    if f.call_cases:
        lines += [
            "# Through the default call and each declared call case: a weight only a call case",
            "# reads (an untied reverse projection) is trained through that case.",
            'declared = [case["name"] for case in CALL_CASES]',
            "cases = [(keys, given) for name, keys, given in make_call_cases() if name in declared]",
        ]
    lines.append(
        call(
            "support.assert_fit_step_trains_every_weight",
            "EXAMPLE",
            has_trainable=None if f.has_trainable else "False",
            cases="cases" if f.call_cases else None,
        )
    )
    return [GeneratedTest("test_compiled_fit_step_trains_every_weight", body(*lines))]


def mixed_precision(f: LayerFacts) -> list[GeneratedTest]:
    lines = []
    if f.discrete:
        lines.append(
            f"# The layer makes discrete choices (`{f.discrete}`): rounding may flip some."
        )
    lines.append(
        call(
            "support.assert_mixed_precision_matches_float32",
            "EXAMPLE",
            "policy",
            policy_sublayers=literal(f.policy_sublayers) if f.policy_sublayers else None,
            discrete=literal(f.discrete) if f.discrete else None,
        )
    )
    marks = ('pytest.mark.parametrize("policy", sorted(support.MIXED_PRECISION_EPS))',)
    name = "test_mixed_precision_matches_float32"
    return [GeneratedTest(name, body(*lines), params=("policy",), marks=marks)]


def training_vs_inference(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    if f.deterministic_inference:
        line = "support.assert_inference_is_deterministic(EXAMPLE)"
        tests.append(GeneratedTest("test_inference_is_deterministic", body(line)))
    if f.training_sensitive or f.training_inert:
        marks = (skip_mark(*f.training_inert),) if f.training_inert else ()
        line = "support.assert_training_changes_the_output(EXAMPLE)"
        tests.append(GeneratedTest("test_training_changes_the_output", body(line), marks=marks))
    return tests


def random_draws(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    if f.random:
        lines = [
            "# What to give an example that draws nothing: the test is then skipped, saying so.",
            f"hint = {_literals(f.draws_hint)}",
            'support.assert_the_seed_decides_the_random_draws(EXAMPLE, ARGS["seed"], hint)',
        ]
        tests.append(GeneratedTest("test_the_seed_decides_the_random_draws", body(*lines)))
    if f.statistics:
        lines = [
            "def statistics(inputs, outputs):",
            '    """Each declared statistic of a training call: its values, their mean, what."""',
            f"    {f.input_targets} = inputs",
            "    return [",
            *(
                f"        ({s['of']}, {literal(s['mean'])}, {literal(s['what'])}),"
                for s in f.statistics
            ),
            "    ]",
            "",
            "support.assert_draws_have_the_declared_statistics(EXAMPLE, statistics)",
        ]
        name = "test_random_draws_have_the_declared_statistics"
        tests.append(GeneratedTest(name, body(*lines)))
    return tests


def noise(f: LayerFacts) -> list[GeneratedTest]:
    """The `noise` section's tests (`declaration/sections/noise.py`)."""
    tests = []
    if f.unbiased:
        line = "support.assert_inference_is_the_mean_of_training(EXAMPLE)"
        tests.append(GeneratedTest("test_inference_is_the_mean_of_training", body(line)))
    if f.noise_shape:
        line = call(
            "support.assert_noise_is_drawn_once_per_cell",
            "EXAMPLE",
            "declared_noise_shape",
            declared_reads_layer="True" if f.shapes_read_layer else None,
        )
        name = "test_noise_is_drawn_once_per_cell_of_its_declared_shape"
        tests.append(GeneratedTest(name, body(line)))
    return tests


def no_jit(f: LayerFacts) -> list[GeneratedTest]:
    """The `no_jit` section's test (`declaration/sections/no_jit.py`)."""
    if f.supports_jit:
        return []
    line = 'assert not EXAMPLE.make_layer().supports_jit, "XLA would compile the layer"'
    return [GeneratedTest("test_the_layer_is_never_jit_compiled", body(line))]


def stated_numbers(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    weights = "WEIGHTS" in f.constants
    for training, constant in f.stated_outputs:
        line = call(
            "support.assert_stated_outputs",
            "EXAMPLE",
            "INPUTS",
            constant,
            "ATOL",
            training=str(training),
            weights="WEIGHTS" if weights else None,
        )
        name = f"test_{'training' if training else 'inference'}_outputs_are_the_stated_values"
        tests.append(GeneratedTest(name, body(line)))
    reference = f.reference
    if reference:
        keywords = ", **keywords" if f.cased else ""
        lines = [
            f"def expected(layer, inputs{keywords}):",
            '    """The declared reference of the layer\'s outputs on `inputs`."""',
            f"    return numpy_reference({reference['call']}{keywords})",
            "",
            call(
                "support.assert_matches_numpy_reference",
                "EXAMPLE",
                "expected",
                "ATOL",
                *(["make_call_cases()"] if f.cased else []),
                weights="WEIGHTS" if weights and "INPUTS" not in f.constants else None,
                state_moves_first="True" if f.updates else None,
            ),
        ]
        name = "test_inference_outputs_match_the_numpy_reference"
        tests.append(GeneratedTest(name, body(*lines)))
    return tests


def keyword_arguments(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    if f.cased:
        line = call(
            "support.assert_each_keyword_argument_runs",
            "EXAMPLE",
            "make_call_cases()",
            symbolic_shapes="True" if f.keywords_shape_outputs else None,
        )
        tests.append(GeneratedTest("test_each_keyword_argument_of_call", body(line)))
    if f.call_args and f.keywords_build:
        lines = [
            '"""What `build` creates depends on these tensors: each structure saves and loads."""',
            "support.assert_saves_and_loads_built_with_each_keyword_tensor(EXAMPLE, make_call_args(), tmp_path)",
        ]
        name = "test_saves_and_loads_built_with_each_keyword_tensor"
        tests.append(GeneratedTest(name, body(*lines), params=("tmp_path",)))
    return tests


def keyword_masks(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    for m in f.mask_args:
        lines = []
        keyword = m["keyword"]
        if keyword:
            lines += [
                f'"""The steps of `{keyword}` it hides change no output."""',
                f"masked = make_call_args()[{literal(keyword)}]",
            ]
        if m["given"]:
            lines.append(f"mask = make_call_args()[{literal(m['name'])}]")
        else:
            of = "masked.shape" if keyword else f"INPUT_SHAPES[{literal(f.inputs[m['index']])}]"
            lines += [
                f"shape = {of}[:2]",
                "# Left padding: a hidden step before a kept one (a causal layer that ignores the",
                "# mask shows it only there).",
                f"mask = support.make_mask(shape)[:, ::-1].astype({literal(m['dtype'])})",
            ]
        where = f"keyword=({literal(keyword)}, masked)" if keyword else f"index={m['index']}"
        lines.append(
            f"support.assert_hidden_steps_change_nothing(EXAMPLE, {literal(m['name'])}, mask, {where})"
        )
        name = f"test_steps_{m['name']}_hides_do_not_change_the_output"
        tests.append(GeneratedTest(name, body(*lines)))
    return tests


def caches(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    for c in f.cache_args:
        mask = (
            [f"    mask={literal(c['mask'])},", f"    mask_dtype={literal(c['mask_dtype'])},"]
            if c["mask"]
            else []
        )
        lines = [
            '"""Each step decoded through the cache gives what the whole sequence gives there,',
            'and the cache left is what one call over the whole sequence writes."""',
            f"{f.shape_targets} = INPUT_SHAPES.values()",
            f'empty = np.zeros({c["shape"]}, "float32")',
            "support.assert_cache_decodes_step_by_step(",
            "    EXAMPLE,",
            f"    cache={literal(c['name'])},",
            f"    index={literal(c['index'])},",
            "    empty=empty,",
            f"    of={literal(c['of'])},",
            f"    output={c['output']},",
            *mask,
            ")",
        ]
        name = f"test_decoding_step_by_step_through_{c['name']}_gives_the_whole_sequence"
        tests.append(GeneratedTest(name, body(*lines)))
    return tests


def causal(f: LayerFacts) -> list[GeneratedTest]:
    return [
        GeneratedTest(
            f"test_{c['name']}_makes_each_step_depend_on_earlier_steps_only",
            body(
                "support.assert_each_step_depends_on_earlier_steps_only"
                f"(EXAMPLE, {literal(c['name'])}, index={c['index']})"
            ),
        )
        for c in f.causal_args
    ]


def golden(f: LayerFacts) -> list[GeneratedTest]:
    if not f.golden:
        return []
    line = "support.assert_matches_golden(EXAMPLE, golden_run, __file__)"
    return [GeneratedTest("test_outputs_match_the_recorded_golden", body(line))]


def losses(f: LayerFacts) -> list[GeneratedTest]:
    if not f.losses:
        return []
    inference = f.inference_losses
    if f.losses_read_call:
        lines = [
            "# The losses read values `call` computes: their number and finiteness are checked.",
            "support.assert_declared_losses(EXAMPLE, inference_losses="
            f"{inference}, count={len(f.losses)})",
        ]
    else:
        lines = [
            "def expected_losses(layer, inputs):",
            '    """The declared losses of a training call on `inputs`, after it."""',
            *([f"    {f.input_targets} = inputs"] if f.losses_read_inputs else []),
            "    return [",
            *(f"        {loss}," for loss in f.losses),
            "    ]",
            "",
            "support.assert_declared_losses(EXAMPLE, inference_losses="
            f"{inference}, expected=expected_losses)",
        ]
    return [GeneratedTest("test_declared_losses", body(*lines))]


def state_updates(f: LayerFacts) -> list[GeneratedTest]:
    if not f.updates:
        return []
    names = literal([u["name"] for u in f.updates])
    lines = [
        "def expected_state(layer, inputs, before):",
        '    """The state a training call on `inputs` moves `before` to, as declared."""',
        *([f"    {f.input_targets} = inputs"] if f.updates_read_inputs else []),
        "    return {",
        *(f"        {literal(u['name'])}: {u['expected']}," for u in f.updates),
        "    }",
        "",
        f"support.assert_state_updates(EXAMPLE, {names}, expected_state)",
    ]
    name = "test_state_updates_follow_their_formulas_from_a_moved_state"
    tests = [GeneratedTest(name, body(*lines))]
    if f.state_read_in_inference:
        line = "support.assert_inference_follows_the_moved_state(EXAMPLE)"
        name = "test_inference_follows_the_state_that_training_moved"
        tests.append(GeneratedTest(name, body(line)))
    lines = [
        'layer = make_layer(dtype="mixed_float16")',
        f"layer({f.star}make_inputs(), training=True)",
        f"support.assert_float32_and_finite(layer, {names})",
    ]
    tests.append(GeneratedTest("test_state_stays_float32_under_mixed_precision", body(*lines)))
    return tests


def masking(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    if f.masking == "mask":
        line = "support.assert_masking(EXAMPLE, make_mask())  # the mask passes through"
        tests.append(GeneratedTest("test_masking", body(line)))
    elif f.masking:
        lines = [
            "def output_mask(layer, inputs, mask):",
            '    """The mask the outputs carry, as declared (None: none)."""',
            *([f"    {f.input_targets} = inputs"] if f.masking_reads_inputs else []),
            f"    return {f.masking}",
            "",
            "support.assert_masking(EXAMPLE, make_mask(), output_mask)",
        ]
        tests.append(GeneratedTest("test_masking", body(*lines)))
    if f.call_reads_mask:
        line = "support.assert_masked_steps_do_not_change_the_output(EXAMPLE, make_mask())"
        tests.append(GeneratedTest("test_masked_steps_do_not_change_the_output", body(line)))
    return tests


def gradients(f: LayerFacts) -> list[GeneratedTest]:
    if not f.gradient_check:
        return []
    lines = []
    if not f.gradient_training:
        lines.append(
            "# A training call stops a gradient on purpose (`ops.stop_gradient`): inference's."
        )
    lines.append(
        call(
            "support.assert_gradients_match_finite_differences",
            "EXAMPLE",
            precision='"float32"' if f.gradient_check == "float32" else None,
            training=None if f.gradient_training else "False",
        )
    )
    marks = (skip_mark(*f.gradient_stopped),) if f.gradient_stopped else ()
    name = "test_gradients_match_finite_differences"
    return [GeneratedTest(name, body(*lines), marks=marks)]


def declared_ops(f: LayerFacts) -> list[GeneratedTest]:
    tests = []
    if f.op_methods:
        names = literal([op["name"] for op in f.op_methods])
        line = (
            "support.assert_gradients_come_from_the_declared_ops(EXAMPLE, DeclaredOps, "
            f"{names}, reached={literal(f.reached_ops)})"
        )
        name = "test_call_takes_its_gradients_from_the_declared_ops"
        tests.append(GeneratedTest(name, body(line)))
    return tests + [op_test(op, "layer", f.star) for op in f.ops]


def op_test(op: Mapping[str, Any], owner: str, star: str = "") -> GeneratedTest:
    """A custom-gradient op against its declared formula, by the backend's own autodiff."""
    args = ", ".join(a["name"] for a in op["args"])
    lines = [
        f"{owner} = make_{owner}()",
        *([f"layer({star}make_inputs())"] if owner == "layer" else []),
        "rng = np.random.default_rng(2)",
        *(f"{a['name']} = {a['value']}" for a in op["args"]),
        f"outputs = support.numpy({owner}.{op['name']}({args}))",
        'upstream = ops.convert_to_tensor(rng.standard_normal(outputs.shape).astype("float32"))',
        f"actual = support.backend_gradients({owner}.{op['name']}, [{args}], upstream)",
        f"expected = {op['expected']}",
        "assert len(actual) == len(expected)",
        "for got, want in zip(actual, expected):",
        "    np.testing.assert_allclose(",
        "        support.numpy(got), support.numpy(want), rtol=1e-5, atol=1e-6",
        "    )",
    ]
    return GeneratedTest(f"test_op_{op['name']}_gradient_matches_its_formula", body(*lines))


def layouts(f: LayerFacts) -> list[GeneratedTest]:
    if not f.layouts:
        return []
    line = (
        "support.assert_layout_map_keys_the_declared_weights"
        "(EXAMPLE, get_layout_map, MESH_AXES, LAYOUTS)"
    )
    fixture = body(
        '"""The layer on one device and under ModelParallel on a 2x4 mesh of host CPUs,',
        'in one JAX process for the module (JAX fixes the device count when it starts)."""',
        "return support.run_model_parallel(__file__)",
    )
    sharded = {
        "shards_each_weight_as_declared": "assert_sharded_as_declared(model_parallel, LAYOUTS)",
        "computes_what_one_device_computes": "assert_sharded_outputs_match_one_device(model_parallel)",
        "fit_step_trains_like_one_device": "assert_sharded_fit_step_trains_like_one_device(model_parallel)",
        "model_saves_and_loads_sharded": "assert_sharded_model_saves_and_loads(model_parallel)",
        "warns_when_the_map_misses_a_layer_named_by_hand": "assert_warns_of_a_layer_named_by_hand(model_parallel, LAYOUTS)",
    }
    return [
        GeneratedTest("test_layout_map_keys_the_declared_weights_and_no_others", body(line)),
        GeneratedTest(
            "model_parallel",
            fixture,
            marks=('pytest.fixture(scope="module")',),
            fixture=True,
        ),
        *(
            GeneratedTest(
                f"test_model_parallel_{what}",
                body(f"support.{check}"),
                params=("model_parallel",),
            )
            for what, check in sharded.items()
        ),
    ]


# The checks, in the order the module writes their tests.
BUILDERS: tuple[Builder, ...] = (
    shapes,
    weights,
    branches,
    weights_read,
    base_arguments,
    config_round_trip,
    save_load,
    fit_step,
    mixed_precision,
    training_vs_inference,
    random_draws,
    noise,
    no_jit,
    stated_numbers,
    keyword_arguments,
    keyword_masks,
    caches,
    causal,
    golden,
    losses,
    state_updates,
    masking,
    gradients,
    declared_ops,
    layouts,
)


def build_tests(facts: LayerFacts) -> list[GeneratedTest]:
    """Every generated test of a layer, in the module's order."""
    return [test for build in BUILDERS for test in build(facts)]
