"""`layergen sync`: after hand edits to a generated module, bring its declaration
up to date with the code (the code is the truth), then regenerate."""

from __future__ import annotations

import io
from pathlib import Path

from ..diagnostics import Diagnostic, DiagnosticError
from ..introspect import REQUIRED, read_classes
from ..spec.model import KINDS


def declaration_of(module: Path) -> Path:
    for kind in KINDS:
        candidate = module.with_name(f"{module.stem}.{kind}.yaml")
        if candidate.is_file():
            return candidate
    raise DiagnosticError(
        [Diagnostic(str(module), 1, 1, "no-declaration", f"no declaration `{module.stem}.<kind>.yaml` beside this module",
                    "for a layer written without layergen, use `layergen tests FILE`")]
    )


def synced_declaration(module: Path, declaration: Path) -> str:
    """The declaration's text with `params` following the class's `__init__` (comments and order kept)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    from ..render.test_context import example_value
    from ..spec.model import Param

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    data = yaml.load(declaration.read_text(encoding="utf-8"))
    kind = next(k for k in KINDS if k in data)
    classes = {c.name: c for c in read_classes(str(module), module.read_text(encoding="utf-8"))}
    cls = classes.get(data[kind])
    if cls is None:
        raise DiagnosticError([Diagnostic(str(module), 1, 1, "no-class", f"the module has no class `{data[kind]}`")])
    implicit = {"seed"} if data.get("random") else set()
    args = [a for a in cls.args if a.name not in implicit]
    params = data.get("params")
    if params is None:
        params = CommentedMap()
        keys = list(data)
        data.insert(keys.index(kind) + 1 + sum(k in data for k in ("doc", "package", "base")), "params", params)
    for name in [n for n in params if n not in {a.name for a in args}]:
        del params[name]  # the person removed the argument
    for position, arg in enumerate(args):
        entry = params.get(arg.name)
        if entry is None:
            entry = CommentedMap(type=arg.type)
            entry.fa.set_flow_style()
            if arg.default is not REQUIRED:
                entry["default"] = arg.default
            params.insert(min(position, len(params)), arg.name, entry)
            if arg.default is REQUIRED and isinstance(data.get("example"), dict):
                example_params = data["example"].setdefault("params", CommentedMap())
                example_params[arg.name] = example_value(Param(type=arg.type))
            continue
        if isinstance(entry, str):  # shorthand `units: int`
            entry = params[arg.name] = CommentedMap(type=entry)
            entry.fa.set_flow_style()
        if arg.default is REQUIRED:
            entry.pop("default", None)
        elif entry.get("default", REQUIRED) != arg.default:
            entry["default"] = arg.default
    if not params:
        del data["params"]
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()
