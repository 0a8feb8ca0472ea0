"""tkan 0.4.3: TKAN's and TKANCell's `seed`, left out of their configs, on Keras 3.

python benchmarks/check_corpus_evidence/tkan_seed.py
"""

import sys

SRC = "/work/cache/check-corpus/src"  # benchmarks/check_corpus.py's cache
sys.path[:0] = [f"{SRC}/tkan-0.4.3", f"{SRC}/keras_efficient_kan-0.1.10"]

import keras  # noqa: E402
import numpy as np  # noqa: E402
from tkan import TKAN  # noqa: E402

print("Keras's own LSTM saves its seed:", keras.layers.LSTM(4, seed=7).get_config()["seed"])
x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32")


def made(config=None):
    layer = TKAN.from_config(config) if config else TKAN(4, dropout=0.5, seed=7)
    layer(x)
    return layer


given = made()
config = given.get_config()
print(
    "seed in TKAN's config:",
    "seed" in config,
    "| in its cell's:",
    "seed" in given.cell.get_config(),
)
again, back = made(), made(config)
for layer in (again, back):
    layer.set_weights(given.get_weights())
print("the seed of the layer rebuilt from its config:", back.cell.seed, "(given 7)")
ours, twin, rebuilt = (np.asarray(layer(x, training=True)) for layer in (given, again, back))
print(
    f"training=True, same weights: another layer built with seed=7 differs by {abs(ours - twin).max():.3g},"
)
print(f"  the one rebuilt from the config by {abs(ours - rebuilt).max():.3g}")
print(f"inference: {abs(np.asarray(given(x)) - np.asarray(back(x))).max():.3g}")
