"""`layergen sync`: after hand edits to a generated module, bring its declaration
up to date with the code, then regenerate.

A member edited by hand since the last generation is carried back into the
declaration when the declaration can say it (the constructor's arguments; a `call`
body that renders back to the same code) and listed under `hand_written` when it
cannot. A member whose declaration also changed since then is not carried: the
declaration's change is not thrown away, the merge reports the conflict instead.
"""

from __future__ import annotations

import ast
import functools
import io
import math
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst

from .config import no_paths
from .declaration.literals import PLAIN_TYPES, literal_type
from .diagnostics import Diagnostic, DiagnosticError
from .introspect import REQUIRED, read_classes
from .kinds import KINDS
from .targets import SUFFIXES, module_of
from .textfiles import Seen, parse_python, parsed, read_text, split_line_ends, with_line_ends
from .update import conflicts as markers
from .update import members
from .update.changes import LockChanges
from .update.merge import code

if TYPE_CHECKING:
    from .config import Config
    from .update.lock import Lock
    from .update.plan import Plan


def modules_to_sync(paths: list[Path], *, skip_undeclared: bool) -> dict[Path, Path]:
    """{module: its declaration} for files and folders (a folder: every module with a declaration beside it)."""
    found: dict[Path, Path] = {}
    errors = []
    for path in paths:
        path = path.resolve()
        if path.is_dir():
            for module in sorted(path.rglob("*.py")):
                declaration = _beside(module)
                if declaration is not None:
                    found[module] = declaration
        elif not path.is_file():
            errors.append(
                Diagnostic(str(path), None, None, "no-such-file", "no such file or folder")
            )
        elif path.name.endswith(SUFFIXES):  # a declaration (the one in the editor): its module
            if module_of(path).is_file():
                found[module_of(path)] = path
        elif (declaration := _beside(path)) is not None:
            found[path] = declaration
        elif not skip_undeclared:
            errors.append(declaration_missing(path))
    if errors:
        raise DiagnosticError(errors)
    return found


