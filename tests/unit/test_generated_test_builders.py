"""The builders of a layer's generated tests, one check each, on the facts they read."""

from __future__ import annotations

import ast

import pytest

from layergen.declaration.ir import Skip
from layergen.declaration.yamlfile import Pos
from layergen.render import test_builders as builders
from layergen.render.generated_tests import GeneratedTest, names_of
from layergen.render.layer_facts import LayerFacts
from layergen.render.skips import skip_tests
from layergen.render.test_helpers import helpers
from layergen.render.tests_context import example_facts, inputs_context


def facts(**known) -> LayerFacts:
    """The facts of a layer `Probe` on one input `x`, with what is `known`."""
    inputs = inputs_context({"x": (2, 4)}, {"x": "float32"})
    example = example_facts("Probe", "layers.probe", "probe.layer.yaml", {"units": 3}, inputs)
    return LayerFacts(**{**example, **known})


def source(test: GeneratedTest) -> str:
    marks = "".join(f"@{mark}\n" for mark in test.marks)
    return f"{marks}def {test.name}({', '.join(test.params)}):\n{test.body}\n"


def names(tests: list[GeneratedTest]) -> list[str]:
    return [t.name for t in tests]


def test_each_builder_is_registered_once():
    assert len(set(builders.BUILDERS)) == len(builders.BUILDERS)


def test_a_layer_known_by_its_code_alone_gets_the_checks_every_layer_has():
    assert names_of(builders.build_tests(facts())) == [
        "test_output_shapes_eager_symbolic_and_computed",
        "test_weights_match_declaration",
        "test_base_layer_arguments_pass_through",
        "test_config_round_trip",
        "test_save_and_load_without_custom_objects",
        "test_compiled_fit_step_trains_every_weight",
        "test_mixed_precision_matches_float32",
        "test_inference_is_deterministic",
    ]


RICH = dict(
    output_shapes=["tuple(x_shape)"],
    shapes_read_layer=True,
    weights=[
        {
            "name": "kernel",
            "shape": "(4, 3)",
            "trainable": True,
            "when": None,
            "aggregation": "sum",
        },
        {
            "name": "bias",
            "shape": "(3,)",
            "trainable": True,
            "when": "ARGS['b']",
            "aggregation": "sum",
        },
    ],
    has_trainable=True,
    training_inert=["training changes nothing:", "rate 0"],
    unreached_sides=["set `b`"],
    other_values={"scale": 2.0},
    weights_read=["kernel"],
    random=True,
    draws_hint=["give it draws"],
    statistics=[{"of": "outputs", "mean": 0.0, "what": "noise"}],
    unbiased=True,
    noise_shape="(x_shape[0], 1)",
    supports_jit=False,
    losses=["ops.sum(layer.kernel)"],
    inference_losses=1,
    updates=[{"name": "count", "expected": "before['count'] + 1"}],
    state_read_in_inference=True,
    masking="mask",
    call_reads_mask=True,
    gradient_check="float32",
    gradient_stopped=["`ops.stop_gradient` in inference"],
    mask_args=[
        {"name": "padding_mask", "index": 0, "keyword": None, "given": False, "dtype": "bool"}
    ],
    cache_args=[
        {
            "name": "cache",
            "of": ["x"],
            "index": "cache_index",
            "shape": "(2, 4)",
            "output": 1,
            "mask": None,
            "mask_dtype": None,
        }
    ],
    causal_args=[{"name": "use_causal_mask", "index": 0}],
    call_args={"use_causal_mask": True},
    golden=True,
    constants={"INPUTS": [[1.0, 2.0]], "EXPECTED": [[2.0, 4.0]], "ATOL": 1e-6},
    stated_outputs=[(False, "EXPECTED")],
    op_methods=[{"name": "sign_ste"}],
    reached_ops=["sign_ste"],
    ops=[
        {
            "name": "sign_ste",
            "args": [{"name": "x", "value": "make_inputs()"}],
            "expected": "[ops.ones_like(x)]",
        }
    ],
    layouts={"kernel": [None, "model"]},
    layout_module="layers.layouts",
)


