"""Read a declaration file: YAML -> pydantic -> analysis -> IR, all errors located."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import MESH_AXES
from ..diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..kinds import KINDS
from ..textfiles import read_bytes
from . import model
from .analyze import Checked, analyze
from .yamlfile import Document
from .yamlfile import load as load_yaml
from .yamlfile import load_documents as load_yaml_documents

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
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
}


def load_declaration(path: str | Path, *, mesh_axes: tuple[str, ...] = MESH_AXES) -> Checked:
    path = Path(path)
    return parse_declaration(str(path), read_bytes(path), mesh_axes=mesh_axes)


# Sections whose keys are names the code uses; an error inside one item drops that item only.
_NAMED = ("params", "inputs", "weights", "sublayers", "ops", "methods")
# Names a top-level key brings into scope, taken as known once the key is dropped for an error.
_BRINGS = {"random": {"seed_generator", "seed"}, "masking": {"mask"}, "call": {"call"}}
_PLACEHOLDER = (
    "Unnamed"  # the class name assumed while checking the rest of a file whose name is wrong
)


def parse_declaration(path: str, raw: bytes, *, mesh_axes: tuple[str, ...] = MESH_AXES) -> Checked:
    """Load, validate and analyze a declaration of one class, then build its IR; every
    problem found is raised at once. `mesh_axes`: the axes its layouts may name
    (`[tool.layergen] mesh-axes`)."""
    return _checked(load_yaml(path, raw), mesh_axes)


def parse_declarations(
    path: str, raw: bytes, *, mesh_axes: tuple[str, ...] = MESH_AXES
) -> list[Checked]:
    """Every class a declaration file declares, one a document, in the file's order; the
    problems of all its documents raised at once (a class named twice among them too)."""
    checked: list[Checked] = []
    errors: list[Diagnostic] = []
    for doc in load_yaml_documents(path, raw):
        try:
            checked.append(_checked(doc, mesh_axes))
        except DiagnosticError as exc:
            errors.extend(exc.diagnostics)
    first: dict[str, Checked] = {}
    for analysis in checked:
        name, kind = analysis.decl.name, analysis.decl.kind
        if name in first:
            line = first[name].doc.pos((first[name].decl.kind,)).line
            errors.append(
                analysis.doc.error(
                    (kind,),
                    "duplicate-name",
                    f"`{name}` is declared twice in this file (first at line {line})",
                    "rename one of the classes",
                )
            )
        first.setdefault(name, analysis)
    if errors:
        raise DiagnosticError(errors)
    return checked


def _checked(doc: Document, mesh_axes: tuple[str, ...]) -> Checked:
    errors = _check_kind(doc)
    from pydantic import ValidationError

    try:
        decl = model.Declaration.model_validate(doc.data)
    except ValidationError as exc:
        details = exc.errors()
        raise DiagnosticError(
            errors + _validation_diagnostics(doc, details) + _analyze_rest(doc, details, mesh_axes)
        ) from None
    try:
        analysis = analyze(doc, decl, mesh_axes=mesh_axes)
    except DiagnosticError as exc:
        raise DiagnosticError(errors + exc.diagnostics) from None
    if errors:
        raise DiagnosticError(errors)
    return analysis


def _check_kind(doc: Document) -> list[Diagnostic]:
    """Problems with the kind key. The data is patched so that the rest of the file is still checked."""
    kinds = [k for k in KINDS if k in doc.data]
    suffix = Path(doc.path).name.rsplit(".", 2)
    declared = (
        suffix[-2] if len(suffix) == 3 and suffix[-1] == "yaml" and suffix[-2] in KINDS else None
    )
    if not kinds:
        expected = declared or "layer"
        doc.data = {expected: _PLACEHOLDER, **doc.data}
        return [
            doc.error(
                (),
                "missing-kind",
                f"no kind key: the file must name its class with one of {', '.join(KINDS)}",
                f"add `{expected}: MyName` as the first line",
            )
        ]
    errors = []
    if len(kinds) > 1:
        errors += [
            doc.error(
                (k,),
                "doubled-kind",
                f"`{k}` and `{kinds[0]}` both name the class; keep one",
                key=True,
            )
            for k in kinds[1:]
        ]
        doc.data = {k: v for k, v in doc.data.items() if k not in kinds[1:]}
    if not isinstance(doc.data[kinds[0]], str):
        errors.append(
            doc.error(
                (kinds[0],),
                "bad-class-name",
                f"`{kinds[0]}` takes the class name",
                "such as `layer: ScaledDense`",
            )
        )
        doc.data[kinds[0]] = _PLACEHOLDER
    if declared is not None and declared != kinds[0]:
        errors.append(
            doc.error(
                (kinds[0],),
                "kind-mismatch",
                f"the file is a .{declared}.yaml but declares a {kinds[0]}",
                f"rename the file to .{kinds[0]}.yaml, or write `{declared}:`",
                key=True,
            )
        )
    return errors


def _analyze_rest(
    doc: Document, errors: list[dict], mesh_axes: tuple[str, ...]
) -> list[Diagnostic]:
    """Check names and code in what validates once the invalid parts are dropped.

    A best effort, so that one structural mistake does not hide the others: each
    dropped item's name is taken as known, so nothing is reported twice.
    """
    cuts: list[tuple] = []
    ignore: set[str] = set()
    for err in errors:
        loc = _data_loc(doc, err["loc"])
        if not loc:
            return []  # the declaration as a whole has the wrong shape
        if err["type"] == "extra_forbidden" or _is_key_error(err):
            cuts.append(loc)  # an unknown key, or a key that is not a name: drop the key alone
        elif loc[0] in _NAMED:
            if len(loc) == 1:
                return (
                    []
                )  # the whole section is wrong: its names are unknown, too much would follow
            cuts.append(loc[:2])
            ignore.add(str(loc[1]))
        elif loc[0] == "example":
            cuts.append(loc[:3] if len(loc) >= 3 and loc[1] == "params" else loc[:2])
        else:
            cuts.append(loc[:1])
            ignore |= _BRINGS.get(str(loc[0]), set())
    data = _copy(doc.data)
    for cut in cuts:
        node = _value_at(data, cut[:-1])
        if isinstance(node, dict):
            node.pop(cut[-1], None)
        elif isinstance(node, list) and isinstance(cut[-1], int) and cut[-1] < len(node):
            node[cut[-1]] = None  # keep the other items' indexes
    from pydantic import ValidationError

    try:
        decl = model.Declaration.model_validate(data)
        analyze(
            Document(doc.path, data, doc.values, doc.keys),
            decl,
            ignore=frozenset(ignore),
            mesh_axes=mesh_axes,
        )
    except (ValidationError, DiagnosticError) as exc:
        return exc.diagnostics if isinstance(exc, DiagnosticError) else []
    return []


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _is_key_error(err: dict) -> bool:
    """A mapping key that is not a string (YAML read `1:` as a number, `true:` as a boolean)."""
    return err["type"] == "invalid_key" or (
        err["type"] == "string_type" and bool(err["loc"]) and err["loc"][-1] == "[key]"
    )


def _data_loc(doc: Document, loc: tuple) -> tuple:
    """The longest prefix of a pydantic error location that exists in the document."""
    out: tuple = ()
    node: Any = doc.data
    for part in loc:
        if isinstance(node, dict):
            part = _actual_key(node, part)
        if (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and part < len(node)
        ):
            node = node[part]
        else:
            continue  # a union member's tag, or a key that is missing
        out += (part,)
    return out


def _actual_key(node: dict, part: Any) -> Any:
    """The key of `node` that pydantic names `part`: `None` for `null:` (pydantic says 'None'), `True` (not 1) for `true:`."""
    for key in node:
        if key == part and type(key) is type(part):
            return key
    for key in node:
        if key == part or (not isinstance(key, str) and str(key) == part):
            return key
    return part


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
        if _is_key_error(err):
            key = loc[-1] if loc else err["loc"][-1]
            reads = (
                "a boolean"
                if isinstance(key, bool)
                else (
                    "a number"
                    if isinstance(key, (int, float))
                    else "null" if key is None else "something other than a string"
                )
            )
            written = "null" if key is None else str(key).lower() if isinstance(key, bool) else key
            found[loc] = doc.error(
                loc,
                "bad-name",
                f"key `{written}` is not a name: YAML reads it as {reads}",
                "names start with a letter or `_`; quote the key if it is meant as text",
                key=True,
            )
        elif kind == "extra_forbidden" and (cut := _cut_by_comma(doc, loc)) is not None:
            owner, value, first = cut
            if first:  # the words after the other commas are the same mistake
                found[loc] = doc.error(
                    loc,
                    "unknown-key",
                    f"`{loc[-1]}` is not a key: inside a flow mapping `{{...}}` the `,` before"
                    f" it ends the value of `{owner}`",
                    f"quote it: `{owner}: {_quoted(value)}`, or write the mapping in block style",
                    key=True,
                )
        elif kind == "extra_forbidden":
            cls = _section(loc[:-1])
            hint = did_you_mean(str(loc[-1]), _keys(cls)) if cls else None
            where = "at the top level" if len(loc) == 1 else f"in `{'.'.join(map(str, loc[:-1]))}`"
            found[loc] = doc.error(
                loc,
                "unknown-key",
                f"unknown key `{loc[-1]}` {where}",
                hint or (f"allowed keys: {', '.join(_keys(cls))}" if cls else None),
                key=True,
            )
        elif kind == "missing":
            name = err["loc"][-1]
            found[loc + (name,)] = doc.error(loc, "missing-key", f"missing required key `{name}`")
        elif kind == "literal_error":
            allowed = [
                a.strip(" '") for a in err["ctx"]["expected"].replace(" or ", ", ").split(", ")
            ]
            # `aggregation` names Keras's ways of combining replicas; the others are types.
            what = "aggregation" if loc and loc[-1] == "aggregation" else "type"
            found[loc] = doc.error(
                loc,
                "unknown-type",
                f"unknown {what} `{err['input']}`",
                did_you_mean(str(err["input"]), allowed) or f"{what}s: {', '.join(allowed)}",
            )
        else:
            expected.setdefault(loc, []).append(_TYPE_WORDS.get(kind, err["msg"].lower()))
    for loc, words in expected.items():
        if loc in found:
            continue
        words = list(dict.fromkeys(words))
        name = ".".join(map(str, loc)) or "the declaration"
        hint = None
        if _value_at(doc.data, loc) is None:
            hint = "the value is empty (null): write one, or remove the key"
        elif len(loc) == 2 and loc[0] == "weights":
            hint = "a weight is its shape (`k: (units,)`) or a mapping with `shape`"
        found[loc] = doc.error(loc, "wrong-type", f"`{name}` must be {' or '.join(words)}", hint)
    return list(found.values())


def _cut_by_comma(doc: Document, loc: tuple) -> tuple[str, str, bool] | None:
    """For a key that is the rest of a plain value a flow mapping's `,` cut short
    (`{doc: a, b}` reads `b` as a key): the key of that value, the value's whole
    text, and whether this is the first word cut from it; else None."""
    mapping, where = _value_at(doc.data, loc[:-1]), doc.values.get(loc[:-1])
    if not isinstance(mapping, dict) or where is None or where.source is None:
        return None
    text = where.source.text
    if text[where.start : where.start + 1] != "{":
        return None
    keys = list(mapping)

    def cut(i: int) -> bool:  # a bare word after a comma: no `:`, no value
        pos = doc.keys.get(loc[:-1] + (keys[i],))
        return (
            i > 0
            and mapping[keys[i]] is None
            and pos is not None
            and pos.style is None
            and text[: pos.start].rstrip().endswith(",")
            and text[pos.end :].lstrip()[:1] in (",", "}")
        )

    first = last = keys.index(loc[-1])
    if not cut(first):
        return None
    while cut(first - 1):
        first -= 1
    while last + 1 < len(keys) and cut(last + 1):
        last += 1
    owner = keys[first - 1]
    start, end = doc.values.get(loc[:-1] + (owner,)), doc.keys[loc[:-1] + (keys[last],)]
    if start is None or start.style is not None or mapping[owner] is None:
        return None
    return str(owner), text[start.start : end.end], keys[first] == loc[-1]


def _quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value_at(data: Any, loc: tuple) -> Any:
    """The value at `loc`, or None where the path does not lead anywhere."""
    for part in loc:
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data
