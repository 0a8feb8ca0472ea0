"""tensorflow-privacy 0.9.0's bolt_on losses (init-kwargs, config-missing): as shipped, and
on the Keras 2 their imports name once `compat.v1.` is read away, as `check` reads them.

    python benchmarks/check_corpus_evidence/tensorflow_privacy_bolt_on.py
"""

import importlib
import types
from pathlib import Path

SRC = "/work/cache/check-corpus/src"  # benchmarks/check_corpus.py's cache
LOSSES = Path(SRC, "tensorflow_privacy-0.9.0/tensorflow_privacy/privacy/bolt_on/losses.py")

try:
    importlib.import_module("tensorflow.compat.v1.python.keras.losses")
except ImportError as error:
    print("the module's own import:", type(error).__name__, error)
losses = types.ModuleType("bolt_on_losses")
exec(
    LOSSES.read_text().replace("tensorflow.compat.v1.python.", "tensorflow.python."),
    losses.__dict__,
)
for cls, args in (
    (losses.StrongConvexHuber, (1.0,) * 4),
    (losses.StrongConvexBinaryCrossentropy, (1.0,) * 3),
):
    config = cls(*args).get_config()
    try:
        cls.from_config(config)
        print(cls.__name__, "round-trips")
    except TypeError as error:
        print(f"{cls.__name__}: its config {sorted(config)} -> from_config: TypeError: {error}")