@pytest.mark.parametrize("build", builders.BUILDERS, ids=lambda b: b.__name__)
def test_each_builder_writes_functions_that_parse(build):
    tests = build(facts(**RICH))
    assert tests, "the facts give every builder something to check"
    for test in tests:
        ast.parse(source(test))


def test_shapes_pass_the_layer_to_declared_shapes_that_read_it():
    (test,) = builders.shapes(facts(output_shapes=["(2, 3)"], shapes_read_layer=True))
    assert "declared_output_shapes, declared_reads_layer=True)" in test.body
    (test,) = builders.shapes(facts())
    assert test.body.strip() == "support.assert_output_shapes(EXAMPLE)"


def test_a_weight_under_a_when_is_none_on_its_other_side_and_states_no_aggregation():
    (test,) = builders.weights(facts(weights=RICH["weights"]))
    assert "\"bias\": ((3,), True) if ARGS['b'] else None," in test.body
    assert 'aggregations={"kernel": "sum"}' in test.body


def test_an_unreached_branch_is_a_skipped_test_that_says_what_to_set():
    tests = builders.branches(facts(unreached_sides=["give `b` a value", " to reach it"]))
    assert names(tests) == ["test_every_declared_branch_is_reached"]
    assert tests[0].skip_reason == '"give `b` a value" " to reach it"'


def test_training_is_checked_where_it_matters_and_skipped_where_the_example_makes_it_inert():
    assert "test_training_changes_the_output" not in names(builders.training_vs_inference(facts()))
    _, sensitive = builders.training_vs_inference(facts(training_sensitive=True))
    assert sensitive.skip_reason is None
    _, inert = builders.training_vs_inference(facts(training_inert=["rate is 0"]))
    assert inert.skip_reason == '"rate is 0"'
    assert names(builders.training_vs_inference(facts(deterministic_inference=False))) == []


def test_gradients_are_checked_in_the_declared_precision_unless_a_gradient_is_stopped():
    assert builders.gradients(facts()) == []
    (test,) = builders.gradients(facts(gradient_check="float32", gradient_training=False))
    assert 'precision="float32", training=False)' in test.body
    assert "stops a gradient on purpose" in test.body
    (test,) = builders.gradients(facts(gradient_check="float64", gradient_stopped=["why"]))
    assert test.skip_reason == '"why"' and "precision" not in test.body


def test_config_round_trip_reads_the_object_params_too():
    (test,) = builders.config_round_trip(facts(objects={"act": "keras.layers.ReLU()"}))
    assert "[*ARGS, *make_objects()]" in test.body
    (test,) = builders.config_round_trip(facts())
    assert test.body.strip() == "support.assert_config_round_trip(EXAMPLE, ARGS)"


def test_mixed_precision_runs_once_per_policy_and_names_a_discrete_op():
    (test,) = builders.mixed_precision(facts(discrete="ops.argmax"))
    assert test.params == ("policy",)
    assert test.marks[0].startswith('pytest.mark.parametrize("policy"')
    assert 'discrete="ops.argmax")' in test.body


def test_losses_read_from_call_are_counted_not_computed():
    (test,) = builders.losses(facts(losses=["x"], losses_read_call=True, inference_losses=0))
    assert "inference_losses=0, count=1)" in test.body
    assert "expected_losses" not in test.body


def test_state_read_in_inference_adds_its_test():
    updates = [{"name": "n", "expected": "1"}]
    assert len(builders.state_updates(facts(updates=updates))) == 2
    moved = builders.state_updates(facts(updates=updates, state_read_in_inference=True))
    assert "test_inference_follows_the_state_that_training_moved" in names(moved)