def sync(paths: list[Path], config: Config, *, skip_undeclared: bool = False) -> Plan | None:
    """The run that regenerates the synced declarations, their new texts among its files."""
    from .generate import plan_run, render
    from .update.lock import Lock

    if not paths:
        raise DiagnosticError(
            [no_paths(config.root, "sync", "no modules given", "modules or folders")]
        )
    modules = modules_to_sync(paths, skip_undeclared=skip_undeclared)
    if not modules:
        return None
    declared: dict[Path, Seen] = {d: Seen.read(d) for d in modules.values()}  # as read
    lock = Lock.read(config.root)  # read once: the trials and the run read the same lock
    renamed = _class_renames(modules, declared, lock)
    # What each declaration generates now (its class renamed as its module has it).
    before = render({d: renamed.get(d, seen.text) for d, seen in declared.items()}, config, lock)
    texts: dict[Path, str] = {}
    carried: dict[Path, frozenset[str]] = {}
    frozen: dict[Path, list[str]] = {}  # members it lists under hand_written now
    seen: dict[Path, list[str]] = {}  # hand-written members whose params it carried
    for module, declaration in modules.items():
        current, _ = split_line_ends(read_text(module))
        base = lock.merge_base(module, current)
        if markers.blocks(current, base):
            continue  # an unsettled conflict: the run reports it; nothing is carried until it is settled
        parse_python(module, current, "sync")
        new = before[declaration].files[module]
        kept = {f"{n}.{m}" for n, _, owned in before[declaration].record.declared() for m in owned}
        original, line_ends = split_line_ends(
            renamed.get(declaration, declared[declaration].text or "")
        )
        parts = documents(original)
        places = [j for j, part in enumerate(parts) if _declares(part)]  # one a class, in order
        carried[module], frozen[module], seen[module] = frozenset(), [], []
        for j, name in zip(places, _classes(new)):  # the module's other classes are the person's
            owned = {m.split(".", 1)[1] for m in kept if m.startswith(f"{name}.")}
            edited = _edited_members(base, current, new, name) - owned
            whole = functools.partial(_with_document, parts, j)
            text = parts[j]
            if base is None or "__init__" in edited:
                text = synced_declaration(module, current, text)
            elif "__init__" in owned and _arguments_changed(module, current, text):
                # the arguments are the params whoever writes `__init__` (get_config and the
                # tests are generated from them): one added or taken out by hand is carried
                text = synced_declaration(module, current, text, names_only=True)
                seen[module].append(f"{name}.__init__")  # its generation now, seen
            written = _methods(current, name)
            if "call" in edited:
                text = _with_call_if_it_renders(
                    module, declaration, text, written["call"], name, config, lock, whole
                )
            rendered = _methods(_render(module, declaration, whole(text), config, lock), name)
            hand = sorted(
                m for m in edited if m not in rendered or not same(rendered[m], written[m])
            )
            parts[j] = _with_hand_written(text, hand)
            carried[module] |= {f"{name}.{m}" for m in edited if m not in hand}
            frozen[module] += [f"{name}.{m}" for m in hand]
        texts[declaration] = with_line_ends("---\n".join(parts), line_ends)
    run = plan_run(list(modules.values()), config, texts=texts, lock=lock)
    settled = LockChanges()
    for module, names in frozen.items():  # the person's code is what the declaration now says
        names = [*names, *seen[module]]
        if names and run.lock.base(module) is not None:
            new = {n: members.digest(members.member(run.generated[module], n)) for n in names}
            settled.settle_owned(module, {**run.lock.owned(module), **new})
    texts = {**renamed, **texts}  # a module with a conflict still carries its class's rename
    rewritten = {d: t for d, t in texts.items() if t != declared[d].text}
    return replace(
        run,
        carried={**run.carried, **carried},
        handed={**run.handed, **{module: names for module, names in frozen.items() if names}},
        changes=run.changes + settled,
        support={**run.support, **rewritten},
        read={**run.read, **{d: declared[d] for d in rewritten}},
    )


def _class_renames(
    modules: dict[Path, Path], declared: dict[Path, Seen], lock: Lock
) -> dict[Path, str]:
    """{declaration: its text declaring the class under the name its module gave it}, for the
    classes renamed in their modules (an IDE's rename, read from the module)."""
    from .class_renames import renamed_in_module
    from .renames import class_named, with_class

    out = {}
    for module, declaration in modules.items():
        text = declared[declaration].text
        current = Seen.read(module).text
        name = class_named((text or "").encode())
        if text is None or current is None or name is None:
            continue
        current = split_line_ends(current)[0]
        now = renamed_in_module(lock.merge_base(module, current), current, name)
        if now is not None:
            out[declaration] = with_class(text, now) or text
    return out


def _with_call_if_it_renders(
    module: Path,
    declaration: Path,
    text: str,
    written: cst.FunctionDef,
    name: str,
    config: Config,
    lock: Lock,
    whole=lambda text: text,
) -> str:
    """The declaration (`text`, the document of class `name`, which `whole` makes the whole
    file) with the module's `call` body, if it renders back to the same code (as Python reads
    it: comments and spacing aside); else as it was, for `call` to stay the person's.
    """
    with_call = _with_call(text, written)
    try:
        rendered = _methods(_render(module, declaration, whole(with_call), config, lock), name)
    except DiagnosticError:  # the body names what the declaration cannot (an import of its own)
        return text
    return with_call if "call" in rendered and same(rendered["call"], written) else text


def _render(module: Path, declaration: Path, text: str, config: Config, lock: Lock) -> str:
    """The module that the declaration in `text` generates; its errors are located in the module."""
    from .generate import render

    try:
        return render({declaration: text}, config, lock)[declaration].files[module]
    except DiagnosticError as exc:
        raise DiagnosticError(
            [
                Diagnostic(
                    str(module),
                    1,
                    1,
                    "cannot-sync",
                    f"the declaration cannot say what this module now says: {d.message}",
                    f"edit {declaration.name} by hand, or undo the edit in the module",
                )
                for d in exc.diagnostics
            ]
        ) from None


