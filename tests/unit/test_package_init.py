"""layergen/package_init.py and update/package_edits.py: a package's `__init__.py`
edited with libcst, `__all__` as the project's black writes it, a person's lines kept.

Regression tests: everyday workflows that lost an edit or left stale code behind a green `--check`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from layergen.config import BlackStyle
from layergen.diagnostics import DiagnosticError
from layergen.package_init import INIT_HEADER, package_init

from helpers import REPO, declaration_path, edit, package_imports, python_in, snapshot
from helpers import cli as run

NAMES = [("alpha_block", "AlphaBlock"), ("beta_block", "BetaBlock"), ("gamma", "Gamma")]


def test_a_new_package_imports_and_exports_its_classes():
    assert package_init(None, NAMES) == (
        INIT_HEADER
        + "\nfrom .alpha_block import AlphaBlock\nfrom .beta_block import BetaBlock\n"
        + 'from .gamma import Gamma\n\n__all__ = ["AlphaBlock", "BetaBlock", "Gamma"]\n'
    )


def test_all_follows_the_projects_line_length():
    wide = package_init(None, NAMES, style=BlackStyle(line_length=100))
    narrow = package_init(None, NAMES, style=BlackStyle(line_length=40))
    assert '__all__ = ["AlphaBlock", "BetaBlock", "Gamma"]\n' in wide
    assert narrow.endswith('__all__ = [\n    "AlphaBlock",\n    "BetaBlock",\n    "Gamma",\n]\n')


def test_a_persons_lines_stay_and_a_gone_class_leaves():
    existing = textwrap.dedent("""\
        '''My package.'''
        # keep this comment
        from .alpha_block import AlphaBlock, helper  # mine too
        from .old import Old

        VERSION = "1"  # and this

        __all__ = ["AlphaBlock", "Old", "helper"]
        """)
    new = package_init(
        existing, [("alpha_block", "AlphaBlock"), ("beta", "Beta")], [("old", "Old")]
    )
    assert new == textwrap.dedent("""\
        '''My package.'''
        # keep this comment
        from .alpha_block import AlphaBlock, helper  # mine too
        from .beta import Beta

        VERSION = "1"  # and this

        __all__ = ["AlphaBlock", "Beta", "helper"]
        """)
    assert package_init(new, [("alpha_block", "AlphaBlock"), ("beta", "Beta")]) == new


BUILT = [
    '__all__ = ["Extra"] + other\n',
    '__all__ = ["Extra", *sub.__all__]\n',
    '__all__ = ["Extra"]\n__all__ += ["More"]\n',
    'if True:\n    __all__ = ["Extra"]\n',
]


@pytest.mark.parametrize("built", BUILT)
def test_an_all_built_otherwise_than_as_one_list_stays_as_written(built):
    """Only the imports are edited: such an `__all__` was replaced by a literal list, or a
    second one was added that overrode it (found in a review of the libcst editing)."""
    existing = f"from .alpha_block import AlphaBlock\n\n{built}"
    new = package_init(existing, [("alpha_block", "AlphaBlock"), ("beta", "Beta")])
    assert new == f"from .alpha_block import AlphaBlock\nfrom .beta import Beta\n\n{built}"
    assert package_init(new, [("alpha_block", "AlphaBlock"), ("beta", "Beta")]) == new


def test_an_import_under_a_guard_is_not_added_again():
    existing = textwrap.dedent("""\
        try:
            from .beta import Beta
        except ImportError:
            Beta = None

        __all__ = ["Beta"]
        """)
    assert package_init(existing, [("beta", "Beta")]) == existing


def test_a_package_that_needs_no_change_loads_neither_libcst_nor_black():
    text = package_init(None, NAMES)
    code = (
        "import sys\n"
        "from layergen.package_init import package_init\n"
        f"assert package_init({text!r}, {NAMES!r}) == {text!r}\n"
        "print(sorted(m for m in ('libcst', 'black') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
        check=True,
    )
    assert result.stdout.strip() == "[]"


def test_a_renamed_class_is_exported_under_its_new_name_only(scaler_project):
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    assert run("generate", "layers").exit_code == 0
    init = package_imports(scaler_project)
    assert "from .scaler import Gainer\n" in init and "import Scaler" not in init
    assert '"Scaler"' not in init and '"Gainer"' in init
    # in its place, as a fresh package's: found by an attack, the import went after `__all__`
    assert init.endswith('\n\nfrom .scaler import Gainer\n\n__all__ = ["Gainer"]\n'), init
    assert "\n\n\n" not in init


# The forms people write, on a class renamed (followed) and on a declaration deleted: each is
# edited where the edit is provable, or a located error names the line; never a broken package.

PEOPLES_INIT = '''\
"""My layers."""

import sys

# the scaler, two ways
if sys.version_info >= (3, 11):
    from .scaler import Scaler  # new Pythons
else:
    from .scaler import Scaler as Scaler
from .scaler import Scaler as ScalerLayer  # the old name

__all__: list[str] = ["Scaler", "ScalerLayer"]
'''


def test_a_renamed_class_follows_in_the_imports_people_write(scaler_project):
    layers = scaler_project / "layers"
    (layers / "__init__.py").write_text(PEOPLES_INIT)
    edit(declaration_path(scaler_project), "layer: Scaler", "layer: Gainer")
    assert run("generate", "layers").exit_code == 0
    assert package_imports(scaler_project) == (
        PEOPLES_INIT.replace("import Scaler", "import Gainer")
        .replace("as Scaler\n", "as Gainer\n")
        .replace('"Scaler"', '"Gainer"')
    )
    assert run("generate", "--check", "layers").exit_code == 0
    code = "import layers; print(layers.Gainer.__name__, layers.ScalerLayer.__name__)"
    imported = python_in(scaler_project, code)
    assert imported.stdout.split() == ["Gainer", "Gainer"], imported.stderr[-2000:]


GONE = [("gain", "Gain")]
KEPT = [("other", "Other")]


@pytest.mark.parametrize(
    "existing, expected",
    [
        (  # a star import of a deleted module can only fail
            'from .gain import *\nfrom .other import Other\n\n__all__ = ["Other"]\n',
            'from .other import Other\n\n__all__ = ["Other"]\n',
        ),
        (  # an alias leaves `__all__` with its import
            "from .gain import Gain as GainLayer\nfrom .other import Other\n\n"
            '__all__ = ["GainLayer", "Other"]\n',
            'from .other import Other\n\n__all__ = ["Other"]\n',
        ),
        (  # an annotated `__all__` is one list of names too
            "from .gain import Gain\nfrom .other import Other\n\n"
            '__all__: list[str] = ["Gain", "Other"]\n',
            'from .other import Other\n\n__all__: list[str] = ["Other"]\n',
        ),
        (  # the comments above a removed import stay, with the import after it
            '"""Mine."""\n\n# my layers, in order\nfrom .gain import Gain\n'
            'from .other import Other  # mine\n\n__all__ = ["Gain", "Other"]\n',
            '"""Mine."""\n\n# my layers, in order\nfrom .other import Other  # mine\n\n'
            '__all__ = ["Other"]\n',
        ),
    ],
)
def test_a_deleted_declarations_imports_leave_in_every_form_layergen_can_edit(existing, expected):
    assert package_init(existing, KEPT, GONE) == expected
    assert package_init(expected, KEPT) == expected


@pytest.mark.parametrize(
    "existing, line",
    [
        ("import sys\nif sys.platform:\n    from .gain import Gain\nelse:\n    Gain = None\n", 3),
        ("try:\n    from .gain import Gain\nexcept ImportError:\n    pass\n", 2),
        ('from .other import Other\n\n__all__ = ["Gain"] + ["Other"]\n', 3),
        ('from .other import Other\n\n__all__ = ["Other"]\n__all__ += ["Gain"]\n', 4),
    ],
)
def test_a_deleted_declarations_name_where_layergen_cannot_edit_is_a_located_error(existing, line):
    with pytest.raises(DiagnosticError) as info:
        package_init(existing, KEPT, GONE, path=Path("layers/__init__.py"))
    [found] = info.value.diagnostics
    assert (found.path, found.line, found.code) == ("layers/__init__.py", line, "stale-import")
    assert "Gain" in found.message


def test_a_deleted_declaration_imported_under_a_guard_is_refused_and_nothing_written(
    scaler_project,
):
    layers = scaler_project / "layers"
    other = declaration_path(scaler_project).read_text().replace("Scaler", "Other")
    (layers / "other.layer.yaml").write_text(other)
    assert run("generate", "layers").exit_code == 0
    guarded = "try:\n    from .scaler import Scaler\nexcept ImportError:\n    Scaler = None\n"
    (layers / "__init__.py").write_text(guarded + "from .other import Other\n")
    declaration_path(scaler_project).unlink()
    before = snapshot(scaler_project)
    result = run("generate", "--check", "layers")
    assert result.exit_code == 2 and "layers/__init__.py:2:" in result.output, result.output
    assert "[stale-import]" in result.output
    assert run("generate", "layers").exit_code == 2
    assert snapshot(scaler_project) == before


# A package `__init__.py` without `__all__` is touched only where registration needs it.

SCALER = [("scaler", "Scaler")]


@pytest.mark.parametrize("existing", ['"""Mine."""\n', "", "import os\n"])
def test_a_package_without_all_gets_the_import_and_no_all(existing):
    """An `__all__` added would narrow `from package import *` to the classes."""
    new = package_init(existing, SCALER, package="demo.layers")
    assert new.startswith(existing) and "__all__" not in new
    assert "from .scaler import Scaler\n" in new
    assert package_init(new, SCALER, package="demo.layers") == new


@pytest.mark.parametrize(
    "existing",
    [
        "from . import scaler\n",
        "from .scaler import helper\n",
        "from .scaler import *\n",
        "from demo.layers.scaler import Scaler as S\n",
        "from demo.layers import scaler\n",
        "import demo.layers.scaler\n",
        "try:\n    from .scaler import Scaler\nexcept ImportError:\n    pass\n",
    ],
)
def test_a_package_without_all_that_imports_the_module_already_is_left_alone(existing):
    """Importing the module, in any form, registers its classes: nothing to add."""
    assert package_init(existing, SCALER, package="demo.layers") == existing


GAIN_LAYER = """\
import keras


