"""layergen/keras_names.py lists names Keras knows, so that generating never imports Keras:
each name must resolve in the installed Keras."""

from __future__ import annotations

import keras
import pytest

from layergen.declaration.param_types import BY_NAME, IDENTIFIERS
from layergen.keras_names import ACTIVATIONS, DTYPES
from layergen.kinds import KINDS


@pytest.mark.parametrize("kind", sorted(IDENTIFIERS))
def test_every_identifier_resolves_in_keras(kind):
    unresolved = []
    for name in sorted(IDENTIFIERS[kind]):
        try:
            getattr(keras, BY_NAME[kind].keras_module).get(name)
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


# A layer's reserved names include what Layer sets on instances: test_render.py checks them (test_every_public_layer_attribute_is_reserved).
@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"layer"}))
def test_each_kind_extends_a_keras_class_that_has_its_reserved_names(kind):
    row = KINDS[kind]
    base = keras
    for part in row.base.split(".")[1:]:
        base = getattr(base, part)
    instance_only = {"name", "reduction", "dtype"}  # set in the constructor
    assert not [a for a in row.reserved - instance_only if not hasattr(base, a)]
    assert callable(getattr(base, row.method))


def constructor_keywords(cls) -> frozenset[str] | None:
    """The keywords a layer class's constructor takes, following `**kwargs` up to Layer."""
    import inspect

    names: set[str] = set()
    for owner in cls.__mro__:
        if "__init__" not in vars(owner):
            continue
        params = list(inspect.signature(owner.__init__).parameters.values())[1:]
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            return None
        names |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if owner is keras.layers.Layer:  # it pops these from **kwargs and refuses the rest
            return frozenset(names | {"input_dim", "input_shape"})
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return frozenset(names)


def test_layer_classes_and_their_keywords_are_the_installed_keras():
    """Sublayer classes and keywords are checked at generate time
    from this table; the test says which entries to change when Keras changes."""
    import inspect

    from layergen.keras_classes import LAYER_KEYWORDS, layer_classes

    found = {
        f"keras.layers.{name}": constructor_keywords(cls)
        for name, cls in vars(keras.layers).items()
        if inspect.isclass(cls) and issubclass(cls, keras.layers.Layer)
    }
    found |= {
        f"keras.{n}": constructor_keywords(getattr(keras, n)) for n in ("Sequential", "Model")
    }
    assert set(LAYER_KEYWORDS.split()) == found["keras.layers.Layer"]
    table = layer_classes()
    wrong = {
        name: sorted(kw) if kw else kw for name, kw in found.items() if table.get(name, 0) != kw
    }
    assert not wrong, f"change these in layergen/keras_classes.py: {wrong}"
    assert not set(table) - set(found), "no longer in Keras"


def test_private_attributes_of_a_layer_are_listed():
    """A weight or sublayer named `_x` must not overwrite one of Keras's."""
    from layergen.keras_names import LAYER_PRIVATE_ATTRIBUTES

    class Plain(keras.layers.Layer):
        def call(self, x):
            return x

    layer = Plain()
    layer(keras.ops.ones((1, 3)))
    found = {n for n in set(dir(layer)) | set(vars(layer)) if n.startswith("_")}
    missing = {n for n in found if not n.startswith("__")} - LAYER_PRIVATE_ATTRIBUTES
    assert not missing, sorted(missing)
