"""What a reloaded object gets back (layergen/lint/rules/forwarded_value.py and
config_key_mismatch.py): two silent bugs that a config round trip shows, each confirmed
here by running it."""

from __future__ import annotations

import textwrap

from test_lint_checks import check_and_fix, round_trips

PADDED = """\
    import keras


    class SymmetricConv(keras.layers.Conv2D):
        \"\"\"Pads symmetrically itself, so the convolution must not pad.\"\"\"

        def __init__(self, filters, kernel_size, padding="symmetric", **kwargs):
            super().__init__(filters, kernel_size, padding="valid", **kwargs)
            self.mode = padding

        def call(self, x):
            if self.mode == "symmetric":
                x = keras.ops.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="symmetric")
            return super().call(x)


    class Normalized(keras.layers.Conv2D):
        \"\"\"Passes on its own argument, spelled as Keras wants it: nothing is lost.\"\"\"

        def __init__(self, filters, kernel_size, padding="VALID", **kwargs):
            super().__init__(filters, kernel_size, padding=padding.lower(), **kwargs)
            self.mode = padding.lower()


    class Saved(keras.layers.Conv2D):
        \"\"\"Saves the argument over the parent's value.\"\"\"

        def __init__(self, filters, kernel_size, padding="symmetric", **kwargs):
            super().__init__(filters, kernel_size, padding="valid", **kwargs)
            self.mode = padding

        def get_config(self):
            return {**super().get_config(), "padding": self.mode}

        @classmethod
        def from_config(cls, config):
            return cls(**config)
    """


def test_an_argument_passed_on_under_another_value(tmp_path):
    """`padding="symmetric"` passed on to the parent as `"valid"`: the
    config says "valid", and a reloaded layer stops padding (8x8 became 6x6)."""
    found, _ = check_and_fix(tmp_path, PADDED)
    assert [f for f in found if f[0] == "forwarded-value"] == [("forwarded-value", 8)]
    made = {
        "padded": ["SymmetricConv(2, 3)", [1, 8, 8, 1]],
        "normalized": ["Normalized(2, 3)", [1, 8, 8, 1]],
        "saved": ["Saved(2, 3)", [1, 8, 8, 1]],
    }
    assert round_trips(tmp_path, textwrap.dedent(PADDED), made) == {
        "padded": "differs",  # 8x8 before, 6x6 after
        "normalized": "ok",
        "saved": "ok",
    }


HASHED = """\
    import keras


    class Hashed(keras.layers.Layer):
        def __init__(self, hashing, **kwargs):
            super().__init__(**kwargs)
            self.hashing = hashing

        def get_config(self):
            return {**super().get_config(), "hashing_config": self.hashing.get_config()}

        @classmethod
        def from_config(cls, config):
            hashing = keras.layers.Hashing.from_config(config.pop("hash_config"))
            return cls(hashing, **config)


    class Careful(keras.layers.Layer):
        def __init__(self, bins=4, **kwargs):
            super().__init__(**kwargs)
            self.bins = bins

        def get_config(self):
            return {**super().get_config(), "bins": self.bins}

        @classmethod
        def from_config(cls, config):
            config["bins"] = config.pop("num_bins", config.get("bins", 4))
            name = config["name"]
            return cls(**{**config, "name": name})
    """


def test_from_config_reads_a_key_get_config_never_writes(tmp_path):
    """`from_config` read `hash_config` where `get_config` writes
    `hashing_config`: a KeyError on every reload."""
    found, _ = check_and_fix(tmp_path, HASHED)
    assert [f for f in found if f[0] == "config-key-mismatch"] == [("config-key-mismatch", 14)]
    made = {
        "hashed": ["Hashed(keras.layers.Hashing(num_bins=3))", None],
        "careful": ["Careful(5)", None],
    }
    results = round_trips(tmp_path, textwrap.dedent(HASHED), made)
    assert results["hashed"].startswith("KeyError") and results["careful"] == "ok"
