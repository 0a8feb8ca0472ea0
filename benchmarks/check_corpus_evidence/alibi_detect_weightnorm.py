"""alibi-detect 0.13.0's WeightNorm (config-missing: `data_init`) on the Keras 2 its file uses
(`tensorflow.compat.v2 as tf`, then `tf.keras`; on Keras 3 its build fails: `self.layer.kernel =
None`, "property 'kernel' of 'Dense' object has no setter"). The package needs transformers and
numba to import, so the class is taken out of its module, with the module's imports.

    pip install --no-deps --target /tmp/tfk "tf-keras~=2.21.0"
    TF_USE_LEGACY_KERAS=1 PYTHONPATH=/tmp/tfk python benchmarks/check_corpus_evidence/alibi_detect_weightnorm.py
"""

import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf

SRC = "/work/cache/check-corpus/src"  # benchmarks/check_corpus.py's cache
text = Path(SRC, "alibi_detect-0.13.0/alibi_detect/models/tensorflow/pixelcnn.py").read_text()
start = text.index("class WeightNorm")
folder = tempfile.mkdtemp()  # a file: autograph reads the source of its tf.function
Path(folder, "weightnorm.py").write_text(
    "import warnings\nimport tensorflow.compat.v2 as tf\n\n\n"
    + text[start : text.index("\nclass ", start + 10)]
)
sys.path.insert(0, folder)
from weightnorm import WeightNorm  # noqa: E402

print("tf.keras is", tf.keras.__name__)
x = np.random.default_rng(0).normal(3.0, 2.0, size=(8, 4)).astype("float32")


def model(data_init):
    tf.keras.utils.set_random_seed(1)
    inputs = tf.keras.Input((4,))
    return tf.keras.Model(inputs, WeightNorm(tf.keras.layers.Dense(3), data_init=data_init)(inputs))


given = model(False)
y = given(x).numpy()
config = given.layers[1].get_config()
print("data_init in the config:", "data_init" in config, end=" | ")
print("from_config's data_init:", WeightNorm.from_config(config).data_init)
path = os.path.join(folder, "m.keras")
given.save(path)
loaded = tf.keras.models.load_model(path, custom_objects={"WeightNorm": WeightNorm})
wrapper = loaded.layers[1]
print(
    f"save and load: data_init {wrapper.data_init}, initialized {bool(wrapper.initialized.numpy())},",
    end=" ",
)
print(f"outputs max |diff| {abs(loaded(x).numpy() - y).max():.3g}")
tf.keras.utils.set_random_seed(1)
clone = tf.keras.models.clone_model(
    given, clone_function=lambda layer: layer.from_config(layer.get_config())
)
fresh = model(False)
print(
    f"clone_model: data_init {clone.layers[1].data_init}; its first call against a fresh data_init=False",
    end=" ",
)
print(f"model's (same seed): max |diff| {abs(fresh(x).numpy() - clone(x).numpy()).max():.3g}")
