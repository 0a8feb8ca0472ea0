"""Python snippets from a declaration: parsed, never executed.

A `Code` knows its free names (names read but bound nowhere in the snippet)
with their positions in the YAML file, so unknown names are reported where
they were written, and it renders itself with some free names replaced
(`units` -> `self.units`, `x` -> `input_shape`).
"""

from __future__ import annotations

import ast
import builtins
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import (
    BuiltinAssignment,
    ExpressionContextProvider,
    MetadataWrapper,
    PositionProvider,
    ScopeProvider,
)

from ..diagnostics import Diagnostic
from .yamlfile import Pos, value_position

BUILTINS = frozenset(dir(builtins))

_VISITOR_NAMES: dict[type, tuple[str, ...]] = {}


def _visitor_methods(visitor: cst.BatchableCSTVisitor) -> dict:
    """`get_visitors`, with the names listed once per class. libcst lists them with
    `inspect.getmembers` on every run, getting each of a provider's thousand attributes
    to keep one (Instagram/LibCST#1439): a fifth of a declaration's analysis."""
    names = _VISITOR_NAMES.get(type(visitor))
    if names is None:
        names = _VISITOR_NAMES[type(visitor)] = tuple(cst.BatchableCSTVisitor.get_visitors(visitor))
    return {name: getattr(visitor, name) for name in names}


# The providers behind ScopeProvider; neither sets visitor methods on an instance.
ScopeProvider.get_visitors = ExpressionContextProvider.get_visitors = _visitor_methods


@dataclass(frozen=True)
class FreeName:
    name: str
    node: cst.Name


@dataclass
class Code:
    text: str
    is_expression: bool
    module: cst.Module
    pos: Pos  # where the snippet sits in the YAML file
    free: list[FreeName] = field(default_factory=list)  # filled by `resolve`
    bound: list[FreeName] = field(default_factory=list)  # names it assigns, outside nested scopes
    value: str | None = None  # the YAML value the snippet was cut from
    lead: int = 0  # where `text` starts in `value` (negative: layergen added a prefix)

    def render(self, rename: dict[str, str] | None = None) -> str:
        """The code with free names replaced; an expression comes back without a newline."""
        rename = rename or {}
        targets = {id(f.node): rename[f.name] for f in self.free if f.name in rename}
        module = self.module.visit(_Rename(targets)) if targets else self.module
        if (
            self.is_expression
        ):  # the expression alone: a comment around it would swallow what follows it
            return module.code_for_node(module.body[0].body[0].value)
        return module.code

    def locate(self, node: cst.CSTNode) -> tuple[int, int]:
        """A node's line and column in the YAML file (computed only for errors: it costs a pass)."""
        start = (
            MetadataWrapper(self.module, unsafe_skip_copy=True)
            .resolve(PositionProvider)[node]
            .start
        )
        return _locate(self.pos, self.value, self.text, self.lead, start.line, start.column)


def expression_node(code: Code) -> cst.BaseExpression:
    """The expression a one-expression snippet holds."""
    return code.module.body[0].body[0].value


def is_input_shape(node: cst.BaseExpression, inputs: set[str]) -> bool:
    """In a shape, an input's name alone (`x`) or sliced (`x[1:]`) stands for several dims."""
    if isinstance(node, cst.Name):
        return node.value in inputs
    return (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and node.value.value in inputs
        and any(isinstance(e.slice, cst.Slice) for e in node.slice)
    )


def shape_rank(code: Code, inputs: set[str]) -> int | None:
    """The number of dims of a shape expression, when it is known without the input shapes."""
    node = expression_node(code)
    if isinstance(node, cst.Tuple):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return len(node.elements)
    return None if is_input_shape(node, inputs) else 1


def resolve(codes: list[Code]) -> None:
    """Find the free names of many snippets in one libcst scope analysis.

    Each snippet becomes the body of its own function in one module (the nodes
    are shared, not copied), so a name assigned in one snippet never binds in another.
    A builtin's name is free too: a declared name (an input `map`) comes before it.
    """
    if not codes:
        return
    functions = [
        cst.FunctionDef(
            name=cst.Name(f"_snippet{i}"),
            params=cst.Parameters(),
            body=cst.IndentedBlock(body=c.module.body),
        )
        for i, c in enumerate(codes)
    ]
    owner = {id(f): code for f, code in zip(functions, codes)}
    wrapper = MetadataWrapper(cst.Module(body=functions), unsafe_skip_copy=True)
    for code in codes:
        code.free, code.bound = [], []
    for scope in {s for s in wrapper.resolve(ScopeProvider).values() if s is not None}:
        top = scope
        while id(getattr(top, "node", None)) not in owner:
            parent = getattr(top, "parent", None)
            if parent is None or parent is top:  # the global and builtin scopes own no snippet
                break
            top = parent
        if id(getattr(top, "node", None)) not in owner:
            continue
        code = owner[id(top.node)]
        for access in scope.accesses:
            if isinstance(access.node, cst.Name) and all(
                isinstance(r, BuiltinAssignment) for r in access.referents
            ):
                code.free.append(FreeName(access.node.value, access.node))
        if scope is top:
            code.bound.extend(FreeName(a.name, a.node) for a in scope.assignments)