def documents(text: str) -> list[str]:
    """A declaration file's documents, one a class (docs/spec-format.md "Several layers in one
    module"): split at its `---` lines, which YAML reads as nothing else at column 0."""
    import re

    return re.split(r"^---[ \t]*\n", text, flags=re.MULTILINE)


def _declares(part: str) -> bool:
    """Whether a part of a declaration file between `---` lines holds a document (more than
    blank lines and comments)."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in part.split("\n"))


def _with_document(parts: list[str], j: int, document: str) -> str:
    """The declaration file with its part `j` replaced by `document`."""
    return "---\n".join([*parts[:j], document, *parts[j + 1 :]])


def _classes(text: str) -> list[str]:
    return [n.name.value for n in parsed(text).body if isinstance(n, cst.ClassDef)]


def _edited_members(base: str | None, current: str, new: str, name: str) -> set[str]:
    """Methods of class `name` edited by hand since `base` (comments and spacing aside) whose
    declaration did not change them since."""
    if base is None:
        return set()
    base_methods, current_methods, new_methods = (_methods(t, name) for t in (base, current, new))
    return {
        method
        for method, node in current_methods.items()
        if method in base_methods
        and not same(node, base_methods[method])
        and method in new_methods
        and code(new_methods[method]) == code(base_methods[method])
    }


def _arguments_changed(module: Path, source: str, text: str) -> bool:
    """Whether the arguments of a hand-written `__init__` of the class the declaration `text`
    declares are other than its params, by name (the base's own, `dtype` and `name`,
    passed on, aside)."""
    data, _ = _load(text)
    return _arguments(module, source, data) != set(data.get("params") or {})


def _arguments(module: Path, source: str, data) -> set[str]:
    """The names of the class's `__init__` arguments a declaration's params hold."""
    kind = next(k for k in KINDS if k in data)
    classes = {c.name: c for c in read_classes(str(module), source)}
    cls = classes.get(data[kind])
    if cls is None:
        return set(data.get("params") or {})  # reported where the declaration is rendered
    implicit = {"seed"} if data.get("random") else set()
    return {a.name for a in cls.args} - implicit - KINDS[kind].reserved


def same(one: cst.CSTNode, other: cst.CSTNode) -> bool:
    """The same code as Python reads it: comments, blank lines and spacing aside."""
    return ast.dump(ast.parse(code(one).strip())) == ast.dump(ast.parse(code(other).strip()))


def _methods(text: str, name: str | None = None) -> dict[str, cst.FunctionDef]:
    """The methods of class `name` (of every class when None) in `text`."""
    methods = {}
    for node in parsed(text).body:
        if isinstance(node, cst.ClassDef) and name in (None, node.name.value):
            for member in node.body.body:
                if isinstance(member, cst.FunctionDef):
                    methods[member.name.value] = member
    return methods


def _with_call(text: str, method: cst.FunctionDef) -> str:
    """The declaration with `call:` set to the body of `method`, the module's `call`."""
    from ruamel.yaml.scalarstring import LiteralScalarString

    data, yaml = _load(text)
    if not isinstance(data.get("call"), str):
        return text  # a train/infer mapping: not carried
    body = _declared_body(method, data)
    if body is None:
        return text
    was = data["call"]
    returned = _one_return(body)
    if returned is not None and not isinstance(was, LiteralScalarString) and "\n" not in was:
        data["call"] = type(was)(returned)  # `call: expr` stays one line, quoted as it was
    else:
        data["call"] = LiteralScalarString(body)
    return _dump(data, yaml)


