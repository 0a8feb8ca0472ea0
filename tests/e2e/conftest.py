import shutil
from pathlib import Path

import pytest

from helpers import FIXTURES, layergen, make_project


@pytest.fixture(scope="session")
def real_generated(tmp_path_factory):
    """`layergen generate real` of the real layers (tests/fixtures/real/), once for the
    session: `real_project` gives each module a copy of it to add its own files to."""
    root = make_project(tmp_path_factory.mktemp("real_generated"), {"real": FIXTURES / "real"})
    result = layergen("generate", "real", cwd=root)
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture(scope="module")
def real_project(real_generated, tmp_path_factory, request) -> Path:
    """A copy of the generated real layers, the module's own (named after it)."""
    root = tmp_path_factory.mktemp(request.module.__name__.removeprefix("test_"))
    shutil.copytree(real_generated, root, symlinks=True, dirs_exist_ok=True)
    return root