class _Rename(cst.CSTTransformer):
    def __init__(self, targets: dict[int, str]):
        self.targets = targets

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        replacement = self.targets.get(id(original))
        return cst.parse_expression(replacement) if replacement is not None else updated


def _locate(
    pos: Pos, value: str | None, source: str, lead: int, line: int, col: int
) -> tuple[int, int]:
    """Map a 1-based line / 0-based column inside a snippet's `source` to the YAML file."""
    if value is not None:
        lines = python_lines(source)
        line = min(max(line, 1), len(lines) + 1)
        offset = sum(len(text) for text in lines[: line - 1]) + max(col, 0)
        found = value_position(pos, value, offset + lead)
        if found is not None:
            return found
    return _to_yaml(pos, line, col)


def python_lines(source: str) -> list[str]:
    """The lines of `source` as Python counts them, with their ends.

    Only `\n`, `\r\n` and `\r` end a line of Python; `str.splitlines` also splits on
    U+2028, `\x0b`, `\x85` and the like, which Python reads as part of a comment or string.
    """
    return [line for line in _PYTHON_LINE.findall(source) if line]


_PYTHON_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _to_yaml(pos: Pos, line: int, col: int) -> tuple[int, int]:
    """Map a 1-based line / 0-based column inside a snippet to the YAML file, from the snippet's start alone."""
    if pos.style in ("|", ">"):
        return pos.line + line, pos.indent + col
    quoted = 1 if pos.style in ("'", '"') else 0
    if line == 1:
        return pos.line, pos.col + quoted + col
    return pos.line + line - 1, col + 1


def _cut_by_comma(pos: Pos) -> str | None:
    """The hint for a plain value a flow mapping's `,` cut short: `{shape: (a, b)}`."""
    after = (
        pos.source.text[pos.end : pos.end + 1] if pos.source is not None and pos.end >= 0 else ""
    )
    if pos.style is None and after == ",":
        return (
            "inside a flow mapping `{...}` a `,` ends the value: write this key in block style "
            "on its own lines, or quote the expression"
        )
    return None


def parse(
    text: str,
    pos: Pos,
    path: str,
    *,
    expression: bool | None = None,
    prefix: str = "",
    suffix: str = "",
) -> Code | Diagnostic:
    """Parse a snippet. `expression`: True requires one, False a block, None either.

    `prefix` and `suffix` wrap the text (`(` and `,)` make one shape dim a tuple);
    positions inside the text still map to the YAML file.
    """
    lead = 0
    source = text
    if pos.style not in ("|", ">"):
        source = text.strip("\n")
        lead = len(text) - len(text.lstrip("\n"))
    if not source.strip():
        line, col = _locate(pos, text, text, 0, 1, 0)
        return Diagnostic(path, line, col, "empty-code", "this code is empty")
    is_expression = expression
    if expression is None:
        try:
            _quiet_parse(source.strip(), "eval")
            is_expression = True
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            is_expression = False
    if is_expression:
        lead += len(source) - len(source.lstrip())
        source = source.strip()
    if prefix or suffix:  # the suffix on a line of its own, after any comment
        source = prefix + source + "\n" + suffix
        lead -= len(prefix)
    kind = "expression" if is_expression else "Python code"

    def error(line: int, col: int, message: str) -> Diagnostic:
        line, col = _locate(pos, text, source, lead, line, col)
        return Diagnostic(
            path, line, col, "python-syntax", f"invalid {kind}: {message}", _cut_by_comma(pos)
        )

    try:
        _quiet_parse(source, "eval" if is_expression else "exec")
    except SyntaxError as exc:
        return error(exc.lineno or 1, max((exc.offset or 1) - 1, 0), exc.msg)
    except (
        ValueError,
        MemoryError,
        RecursionError,
    ) as exc:  # null bytes; nesting too deep to parse
        return error(1, 0, str(exc) or "the code is nested too deeply")
    problem = _compile_problem(source, bool(is_expression))
    if problem is not None:
        return error(*problem)
    try:
        module = cst.parse_module(source if source.endswith("\n") else source + "\n")
    except cst.ParserSyntaxError as exc:
        return error(exc.raw_line, exc.raw_column, exc.message)
    except RecursionError:
        return error(1, 0, "the code is nested too deeply")
    return Code(source, bool(is_expression), module, pos, value=text, lead=lead)


