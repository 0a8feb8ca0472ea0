"""Load a declaration file into plain data plus the position of every node.

ruamel.yaml composes the YAML 1.2 node tree (so `1e-4` is a float and `no` a
string); we construct plain values ourselves so that every key and value keeps
its line and column, duplicate keys and aliases are located errors, and an
alias bomb is refused before anything is expanded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, DiagnosticError

Path_ = tuple  # a path into the document: keys and list indexes


@dataclass(frozen=True)
class Pos:
    line: int  # 1-based
    col: int  # 1-based
    style: str | None = None  # YAML scalar style: None (plain), "'", '"', "|", ">"
    indent: int = 0  # for block scalars: the column (1-based) where content lines start


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

    def error(self, loc: Path_, code: str, message: str, hint: str | None = None, *, key: bool = False) -> Diagnostic:
        p = self.pos(loc, key=key)
        return Diagnostic(self.path, p.line, p.col, code, message, hint)


def load(path: str, raw: bytes) -> Document:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DiagnosticError(
            [Diagnostic(path, line, col, "encoding", "the file is not valid UTF-8", "save the file as UTF-8")]
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip() or all(not l.strip() or l.lstrip().startswith("#") for l in text.splitlines()):
        raise DiagnosticError(
            [Diagnostic(path, 1, 1, "empty", "the declaration is empty", "start with `layer: MyLayer`")]
        )

    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt", pure=True)
    try:
        root = yaml.compose(text)
    except MarkedYAMLError as exc:
        raise DiagnosticError([_syntax_error(path, text, exc)]) from None
    except YAMLError as exc:  # unmarked parser errors are rare; still located at the top
        raise DiagnosticError([Diagnostic(path, 1, 1, "yaml-syntax", str(exc).strip())]) from None

    doc = Document(path, None)
    lines = text.splitlines()
    errors: list[Diagnostic] = []
    doc.data = _construct(root, (), doc, lines, errors)
    if errors:
        raise DiagnosticError(errors)
    if not isinstance(doc.data, dict):
        raise DiagnosticError(
            [doc.error((), "not-a-mapping", "a declaration is a mapping of keys", "start with `layer: MyLayer`")]
        )
    return doc


def _syntax_error(path: str, text: str, exc: Any) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    hint = None
    source_line = text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""
    in_flow = "{" in source_line or (exc.context or "").find("flow") >= 0
    if in_flow or "flow" in problem:
        hint = (
            "expressions with `[`, `]`, `{`, `}` or `,` cannot stand unquoted inside a flow mapping `{...}`: "
            "write that key in block style on its own lines, or quote the expression"
        )
    return Diagnostic(path, line, col, "yaml-syntax", f"invalid YAML: {problem}", hint)


def _tag(node: Any) -> str:
    tag = node.tag
    return getattr(tag, "value", tag) or ""


def _pos(node: Any, lines: list[str]) -> Pos:
    mark = node.start_mark
    style = getattr(node, "style", None)
    indent = 0
    if style in ("|", ">"):
        for source_line in lines[mark.line + 1 :]:
            if source_line.strip():
                indent = len(source_line) - len(source_line.lstrip(" ")) + 1
                break
    return Pos(mark.line + 1, mark.column + 1, style, indent)


def _construct(node: Any, loc: Path_, doc: Document, lines: list[str], errors: list[Diagnostic]) -> Any:
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    doc.values[loc] = _pos(node, lines)
    if node.anchor is not None:
        errors.append(
            doc.error(loc, "yaml-alias", "YAML anchors and aliases are not supported", "write the value out in full")
        )
        return None
    if isinstance(node, MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, (MappingNode, SequenceNode)):
                errors.append(Diagnostic(doc.path, *_pos(key_node, lines)[:2], "yaml-key", "keys must be plain names"))
                continue
            if _tag(key_node).endswith(":merge"):
                errors.append(
                    Diagnostic(doc.path, *_pos(key_node, lines)[:2], "yaml-alias", "YAML merge keys (`<<`) are not supported")
                )
                continue
            key = _scalar(key_node)
            key = key if isinstance(key, (str, int, float, bool)) or key is None else str(key)
            key_pos = _pos(key_node, lines)
            if key in result:
                first = doc.keys[loc + (key,)]
                errors.append(
                    Diagnostic(
                        doc.path, key_pos.line, key_pos.col, "duplicate-key",
                        f"duplicate key `{key}` (first given at line {first.line})",
                        "keep one of them",
                    )
                )
                continue
            doc.keys[loc + (key,)] = key_pos
            result[key] = _construct(value_node, loc + (key,), doc, lines, errors)
        return result
    if isinstance(node, SequenceNode):
        return [_construct(item, loc + (i,), doc, lines, errors) for i, item in enumerate(node.value)]
    return _scalar(node)


def _scalar(node: Any) -> Any:
    tag, value = _tag(node), node.value
    if tag.endswith(":null"):
        return None
    if tag.endswith(":bool"):
        return value.lower() == "true"
    if tag.endswith(":int"):
        digits = value.replace("_", "")
        try:
            return int(digits, 0)
        except ValueError:
            return int(digits, 10)
    if tag.endswith(":float"):
        special = {".inf": "inf", "+.inf": "inf", "-.inf": "-inf", ".nan": "nan"}
        return float(special.get(value.lower(), value.replace("_", "")))
    return value
