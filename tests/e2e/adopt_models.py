"""Run by tests/e2e/test_adopt_saved_models.py in a fresh process, in the project it adopts:

    python adopt_models.py save SPEC.json   # models of the original classes, saved, and their numbers
    python adopt_models.py load SPEC.json   # the saved models loaded with the adopted classes

`save` builds a small functional model around each class, saves it (`<name>.keras`) and
records, from the model as saved: its outputs on fixed inputs in inference, then in
training (random draws seeded, state updated as the class does), the losses it adds and
its weights' paths in order. `load` imports the adopted modules, loads each saved model in
this new process and prints, per class, what differs (an empty list: nothing).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np


def main(mode: str, spec_path: str) -> None:
    import keras

    sys.path.insert(0, str(Path.cwd()))
    specs = json.loads(Path(spec_path).read_text())
    out = Path("saved")
    out.mkdir(exist_ok=True)
    results = {}
    for spec in specs:
        name, key = spec["class"], spec["module"]
        cls = getattr(importlib.import_module(spec["module"]), name)
        x = _inputs(spec)
        try:
            if mode == "save":
                model = _model(keras, cls, spec)
                model(x)  # built, as a saved model always is
                model.save(out / f"{key}.keras")
                numbers = _numbers(keras, model, x)
                np.savez(out / f"{key}.npz", **numbers["arrays"])
                (out / f"{key}.json").write_text(json.dumps(numbers["paths"]))
                results[key] = []
            else:
                custom = {} if spec.get("registered", True) else {name: cls}
                model = keras.saving.load_model(out / f"{key}.keras", custom_objects=custom)
                layer = next(lay for lay in model.layers if lay.__class__.__name__ == name)
                found = [] if type(layer) is cls else [f"loaded {type(layer)}, not {cls}"]
                numbers = _numbers(keras, model, x)
                was = np.load(out / f"{key}.npz")
                for what, value in numbers["arrays"].items():
                    if what not in was or was[what].shape != value.shape:
                        found.append(f"{what}: missing or of another shape")
                    elif not np.allclose(was[what], value, rtol=1e-6, atol=1e-6):
                        found.append(f"{what}: differs by {np.max(np.abs(was[what] - value))}")
                paths = json.loads((out / f"{key}.json").read_text())
                if paths != numbers["paths"]:
                    found.append(f"weights {numbers['paths']} != saved {paths}")
                results[key] = found
        except Exception as exc:  # said per class, so one failure does not hide the others
            results[key] = [f"{type(exc).__name__}: {exc}"]
    print("RESULTS " + json.dumps(results))


def _inputs(spec: dict) -> np.ndarray:
    rng = np.random.default_rng(0)
    shape = spec["shape"]
    if spec.get("dtype", "float32").startswith("int"):
        return rng.integers(1, spec.get("high", 10), size=shape).astype(spec["dtype"])
    x = rng.standard_normal(shape).astype("float32")
    if spec.get("mask"):
        x[:, -1] = 0.0  # the last step masked
    return x


def _model(keras, cls, spec: dict):
    inputs = keras.Input(spec["shape"][1:], dtype=spec.get("dtype", "float32"))
    x = keras.layers.Masking()(inputs) if spec.get("mask") else inputs
    outputs = cls(**spec.get("args", {}))(x, **spec.get("call", {}))
    if isinstance(outputs, (tuple, list)):
        outputs = outputs[0]
    return keras.Model(inputs, outputs)


def _numbers(keras, model, x) -> dict:
    inference = keras.ops.convert_to_numpy(model(x, training=False))
    keras.utils.set_random_seed(1)
    training = keras.ops.convert_to_numpy(model(x, training=True))
    losses = [float(keras.ops.convert_to_numpy(loss)) for loss in model.losses]
    weights = {f"weight_{i}": keras.ops.convert_to_numpy(w) for i, w in enumerate(model.weights)}
    return {
        "arrays": {
            "inference": inference,
            "training": training,
            "losses": np.array(losses, dtype="float64"),
            **weights,
        },
        "paths": [w.path for w in model.weights],
    }


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
