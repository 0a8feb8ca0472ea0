"""Read a Python file into what the rules need, in one pass, without importing it.

The analysis reads the standard library's `ast` (its C parser is about ten times
faster than libcst's, which the 1,000 files/s goal needs); fixes use libcst, which
keeps every other byte (see fixes.py). Names are resolved through the file's imports,
so `import keras.ops as K`, `from keras import layers as L` and
`from tensorflow import keras` all read as what they are.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize
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
    keras2: bool = False  # the file uses tf.keras / tf_keras, not Keras 3
    ambiguous: ast.stmt | None = None  # the import whose Keras cannot be told (which_keras.py)

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
        return ast.get_source_segment(self.text.removeprefix(BOM), node) or ""

    def resolve(self, node: ast.AST) -> str | None:
        """`np.mean` -> `numpy.mean` through the imports; None for anything not a dotted name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.imports.get(node.id, node.id))
        return canonical(".".join(reversed(parts)))


def canonical(name: str) -> str:
    """The Keras a name stands for, however it arrives: `tensorflow.compat.v2` (and v1) is
    TensorFlow's own API, so `tf.compat.v2.keras` is `tensorflow.keras`; a package's own
    module named `tf_keras` (`from mypkg.internal import tf_keras`) is Keras 2's shim."""
    if "compat.v" in name:
        name = re.sub(r"^tensorflow\.compat\.v[12](?=\.|$)", "tensorflow", name)
    if ".tf_keras" in name:
        parts = name.split(".")
        if "tf_keras" in parts[1:]:
            name = ".".join(parts[parts.index("tf_keras", 1) :])
    return name


def decode(data: bytes) -> tuple[str, str | None]:
    """A file's text as Python reads it: UTF-8, or what its PEP 263 coding cookie says;
    with why Python cannot read it, if it cannot (its bytes then stand as surrogates, so
    two files decoded alike are alike). Line endings are kept; so is a byte-order mark."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode("utf-8" if encoding == "utf-8-sig" else encoding), None
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        reason = str(exc) if isinstance(exc, SyntaxError) else f"not valid UTF-8 ({exc})"
        return data.decode("utf-8", "surrogateescape"), reason


COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)


def encoding_of(text: str) -> str:
    """The encoding a file's coding cookie names (in its first two lines), else UTF-8."""
    found = COOKIE.search("\n".join(text.split("\n", 2)[:2]))
    try:
        return codecs.lookup(found.group(1)).name if found else "utf-8"
    except LookupError:
        return found.group(1)


BOM = "\ufeff"  # a UTF-8 byte-order mark, as decoded: Python reads past it

# Python's line breaks (`str.splitlines` also breaks at form feeds, which Python does not).
NEWLINE = re.compile(r"\r\n|\r|\n")


def read_source(path: str, text: str) -> SourceFile:
    """Raises SyntaxError for invalid Python (the engine turns it into a located error).
    A byte-order mark is kept in `text` (a fix writes it back) and is no character of the
    code: Python's own reader drops it, and so do the lines and columns here."""
    code = text.removeprefix(BOM)
    tree = ast.parse(code, filename=path)
    imports: dict[str, str] = {}
    registered: set[str] = set()
    registrars: set[str] = set()
    classes: list[ClassInfo] = []
    source = SourceFile(
        path, text, tree, imports, classes, registered, registrars, NEWLINE.split(code)
    )
    for node in _statements(tree):  # imports anywhere (in functions, try blocks, ...)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.update(imported(node))
    _aliases(source)
    source.keras2 = _keras2(source)
    _read_body(source, tree.body)
    return source


def imported(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """(local name, dotted name it stands for) of each name an import binds."""
    if isinstance(node, ast.Import):
        return [
            (
                (alias.asname, canonical(alias.name))
                if alias.asname
                else (alias.name.split(".")[0],) * 2
            )
            for alias in node.names
        ]
    module = "." * node.level + (node.module or "")
    return [
        (
            alias.asname or alias.name,
            canonical(f"{module}.{alias.name}" if module.strip(".") else module + alias.name),
        )
        for alias in node.names
    ]


def _aliases(source: SourceFile) -> None:
    """`layers = tf_keras.layers`: an import under another name."""
    for node in source.tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Attribute, ast.Name))
        ):
            name = source.resolve(node.value)
            if name and name.split(".")[0] in KERAS_MODULES:
                source.imports[node.targets[0].id] = name


def rebind(source: SourceFile, imports: dict[str, str]) -> None:
    """Read the file again with some of its imports standing for other names (what they
    stand for once followed through the project's modules: which_keras.py)."""
    source.imports.update(imports)
    _aliases(source)
    source.keras2 = _keras2(source)
    for cls in source.classes:
        read = _read_class(source, cls.node)
        cls.bases, cls.decorators = read.bases, read.decorators


KERAS_MODULES = {"keras", "tensorflow", "tf_keras"}
KERAS2_MODULES = ("tf_keras", "tensorflow.keras", "tensorflow.python.keras")


def _keras2(source: SourceFile) -> bool:
    """Whether the file uses Keras 2 (`tf_keras`, `tf.keras`) and not Keras 3 (`keras`)."""
    names = set(source.imports.values())
    if any(n == "keras" or n.startswith("keras.") for n in names):
        return False
    tensorflow = [local for local, n in source.imports.items() if n == "tensorflow"]
    return any(n.startswith(KERAS2_MODULES) for n in names) or any(
        f"{local}.keras." in source.text for local in tensorflow
    )


def _read_body(source: SourceFile, body: list[ast.stmt]) -> None:
    registering = "register_keras_serializable" in source.text
    for node in body:
        if isinstance(node, ast.ClassDef):
            source.classes.append(_read_class(source, node))
            _read_body(source, node.body)  # nested classes
        elif isinstance(node, (ast.If, ast.Try)):
            _read_body(
                source, [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            )
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # one that registers is found below
        elif registering or "get_custom_objects" in source.text:
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
    if registering and body is source.tree.body:
        _find_registrars(source)


def _find_registrars(source: SourceFile) -> None:
    """The module's names that register what they decorate: functions and classes (an
    export decorator such as keras-hub's) whose code calls `register_keras_serializable`
    or another of them, and aliases (`reg = keras.saving.register_keras_serializable(...)`)."""
    members = {}
    for node in source.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            members[node.name] = node
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            for target in node.targets:
                members[target.id] = node.value
    found = source.registrars
    grown = True
    while grown:  # a function that calls one that registers registers too
        grown = False
        for name, node in members.items():
            if name not in found and any(
                (isinstance(n, ast.Name) and n.id in found)
                or (
                    isinstance(n, (ast.Name, ast.Attribute))
                    and (source.resolve(n) or "").endswith("register_keras_serializable")
                )
                for n in walk(node)
            ):
                found.add(name)
                grown = True


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


def identifiers(tree: ast.Module) -> frozenset[str]:
    """The names a module's code uses (not its strings, docstrings or comments): the only
    names a rule can look a class up by."""
    found: set[str] = set()
    add, update = found.add, found.update
    name, attribute, alias, import_from, class_def = (
        ast.Name,
        ast.Attribute,
        ast.alias,
        ast.ImportFrom,
        ast.ClassDef,
    )
    for node in walk(tree):
        kind = type(node)
        if kind is name:
            add(node.id)
        elif kind is attribute:
            add(node.attr)
        elif kind is alias:
            update(node.name.split("."))
            if node.asname:
                add(node.asname)
        elif kind is import_from and node.module:
            update(node.module.split("."))
        elif kind is class_def:
            add(node.name)
    return frozenset(found)


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
