"""Load a declaration file into plain data plus the position of every node.

ruamel.yaml composes the YAML 1.2 node tree (so `1e-4` is a float and `no` a
string); we construct plain values ourselves so that every key and value keeps
its line and column, duplicate keys and aliases are located errors, and an
alias bomb is refused before anything is expanded.

Every scalar also remembers where its text sits in the file, so that a position
inside a value (a name in a code block, a Python syntax error) maps back to its
own line and column, whatever the scalar's style: plain, quoted (with escapes),
literal `|` or folded `>`.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..diagnostics import Diagnostic, DiagnosticError
from ..textfiles import decode

Path_ = tuple  # a path into the document: keys and list indexes

MAX_DEPTH = 64  # nesting deeper than this is a mistake (and would exhaust the stack)
MAX_INT_DIGITS = 4300  # Python refuses to convert longer decimal integers, from text or to it
MAX_INT_BITS = 14000  # about 4200 decimal digits
# Size limits, far above any real declaration, that keep a run to seconds (docs/spec-format.md):
MAX_FILE_BYTES = 256 * 1024  # a whole declaration file
MAX_STRING = 64 * 1024  # one string value: a code field, a doc (characters)
# The tags of YAML 1.2's core schema, which layergen reads; any other tag is a mistake, not ignored.
_CORE_TAGS = {
    f"tag:yaml.org,2002:{t}"
    for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
}
_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")  # the line breaks ruamel.yaml counts
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


class Source:
    """The text of a declaration, to turn character offsets into lines and columns."""

    def __init__(self, text: str):
        self.text = text

    @cached_property
    def line_starts(self) -> list[int]:
        return [0] + [m.end() for m in _BREAK.finditer(self.text)]

    def line_col(self, index: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, index)
        return line, index - self.line_starts[line - 1] + 1


@dataclass(frozen=True)
class Pos:
    line: int  # 1-based
    col: int  # 1-based
    style: str | None = None  # YAML scalar style: None (plain), "'", '"', "|", ">"
    indent: int = 0  # for block scalars: the column (1-based) where content lines start
    start: int = field(default=-1, compare=False)  # the node's text in `source`: [start, end)
    end: int = field(default=-1, compare=False)
    source: Source | None = field(default=None, compare=False, repr=False)


def value_position(pos: Pos, value: str, offset: int) -> tuple[int, int] | None:
    """The line and column in the file of `value[offset]`, `value` being the scalar at `pos`.

    None when the scalar's text is not known (a value layergen made up).
    """
    if pos.source is None or pos.start < 0:
        return None
    tokens = _tokens(pos, _block_indent(pos, value))
    if not tokens:
        return pos.source.line_col(pos.start)
    offset = max(offset, 0)
    if offset >= len(value):
        return pos.source.line_col(tokens[-1][1] + 1)
    j, index = 0, tokens[0][1]
    for _i, ch in enumerate(value[: offset + 1]):
        if ch.isspace():  # kept, or made by folding a line break
            if j < len(tokens) and tokens[j][0].isspace():
                index, j = tokens[j][1], j + 1
        else:
            k = j
            while k < len(tokens) and tokens[k][0] != ch and tokens[k][0].isspace():
                k += 1  # indentation and folded breaks the value dropped
            if k < len(tokens) and tokens[k][0] == ch:
                index, j = tokens[k][1], k + 1
            elif j < len(tokens):  # should not happen: assume one character for one
                index, j = tokens[j][1], j + 1
    return pos.source.line_col(index)


def _block_indent(pos: Pos, value: str) -> int:
    """How many spaces of each line of a block scalar are indentation, not content."""
    if pos.style not in ("|", ">"):
        return 0
    text = pos.source.text  # type: ignore[union-attr]
    m = _BREAK.search(text, pos.start, pos.end)
    lines = _BREAK.split(text[m.end() if m else pos.end : pos.end])
    first = next((line for line in lines if line.strip()), "")
    content = next((line for line in value.split("\n") if line.strip()), "")
    return max(len(first) - len(first.lstrip(" ")) - (len(content) - len(content.lstrip(" "))), 0)


def _tokens(pos: Pos, indent: int = 0) -> list[tuple[str, int]]:
    """The characters a scalar's text stands for, each with its index in the file.

    `indent`: the indentation of a block scalar, skipped at the start of each line.
    """
    text, i, end = pos.source.text, pos.start, pos.end  # type: ignore[union-attr]
    style = pos.style
    if style in ("|", ">"):  # skip the header line (`|-  # comment`)
        m = _BREAK.search(text, i, end)
        i = m.end() if m else end
    elif style in ("'", '"'):
        i += 1
        end = end - 1 if end - 1 > i - 1 and text[end - 1 : end] == style else end
    line_start = True
    out: list[tuple[str, int]] = []
    while i < end:
        if line_start and indent:
            skip = 0
            while skip < indent and i + skip < end and text[i + skip] == " ":
                skip += 1
            i += skip
            if i >= end:
                break
        line_start = False
        c = text[i]
        m = _BREAK.match(text, i)
        if m:
            out.append(("\n", i))
            i = m.end()
            line_start = True
        elif style == "'" and c == "'" and text[i + 1 : i + 2] == "'":
            out.append(("'", i))
            i += 2
        elif style == '"' and c == "\\" and i + 1 < end:
            n = text[i + 1]
            m = _BREAK.match(text, i + 1)
            if m:  # an escaped line break stands for nothing
                i = m.end()
            elif n in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[n]
                try:
                    out.append((chr(int(text[i + 2 : i + 2 + width], 16)), i))
                except ValueError:
                    out.append((n, i))
                i += 2 + width
            else:
                out.append((_ESCAPES.get(n, n), i))
                i += 2
        else:
            out.append((c, i))
            i += 1
    return out


@dataclass
class Document:
    """A loaded declaration: the data and where each piece of it was written."""

    path: str
    data: Any
    values: dict[Path_, Pos] = field(default_factory=dict)
    keys: dict[Path_, Pos] = field(default_factory=dict)

    def pos(self, loc: Path_, *, key: bool = False) -> Pos:
        """The position of `loc`, or of its closest located ancestor."""
        table = self.keys if key else self.values
        loc = tuple(loc)
        while loc:
            if loc in table:
                return table[loc]
            if key and loc in self.values:
                return self.values[loc]
            loc = loc[:-1]
        return self.values.get((), Pos(1, 1))

    def error(
        self, loc: Path_, code: str, message: str, hint: str | None = None, *, key: bool = False
    ) -> Diagnostic:
        p = self.pos(loc, key=key)
        return Diagnostic(self.path, p.line, p.col, code, message, hint)


def load(path: str, raw: bytes) -> Document:
    """A declaration file of one document (`load_documents` reads several)."""
    first, *more = load_documents(path, raw)
    if more:
        raise DiagnosticError(
            [
                more[0].error(
                    (),
                    "several-documents",
                    "this file declares several layers; this command takes one",
                    "name the class, or split the file",
                )
            ]
        )
    return first


def load_documents(path: str, raw: bytes) -> list[Document]:
    """Every YAML document of a declaration file, each declaring one class; separated by
    `---` lines (docs/spec-format.md "Several layers in one module"). Positions are the
    file's own, whatever the document."""
    text = decode(path, raw)
    if text.startswith("\ufeff"):
        text = text[1:]
    if len(raw) > MAX_FILE_BYTES:
        line = raw[:MAX_FILE_BYTES].count(b"\n") + 1
        raise DiagnosticError(
            [
                Diagnostic(
                    path,
                    line,
                    1,
                    "too-large",
                    f"the file is larger than {MAX_FILE_BYTES // 1024} KiB, the most a declaration may hold",
                    "split it into several declarations",
                )
            ]
        )
    if not text.strip() or all(
        not line.strip() or line.lstrip().startswith("#") for line in _BREAK.split(text)
    ):
        raise DiagnosticError(
            [
                Diagnostic(
                    path, 1, 1, "empty", "the declaration is empty", "start with `layer: MyLayer`"
                )
            ]
        )

    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    source = Source(text)
    deep = _flow_too_deep(text)
    if deep is not None:
        line, col = source.line_col(deep)
        raise DiagnosticError(
            [
                Diagnostic(
                    path,
                    line,
                    col,
                    "yaml-syntax",
                    f"invalid YAML: nested more than {MAX_DEPTH} levels deep",
                )
            ]
        )
    yaml = YAML(typ="rt", pure=True)
    try:
        roots = list(yaml.compose_all(text))
    except MarkedYAMLError as exc:
        raise DiagnosticError([_syntax_error(path, text, exc)]) from None
    except ReaderError as exc:  # a character YAML does not allow
        line, col = source.line_col(max(exc.position, 0))
        raise DiagnosticError(
            [
                Diagnostic(
                    path,
                    line,
                    col,
                    "yaml-syntax",
                    f"invalid YAML: the character {_char_name(exc.character)} is not allowed",
                    'write it as an escape inside a double-quoted string, such as "\\x07"',
                )
            ]
        ) from None
    except RecursionError:
        raise DiagnosticError([_too_deep(path, text, source)]) from None
    except YAMLError as exc:  # unmarked parser errors are rare; still located at the top
        raise DiagnosticError([Diagnostic(path, 1, 1, "yaml-syntax", str(exc).strip())]) from None

    lines = _BREAK.split(text)
    errors: list[Diagnostic] = []
    docs = []
    for root in roots:
        doc = Document(path, None)
        doc.data = _construct(root, (), doc, _Context(lines, source, errors))
        docs.append(doc)
    if errors:
        raise DiagnosticError(errors)
    for doc in docs:
        if doc.data is None and len(docs) > 1:
            errors.append(
                doc.error(
                    (),
                    "empty",
                    "this document of the file is empty",
                    "remove the `---` line before it, or declare a layer after it",
                )
            )
        elif not isinstance(doc.data, dict):
            errors.append(
                doc.error(
                    (),
                    "not-a-mapping",
                    "a declaration is a mapping of keys",
                    "start with `layer: MyLayer`",
                )
            )
    if errors:
        raise DiagnosticError(errors)
    return docs


