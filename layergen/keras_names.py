"""Names Keras knows, kept here so that generating never imports Keras.

`tests/test_keras_names.py` checks these lists against the installed Keras
(`tests/test_hardening.py` checks `LAYER_ATTRIBUTES`).
"""

ACTIVATIONS = frozenset(
    [
        "celu",
        "elu",
        "exponential",
        "gelu",
        "glu",
        "hard_shrink",
        "hard_sigmoid",
        "hard_silu",
        "hard_swish",
        "hard_tanh",
        "leaky_relu",
        "linear",
        "log_sigmoid",
        "log_softmax",
        "mish",
        "relu",
        "relu6",
        "selu",
        "sigmoid",
        "silu",
        "soft_shrink",
        "softmax",
        "softplus",
        "softsign",
        "sparse_plus",
        "sparse_sigmoid",
        "sparsemax",
        "squareplus",
        "swish",
        "tanh",
        "tanh_shrink",
        "threshold",
    ]
)
INITIALIZERS = frozenset(
    [
        "Constant",
        "GlorotNormal",
        "GlorotUniform",
        "HeNormal",
        "HeUniform",
        "Identity",
        "IdentityInitializer",
        "LecunNormal",
        "LecunUniform",
        "Ones",
        "Orthogonal",
        "OrthogonalInitializer",
        "RandomNormal",
        "RandomUniform",
        "STFT",
        "STFTInitializer",
        "TruncatedNormal",
        "VarianceScaling",
        "Zeros",
        "constant",
        "glorot_normal",
        "glorot_uniform",
        "he_normal",
        "he_uniform",
        "identity",
        "lecun_normal",
        "lecun_uniform",
        "normal",
        "one",
        "ones",
        "orthogonal",
        "random_normal",
        "random_uniform",
        "stft",
        "truncated_normal",
        "uniform",
        "variance_scaling",
        "zero",
        "zeros",
    ]
)
REGULARIZERS = frozenset(
    ["L1", "L1L2", "L2", "OrthogonalRegularizer", "l1", "l1l2", "l2", "orthogonal_regularizer"]
)
CONSTRAINTS = frozenset(
    [
        "MaxNorm",
        "MinMaxNorm",
        "NonNeg",
        "UnitNorm",
        "max_norm",
        "min_max_norm",
        "non_neg",
        "unit_norm",
    ]
)

IDENTIFIERS = {
    "activation": ACTIVATIONS,
    "initializer": INITIALIZERS,
    "regularizer": REGULARIZERS,
    "constraint": CONSTRAINTS,
}

DTYPES = frozenset(
    [
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
        "complex64",
        "complex128",
        "string",
    ]
)

# Attributes and methods every Keras layer has: a param, weight, sublayer, op or
# input with one of these names would shadow it.
LAYER_ATTRIBUTES = frozenset(
    [
        "name",
        "dtype",
        "trainable",
        "weights",
        "variables",
        "losses",
        "built",
        "input",
        "output",
        "input_spec",
        "trainable_weights",
        "non_trainable_weights",
        "trainable_variables",
        "non_trainable_variables",
        "dtype_policy",
        "compute_dtype",
        "variable_dtype",
        "supports_masking",
        "metrics",
        "path",
        "call",
        "build",
        "get_config",
        "from_config",
        "add_weight",
        "add_loss",
        "add_variable",
        "compute_output_shape",
        "compute_output_spec",
        "compute_mask",
        "count_params",
        "get_weights",
        "set_weights",
        "get_build_config",
        "build_from_config",
        "quantize",
        "quantized_call",
        "stateless_call",
        "autocast",
        "input_dtype",
        "seed_generator",
        "activity_regularizer",
        "add_metric",
        "call_signature_parameters",
        "load_own_variables",
        "save_own_variables",
        "metrics_variables",
        "quantization_mode",
        "quantized_build",
        "rematerialized_call",
        "supports_jit",
        "symbolic_call",
    ]
)

# The same for the other kinds: attributes their Keras base class already has.
OBJECT_ATTRIBUTES = {
    "loss": frozenset(["name", "reduction", "dtype", "call", "get_config", "from_config"]),
    "constraint": frozenset(["get_config", "from_config"]),
    "regularizer": frozenset(["get_config", "from_config"]),
    "initializer": frozenset(["get_config", "from_config", "clone"]),
}
