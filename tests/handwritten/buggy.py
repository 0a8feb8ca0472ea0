"""Hand-written layers with the classic bugs the generated tests must name."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="buggy")
class NoKwargs(keras.layers.Layer):
    def __init__(self, factor=2.0):
        super().__init__()  # the classic bug: no **kwargs passthrough
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@keras.saving.register_keras_serializable(package="buggy")
class ForgetfulConfig(keras.layers.Layer):
    def __init__(self, factor=2.0, shift=1.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
        self.shift = shift

    def call(self, x):
        return x * self.factor + self.shift

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}  # the classic bug: `shift` is missing