def test_a_cache_states_its_mask_only_where_it_has_one():
    cache = dict(RICH["cache_args"][0])
    (test,) = builders.caches(facts(cache_args=[cache]))
    assert "mask=" not in test.body
    (test,) = builders.caches(facts(cache_args=[cache | {"mask": "m", "mask_dtype": "bool"}]))
    assert 'mask="m",\n        mask_dtype="bool",' in test.body


def test_the_sharded_checks_share_one_fixture_that_is_no_test():
    tests = builders.layouts(facts(layouts=RICH["layouts"], layout_module="l.layouts"))
    fixture = [t for t in tests if t.fixture]
    assert names(fixture) == ["model_parallel"]
    assert "model_parallel" not in names_of(tests)
    assert all(t.params == ("model_parallel",) for t in tests[2:])


def test_make_model_is_written_only_for_a_sharded_layer_whose_support_checks_call_it():
    assert "make_model" not in [h.name for h in helpers(facts())]
    sharded = helpers(facts(layouts=RICH["layouts"], layout_module="l.layouts"))
    assert "make_model" in [h.name for h in sharded]


def test_a_skip_marks_its_test_above_its_own_marks_and_an_unknown_name_is_an_error():
    tests = builders.build_tests(facts())
    skips = (
        Skip("test_mixed_precision_matches_float32", "flips", Pos(3, 5)),
        Skip("test_mixed_precision", "typo", Pos(4, 5)),
    )
    marked, errors = skip_tests(tests, skips, "probe.layer.yaml")
    (mixed,) = [t for t in marked if t.name == "test_mixed_precision_matches_float32"]
    assert mixed.marks[0] == 'pytest.mark.skip(reason="flips")'
    assert mixed.marks[1].startswith("pytest.mark.parametrize")
    (error,) = errors
    assert (error.line, error.col, error.code) == (4, 5, "unknown-test")
    assert "test_mixed_precision_matches_float32" in error.hint


def test_a_weight_only_a_call_case_reads_is_checked_through_that_case():
    (plain,) = builders.weights_read(facts(weights_read=["kernel"]))
    assert "lambda: support.as_list(layer(inputs, training=False))" in plain.body
    cases = [{"name": "reverse=True", "args": {"reverse": True}}]
    (cased,) = builders.weights_read(facts(weights_read=["kernel"], call_cases=cases))
    assert "make_call_cases()" in cased.body and "def outputs():" in cased.body
    assert builders.weights_read(facts()) == []


def test_the_fit_step_says_when_no_trainable_weight_is_declared():
    (test,) = builders.fit_step(facts(has_trainable=False))
    assert "has_trainable=False)" in test.body and "No trainable weight" in test.body
    (test,) = builders.fit_step(facts(has_trainable=True))
    assert test.body.strip() == "support.assert_fit_step_trains_every_weight(EXAMPLE)"


def test_random_draws_tests_follow_what_the_declaration_states_of_them():
    assert builders.random_draws(facts()) == []
    (seed,) = builders.random_draws(facts(random=True, draws_hint=["set `rate`", " above 0"]))
    assert 'hint = "set `rate`" " above 0"' in seed.body


def test_noise_tests_follow_what_the_declaration_states_of_its_noise():
    assert builders.noise(facts(random=True)) == []
    (noise,) = builders.noise(facts(noise_shape="(x_shape[0], 1)", shapes_read_layer=True))
    assert "declared_noise_shape, declared_reads_layer=True)" in noise.body
    (mean,) = builders.noise(facts(unbiased=True))
    assert mean.name == "test_inference_is_the_mean_of_training"


