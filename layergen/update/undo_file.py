"""The texts an undo needs (`lock.Entry.undo`: a file as it was before the run that changed it
last, and the base that run merged against), kept as changes to the file's base.

One file per generated file, `.layergen/undo/<its path>.undo`, rewritten only by a run that changes
that file: a small declaration change is a small diff in review, as the base beside it is.
Each text is a list of hunks, each the base's lines it replaces and the lines put there:

    # layergen: texts of layers/dense.py an undo of its last run needs, as changes to its base
    text 5f1c...  (its sha256)
    @@ 12 1 2
    +    units: int...
    +    use_bias...

`@@ START COUNT LINES`: base lines START..START+COUNT (0-based) replaced by the LINES lines
after it, each after a `+` (a `!` for a last line without a line break). Read back, a text
counts only if its digest is the one named: anything else is no text (the undo is not taken).
"""

from __future__ import annotations

import hashlib
import re
from difflib import SequenceMatcher

_HEADER = "# layergen: texts of {key} an undo of its last run needs, as changes to its base\n"


def render(key: str, base: str, texts: dict[str, str]) -> str:
    """The file keeping `texts` (digest -> text) as changes to `base`."""
    out = [_HEADER.format(key=key)]
    old = lines(base)
    for digest, text in texts.items():
        out.append(f"text {digest}\n")
        new = lines(text)
        matcher = SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            out.append(f"@@ {i1} {i2 - i1} {j2 - j1}\n")
            out += [
                ("+" if row.endswith("\n") else "!") + row.rstrip("\n") + "\n" for row in new[j1:j2]
            ]
    return "".join(out)


def text(stored: str, base: str, digest: str) -> str | None:
    """The text of `digest` kept in `stored` (the file's contents) against `base`; None when it
    is not there or does not come out as that digest."""
    rows = stored.split("\n")
    try:
        start = rows.index(f"text {digest}") + 1
    except ValueError:
        return None
    old, out, at, i = lines(base), [], 0, start
    try:
        while i < len(rows) and rows[i].startswith("@@ "):
            first, count, size = (int(n) for n in rows[i][3:].split())
            if first < at or first + count > len(old):
                return None
            out += old[at:first]
            for row in rows[i + 1 : i + 1 + size]:
                out.append(row[1:] + "\n" if row[:1] == "+" else row[1:])
            at, i = first + count, i + 1 + size
    except ValueError:
        return None
    result = "".join(out + old[at:])
    return result if hashlib.sha256(result.encode()).hexdigest() == digest else None


def lines(text: str) -> list[str]:
    """`text` cut after each `\\n` (as `merge.lines`, without loading libcst)."""
    return _LINE.findall(text)


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
