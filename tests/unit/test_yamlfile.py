"""Reading a declaration's YAML (layergen/declaration/yamlfile.py): positions, sizes, tags, line ends.

Regression tests: located errors where there were tracebacks or silence.
"""

from __future__ import annotations

import time

import pytest

from layergen.declaration.load import parse_declaration
from layergen.declaration.yamlfile import MAX_FILE_BYTES, MAX_STRING, Pos, Source, value_position
from layergen.diagnostics import DiagnosticError

from helpers import BLOCK, codes_of, module_code

# -- size limits ----------------------------------------------------------------------------------


def test_an_oversized_code_field_is_a_located_error():
    text = "layer: A\ndoc: fine\ncall: |\n" + "  y = x\n" * (MAX_STRING // 6 + 1) + "  return y\n"
    assert codes_of(text) == [(3, 7, "too-large")]


def test_an_oversized_doc_is_a_located_error():
    assert codes_of("layer: A\ndoc: " + "word " * (MAX_STRING // 5 + 1) + "\n") == [
        (2, 6, "too-large")
    ]


def test_an_oversized_file_is_refused_before_it_is_parsed():
    text = "layer: A\n" + "".join(
        f"# {i:08d} {'.' * 60}\n" for i in range(MAX_FILE_BYTES // 70 + 1)
    )
    start = time.perf_counter()
    found = codes_of(text)
    assert time.perf_counter() - start < 1
    assert [code for *_, code in found] == ["too-large"]
    line = found[0][0]
    assert (
        len(text[: sum(len(part) for part in text.split("\n")[: line - 1]) + line - 1].encode())
        <= MAX_FILE_BYTES
    )


@pytest.mark.parametrize(
    "text, where",
    [
        ("layer: A\ndoc: !foo hello\n", (2, 6)),
        ("layer: !Layer A\n", (1, 8)),
        ("layer: A\nparams: !params\n  u: int\n", (2, 9)),
        ("layer: A\nparams:\n  u: !<tag:example.com,2024:int> int\n", (3, 6)),
        ("layer: A\ndoc: !!python/object:os.system hello\n", (2, 6)),
        ("layer: A\ndoc: !!binary aGVsbG8=\n", (2, 6)),
    ],
)
def test_custom_yaml_tags_are_located_errors(text, where):
    assert (*where, "yaml-tag") in codes_of(text)


def test_standard_tags_still_work():
    analysis = parse_declaration(
        "a.layer.yaml", b"layer: !!str A\nparams:\n  u: {type: int, default: !!int 3}\n"
    )
    assert (analysis.decl.name, analysis.params["u"].default) == ("A", 3)


def test_crlf_line_ends_and_a_bom_give_the_same_module():
    plain = module_code(BLOCK)
    assert module_code(BLOCK.replace("\n", "\r\n")) == plain
    assert module_code("\ufeff" + BLOCK) == plain
    assert module_code(b"\xef\xbb\xbf" + BLOCK.replace("\n", "\r\n").encode()) == plain


def test_errors_with_crlf_line_ends_keep_their_columns():
    text = "layer: A\r\nparams:\r\n  units: int\r\ncall: |\r\n  y = x * unitz\r\n  return y\r\n"
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("a.layer.yaml", text.encode())
    (d,) = info.value.diagnostics
    assert (d.line, d.col, d.code) == (5, 11, "unknown-name")


def test_folded_code_blocks_work():
    code = module_code("layer: Folded\ncall: >\n  ops.add(x,\n  x)\n")
    assert "ops.add(x, x)" in code


@pytest.mark.parametrize(
    "yaml_text, value, offset, expected",
    [
        ('k: "a\\x41b"\n', "aAb", 2, (1, 10)),  # after a \x escape
        ('k: "\\u00e9 z"\n', "é z", 2, (1, 12)),
        ("k: 'it''s z'\n", "it's z", 5, (1, 11)),  # after a doubled quote
        ('k: "a \\\n  z"\n', "a z", 2, (2, 3)),  # after an escaped line break
        ("k: |\n  a\n   b\n", "a\n b\n", 3, (3, 4)),  # more indented line
        ("k: >\n  a\n  b\n", "a b\n", 2, (3, 3)),  # folded
        ("k: a\n  b\n", "a b", 2, (2, 3)),  # plain, folded
    ],
)
def test_positions_inside_every_scalar_style(yaml_text, value, offset, expected):
    from ruamel.yaml import YAML

    node = YAML(typ="rt", pure=True).compose(yaml_text).value[0][1]
    mark = node.start_mark
    pos = Pos(
        mark.line + 1,
        mark.column + 1,
        node.style,
        0,
        mark.index,
        node.end_mark.index,
        Source(yaml_text),
    )
    assert node.value.replace("\a", "") == value
    assert value_position(pos, value, offset) == expected


# -- several documents, one class each ------------------------------------------------------------


def test_each_document_keeps_the_files_own_positions():
    from layergen.declaration.yamlfile import load_documents

    text = b"# two layers\nlayer: A\ncall: x\n---\n# the second\nlayer: B\ncall: x * 2\n"
    first, second = load_documents("two.layer.yaml", text)
    assert (first.data["layer"], second.data["layer"]) == ("A", "B")
    assert first.pos(("call",)).line == 3
    assert (second.pos(("layer",), key=True).line, second.pos(("call",)).col) == (6, 7)


def test_a_document_that_is_no_mapping_is_located_in_its_document():
    from layergen.declaration.yamlfile import load_documents

    with pytest.raises(DiagnosticError) as info:
        load_documents("two.layer.yaml", b"layer: A\ncall: x\n---\n- a list\n")
    ((line, code),) = [(d.line, d.code) for d in info.value.diagnostics]
    assert (line, code) == (4, "not-a-mapping")
