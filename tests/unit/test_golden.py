"""Golden outputs: what every example declaration generates, checked in under tests/golden/.

A change to the templates or the pipeline shows up here as a diff to read in review. After an
intended change, rewrite the golden files with `pytest tests/unit/test_golden.py --update-golden`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import ACCEPTANCE, GOLDEN, OWN_EXAMPLES, layergen, make_project

SOURCES = {"examples": OWN_EXAMPLES, "acceptance": ACCEPTANCE}


def generated_files(root: Path) -> dict[str, str]:
    """The generated Python files of a project, by path relative to it."""
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*.py"))
        if ".layergen" not in p.parts
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, str]:
    root = make_project(tmp_path_factory.mktemp("golden"), SOURCES)
    result = layergen("generate", *SOURCES, cwd=root)
    assert result.returncode == 0, result.stderr
    return generated_files(root)


def test_every_example_generates_its_golden_output(generated, request):
    if request.config.getoption("--update-golden"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for name, text in generated.items():
            (GOLDEN / name).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / name).write_text(text)
    golden = generated_files(GOLDEN)
    assert sorted(golden) == sorted(
        generated
    ), "run pytest tests/unit/test_golden.py --update-golden"
    changed = [name for name in generated if generated[name] != golden[name]]
    assert not changed, f"{changed} differ from tests/golden/ (--update-golden after a change)"
    # One module and one test module per declaration, at the least.
    assert len(generated) >= 2 * sum(len(list(s.glob("*.yaml"))) for s in SOURCES.values())


def test_no_generated_line_passes_88_columns(generated):
    """black's default width, which a project's ruff may enforce (E501) on generated files."""
    long = [
        f"{name}:{number}"
        for name, text in generated.items()
        for number, line in enumerate(text.splitlines(), 1)
        if len(line) > 88
    ]
    assert not long, long
