"""Read a declaration file: YAML -> pydantic -> analysis, all errors located."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, DiagnosticError, did_you_mean
from . import model
from .analyze import Analysis, analyze
from .yamlfile import Document, load as load_yaml

# The keys each kind of mapping allows, for "did you mean" hints.
_SECTIONS: dict[tuple, type] = {
    (): model.Declaration,
    ("params", "*"): model.Param,
    ("inputs", "*"): model.Input,
    ("weights", "*"): model.Weight,
    ("sublayers", "*"): model.Sublayer,
    ("sublayers", "*", "layers", "*"): model.LayerCall,
    ("ops", "*"): model.Op,
    ("call",): model.Branches,
    ("methods", "*"): model.Method,
    ("example",): model.Example,
}
_TYPE_WORDS = {
    "string_type": "a string", "int_type": "an integer", "int_from_float": "an integer",
    "float_type": "a number", "bool_type": "true or false", "dict_type": "a mapping",
    "model_type": "a mapping", "model_attributes_type": "a mapping", "list_type": "a list",
}


def load_declaration(path: str | Path) -> Analysis:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DiagnosticError([Diagnostic(str(path), 1, 1, "io", f"cannot read the file: {exc.strerror}")]) from None
    return parse_declaration(str(path), raw)


def parse_declaration(path: str, raw: bytes) -> Analysis:
    doc = load_yaml(path, raw)
    _check_kind(doc)
    from pydantic import ValidationError

    try:
        decl = model.Declaration.model_validate(doc.data)
    except ValidationError as exc:
        raise DiagnosticError(_validation_diagnostics(doc, exc.errors())) from None
    return analyze(doc, decl)


def _check_kind(doc: Document) -> None:
    kinds = [k for k in model.KINDS if k in doc.data]
    suffix = Path(doc.path).name.rsplit(".", 2)
    if not kinds:
        expected = suffix[-2] if len(suffix) == 3 and suffix[-2] in model.KINDS else "layer"
        raise DiagnosticError(
            [doc.error((), "missing-kind", f"no kind key: the file must name its class with one of {', '.join(model.KINDS)}",
                       f"add `{expected}: MyName` as the first line")]
        )
    if len(kinds) > 1:
        raise DiagnosticError(
            [doc.error((k,), "doubled-kind", f"`{k}` and `{kinds[0]}` both name the class; keep one", key=True) for k in kinds[1:]]
        )
    if not isinstance(doc.data[kinds[0]], str):
        raise DiagnosticError([doc.error((kinds[0],), "bad-class-name", f"`{kinds[0]}` takes the class name")])
    if len(suffix) == 3 and suffix[-1] == "yaml" and suffix[-2] in model.KINDS and suffix[-2] != kinds[0]:
        raise DiagnosticError(
            [doc.error((kinds[0],), "kind-mismatch", f"the file is a .{suffix[-2]}.yaml but declares a {kinds[0]}", key=True)]
        )


def _data_loc(doc: Document, loc: tuple) -> tuple:
    """The longest prefix of a pydantic error location that exists in the document."""
    out: tuple = ()
    node: Any = doc.data
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            continue  # a union member's tag, or a key that is missing
        out += (part,)
    return out


def _section(loc: tuple) -> type | None:
    for pattern, cls in _SECTIONS.items():
        if len(pattern) == len(loc) and all(p in ("*", part) for p, part in zip(pattern, loc)):
            return cls
    return None


def _keys(cls: type) -> list[str]:
    return [f.alias or name for name, f in cls.model_fields.items()]


def _validation_diagnostics(doc: Document, errors: list[dict]) -> list[Diagnostic]:
    found: dict[tuple, Diagnostic] = {}
    expected: dict[tuple, list[str]] = {}
    for err in errors:
        loc = _data_loc(doc, err["loc"])
        kind = err["type"]
        if kind == "extra_forbidden":
            cls = _section(loc[:-1])
            hint = did_you_mean(str(loc[-1]), _keys(cls)) if cls else None
            where = "at the top level" if len(loc) == 1 else f"in `{'.'.join(map(str, loc[:-1]))}`"
            found[loc] = doc.error(loc, "unknown-key", f"unknown key `{loc[-1]}` {where}",
                                   hint or (f"allowed keys: {', '.join(_keys(cls))}" if cls else None), key=True)
        elif kind == "missing":
            name = err["loc"][-1]
            found[loc + (name,)] = doc.error(loc, "missing-key", f"missing required key `{name}`")
        elif kind == "literal_error":
            allowed = [a.strip(" '") for a in err["ctx"]["expected"].replace(" or ", ", ").split(", ")]
            found[loc] = doc.error(
                loc, "unknown-type", f"unknown type `{err['input']}`",
                did_you_mean(str(err["input"]), allowed) or f"types: {', '.join(allowed)}",
            )
        else:
            expected.setdefault(loc, []).append(_TYPE_WORDS.get(kind, err["msg"].lower()))
    for loc, words in expected.items():
        if loc in found:
            continue
        words = list(dict.fromkeys(words))
        name = ".".join(map(str, loc)) or "the declaration"
        found[loc] = doc.error(loc, "wrong-type", f"`{name}` must be {' or '.join(words)}")
    return list(found.values())
