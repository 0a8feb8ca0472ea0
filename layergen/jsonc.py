"""JSON with comments and trailing commas (VS Code's settings format), edited in place.

`init` adds its entries to a person's `.vscode/settings.json` and `extensions.json` as an
editor would: the new member or item is inserted as text, so every comment, blank line and
key order of theirs stays as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostic, DiagnosticError

_CLOSING = re.compile(r"\s*[}\]]")
_SPACE = re.compile(r"\s*")


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas -> JSON, positions kept."""
    return _scan(_scan(text, comments=True), comments=False)


def _scan(text: str, *, comments: bool) -> str:
    """Blank out comments (`comments=True`) or trailing commas, leaving strings alone."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if comments and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif comments and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif not comments and char == "," and _CLOSING.match(text, i + 1):
            j = i + 1
        else:
            out.append(char)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def has_comments(text: str) -> bool:
    return _scan(text, comments=True) != text


@dataclass
class Node:
    """A value of the document and where it stands: `text[start:end]`."""

    start: int
    end: int
    value: Any = None
    members: dict[str, Node] = field(default_factory=dict)  # an object's
    items: list[Node] = field(default_factory=list)  # an array's


def parse(text: str, where: str) -> Node:
    """The document's top-level object, or a located `bad-json` error."""
    plain = strip_jsonc(text)
    try:
        value = json.loads(plain)
    except json.JSONDecodeError as exc:
        raise DiagnosticError(
            [Diagnostic(where, exc.lineno, exc.colno, "bad-json", f"invalid JSON: {exc.msg}")]
        ) from None
    if not isinstance(value, dict):
        raise DiagnosticError([Diagnostic(where, 1, 1, "bad-json", "expected a JSON object")])
    return _node(plain, _SPACE.match(plain).end())


def _node(plain: str, i: int) -> Node:
    """The value starting at `i` of valid JSON."""
    opening = plain[i]
    if opening not in "{[":
        value, end = json.JSONDecoder().raw_decode(plain, i)
        return Node(i, end, value)
    node, j = Node(i, i), _SPACE.match(plain, i + 1).end()
    while plain[j] not in "}]":
        if opening == "{":
            key, j = json.decoder.scanstring(plain, j + 1)
            j = _SPACE.match(plain, j).end() + 1  # past the colon
            child = _node(plain, _SPACE.match(plain, j).end())
            node.members[key] = child
        else:
            child = _node(plain, j)
            node.items.append(child)
        j = _SPACE.match(plain, child.end).end()
        j = _SPACE.match(plain, j + 1).end() if plain[j] == "," else j
    node.end = j + 1
    node.value = json.loads(plain[node.start : node.end])
    return node


def add(text: str, container: Node, value: Any, key: str | None = None) -> str:
    """`text` with `value` added at the end of `container` (as member `key` of an object,
    or as an item of an array), on a line of its own, indented like its neighbours."""
    uncommented = _scan(text, comments=True)
    children = list(container.members.values()) or container.items
    close = container.end - 1
    indent = _indent(text, container.start)
    inner = _indent(text, children[0].start) if children else indent + "    "
    step = inner[len(indent) :] if inner.startswith(indent) and inner != indent else "    "
    name = json.dumps(key) + ": " if key is not None else ""
    entry = name + json.dumps(value, indent=step).replace("\n", "\n" + inner)
    if not children:
        line_end = text.find("\n", container.start)
        if 0 <= line_end < close:  # after the opening line, comments in it kept
            return f"{text[:line_end]}\n{inner}{entry}{text[line_end:]}"
        return f"{text[: container.start + 1]}\n{inner}{entry}\n{indent}{text[close:]}"
    after = children[-1].end
    comma = _SPACE.match(uncommented, after).end()
    if uncommented[comma] != ",":  # no trailing comma: one goes after the last value
        text, uncommented = (t[:after] + "," + t[after:] for t in (text, uncommented))
        comma, close = after, close + 1
    line_end = text.find("\n", comma)
    if 0 <= line_end < close:  # after the last entry's line, comments on it included
        return f"{text[:line_end]}\n{inner}{entry}{text[line_end:]}"
    return f"{text[: comma + 1]} {name}{json.dumps(value)}{text[comma + 1 :]}"  # one line


def replace(text: str, node: Node, value: Any) -> str:
    """`text` with `node`'s value replaced by `value`."""
    return text[: node.start] + json.dumps(value) + text[node.end :]


def _indent(text: str, position: int) -> str:
    line = text[text.rfind("\n", 0, position) + 1 : position]
    return line[: len(line) - len(line.lstrip())]