def _one_return(body: str) -> str | None:
    """The expression of a body that is `return <expression>` alone on one line, or None."""
    statements = cst.parse_module(body).body
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    (statement,) = statements
    if len(statement.body) != 1:
        return None
    returned = statement.body[0]
    if not isinstance(returned, cst.Return) or returned.value is None:
        return None
    expression = code(returned.value)
    return expression if body.strip() == f"return {expression}" and "\n" not in expression else None


def _declared_body(method: cst.FunctionDef | None, data) -> str | None:
    """The body of `call` as a declaration writes it: `self.units` -> `units`."""
    if method is None or not isinstance(method.body, cst.IndentedBlock):
        return None
    names = {
        *(data.get("params") or {}),
        *(data.get("weights") or {}),
        *(data.get("sublayers") or {}),
    }

    class Unself(cst.CSTTransformer):
        def leave_Attribute(self, original, updated):
            if (
                isinstance(updated.value, cst.Name)
                and updated.value.value == "self"
                and updated.attr.value in names
            ):
                return updated.attr
            return updated

    body = cst.Module(list(method.body.body)).visit(Unself()).code
    return body.strip("\n") + "\n"


def _with_hand_written(text: str, members: list[str]) -> str:
    if not members:
        return text
    data, yaml = _load(text)
    listed = data.get("hand_written")
    if listed is None:
        from ruamel.yaml.comments import CommentedSeq

        listed = CommentedSeq()
        listed.fa.set_flow_style()
        data["hand_written"] = listed
    for member in members:
        if member not in listed:
            listed.append(member)
    return _dump(data, yaml)


def without_hand_written(text: str, names: list[str]) -> str:
    """The declaration's `text` with the members `names` (`Class.build`) no longer listed under
    `hand_written` in the document of their class (the key gone with its last member)."""
    body, line_ends = split_line_ends(text)
    parts = documents(body)
    for j, part in enumerate(parts):
        if not _declares(part):
            continue
        data, yaml = _load(part)
        kind = next((k for k in KINDS if k in data), None)
        listed = data.get("hand_written") if kind is not None else None
        gone = [n.split(".", 1)[1] for n in names if n.split(".", 1)[0] == data.get(kind)]
        if not listed or not any(n in listed for n in gone):
            continue
        for name in gone:
            if name in listed:
                listed.remove(name)
        if not listed:
            del data["hand_written"]
        parts[j] = _dump(data, yaml)
    return with_line_ends("---\n".join(parts), line_ends)


def _load(text: str):
    import re

    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    # keep `  - item` lists as they are (the key's line may end in a comment)
    if re.search(r"^\S[^\n]*:[ \t]*(#[^\n]*)?\n  - ", text, flags=re.MULTILINE):
        yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml.load(text), yaml


def _dump(data, yaml) -> str:
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _beside(module: Path) -> Path | None:
    from .targets import declarations_beside

    return next(iter(declarations_beside(module)), None)


def declaration_missing(module: Path) -> Diagnostic:
    return Diagnostic(
        str(module),
        1,
        1,
        "no-declaration",
        f"no declaration `{module.stem}.<kind>.yaml` beside this module",
        "for a layer written without layergen, use `layergen tests FILE`",
    )


def declaration_of(module: Path) -> Path:
    declaration = _beside(module)
    if declaration is None:
        raise DiagnosticError([declaration_missing(module)])
    return declaration


