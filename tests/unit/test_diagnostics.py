"""Located errors (layergen/diagnostics.py): what they print.

Regression tests: located errors where there were tracebacks or silence.
"""

from __future__ import annotations

import pytest

from layergen.diagnostics import Diagnostic

from helpers import errors, layergen_in_process, project

# -- diagnostics stay one line each, whatever the user wrote --------------------------------------

HOSTILE = [
    "\n",
    "\r",
    "\r\n",
    "\u2028",
    "\u2029",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1b[31m",
    "\x1b]0;title\x07",
    "\x00",
    "\x9b",
    "\u202e",
    "\x7f",
]


@pytest.mark.parametrize("text", HOSTILE, ids=[repr(t) for t in HOSTILE])
def test_a_diagnostic_escapes_line_breaks_and_terminal_controls(text):
    d = Diagnostic(
        f"a{text}.layer.yaml",
        1,
        2,
        "unknown-key",
        f"unknown key `x{text}y`",
        f"did you mean `x{text}`?",
    )
    first, hint = d.format().split("\n")
    assert (
        first.startswith("a") and first.endswith(" [unknown-key]") and hint.startswith("  hint: ")
    )
    for line in (first, hint):
        assert line.isprintable(), repr(line)
    assert ascii(text)[1:-1] in first  # written as its escape, so the reader still sees it


def test_a_key_with_a_line_break_and_an_escape_sequence_prints_one_line_per_diagnostic(tmp_path):
    root = project(
        tmp_path / "demo",
        {
            "layers/a.layer.yaml": 'layer: Foo\n"x\\ny\\u2028z\\e[2J\\rw": 1\ncall: x\n',
        },
    )
    result = layergen_in_process("generate", "layers", cwd=root)
    assert errors(result) == [("a.layer.yaml", 2, 1, "unknown-key")]
    lines = result.stderr.splitlines()
    assert len(result.stderr.split("\n")) == len(lines) + 1  # nothing but \n breaks a line
    assert all(line.isprintable() for line in lines), lines