@keras.saving.register_keras_serializable(package="mine")
class Gain(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}
"""


@pytest.mark.parametrize(
    "init, expected",
    [
        (  # registration needs the module imported: one import, in isort's order, no `__all__`
            '"""My package."""\n\nfrom .utils import helper\n',
            '"""My package."""\n\nfrom .gain import Gain\nfrom .utils import helper\n',
        ),
        (  # imported already (as keras-hub's packages do): left as it is
            "from demo.layers.gain import Gain\n",
            "from demo.layers.gain import Gain\n",
        ),
    ],
)
def test_adopt_touches_a_package_init_only_where_registration_needs_it(
    tmp_path, monkeypatch, init, expected
):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "demo" / "layers").mkdir(parents=True)
    (tmp_path / "demo" / "__init__.py").write_text("")
    (tmp_path / "demo" / "layers" / "__init__.py").write_text(init)
    (tmp_path / "demo" / "layers" / "utils.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "demo" / "layers" / "gain.py").write_text(GAIN_LAYER)
    monkeypatch.chdir(tmp_path)
    result = run("adopt", "demo/layers/gain.py")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "demo" / "layers" / "__init__.py").read_text() == expected
    assert run("generate", "--check", "demo").exit_code == 0


# Whatever the run, a managed `__init__.py` imports and lists only what exists.

PRESENT = frozenset({"scaler", "utils", "sub"})


@pytest.mark.parametrize(
    "existing, line",
    [
        ("from .scaler import Scaler\nfrom .removed_by_hand import Thing\n", 2),
        ('from .scaler import Scaler\n\n__all__ = ["Nope", "Scaler"]\n', 3),
        ('from .scaler import Scaler\n\n__all__: list[str] = ["Nope", "Scaler"]\n', 3),
    ],
)
def test_an_import_or_a_name_in_all_that_does_not_exist_is_a_located_error(existing, line):
    with pytest.raises(DiagnosticError) as info:
        package_init(existing, SCALER, path=Path("layers/__init__.py"), present=PRESENT)
    [found] = info.value.diagnostics
    assert (found.path, found.line, found.code) == ("layers/__init__.py", line, "stale-import")


@pytest.mark.parametrize(
    "existing",
    [
        'from .scaler import Scaler\n\n__all__ = ["Scaler", "sub"]\n',  # a submodule: imported
        'from .scaler import Scaler\n\n__all__ = ["Lazy", "Scaler"]\n\n\ndef __getattr__(name):\n'
        "    return name\n",
        'from .scaler import *\n\n__all__ = ["Scaler", "helper"]\n',  # bound by the star
    ],
)
def test_names_that_exist_otherwise_are_not_errors(existing):
    assert package_init(existing, SCALER, present=PRESENT) == existing


def test_generate_check_refuses_a_package_init_importing_a_module_that_is_gone(scaler_project):
    init = scaler_project / "layers" / "__init__.py"
    init.write_text(init.read_text() + "from .removed_by_hand import Thing\n")
    result = run("generate", "--check", "layers")
    assert result.exit_code == 2 and "[stale-import]" in result.output, result.output
    assert "layers/__init__.py:6:1: error:" in result.output, result.output


def test_a_package_importing_a_module_deleted_in_another_folder_is_refused(scaler_project):
    """The import is absolute, in another package's `__init__.py`: `import layers` would fail."""
    (scaler_project / "blocks").mkdir()
    amp = declaration_path(scaler_project).read_text().replace("Scaler", "Amp")
    (scaler_project / "blocks" / "amp.layer.yaml").write_text(amp)
    assert run("generate", "blocks").exit_code == 0
    init = scaler_project / "layers" / "__init__.py"
    init.write_text(init.read_text() + "from blocks.amp import Amp  # theirs\n")
    assert run("generate", "--check", "layers").exit_code == 0
    (scaler_project / "blocks" / "amp.layer.yaml").unlink()
    result = run("generate", "--check", "layers")
    assert (
        result.exit_code == 2 and "layers/__init__.py:6:1: error:" in result.output
    ), result.output
    assert "[stale-import]" in result.output


def test_all_in_the_persons_order_keeps_it_and_its_comment():
    """An `__all__` a person ordered (most used first) is no stale one: nothing to add, no
    change (it was sorted, and its comment lost); a name added goes after the others."""
    existing = textwrap.dedent("""\
        from .base import Base
        from .pair import Scale, Shift

        __all__ = ["Shift", "Scale", "Base"]  # public API, most used first
        """)
    names = [("base", "Base"), ("pair", "Scale"), ("pair", "Shift")]
    assert package_init(existing, names) == existing
    added = package_init(existing, [*names, ("gate", "Gate")])
    assert added.endswith(
        '__all__ = ["Shift", "Scale", "Base", "Gate"]  # public API, most used first\n'
    )


def test_a_sorted_all_stays_sorted():
    existing = 'from .beta import Beta\n\n__all__ = ["Beta"]  # keep sorted\n'
    added = package_init(existing, [("beta", "Beta"), ("alpha", "Alpha")])
    assert added.endswith('__all__ = ["Alpha", "Beta"]  # keep sorted\n'), added
