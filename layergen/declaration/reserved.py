"""Names the generated code uses itself, where a declared name would collide with them.

A declared name becomes a local variable in some generated functions: a param in
`__init__`, an input in `call`, `compute_mask` and several generated tests, an op's
argument in the op and its gradient test, a method's argument in the method. A
declared name equal to a name the generated code uses in the same function would
shadow it, or be overwritten by it. The sets below are what the templates render:
`tests/unit/test_reserved_names.py` scans generated modules and fails when a template
starts using a name that is missing here.
"""

# In `__init__`; `cls` because Keras's `Layer.__new__(cls, *args, **kwargs)` takes it too.
PARAM = frozenset(["self", "kwargs", "super", "keras", "ops", "ValueError", "cls"])

# In `call`, `compute_mask` and the generated tests that bind the inputs by name.
INPUT = frozenset(
    [
        "self",
        "super",
        "keras",
        "ops",
        "training",
        "mask",
        "inputs",
        "outputs",
        "ARGS",
        "EXAMPLE",
        "INPUT_SHAPES",
        "_",
        "actual",
        "as_list",
        "before",
        "bool",
        "computed",
        "declared",
        "expected",
        "expected_losses",
        "first",
        "getattr",
        "layer",
        "len",
        "make_inputs",
        "make_layer",
        "name",
        "named_output",
        "np",
        "numpy",
        "o",
        "shape",
        "sum",
        "support",
        "t",
        "trainable",
        "tuple",
        "unmasked",
        "variable",
        "want",
        "zip",
    ]
)

# In the op's method (with its nested `forward` and `grad`) and its generated gradient test.
OP_ARGUMENT = frozenset(
    [
        "self",
        "keras",
        "ops",
        "upstream",
        "args",
        "forward",
        "grad",
        "isinstance",
        "INPUT_SHAPES",
        "SHAPE",
        "actual",
        "backend_gradients",
        "expected",
        "got",
        "layer",
        "len",
        "make_inputs",
        "make_layer",
        "make_object",
        "np",
        "numpy",
        "object",
        "outputs",
        "rng",
        "support",
        "want",
        "zip",
    ]
)

METHOD_ARGUMENT = frozenset({"self"})

# Module globals the generated class module reads: an `imports` line must not bind them.
MODULE = frozenset(
    [
        "keras",
        "ops",
        "ValueError",
        "isinstance",
        "len",
        "super",
        "tuple",
        "zip",
        "type",
        "warnings",
        "classmethod",
    ]
)

# Module globals the generated test module reads (and the class module's): the class
# name, imported into the test module, must not be one of them.
TEST_MODULE = MODULE | frozenset(
    [
        "ARGS",
        "CALL_ARGS",
        "CALL_CASES",
        "EXAMPLE",
        "INPUT_DTYPES",
        "INPUT_SHAPES",
        "LAYOUTS",
        "MESH_AXES",
        "OUTPUT_NAMES",
        "SHAPE",
        "TypeError",
        "dict",
        "__file__",
        "all",
        "any",
        "bool",
        "getattr",
        "list",
        "range",
        "sum",
        "zip",
        "np",
        "numpy",
        "pytest",
        "as_list",
        "backend_gradients",
        "declared",
        "declared_output_shapes",
        "declared_noise_shape",
        "DeclaredOps",
        "golden_run",
        "make_mask",
        "get_layout_map",
        "make_data",
        "make_inputs",
        "make_call_args",
        "make_call_cases",
        "make_layer",
        "make_model",
        "make_object",
        "make_objects",
        "shape_list",
        "sorted",
        "type",
        "support",
    ]
)
