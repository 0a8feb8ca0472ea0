"""Render contexts through the Jinja templates and format the result with black."""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any

from ..config import BLACK_DEFAULTS, BlackStyle
from ..declaration.code import Code


@functools.cache
def environment(user_templates: str | None = None):
    import jinja2

    loaders: list[Any] = []
    if user_templates:  # a user's template overrides the built-in one of the same name
        loaders.append(jinja2.FileSystemLoader(user_templates))
    loaders.append(jinja2.FileSystemLoader(str(_builtin_templates())))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        bytecode_cache=_bytecode_cache(jinja2),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["literal"] = literal
    env.filters["pyrepr"] = literal  # its 0.1 name, which templates people copied may still use
    env.filters["block"] = block
    env.filters["wrap"] = wrap
    env.filters["comment"] = comment
    env.filters["import_block"] = import_block
    env.filters["imported_names"] = imported_names
    env.filters["reads_name"] = reads_name
    return env


def literal(value: Any) -> str:
    """Python source for a plain value, as black writes it: strings in double quotes.

    Emitting black's style up front is not cosmetic: black normalizing every
    string of a generated test module doubles the time it takes.
    """
    if isinstance(value, Code):  # code that makes the value (an object param's example)
        return value.render()
    if isinstance(value, str):
        text = repr(value)
        if text[0] == '"' or value.count('"') > value.count("'"):
            return text  # black too keeps the quotes that need fewer escapes
        return '"' + text[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(literal, value)) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(literal, value)) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def reads_name(code: str, name: str) -> bool:
    """Whether the Python `code` reads the name (`ops`), so that the module imports it: a
    mention in a string or a comment (a skip reason naming `ops.stop_gradient`, a docstring)
    is no use of it, and an unused import fails ruff."""
    tree = ast.parse(code)
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(tree))


def imported_names(names: list[str]) -> str:
    """The names of one `from ... import` in isort's order (ruff's `order-by-type`):
    constants, then classes, then the others."""
    ordered = sorted(names, key=lambda n: (not n.isupper(), not n[:1].isupper(), n))
    return ", ".join(ordered)


def block(code: str, width: int) -> str:
    """Statements indented by `width`, without the trailing newline (the template has it).

    Lines that continue a string literal are left as they are: indenting them would
    change the string. Lines end at `\n` only (`str.splitlines` would also split at
    U+2028 and the like, which Python reads as part of a comment or string).
    """
    pad = " " * width
    inside = _string_continuations(code)
    lines = code.rstrip("\n").split("\n")
    return "\n".join(
        pad + line if line and number not in inside else line
        for number, line in enumerate(lines, 1)
    )


def _string_continuations(code: str) -> set[int]:
    """The numbers of the lines (1-based) that start inside a string literal."""
    import io
    import tokenize

    lines: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(code, newline="\n").readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                lines.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):  # not Python: every line is indented
        pass
    return lines