def _char_name(character: Any) -> str:
    code = (
        character
        if isinstance(character, int)
        else ord(character) if isinstance(character, str) and len(character) == 1 else None
    )
    return f"U+{code:04X}" if code is not None else repr(character)


def _syntax_error(path: str, text: str, exc: Any) -> Diagnostic:
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    opened = exc.context_mark
    if opened is not None and ("end of stream" in problem or "<stream end>" in problem):
        # The file ended inside a quoted string or a bracket: point at where it was opened.
        char = text[opened.index] if 0 <= opened.index < len(text) else ""
        what = (
            "quoted string"
            if "quoted" in (exc.context or "")
            else f"`{char}`" if char in "[{" else "block"
        )
        hint = (
            "end it with the quote it starts with (inside '...', a `'` is written `''`)"
            if what == "quoted string"
            else "close it; in a flow collection, quote expressions that hold `[`, `]`, `{`, `}` or `,`"
        )
        return Diagnostic(
            path,
            opened.line + 1,
            opened.column + 1,
            "yaml-syntax",
            f"invalid YAML: the {what} opened here is never closed",
            hint,
        )
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    hint = None
    lines = _BREAK.split(text)
    source_line = lines[line - 1] if 0 < line <= len(lines) else ""
    in_flow = "{" in source_line or (exc.context or "").find("flow") >= 0
    if in_flow or "flow" in problem:
        hint = (
            "expressions with `[`, `]`, `{`, `}` or `,` cannot stand unquoted inside a flow mapping `{...}`: "
            "write that key in block style on its own lines, or quote the expression"
        )
    elif "\\t" in problem or "tab" in problem.lower():
        hint = "YAML indents with spaces, not tabs"
    return Diagnostic(path, line, col, "yaml-syntax", f"invalid YAML: {problem}", hint)