def synced_declaration(module: Path, source: str, text: str, *, names_only: bool = False) -> str:
    """The declaration's `text` with `params` following the `__init__` of the class in the
    module's `source` (comments and order kept). `names_only`: an `__init__` the person
    writes: the arguments added and taken out, the others' entries (and the base's own
    arguments it passes on) as the declaration has them."""
    from ruamel.yaml.comments import CommentedMap

    from .declaration.ir import example_value
    from .declaration.model import Param

    data, yaml = _load(text)
    kind = next(k for k in KINDS if k in data)
    classes = {c.name: c for c in read_classes(str(module), source)}
    cls = classes.get(data[kind])
    if cls is None:
        raise DiagnosticError(
            [Diagnostic(str(module), 1, 1, "no-class", f"the module has no class `{data[kind]}`")]
        )
    implicit = {"seed"} if data.get("random") else set()
    if names_only:
        implicit |= KINDS[kind].reserved
    args = [a for a in cls.args if a.name not in implicit]
    params = data.get("params")
    new = {a.name for a in args} - set(params or {})  # typed by their default
    problems = {
        a.name: _default_problem(a, typed_by_it=a.name in new)
        for a in args
        if a.name in new or not names_only
    }
    unwritable = [
        _default_unwritable(module, a, problems[a.name]) for a in args if problems.get(a.name)
    ]
    if unwritable:
        raise DiagnosticError(unwritable)
    if params is None:
        params = CommentedMap()
        keys = list(data)
        data.insert(
            keys.index(kind) + 1 + sum(k in data for k in ("doc", "package", "base")),
            "params",
            params,
        )
    for name in [n for n in params if n not in {a.name for a in args}]:
        del params[name]  # the person removed the argument
    for position, arg in enumerate(args):
        entry = params.get(arg.name)
        if entry is None:
            entry = CommentedMap(type=arg.type)
            if arg.default is not REQUIRED:
                entry["default"] = _plain(arg.default)
            if "[" not in arg.type and not isinstance(entry.get("default"), list):
                entry.fa.set_flow_style()  # `{type: float, default: 0.5}`; brackets need block style
            params.insert(min(position, len(params)), arg.name, entry)
            if arg.default is REQUIRED and isinstance(data.get("example"), dict):
                example_params = data["example"].setdefault("params", CommentedMap())
                example_params[arg.name] = example_value(Param(type=arg.type))
            continue
        if names_only:
            continue
        if isinstance(entry, str):  # shorthand `units: int`
            entry = params[arg.name] = CommentedMap(type=entry)
            entry.fa.set_flow_style()
        if arg.default is REQUIRED:
            entry.pop("default", None)
        elif entry.get("default", REQUIRED) != _plain(arg.default):
            entry["default"] = _plain(arg.default)
    if not params:
        del data["params"]
    return _dump(data, yaml)


def _default_problem(arg, *, typed_by_it: bool = False) -> str | None:
    """Why a declaration cannot hold the argument's default as it is, or None.
    `typed_by_it`: the param's type is read from the default (unless annotated)."""
    if arg.default is REQUIRED:
        return None
    if not arg.literal:
        return "is an expression, and a declaration holds values only"
    listed = isinstance(arg.default, (list, tuple))
    for value in arg.default if listed else [arg.default]:
        if value is not None and type(value) not in (bool, int, float, str):
            return f"{'holds' if listed else 'is'} {_kind(value)}, which no param type holds"
        if isinstance(value, float) and not math.isfinite(value):
            return "is not a finite number"
    if typed_by_it and listed and arg.annotation not in PLAIN_TYPES:
        if not arg.default:
            return (
                "is an empty list, which says no item type"
                f" (annotate it: `{arg.name}: list[float] = []`)"
            )
        if literal_type(arg.default) is None:
            return "mixes items no one param type holds"
    return None


def _kind(value) -> str:
    names = {complex: "a complex number", bytes: "bytes", type(...): "Ellipsis"}
    return names.get(type(value), f"a {type(value).__name__}")


def _default_unwritable(module: Path, arg, problem: str) -> Diagnostic:
    return Diagnostic(
        str(module),
        arg.line,
        arg.column,
        "cannot-sync",
        f"the default of `{arg.name}` (`{arg.default_code}`) {problem}",
        "write it as a number, a string, True, False, None or a list of them; or edit the"
        " declaration by hand and undo the edit here",
    )


def _plain(value):
    """A default as YAML writes it: a tuple is a list (`head_sizes=(4, 4)`), on one line."""
    if not isinstance(value, (list, tuple)):
        return value
    from ruamel.yaml.comments import CommentedSeq

    items = CommentedSeq(value)
    items.fa.set_flow_style()
    return items
