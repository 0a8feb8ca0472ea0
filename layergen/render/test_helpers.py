"""The constants and helpers of a generated layer test module, each written where a test,
a helper or the support module calls it."""

from __future__ import annotations

from .generated_tests import Helper, body, call
from .layer_facts import LayerFacts
from .render import block, imported_names, literal


def constants(f: LayerFacts) -> list[str]:
    """The module's constants: the example's arguments, inputs and stated numbers."""
    lines = [f"ARGS = {literal(f.args)}"]
    if f.input_shape_note:
        lines.append(f"# {f.input_shape_note}")
    lines += [
        f"INPUT_SHAPES = {literal(f.input_shapes)}",
        f"INPUT_DTYPES = {literal(f.input_dtypes)}",
    ]
    if f.input_range is not None:
        lines.append(f"INPUT_RANGE = {literal(f.input_range)}")
    if f.output_names:
        lines.append(f"OUTPUT_NAMES = {literal(f.output_names)}")
    if f.call_args:
        lines.append(f"CALL_ARGS = {literal(f.call_args)}")
    if f.call_cases:
        lines.append(
            "# Calls with keyword arguments on inputs of their own (the reverse of an embedding)."
        )
        lines.append(f"CALL_CASES = {literal(f.call_cases)}")
    lines += [f"{name} = {literal(value)}" for name, value in f.constants.items()]
    if f.layouts:
        lines.append(
            "# The mesh axis of each dim of the weights declared sharded, by path in the layer."
        )
        lines.append(f"LAYOUTS = {literal(f.layouts)}")
    return lines


def from_imports(f: LayerFacts) -> list[str]:
    """The module's `from ... import` lines: the layer (and the names its example's object
    params are made with) from its module, and the folder's layout map where it has one."""
    lines = [f"from {f.module} import {imported_names([f.name, *f.from_module])}"]
    if f.layouts:
        lines.append(f"from {f.layout_module} import MESH_AXES, get_layout_map")
    return sorted(lines)


def _def(signature: str, *lines: str) -> Helper:
    """The helper `def signature:` with these statements, named as it defines."""
    return Helper(signature.split("(")[0], f"def {signature}:\n{body(*lines)}")


def helpers(f: LayerFacts) -> list[Helper]:
    """The helpers before the declared ops: the layer, its inputs and example, and what
    the declaration states of its outputs, mask and noise."""
    separate = ", separate=True" if f.separate_inputs else None
    made = []
    if f.objects:
        made.append(
            _def(
                "make_objects(dtype=None)",
                '"""The params that hold objects, made anew for each layer (none is shared),',
                "under the layer's dtype policy, as whoever wraps a layer under mixed precision",
                'makes them."""',
                "policy = keras.config.dtype_policy()",
                "keras.config.set_dtype_policy(dtype or policy)",
                "try:",
                "    return {",
                *(f"        {literal(k)}: {v}," for k, v in f.objects.items()),
                "    }",
                "finally:",
                "    keras.config.set_dtype_policy(policy)",
            )
        )
    objects = '**make_objects(overrides.get("dtype")), ' if f.objects else ""
    # A layer may change a list it is given (append to it): each gets its own copy, as each
    # call written out would.
    shared = any(isinstance(v, (list, dict)) for v in f.args.values())
    args = "**copy.deepcopy(ARGS)" if shared else "**ARGS"
    made.append(
        _def(
            "make_layer(**overrides)",
            "# The same initial weights whatever ran before: each test sees one layer.",
            "keras.utils.set_random_seed(0)",
            f"return {f.name}(**{{{args}, {objects}**overrides}})",
        )
    )
    value_range = "INPUT_RANGE" if f.input_range is not None else "None"
    arrays = "arrays[0]"
    if f.several_inputs:
        arrays = "tuple(arrays)" if f.separate_inputs else "arrays"
    made.append(
        _def(
            "make_inputs(seed=0)",
            "arrays = support.make_inputs(INPUT_SHAPES, INPUT_DTYPES,"
            f" {value_range}, seed{f', ones={literal(f.ones)}' if f.ones else ''})",
            f"return {arrays}",
        )
    )
    if f.layouts:  # the support module's model-parallel checks call it back
        made.append(
            _def(
                "make_model(layer)",
                "return support.make_model(layer, INPUT_SHAPES, INPUT_DTYPES"
                f"{', separate=True' if separate else ''})",
            )
        )
    example = call(
        "support.Example",
        "make_layer",
        "make_inputs",
        "INPUT_SHAPES",
        "INPUT_DTYPES",
        output_names="OUTPUT_NAMES" if f.output_names else None,
        separate="True" if separate else None,
    )
    made.append(
        Helper(
            "EXAMPLE",
            (
                "# The layer and its example, as the checks of the support module take them.\n"
                f"EXAMPLE = {example}"
            ),
        )
    )
    if f.call_args:
        made.append(
            _def(
                "make_call_args()",
                '"""The example\'s value of each keyword argument of `call`; tensors as arrays."""',
                "return support.call_args(CALL_ARGS, INPUT_DTYPES)",
            )
        )
    if f.cased:
        cases = call(
            "support.call_cases",
            "EXAMPLE",
            *(["make_call_args()"] if f.call_args else []),
            cases="CALL_CASES" if f.call_cases else None,
        )
        made.append(
            _def(
                "make_call_cases()",
                '"""Each call case: its name, its keyword arguments and the inputs it takes."""',
                f"return {cases}",
            )
        )
    if f.output_names:
        made.append(
            _def(
                "as_list(outputs)",
                '"""The layer returns its outputs by name: here in the declared order."""',
                "if isinstance(outputs, dict):",
                "    assert sorted(outputs) == sorted(OUTPUT_NAMES), (",
                '        f"the layer returns {sorted(outputs)}, declared {sorted(OUTPUT_NAMES)}"',
                '        " (see `outputs`)"',
                "    )",
                "    return [outputs[name] for name in OUTPUT_NAMES]",
                "return support.as_list(outputs)",
            )
        )
    if f.output_shapes:
        made.append(
            _def(
                f"declared_output_shapes({f.output_shape_params})",
                f"return [{', '.join(f.output_shapes)}]",
            )
        )
    if f.masking:
        made.append(
            _def(
                "make_mask()",
                f"return support.make_mask(INPUT_SHAPES[{literal(f.inputs[0])}][:2])",
            )
        )
    if f.noise_shape:
        made.append(
            _def(
                f"declared_noise_shape({f.shape_params})",
                f"return {f.noise_shape}",
            )
        )
    return made


def output_helpers(f: LayerFacts) -> list[Helper]:
    """What a recorded golden holds, and the declared NumPy reference: after the ops."""
    hiding = [m["name"] for m in f.mask_args if m["keyword"] is None]
    run = call(
        "support.golden_runs",
        "EXAMPLE",
        "layer",
        *(["make_call_cases()"] if f.cased else []),
        losses="True" if f.golden_losses else None,
        mask="make_mask()" if f.masking else None,
        state=literal([u["name"] for u in f.updates]) if f.golden_state else None,
        masks=literal(hiding) if hiding and f.cased else None,
    )
    made = [
        _def(
            "golden_run(layer)",
            '"""What a recorded golden holds, computed by the built layer."""',
            f"return {run}",
        )
    ]
    reference = f.reference
    if reference:
        made.append(
            Helper(
                "numpy_reference",
                (
                    f"def numpy_reference({reference['signature']}):\n"
                    '    """The declared NumPy reference of the layer\'s output."""\n'
                    f"{block(reference['body'], 4)}"
                ),
            )
        )
    return made