def _flow_too_deep(text: str) -> int | None:
    """Where brackets nest far too deep, or None.

    ruamel.yaml's scanner takes time quadratic in the nesting of flow collections
    (`[[[[...]]]]`): thousands of levels would take minutes, so such a file is
    refused before it is parsed. Brackets in strings and code count too, which
    is harmless at twice the depth any declaration needs.
    """
    if text.count("[") + text.count("{") <= 2 * MAX_DEPTH:
        return None
    depth = 0
    for i, c in enumerate(text):
        if c in "[{":
            depth += 1
            if depth > 2 * MAX_DEPTH:
                return i
        elif c in "]}" and depth:
            depth -= 1
    return None


def _too_deep(path: str, text: str, source: Source) -> Diagnostic:
    """Locate the first node nested deeper than MAX_DEPTH, from the parser's events (no recursion)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    depth, line, col = 0, 1, 1
    try:
        for event in YAML(typ="rt", pure=True).parse(text):
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line, col = event.start_mark.line + 1, event.start_mark.column + 1
                    break
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except Exception:  # the parse is a best effort to locate the problem
        pass
    return Diagnostic(
        path, line, col, "yaml-syntax", f"invalid YAML: nested more than {MAX_DEPTH} levels deep"
    )


def _tag(node: Any) -> str:
    tag = node.tag
    return getattr(tag, "value", tag) or ""


@dataclass
class _Context:
    lines: list[str]
    source: Source
    errors: list[Diagnostic]


def _pos(node: Any, ctx: _Context) -> Pos:
    mark = node.start_mark
    style = getattr(node, "style", None)
    indent = 0
    if style in ("|", ">"):
        for source_line in ctx.lines[mark.line + 1 :]:
            if source_line.strip():
                indent = len(source_line) - len(source_line.lstrip(" ")) + 1
                break
    end = node.end_mark.index if node.end_mark is not None else mark.index
    return Pos(mark.line + 1, mark.column + 1, style, indent, mark.index, end, ctx.source)


def _construct(node: Any, loc: Path_, doc: Document, ctx: _Context, depth: int = 0) -> Any:
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    pos = doc.values[loc] = _pos(node, ctx)
    errors = ctx.errors
    if node.anchor is not None:
        errors.append(
            doc.error(
                loc,
                "yaml-alias",
                "YAML anchors and aliases are not supported",
                "write the value out in full",
            )
        )
        return None
    if _tag(node) not in _CORE_TAGS:
        errors.append(
            Diagnostic(
                doc.path,
                pos.line,
                pos.col,
                "yaml-tag",
                f"the YAML tag `{_tag(node)}` is not supported",
                "remove the tag: layergen reads plain YAML values only",
            )
        )
        return None
    if isinstance(node, (MappingNode, SequenceNode)) and depth >= MAX_DEPTH:
        errors.append(
            Diagnostic(
                doc.path,
                pos.line,
                pos.col,
                "yaml-syntax",
                f"invalid YAML: nested more than {MAX_DEPTH} levels deep",
            )
        )
        return None
    if isinstance(node, MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key_pos = _pos(key_node, ctx)
            if isinstance(key_node, (MappingNode, SequenceNode)):
                errors.append(
                    Diagnostic(
                        doc.path, key_pos.line, key_pos.col, "yaml-key", "keys must be plain names"
                    )
                )
                continue
            if _tag(key_node).endswith(":merge"):
                errors.append(
                    Diagnostic(
                        doc.path,
                        key_pos.line,
                        key_pos.col,
                        "yaml-alias",
                        "YAML merge keys (`<<`) are not supported",
                    )
                )
                continue
            if _tag(key_node) not in _CORE_TAGS:
                errors.append(
                    Diagnostic(
                        doc.path,
                        key_pos.line,
                        key_pos.col,
                        "yaml-tag",
                        f"the YAML tag `{_tag(key_node)}` is not supported",
                        "remove the tag",
                    )
                )
                continue
            if key_node.anchor is not None:
                errors.append(
                    Diagnostic(
                        doc.path,
                        key_pos.line,
                        key_pos.col,
                        "yaml-alias",
                        "YAML anchors and aliases are not supported",
                        "write the value out in full",
                    )
                )
                continue
            key = _scalar(key_node, key_pos, doc, errors)
            key = key if isinstance(key, (str, int, float, bool)) or key is None else str(key)
            if key in result:
                first = doc.keys[loc + (key,)]
                errors.append(
                    Diagnostic(
                        doc.path,
                        key_pos.line,
                        key_pos.col,
                        "duplicate-key",
                        f"duplicate key `{key}` (first given at line {first.line})",
                        "keep one of them",
                    )
                )
                continue
            doc.keys[loc + (key,)] = key_pos
            result[key] = _construct(value_node, loc + (key,), doc, ctx, depth + 1)
            if _is_empty(value_node):  # `key:` with nothing after it: point at the key
                doc.values[loc + (key,)] = key_pos
        return result
    if isinstance(node, SequenceNode):
        return [
            _construct(item, loc + (i,), doc, ctx, depth + 1) for i, item in enumerate(node.value)
        ]
    return _scalar(node, pos, doc, errors)


def _is_empty(node: Any) -> bool:
    from ruamel.yaml.nodes import ScalarNode

    return (
        isinstance(node, ScalarNode)
        and node.value == ""
        and node.style is None
        and _tag(node).endswith(":null")
    )


def _scalar(node: Any, pos: Pos, doc: Document, errors: list[Diagnostic]) -> Any:
    tag, value = _tag(node), node.value
    if tag.endswith(":null"):
        return None
    if tag.endswith(":bool"):
        return value.lower() == "true"
    if tag.endswith(":int"):
        digits = value.replace("_", "")
        number = None
        try:
            try:
                number = int(digits, 0)
            except ValueError:
                number = int(digits, 10)
        except ValueError:
            pass
        if (
            number is None or number.bit_length() > MAX_INT_BITS
        ):  # Python could not write it back as code
            errors.append(
                Diagnostic(
                    doc.path,
                    pos.line,
                    pos.col,
                    "bad-number",
                    (
                        f"the integer has more than {MAX_INT_DIGITS} digits"
                        if len(digits) > MAX_INT_DIGITS or number is not None
                        else f"`{value}` is not an integer"
                    ),
                )
            )
            return 0
        return number
    if tag.endswith(":float"):
        special = {".inf": "inf", "+.inf": "inf", "-.inf": "-inf", ".nan": "nan"}
        try:
            number = float(special.get(value.lower(), value.replace("_", "")))
        except ValueError:
            errors.append(
                Diagnostic(doc.path, pos.line, pos.col, "bad-number", f"`{value}` is not a number")
            )
            return 0.0
        if not math.isfinite(number):
            errors.append(
                Diagnostic(
                    doc.path,
                    pos.line,
                    pos.col,
                    "bad-number",
                    f"`{value}` is {'not a number' if math.isnan(number) else 'infinite'}: "
                    "generated code and tests hold finite numbers only",
                    "use a finite number, or `null` for no bound",
                )
            )
            return 0.0
        return number
    if node.style == ">":  # ruamel.yaml marks where it folded lines with BEL characters
        value = value.replace("\a", "")
    if len(value) > MAX_STRING:
        errors.append(
            Diagnostic(
                doc.path,
                pos.line,
                pos.col,
                "too-large",
                f"the value is longer than {MAX_STRING // 1024} Ki characters, the most one value may hold",
                "move long code into a module and import it; shorten long text",
            )
        )
        return ""
    surrogate = _SURROGATE.search(value)
    if surrogate:
        errors.append(
            Diagnostic(
                doc.path,
                pos.line,
                pos.col,
                "encoding",
                f"the string holds U+{ord(surrogate.group()):04X}, a lone surrogate that UTF-8 cannot encode",
                "write the character itself, or a `\\U` escape of the whole code point",
            )
        )
        return value.encode("utf-8", "replace").decode("utf-8")
    return value
