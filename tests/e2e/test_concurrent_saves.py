"""An editor saving a module over and over while `layergen generate` runs in its own process:
no save is ever overwritten, and no file is left unparsable. The runs may
report the file as changing (exit 2, nothing written); what they write never replaces a save.
About 20 s; `python benchmarks/concurrent_saves.py` runs the full measure (5 runs of 40)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from helpers import REPO

pytestmark = pytest.mark.e2e


def benchmark():
    spec = importlib.util.spec_from_file_location(
        "concurrent_saves", REPO / "benchmarks" / "concurrent_saves.py"
    )
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_save_is_lost_while_layergen_writes(tmp_path):
    saves = benchmark()
    root = saves.project(tmp_path / "p", 20)
    tally = saves.run_with_saves(root, 3, 20, 0.002)  # main 0a9ea35 lost saves in 3 of 4 tries
    assert tally.saves > 10
    assert tally.lost == 0 and tally.unparsable == 0, tally
