"""layergen: Keras 3 custom layers from short YAML declarations."""

__version__ = "0.1.0"
