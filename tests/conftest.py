import os
import tempfile

# Keras keeps its config in KERAS_HOME; keep test runs out of ~/.keras.
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))
