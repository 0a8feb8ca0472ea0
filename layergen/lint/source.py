"""Read a Python file into what the rules need, in one pass, without importing it.

The analysis reads the standard library's `ast` (its C parser is about ten times
faster than libcst's, which the 1,000 files/s goal needs); fixes use libcst, which
keeps every other byte (see fixes.py). Names are resolved through the file's imports,
so `import keras.ops as K`, `from keras import layers as L` and
`from tensorflow import keras` all read as what they are.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field


@dataclass
class ClassInfo:
    name: str
    node: ast.ClassDef
    bases: list[str]  # resolved dotted names, such as keras.layers.Layer or .blocks.Block
    decorators: list[str]  # resolved dotted names of the decorators (their callee)
    methods: dict[str, ast.FunctionDef] = field(default_factory=dict)
    kind: str | None = None  # layer, loss, constraint, regularizer, initializer (set by kinds.py)
    keras3: bool = True  # False for tf.keras / tf_keras (Keras 2) classes
    parent_opaque: bool = (
        False  # an ancestor is a class we cannot read (a Keras layer other than Layer, or unknown)
    )
    parents: list[ClassInfo] = field(
        default_factory=list
    )  # ancestors read in this run, nearest first


@dataclass
class SourceFile:
    path: str
    text: str
    tree: ast.Module
    imports: dict[str, str]  # local name -> dotted name it stands for
    classes: list[ClassInfo]
    registered_names: set[str]  # classes registered by a module-level call
    registrars: set[str]  # functions defined here that call register_keras_serializable
    lines: list[str] = field(default_factory=list)

    def column(self, node: ast.AST) -> int:
        """1-based character column (ast counts UTF-8 bytes)."""
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return len(line.encode("utf-8")[: node.col_offset].decode("utf-8", "ignore")) + 1

    def segment(self, node: ast.AST) -> str:
        """The source text of a node, such as `np.mean` (`ast.get_source_segment` splits the
        whole file on each call)."""
        if node.lineno == node.end_lineno and node.lineno <= len(self.lines):
            line = self.lines[node.lineno - 1].encode("utf-8")
            return line[node.col_offset : node.end_col_offset].decode("utf-8", "replace")
        return ast.get_source_segment(self.text, node) or ""

    def resolve(self, node: ast.AST) -> str | None:
        """`np.mean` -> `numpy.mean` through the imports; None for anything not a dotted name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.imports.get(node.id, node.id))
        return ".".join(reversed(parts))


# Python's line breaks (`str.splitlines` also breaks at form feeds, which Python does not).
NEWLINE = re.compile(r"\r\n|\r|\n")


def read_source(path: str, text: str) -> SourceFile:
    """Raises SyntaxError for invalid Python (the engine turns it into a located error)."""
    tree = ast.parse(text, filename=path)
    imports: dict[str, str] = {}
    registered: set[str] = set()
    registrars: set[str] = set()
    classes: list[ClassInfo] = []
    source = SourceFile(
        path, text, tree, imports, classes, registered, registrars, NEWLINE.split(text)
    )
    for node in _statements(tree):  # imports anywhere (in functions, try blocks, ...)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    imports[top] = top
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                imports[alias.asname or alias.name] = (
                    f"{module}.{alias.name}" if module.strip(".") else module + alias.name
                )
    _read_body(source, tree.body)
    return source


def _read_body(source: SourceFile, body: list[ast.stmt]) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef):
            source.classes.append(_read_class(source, node))
            _read_body(source, node.body)  # nested classes
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if "register_keras_serializable" in source.text and any(
                "register_keras_serializable" in (source.resolve(n) or "")
                for n in walk(node)
                if isinstance(n, (ast.Name, ast.Attribute))
            ):
                source.registrars.add(node.name)
        elif isinstance(node, (ast.If, ast.Try)):
            _read_body(
                source, [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            )
        elif "register_keras_serializable" in source.text or "get_custom_objects" in source.text:
            # `register_keras_serializable()(Cls)`, `get_custom_objects()["Cls"] = Cls`, ...
            names = {n.id for n in walk(node) if isinstance(n, ast.Name)}
            attrs = {
                source.resolve(n) or ""
                for n in walk(node)
                if isinstance(n, (ast.Attribute, ast.Name))
            }
            if any(
                a.endswith(("register_keras_serializable", "get_custom_objects")) for a in attrs
            ):
                source.registered_names |= names


def _read_class(source: SourceFile, node: ast.ClassDef) -> ClassInfo:
    decorators = []
    for d in node.decorator_list:
        decorators.append(source.resolve(d.func if isinstance(d, ast.Call) else d) or "")
    bases = [source.resolve(b) or "" for b in node.bases]
    info = ClassInfo(node.name, node, bases, decorators)
    for member in node.body:
        if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
            info.methods[member.name] = member
    return info


def _statements(tree: ast.Module) -> list[ast.AST]:
    """The statements of `walk(tree)`, in its order: expressions hold no statements."""
    nodes: list[ast.AST] = [tree]
    kinds = (ast.stmt, ast.excepthandler, ast.match_case)
    for node in nodes:
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                nodes.extend(item for item in value if isinstance(item, kinds))
    return nodes


def walk(node: ast.AST) -> list[ast.AST]:
    """`ast.walk` (the same order), kept on the node: the rules walk the same methods many
    times. Written out because `ast.walk`'s generators cost more than parsing."""
    nodes = node.__dict__.get("_walk")
    if nodes is None:
        nodes = node._walk = [node]
        append, node_type = nodes.append, ast.AST
        for current in nodes:  # grows while it is read: breadth first, as ast.walk
            for name in current._fields:
                value = getattr(current, name, None)
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, node_type):
                            append(item)
                elif isinstance(value, node_type):
                    append(value)
    return nodes


def self_name(function: ast.FunctionDef) -> str | None:
    args = function.args.posonlyargs + function.args.args
    return args[0].arg if args else None


def self_attribute(node: ast.AST, self: str | None) -> str | None:
    """`self.x` -> "x"."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == self
    ):
        return node.attr
    return None


def is_super_call(node: ast.AST, method: str) -> bool:
    """`super().method(...)`, `super(Cls, self).method(...)` or `Base.method(self, ...)`."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
    ):
        return False
    owner = node.func.value
    if (
        isinstance(owner, ast.Call)
        and isinstance(owner.func, ast.Name)
        and owner.func.id == "super"
    ):
        return True
    return (
        isinstance(owner, (ast.Name, ast.Attribute))
        and bool(node.args)
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "self"
    )
