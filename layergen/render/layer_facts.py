"""What the generated tests of a layer know of it: one typed value, the same for a declared
layer (`tests_context.build_test_context`) and a hand-written one (`layergen tests`), which
the builders of its tests read (`test_builders.py`). A layer whose code was only read knows
none of the facts beyond its example: each defaults to "nothing to check"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LayerFacts:
    # The layer, its module and the declaration (or module) its tests are generated from.
    name: str
    module: str
    source: str
    # The example: its plain arguments, and the code that makes each object param anew.
    args: dict[str, Any]
    objects: dict[str, str]
    # Its tensor inputs (`inputs_context`).
    inputs: list[str]
    several_inputs: bool
    separate_inputs: bool
    star: str  # before the inputs a layer is called on
    input_targets: str  # `... = inputs` names them
    shape_names: list[str]
    shape_targets: str
    input_shapes: dict[str, Any]
    input_dtypes: dict[str, str]
    input_range: tuple[Any, ...] | None
    ones: tuple[str, ...] = ()  # keyword tensors passed in every call, made of ones
    # Beyond shapes, config, saving and fit.
    output_shapes: list[str] | None = None
    weights: list[dict[str, Any]] = field(default_factory=list)
    exact_weight_count: bool = False
    has_trainable: bool = False
    losses: list[str] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    training_sensitive: bool = False
    training_inert: list[str] | None = None  # why the example's training call changes nothing
    deterministic_inference: bool = True
    masking: str | None = None
    ops: list[dict[str, Any]] = field(default_factory=list)
    losses_read_inputs: bool = False
    losses_read_call: bool = False  # the losses read names `call` binds: counted, not computed
    inference_losses: int = 0  # losses an inference call adds (the others are training-only)
    updates_read_inputs: bool = False
    random: bool = False
    draws_hint: list[str] = field(default_factory=list)  # what makes a random layer draw
    statistics: list[dict[str, Any]] = field(default_factory=list)
    constants: dict[str, Any] = field(default_factory=dict)
    stated_outputs: list[tuple[bool, str]] = field(default_factory=list)
    reference: dict[str, str] | None = None
    golden: bool = False
    output_names: list[str] | None = None  # a layer that returns its outputs as a dict
    input_shape_note: str | None = None  # why INPUT_SHAPES is what it is, when code does not say
    call_args: dict[str, Any] = field(default_factory=dict)  # keyword arguments of `call` given
    call_cases: list[dict[str, Any]] = field(default_factory=list)  # calls on inputs of their own
    mask_args: list[dict[str, Any]] = field(default_factory=list)  # keyword masks (`masks: x`)
    output_shape_keywords: list[str] = field(default_factory=list)  # shapes of these tensors too
    causal_args: list[dict[str, Any]] = field(default_factory=list)  # bools that make it causal
    cache_args: list[dict[str, Any]] = field(default_factory=list)  # caches decoded step by step
    gradient_check: str | None = None  # the precision to check gradients in
    gradient_training: bool = True  # of a training call (else inference: stopped in training)
    gradient_stopped: list[str] | None = None  # why finite differences cannot check it
    op_methods: list[dict[str, Any]] = field(default_factory=list)  # the declared ops' methods
    reached_ops: list[str] = field(default_factory=list)  # the ops its `call` must reach
    discrete: str | None = None  # an op that makes a discrete choice, such as `ops.top_k`
    golden_state: bool = False  # the golden records the state after training calls
    golden_losses: bool = False  # the golden records the losses of a training call
    state_read_in_inference: bool = False
    unbiased: bool = False  # the mean of training outputs is the inference output
    noise_shape: str | None = None  # the declared shape of the noise, over the input shapes
    supports_jit: bool = True  # false: the layer says XLA cannot compile it (`no_jit`)
    masking_reads_inputs: bool = False
    call_reads_mask: bool = False  # the layer handles masked steps: they must not matter
    sublayers: list[str] = field(default_factory=list)  # declared sublayers: each built
    policy_sublayers: list[str] = field(default_factory=list)  # given the layer's dtype policy
    weights_read: list[str] = field(default_factory=list)  # each changes the inference output
    shapes_read_layer: bool = False  # an output or noise shape reads `self.x` of the layer
    layouts: dict[str, Any] = field(default_factory=dict)  # tested under ModelParallel
    layout_module: str | None = None  # the module of the folder's `get_layout_map`
    from_module: list[str] = field(default_factory=list)  # names object params are made with
    keywords_build: bool = False  # what `build` creates depends on the keyword tensors
    keywords_shape_outputs: bool = False  # the output shapes depend on keyword arguments
    other_sides: list[Any] = field(default_factory=list)  # params that flip declared `when`s
    unreached_sides: list[str] = field(default_factory=list)  # branches not reached, in parts
    other_values: dict[str, Any] = field(default_factory=dict)  # call inputs to vary

    @property
    def cased(self) -> bool:
        """The tests call the layer with keyword arguments too."""
        return bool(self.call_args or self.call_cases)

    @property
    def shape_params(self) -> str:
        """What `declared_noise_shape` takes: the layer where a shape reads it."""
        return ", ".join([*(["layer"] if self.shapes_read_layer else []), *self.shape_names])

    @property
    def output_shape_params(self) -> str:
        return ", ".join([self.shape_params, *self.output_shape_keywords])
