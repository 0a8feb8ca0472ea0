"""Hand-written versions of the seed articles' layers, as a person would write them."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="handwritten")
class ScaledDense(keras.layers.Layer):
    def __init__(self, units: int = 8, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.activation = keras.activations.get(activation)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform")
        self.scale = self.add_weight(shape=(self.units,), initializer="ones")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        return self.activation((ops.matmul(inputs, self.kernel) + self.bias) * self.scale)

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "activation": keras.activations.serialize(self.activation)})
        return config


@keras.saving.register_keras_serializable(package="handwritten")
class OffsetSwish(keras.layers.Layer):
    def __init__(self, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.offset = offset

    def call(self, x):
        return x * ops.sigmoid(x + self.offset)

    def get_config(self):
        return {**super().get_config(), "offset": self.offset}


@keras.saving.register_keras_serializable(package="handwritten")
class DropoutAndScale(keras.layers.Layer):
    def __init__(self, rate=0.5, scale=2.0, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate
        self.scale = scale
        self.dropout = keras.layers.Dropout(rate, dtype=self.dtype_policy)

    def call(self, x, training=None):
        return self.dropout(x, training=training) * self.scale

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "scale": self.scale}


@keras.saving.register_keras_serializable(package="handwritten")
class MyDense(keras.layers.Layer):
    """Trainable and non-trainable weights side by side."""

    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal")
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal")
        self.a = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=False)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {**super().get_config(), "units": self.units}


@keras.saving.register_keras_serializable(package="handwritten")
class RunningMaxScale(keras.layers.Layer):
    """State kept in a non-trainable weight, updated on training calls."""

    def build(self, input_shape):
        self.moving_max = self.add_weight(shape=(), initializer="ones", trainable=False)

    def call(self, x, training=None):
        outputs = x / self.moving_max
        if training:
            self.moving_max.assign(ops.maximum(self.moving_max, ops.max(ops.abs(x))))
        return outputs