def wrap(text: str, first: int, indent: int, width: int = 88) -> str:
    """Prose broken at spaces so that no line passes `width` columns: the first line
    starts at column `first`, the others are indented by `indent`."""
    import textwrap

    lines = textwrap.wrap(
        " " * first + text,
        max(width, first + 1),  # a line length below the indent: a word a line
        subsequent_indent=" " * indent,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return "\n".join(lines)[first:]


def comment(text: str, indent: int, width: int = 88) -> str:
    """`# ` lines of `text` at `indent`: its own lines where each fits in `width` columns,
    else the prose wrapped to fit (a project's line length narrower than black's)."""
    lines = text.split("\n")
    if any(indent + 2 + len(line) > width for line in lines):
        lines = wrap(" ".join(lines), 0, 0, width - indent - 2).split("\n")
    return "\n".join(f"{' ' * indent}# {line}" for line in lines)


def import_block(lines: list[str]) -> str:
    """Import lines in the sections and order isort (ruff's "I" rules) keeps them in:
    standard library, third party, relative; `import` before `from` in each, by module.
    """
    import sys

    sections: list[list[str]] = [[], [], []]
    for line in dict.fromkeys(_merged(lines)):
        module = line.split()[1]
        if module.startswith("."):
            sections[2].append(line)
        else:
            sections[0 if module.split(".")[0] in sys.stdlib_module_names else 1].append(line)

    def order(line: str) -> tuple:
        return (line.startswith("from "), line.split()[1].lower(), line)

    return "\n\n".join("\n".join(sorted(section, key=order)) for section in sections if section)


def _merged(lines: list[str]) -> list[str]:
    """`from m import a` and `from m import b` as one `from m import a, b`, as isort writes
    them (lines that rename a name stay apart, as its `combine-as-imports` default keeps them)."""
    names: dict[str, list[str]] = {}
    out: list[str] = []
    for line in lines:
        parts = line.split(" import ", 1)
        kept = any(token in line for token in (" as ", "(", "#", ";"))  # written as is
        if not line.startswith("from ") or len(parts) != 2 or kept:
            out.append(line)
            continue
        module = parts[0]
        if module not in names:
            names[module] = []
            out.append(module)  # its place, filled in below
        names[module] += [n.strip() for n in parts[1].split(",") if n.strip()]
    return [
        (
            f"{line} import {imported_names(list(dict.fromkeys(names[line])))}"
            if line in names
            else line
        )
        for line in out
    ]


def _bytecode_cache(jinja2):
    """Compiled templates are kept between runs, as Python keeps .pyc files.

    Jinja checks each template's source against its cached code, so an edited
    template is recompiled.
    """
    from ..config import user_cache

    folder = user_cache()
    if folder is None:
        return None  # no home: compile every time
    try:
        (folder / "jinja").mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a read-only home: compile every time
    return jinja2.FileSystemBytecodeCache(str(folder / "jinja"))


def _builtin_templates() -> Path:
    """Templates ship inside the package, as package data."""
    from ..kinds import TEMPLATES

    return TEMPLATES


def render(
    template: str,
    context: dict[str, Any],
    *,
    user_templates: str | None = None,
    style: BlackStyle = BLACK_DEFAULTS,
) -> str:
    source = render_source(
        template, context, user_templates=user_templates, line_length=style.line_length
    )
    return format_code(source, style)


def render_source(
    template: str,
    context: dict[str, Any],
    *,
    user_templates: str | None = None,
    line_length: int = 88,
) -> str:
    """The template's output before black formats it; prose in it wraps at `line_length`."""
    template_ = environment(user_templates).get_template(template)
    return template_.render({"line_length": line_length, **context})


def template_error(exc: Exception, template: str, user_templates: str | None):
    """A located error for a project template that does not render (a Jinja syntax error, a
    name its context lacks) or renders what is not Python; None when the template that failed
    is layergen's own (a bug to see whole)."""
    import traceback

    import jinja2

    from ..diagnostics import Diagnostic

    if not user_templates or not (Path(user_templates) / template).is_file():
        return None
    import os

    path = str(Path(user_templates) / template)
    hint = f"fix {os.path.relpath(path)}, or delete it to use layergen's own {template}"
    if isinstance(exc, jinja2.TemplateSyntaxError):
        where = exc.filename or path
        return Diagnostic(where, exc.lineno, 1, "bad-template", f"template: {exc.message}", hint)
    if isinstance(exc, jinja2.TemplateError):
        lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
        line = lines[-1] if lines else 1
        return Diagnostic(path, line, 1, "bad-template", f"template: {exc}", hint)
    import black

    if isinstance(exc, black.InvalidInput):
        what = str(exc).splitlines()[0]
        return Diagnostic(
            path, 1, 1, "bad-template", f"the template renders what is not Python ({what})", hint
        )
    return None


def format_code(code: str, style: BlackStyle = BLACK_DEFAULTS) -> str:
    from .formatting import format_code

    return format_code(code, style)


def source_digest(code: str, style: BlackStyle = BLACK_DEFAULTS) -> str:
    """Names what `format_code` makes of `code`: the same digest, the same formatted text."""
    import hashlib

    from .formatting import black_version

    return hashlib.sha256(f"black {black_version()} {style!r}\n{code}".encode()).hexdigest()


def one_module(texts: list[str]) -> str:
    """The module of several classes from the modules generated for each (a declaration
    file of several documents): the first's docstring, each import once (merged
    as isort writes them), then each module's other statements in order, each once. Not
    yet formatted. Raises ValueError naming a module-level name two of them define
    differently (which one would win is no choice to make silently)."""
    import libcst as cst

    docstrings: list[str] = []
    imports: list[str] = []
    rest: dict[str, str] = {}  # code -> the name it binds ("" for none)
    bound: dict[str, str] = {}  # module-level name -> its code
    for text in texts:
        module = cst.parse_module(text)
        for i, statement in enumerate(module.body):
            code = module.code_for_node(statement.with_changes(leading_lines=())).strip()
            if i == 0 and module.get_docstring() is not None:
                docstrings.append(code)
            elif _is_import(statement):
                imports += _import_lines(module, statement.body[0])
            elif code not in rest:
                name = _binds(statement)
                if name and bound.setdefault(name, code) != code:
                    raise ValueError(name)
                rest[code] = name
    # the first class's: adding a class changes no line the person may have replaced
    docstring = docstrings[0] if docstrings else ""
    parts = [p for p in (docstring, import_block(imports)) if p]
    return "\n\n".join(parts) + "\n\n\n" + "\n\n\n".join(rest) + "\n"


def _is_import(statement) -> bool:
    import libcst as cst

    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], (cst.Import, cst.ImportFrom))
    )


def _import_lines(module, node) -> list[str]:
    """An import as lines of one name each (`import_block` merges them again)."""
    import libcst as cst

    if isinstance(node, cst.Import):
        return [module.code_for_node(node.with_changes(semicolon=cst.MaybeSentinel.DEFAULT))]
    source = "." * len(node.relative) + (module.code_for_node(node.module) if node.module else "")
    if isinstance(node.names, cst.ImportStar):
        return [f"from {source} import *"]
    return [
        f"from {source} import {module.code_for_node(alias.name)}"
        + (f" as {alias.asname.name.value}" if alias.asname else "")
        for alias in node.names
    ]


def _binds(statement) -> str:
    """The module-level name a class, function or single assignment binds, else ""."""
    import libcst as cst

    if isinstance(statement, (cst.ClassDef, cst.FunctionDef)):
        return statement.name.value
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        node = statement.body[0]
        targets = (
            [t.target for t in node.targets]
            if isinstance(node, cst.Assign)
            else [node.target] if isinstance(node, cst.AnnAssign) else []
        )
        if len(targets) == 1 and isinstance(targets[0], cst.Name):
            return targets[0].value
    return ""