def _quiet_parse(source: str, mode: str) -> ast.AST:
    """`ast.parse` without printing the warnings it finds (an invalid escape sequence): they are the user's business."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, mode=mode)


_INDENT = " " * 8  # a multiple of 8 keeps tab-indented code as consistent as it was


def _compile_problem(source: str, is_expression: bool) -> tuple[int, int, str] | None:
    """Errors only the compiler finds (`break` outside a loop, `await` outside async, ...).

    The snippet is compiled, never run, as the body of a function, where the
    generated code puts it.
    """
    if is_expression:
        wrapped, first, shift = "def _snippet():\n return (\n" + source + "\n )\n", 2, 0
    else:
        wrapped = (
            "def _snippet():\n" + "".join(_INDENT + text for text in python_lines(source)) + "\n"
        )
        first, shift = 1, len(_INDENT)
    try:
        with (
            warnings.catch_warnings()
        ):  # a `SyntaxWarning` is the user's business, not printed while generating
            warnings.simplefilter("ignore")
            compile(wrapped, "<snippet>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = max((exc.lineno or 1) - first, 1)
        return line, max((exc.offset or 1) - 1 - shift, 0), exc.msg
    except (ValueError, MemoryError, RecursionError) as exc:
        return 1, 0, str(exc) or type(exc).__name__
    return None


def bound_names(text: str) -> set[str]:
    """Names a block binds (assigned, loop or `with` targets): losses may read those of `call`."""
    try:
        tree = _quiet_parse(text, "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()  # reported where the block is parsed
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }


def returned_values(code: Code) -> list[cst.BaseExpression]:
    """What the snippet returns: the expression itself, or each `return`'s value in its own
    scope (not in nested functions or lambdas)."""
    if code.is_expression:
        return [code.module.body[0].body[0].value]
    found: list[cst.BaseExpression] = []

    class Visitor(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            if node.value is not None:
                found.append(node.value)

    code.module.visit(Visitor())
    return found


class _Returns(cst.CSTTransformer):
    """Rewrites each `return E` of the snippet's own scope (not of nested functions)."""

    def __init__(self, make: Callable[[str], list[str]]):
        self.make = make
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return True

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        self.depth -= 1
        return updated

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_SimpleStatementLine(self, original, updated):
        if self.depth or not updated.body or not isinstance(updated.body[-1], cst.Return):
            return updated
        ret = updated.body[-1]
        value = cst.Module([]).code_for_node(ret.value) if ret.value is not None else "None"
        statements = [cst.parse_statement(s) for s in self.make(value)]
        before = [updated.with_changes(body=updated.body[:-1])] if len(updated.body) > 1 else []
        return cst.FlattenSentinel(before + statements)


def body(
    code: Code,
    rename: dict[str, str] | None = None,
    returns: Callable[[str], list[str]] | None = None,
) -> str:
    """The snippet as the statements of a function body.

    An expression becomes `return <expression>`; `returns` rewrites every
    `return E` into other statements (to attach a gradient, or update state).
    """
    text = code.render(rename)
    if code.is_expression:
        text = f"return {text}\n" if returns is None else "".join(s + "\n" for s in returns(text))
        return text
    if returns is None:
        return text
    return cst.parse_module(text).visit(_Returns(returns)).code


def inference_reads(code: Code) -> set[str]:
    """The free names `code` reads on an inference call: not those read only where
    `training` is true (`if training:`, `if training and rate > 0:`, the first branch of
    `a if training else b`), such as a power-iteration step that moves state."""
    skipped = _training_only(code)
    return {f.name for f in code.free if id(f.node) not in skipped}


def names_reached(code: Code, names: set[str], inference: bool) -> set[str]:
    """Which of `names` (methods, ops) `code` reads, bare or as `self.<name>`: with
    `inference`, only where an inference call may (not under `if training:`)."""
    skipped = _training_only(code) if inference else set()
    found = {f.name for f in code.free if id(f.node) not in skipped}

    class SelfAttributes(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            is_self = isinstance(node.value, cst.Name) and node.value.value == "self"
            if is_self and id(node) not in skipped:
                found.add(node.attr.value)

    code.module.visit(SelfAttributes())
    return found & names


def inference_uses(code: Code, attribute: str) -> str | None:
    """Where `code` reaches `attribute` (`ops.stop_gradient`): "inference" when an
    inference call may, "training" when only training does, else None."""
    found = []

    class Uses(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if node.attr.value == attribute:
                found.append(id(node))

    code.module.visit(Uses())
    if not found:
        return None
    skipped = _training_only(code)
    return "training" if all(n in skipped for n in found) else "inference"


def _training_only(code: Code) -> set[int]:
    """The ids of the nodes of `code` that run only where `training` is true."""
    skipped: set[int] = set()

    class Every(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            skipped.add(id(node))
            return True

    class TrainingOnly(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            if _implies_training(node.test):
                node.body.visit(Every())
            elif _implies_training(_negated(node.test)) and node.orelse is not None:
                node.orelse.visit(Every())

        def visit_IfExp(self, node: cst.IfExp) -> None:
            if _implies_training(node.test):
                node.body.visit(Every())
            elif _implies_training(_negated(node.test)):
                node.orelse.visit(Every())

    code.module.visit(TrainingOnly())
    return skipped


def _negated(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` for `not x`, else None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.expression
    return None


def _implies_training(test: cst.BaseExpression | None) -> bool:
    """Whether `test` can be true only when `training` is: `training`, `training and ...`."""
    if isinstance(test, cst.Name):
        return test.value == "training"
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _implies_training(test.left) or _implies_training(test.right)
    return False
