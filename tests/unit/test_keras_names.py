"""layergen/keras_names.py lists names Keras knows, so that generating never imports Keras:
each name must resolve in the installed Keras."""

from __future__ import annotations

import keras
import pytest

from layergen.declaration.layouts import default_name
from layergen.keras_names import ACTIVATIONS, DTYPES, IDENTIFIERS, LAYER_NAMES
from layergen.kinds import KINDS

GETTERS = {
    "activation": keras.activations.get,
    "initializer": keras.initializers.get,
    "regularizer": keras.regularizers.get,
    "constraint": keras.constraints.get,
}


@pytest.mark.parametrize("kind", sorted(IDENTIFIERS))
def test_every_identifier_resolves_in_keras(kind):
    unresolved = []
    for name in sorted(IDENTIFIERS[kind]):
        try:
            GETTERS[kind](name)
        except KeyError:
            pass  # found, but needs arguments to be built (`constant` needs a value)
        except (ValueError, TypeError):
            unresolved.append(name)
    assert not unresolved, f"{kind}s Keras does not know: {unresolved}"


def test_activations_are_the_functions_of_keras_activations():
    assert all(callable(getattr(keras.activations, name, None)) for name in ACTIVATIONS)


def test_layer_names_are_the_default_names_of_every_keras_layer():
    layers = [getattr(keras.layers, n) for n in dir(keras.layers)]
    classes = [c for c in layers if isinstance(c, type) and issubclass(c, keras.layers.Layer)]
    assert {default_name(c.__name__) for c in classes} == LAYER_NAMES
    assert keras.layers.EinsumDense("ab,bc->ac", 2).name.startswith("einsum_dense")


def test_every_dtype_is_a_keras_dtype():
    unknown = [d for d in sorted(DTYPES) if keras.backend.standardize_dtype(d) != d]
    assert not unknown


# A layer's reserved names include what Layer sets on instances: test_hardening checks them.
@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"layer"}))
def test_each_kind_extends_a_keras_class_that_has_its_reserved_names(kind):
    row = KINDS[kind]
    base = keras
    for part in row.base.split(".")[1:]:
        base = getattr(base, part)
    instance_only = {"name", "reduction", "dtype"}  # set in the constructor
    assert not [a for a in row.reserved - instance_only if not hasattr(base, a)]
    assert callable(getattr(base, row.method))
