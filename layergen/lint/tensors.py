"""Which expressions in `call` hold tensor values, by following names from the inputs.

Flow-insensitive and by name: the tensor inputs of `call`, the layer's weights, and every
local name assigned from an expression that uses one. Shapes, dtypes, `len`, `isinstance`
and `is None` tests read no tensor value, so conditions on them are fine.
"""

from __future__ import annotations

import ast

from .source import SourceFile, self_attribute, self_name, walk

STATIC_ATTRIBUTES = {
    "shape",
    "ndim",
    "dtype",
    "name",
    "rank",
    "get_shape",
    "_keras_mask",
    "sparse",
    "ragged",
}
STATIC_CALLS = {
    "len",
    "isinstance",
    "hasattr",
    "getattr",
    "type",
    "callable",
    "id",
    "shape",
    "ndim",
    "int_shape",
    "standardize_dtype",
    "is_tensor",
    "is_keras_tensor",
    "is_float_dtype",
    "is_int_dtype",
    "result_type",
    "is_symbolic_tensor",
    "any_symbolic_tensors",
    "is_nested",
    "flatten",
    "range",
    "zip",
    "enumerate",
}
# Python flags, never tensors, even when named like an input.
FLAG_PARAMETERS = {
    "training",
    "return_attention_scores",
    "use_causal_mask",
    "return_state",
    "return_sequences",
}
# `keras.backend` functions that are not TensorFlow-only.
NEUTRAL_BACKEND = {
    "backend",
    "epsilon",
    "floatx",
    "image_data_format",
    "is_float_dtype",
    "is_int_dtype",
    "result_type",
    "standardize_dtype",
    "get_uid",
    "is_keras_tensor",
    "clear_session",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
}


def backend_op(name: str) -> bool:
    """A TensorFlow call, or a TensorFlow-only `keras.backend` function (`K.dot`)."""
    if name.startswith("tensorflow.") and not name.startswith(
        ("tensorflow.keras.", "tensorflow.experimental.numpy")
    ):
        return True
    if name.startswith("keras.backend."):
        return name.rsplit(".", 1)[-1] not in NEUTRAL_BACKEND
    return False


class Tensors:
    def __init__(
        self, source: SourceFile, call: ast.FunctionDef, weights: set[str], methods: set[str]
    ):
        self.source = source
        self.me = self_name(call)
        self.weights = weights
        args = call.args
        positional = [*args.posonlyargs, *args.args][1:]
        first_default = len(positional) - len(args.defaults)
        self.names = {
            a.arg for i, a in enumerate(positional) if i < first_default
        }  # optional ones may be flags
        self.methods = methods
        if args.vararg:
            self.names.add(args.vararg.arg)
        self.names -= FLAG_PARAMETERS
        self._spread(call)

    def _spread(self, call: ast.FunctionDef) -> None:
        flows = []
        for node in walk(call):
            if isinstance(node, ast.Assign):
                flows.append((node.targets, node.value))
            elif (
                isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr))
                and node.value is not None
            ):
                flows.append(([node.target], node.value))
            elif isinstance(node, (ast.For, ast.comprehension)):
                flows.append(([node.target], node.iter))
        changed = True
        while changed:
            changed = False
            for targets, value in flows:
                if self.depends(value):
                    for target in targets:
                        for name in walk(target):
                            if isinstance(name, ast.Name) and name.id not in self.names:
                                self.names.add(name.id)
                                changed = True

    def depends(self, node: ast.AST) -> bool:
        """Whether the value of `node` depends on a tensor's values (not only its shape or identity)."""
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            if node.attr in STATIC_ATTRIBUTES:
                return False
            if self_attribute(node, self.me) is not None:
                return node.attr in self.weights
            return self.depends(node.value)
        if isinstance(node, ast.Call):
            callee = (
                node.func.attr
                if isinstance(node.func, ast.Attribute)
                else getattr(node.func, "id", "")
            )
            if callee in STATIC_CALLS:
                return False
            if self_attribute(node.func, self.me) in self.methods:
                return False  # a helper of the class: what it returns is not known
            return self.depends(node.func) or self.depends_any(node)
        if isinstance(node, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return False
            return any(self.depends(n) for n in [node.left, *node.comparators])
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.Constant)):
            return False
        return any(self.depends(child) for child in ast.iter_child_nodes(node))

    def depends_any(self, call: ast.Call) -> bool:
        return any(self.depends(a) for a in [*call.args, *(k.value for k in call.keywords)])
