"""layergen/move_imports.py: a moved module's imports rewritten as an IDE's move does."""

from __future__ import annotations

from pathlib import Path

import pytest

from layergen.move_imports import Moved, rewrite

MOVED = Moved("layers.scaler", "layers.norms.amp", "Scaler", "Amp")


def rewritten(text: str, module: str = "layers.uses", is_package: bool = False) -> str:
    return rewrite(text, module, is_package, MOVED, Path("x.py"))


@pytest.mark.parametrize(
    "before, after",
    [
        (  # the module beside others in one import: it goes to a line of its own
            "from . import other, scaler  # mine\n\nscaler.Scaler()\n",
            "from . import other  # mine\nfrom .norms import amp\n\namp.Amp()\n",
        ),
        (  # in a function: the name it binds is the function's; the import keeps binding it
            "def make():\n    from .scaler import Scaler\n    return Scaler()\n",
            "def make():\n    from .norms.amp import Amp as Scaler\n    return Scaler()\n",
        ),
        (  # the new name is taken in the module: the old one stays bound
            "from .scaler import Scaler\n\nAmp = 1\nScaler()\n",
            "from .norms.amp import Amp as Scaler\n\nAmp = 1\nScaler()\n",
        ),
        (  # an alias stays as written
            "from layers.scaler import Scaler as S\n\nS()\n",
            "from layers.norms.amp import Amp as S\n\nS()\n",
        ),
        (  # `__all__` follows a name the import binds, in any form
            'from .scaler import Scaler\n\n__all__: list[str] = ["Scaler"] + ["x"]\n',
            'from .norms.amp import Amp\n\n__all__: list[str] = ["Amp"] + ["x"]\n',
        ),
        (  # another module of the same name elsewhere is not the moved one
            "from .other.scaler import Scaler\nimport scaler\n",
            "from .other.scaler import Scaler\nimport scaler\n",
        ),
    ],
)
def test_each_import_form_follows_the_move(before, after):
    assert rewritten(before) == after


def test_a_parent_package_imports_it_relatively_still():
    before = "from .layers.scaler import Scaler\n"
    after = "from .layers.norms.amp import Amp\n"
    assert rewrite(before, "", True, MOVED, Path("__init__.py")) == before  # top: not a package
    moved = Moved("demo.layers.scaler", "demo.layers.norms.amp", "Scaler", "Amp")
    assert rewrite(before, "demo", True, moved, Path("demo/__init__.py")) == after
