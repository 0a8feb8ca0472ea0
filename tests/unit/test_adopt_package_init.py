"""`layergen adopt` and a package's `__init__.py`: the run adopts what it names, and the
lines other declarations' entries hold stay as the person wrote them."""

from __future__ import annotations

from helpers import cli as run

HANDMADE = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Handmade(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}
"""


def test_adopt_keeps_a_star_import_of_a_declaration_renamed_but_not_generated(scaler_project):
    layers = scaler_project / "layers"
    init = layers / "__init__.py"
    init.write_text(
        init.read_text().replace(
            "from .scaler import Scaler", "from .scaler import *  # my comment"
        )
    )
    (layers / "scaler.layer.yaml").rename(layers / "gain_layer.layer.yaml")
    (layers / "handmade.py").write_text(HANDMADE)
    result = run("adopt", "layers/handmade.py")
    assert result.exit_code == 0, result.output
    text = init.read_text()
    assert (layers / "scaler.py").is_file()  # the rename is not generated yet
    assert "from .scaler import *  # my comment\n" in text, text
    assert '"Scaler"' in text and '"Handmade"' in text, text
    assert "from .handmade import Handmade\n" in text, text


def test_the_next_generate_follows_the_rename_adopt_left_with_the_persons_line(scaler_project):
    layers = scaler_project / "layers"
    init = layers / "__init__.py"
    init.write_text(
        init.read_text().replace(
            "from .scaler import Scaler", "from .scaler import *  # my comment"
        )
    )
    (layers / "scaler.layer.yaml").rename(layers / "gain_layer.layer.yaml")
    (layers / "handmade.py").write_text(HANDMADE)
    assert run("adopt", "layers/handmade.py").exit_code == 0
    result = run("generate", "layers")
    assert result.exit_code == 0, result.output
    text = init.read_text()
    assert "from .gain_layer import *  # my comment\n" in text, text
    assert "from .handmade import Handmade\n" in text, text
    assert not (layers / "scaler.py").exists() and (layers / "gain_layer.py").is_file()
    assert run("generate", "--check", "layers").exit_code == 0
