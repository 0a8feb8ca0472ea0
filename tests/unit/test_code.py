"""Python snippets of a declaration (layergen/declaration/code.py)."""

from __future__ import annotations

from helpers import BLOCK, module_code


def test_tabs_inside_a_code_block_generate():
    code = module_code(BLOCK)
    assert "self.rate" in code