def test_stated_weights_go_to_the_reference_only_without_stated_inputs():
    reference = {"signature": "x, *, units", "body": "return x", "call": "inputs"}
    (test,) = builders.stated_numbers(
        facts(reference=reference, constants={"WEIGHTS": {}, "ATOL": 1e-6})
    )
    assert "ATOL, weights=WEIGHTS)" in test.body
    stated = {"INPUTS": [], "WEIGHTS": {}, "EXPECTED_IN_TRAINING": [], "ATOL": 1e-6}
    tests = builders.stated_numbers(
        facts(
            reference=reference, constants=stated, stated_outputs=[(True, "EXPECTED_IN_TRAINING")]
        )
    )
    assert names(tests) == [
        "test_training_outputs_are_the_stated_values",
        "test_inference_outputs_match_the_numpy_reference",
    ]
    assert "training=True, weights=WEIGHTS)" in tests[0].body
    assert "weights=" not in tests[1].body


def test_keyword_tensors_that_shape_the_build_save_and_load_each_structure():
    assert builders.keyword_arguments(facts(keywords_build=True)) == []
    tests = builders.keyword_arguments(facts(call_args={"context": [1.0]}, keywords_build=True))
    assert names(tests) == [
        "test_each_keyword_argument_of_call",
        "test_saves_and_loads_built_with_each_keyword_tensor",
    ]
    assert tests[1].params == ("tmp_path",)


def test_a_keyword_mask_over_a_keyword_tensor_masks_that_tensor():
    mask = {"name": "context_mask", "index": None, "keyword": "context", "given": False}
    (test,) = builders.keyword_masks(facts(mask_args=[mask | {"dtype": "bool"}]))
    assert 'masked = make_call_args()["context"]' in test.body
    assert 'keyword=("context", masked))' in test.body
    given = RICH["mask_args"][0] | {"given": True}
    (test,) = builders.keyword_masks(facts(mask_args=[given]))
    assert 'mask = make_call_args()["padding_mask"]' in test.body and "index=0)" in test.body


def test_masking_passes_the_mask_through_or_computes_the_declared_one():
    (through,) = builders.masking(facts(masking="mask"))
    assert "# the mask passes through" in through.body
    computed = builders.masking(
        facts(masking="ops.not_equal(x, 0)", masking_reads_inputs=True, call_reads_mask=True)
    )
    assert names(computed) == ["test_masking", "test_masked_steps_do_not_change_the_output"]
    assert "        x = inputs" in computed[0].body


def test_the_golden_test_is_written_only_where_outputs_were_recorded():
    assert builders.golden(facts()) == []
    assert names(builders.golden(facts(golden=True))) == ["test_outputs_match_the_recorded_golden"]


def test_declared_ops_are_checked_as_reached_and_each_against_its_formula():
    tests = builders.declared_ops(
        facts(**{k: RICH[k] for k in ("op_methods", "reached_ops", "ops")})
    )
    assert names(tests) == [
        "test_call_takes_its_gradients_from_the_declared_ops",
        "test_op_sign_ste_gradient_matches_its_formula",
    ]
    assert 'DeclaredOps, ["sign_ste"], reached=["sign_ste"])' in tests[0].body
    assert "layer(make_inputs())" in tests[1].body
    assert "layer(" not in builders.op_test(RICH["ops"][0], "object").body


def test_each_layer_gets_its_own_copy_of_a_list_it_is_given():
    """A layer that appends to a list argument (keras-hub's BoxMatcher) must not change the
    example's: each `make_layer()` then builds the layer the declaration states."""
    code = next(
        h.code for h in helpers(facts(args={"thresholds": [0.5]})) if h.name == "make_layer"
    )
    namespace = {"ARGS": {"thresholds": [0.5]}, "keras": _Keras, "copy": __import__("copy")}
    namespace["Probe"] = lambda thresholds: thresholds.append(0.0) or thresholds
    exec(code, namespace)
    assert namespace["make_layer"]() == [0.5, 0.0]
    assert namespace["make_layer"]() == [0.5, 0.0]
    plain = next(h.code for h in helpers(facts(args={"units": 3})) if h.name == "make_layer")
    assert "copy" not in plain


class _Keras:
    class utils:
        @staticmethod
        def set_random_seed(seed):
            pass
