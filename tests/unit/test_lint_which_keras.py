"""Which Keras a file uses, told by following its imports through the project's own modules
(layergen/lint/which_keras.py): a `keras` re-exported from a module that imports `tf_keras`
is Keras 2, and the rules judge its classes as they judge a file importing `tf_keras` itself."""

from __future__ import annotations

from pathlib import Path

from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

# As transformers' modeling_tf_utils: Keras 2 either way (the fallback refuses Keras 3).
GUARDED = """\
from packaging.version import parse

try:
    import tf_keras as keras
except (ModuleNotFoundError, ImportError):
    import keras

    if parse(keras.__version__).major > 2:
        raise ValueError("Keras 3 is not supported")
"""
# Either one, whichever is installed: no way to tell from the code.
EITHER = """\
try:
    import tf_keras as keras
except ImportError:
    import keras
"""
LAYERS = """\
import tensorflow as tf

{imports}


class Scratch(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units

    def build(self, shape):
        self.kernel = tf.Variable(tf.zeros([shape[-1], self.units]))

    def call(self, x):
        return tf.matmul(x, self.kernel)


class Projection(keras.layers.Conv1D):
    def __init__(self, nf, nx, **kwargs):
        super().__init__(filters=nf, kernel_size=1, **kwargs)
        self.nx = nx
"""


def findings(tmp_path: Path, files: dict[str, str], select=frozenset(RULES)):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    settings = CheckSettings(root=tmp_path, select=select)
    report = check_files(python_files([tmp_path], settings), settings)
    return {
        p.relative_to(tmp_path).as_posix(): sorted((f.code, f.line) for f in fs)
        for p, fs in report.findings.items()
    }


def test_a_re_exported_keras_is_the_keras_its_module_imports(tmp_path):
    direct = findings(
        tmp_path / "direct",
        {"pkg/layers.py": LAYERS.format(imports="import tf_keras as keras")},
    )
    followed = {
        "pkg/__init__.py": "from .utils import keras\n",
        "pkg/utils.py": GUARDED,
        "pkg/models/__init__.py": "",
    }
    relative = findings(
        tmp_path / "relative",
        {**followed, "pkg/models/layers.py": LAYERS.format(imports="from ..utils import keras")},
    )
    through_init = findings(
        tmp_path / "init",
        {**followed, "pkg/models/layers.py": LAYERS.format(imports="from pkg import keras")},
    )
    # Keras 2: no Keras-3-only finding on Scratch; Projection's Conv1D config is real.
    assert direct["pkg/layers.py"]
    assert not any(code == "untracked-variable" for code, _ in direct["pkg/layers.py"])
    assert relative == {"pkg/models/layers.py": direct["pkg/layers.py"]}
    assert through_init == relative


def test_keras_3_re_exported_stays_keras_3(tmp_path):
    direct = findings(tmp_path / "direct", {"pkg/layers.py": LAYERS.format(imports="import keras")})
    followed = findings(
        tmp_path / "followed",
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": "import keras\n",
            "pkg/layers.py": LAYERS.format(imports="from pkg.utils import keras"),
        },
    )
    assert ("untracked-variable", 12) in direct["pkg/layers.py"]
    assert followed == direct


def test_an_ambiguous_keras_is_said_once_per_file_not_guessed(tmp_path):
    found = findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": EITHER,
            "pkg/layers.py": LAYERS.format(imports="from .utils import keras"),
        },
    )
    ambiguous = [line for code, line in found["pkg/layers.py"] if code == "keras-ambiguous"]
    assert ambiguous == [3]
    # Not guessed Keras 3: the rules for Keras 3 only stay quiet.
    assert not any(code == "untracked-variable" for code, _ in found["pkg/layers.py"])
    assert RULES["keras-ambiguous"].default is False
    assert "keras-ambiguous" not in str(
        findings(
            tmp_path / "default",
            {
                "pkg/__init__.py": "",
                "pkg/utils.py": EITHER,
                "pkg/layers.py": LAYERS.format(imports="from .utils import keras"),
            },
            select=CheckSettings(root=tmp_path).select,
        )
    )


def test_a_module_standing_in_for_keras_is_what_it_re_exports(tmp_path):
    """keras-cv's backend: `import pkg.keras2 as keras` on Keras 2, `import keras` on 3,
    where pkg/keras2.py does `from tensorflow.keras import *`: either one, not Keras 3."""
    found = findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/keras2.py": "from tensorflow.keras import *\n",
            "pkg/backend.py": "from pkg import config\n\nif not config.keras_3():\n"
            "    import pkg.keras2 as keras\nelse:\n    import keras\n",
            "pkg/config.py": "def keras_3():\n    return True\n",
            "pkg/layers.py": LAYERS.format(imports="from pkg.backend import keras"),
        },
    )
    assert ("keras-ambiguous", 3) in found["pkg/layers.py"]
    assert not any(code == "untracked-variable" for code, _ in found["pkg/layers.py"])
