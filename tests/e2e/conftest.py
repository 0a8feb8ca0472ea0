import shutil
from pathlib import Path

import pytest

from helpers import FIXTURES, layergen, make_project

REAL = FIXTURES / "real"
# keras-hub's Llama layers alone (test_llama_layers.py, test_llama_backbone.py): the layout
# map of the whole real set holds more keys.
LLAMA = ["llama_layer_norm", "llama_attention", "llama_transformer_decoder"]


def generated(root: Path, declarations: list[Path]) -> Path:
    """A project of the declarations in `real/`, generated."""
    make_project(root, {})
    (root / "real").mkdir()
    for declaration in declarations:
        shutil.copy(declaration, root / "real")
    result = layergen("generate", "real", cwd=root)
    assert result.returncode == 0, result.stderr
    return root


def copy(project: Path, tmp_path_factory, request) -> Path:
    """A copy of `project`, the module's own (named after it), to add its files to."""
    root = tmp_path_factory.mktemp(request.module.__name__.removeprefix("test_"))
    shutil.copytree(project, root, symlinks=True, dirs_exist_ok=True)
    return root


# Generated once for the session; each module that uses one gets a copy of it.


@pytest.fixture(scope="session")
def real_generated(tmp_path_factory):
    return generated(tmp_path_factory.mktemp("real_generated"), sorted(REAL.glob("*.yaml")))


@pytest.fixture(scope="session")
def llama_generated(tmp_path_factory):
    declarations = [REAL / f"{name}.layer.yaml" for name in LLAMA]
    return generated(tmp_path_factory.mktemp("llama_generated"), declarations)


@pytest.fixture(scope="module")
def real_project(real_generated, tmp_path_factory, request) -> Path:
    """The real layers (tests/fixtures/real/) generated in `real/`."""
    return copy(real_generated, tmp_path_factory, request)


@pytest.fixture(scope="module")
def llama_project(llama_generated, tmp_path_factory, request) -> Path:
    """keras-hub's three Llama layers of tests/fixtures/real/ generated in `real/`."""
    return copy(llama_generated, tmp_path_factory, request)
