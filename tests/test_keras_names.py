"""layergen/keras_names.py lists names Keras knows, so that generating never imports Keras:
each name must resolve in the installed Keras."""

from __future__ import annotations

import keras
import pytest

from layergen.keras_names import ACTIVATIONS, DTYPES, IDENTIFIERS, OBJECT_ATTRIBUTES

GETTERS = {
    "activation": keras.activations.get,
    "initializer": keras.initializers.get,
    "regularizer": keras.regularizers.get,
    "constraint": keras.constraints.get,
}
BASES = {
    "loss": keras.losses.Loss,
    "constraint": keras.constraints.Constraint,
    "regularizer": keras.regularizers.Regularizer,
    "initializer": keras.initializers.Initializer,
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


def test_every_dtype_is_a_keras_dtype():
    unknown = [d for d in sorted(DTYPES) if keras.backend.standardize_dtype(d) != d]
    assert not unknown


@pytest.mark.parametrize("kind", sorted(OBJECT_ATTRIBUTES))
def test_object_attributes_exist_on_their_keras_base(kind):
    instance_only = {"name", "reduction", "dtype"}  # set in Loss.__init__
    missing = [a for a in OBJECT_ATTRIBUTES[kind] - instance_only if not hasattr(BASES[kind], a)]
    assert not missing
