"""Which files can change a file's findings.

A class's rules read its parents, the classes its sublayers are made of, its direct
subclasses, the modules its Keras comes from and the project's registration functions;
every one of them is found through the imports of the file that names it
(kinds.find_class, keras.which). So:

- the prefilter skips a file that cannot be a Keras class itself (no `keras`, no
  `def call`, no `register_keras_serializable`) and that shares no class name with the
  files read; a file not parsed yet is known there by the words of its text, which only
  costs time;
- the cache keys a file's findings by the files its parsed imports and resolved names
  reach (`references`), transitively, and by what the rules read of its subclasses: their
  class headers and `super().__init__` calls (`headers`), not their bodies, so a
  subclass's edit does not check its base again. Words of a text (a docstring saying
  "a class to ...") tie no file; a file that does not parse ties nothing.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .kinds import PUBLIC, absolute, module_parts
from .source import SourceFile, identifiers, is_super_call, walk

WORD = re.compile(r"\w+")
CLASS = re.compile(r"\bclass\s+(\w+)")
REGISTRATION = "register_keras_serializable"


@dataclass(frozen=True)
class Names:
    """What the prefilter reads of a file (`defined`, `used`) and, once it is parsed, what
    the cache's graph does (`classes`, `refs`)."""

    defined: frozenset[str]  # the names after `class` in its text, or its classes once parsed
    used: frozenset[str]  # every word of the text, or the names its code uses once parsed
    classes: frozenset[str] | None = None  # the classes the rules can find in it (parsed)
    refs: frozenset[str] = frozenset()  # what its code names in other modules (`references`)

    @classmethod
    def of(cls, text: str) -> Names:
        return cls(frozenset(CLASS.findall(text)), frozenset(WORD.findall(text)))

    @classmethod
    def of_source(cls, source: SourceFile) -> Names:
        """Of a parsed file: a class named in a docstring, a comment or an error message
        ties no file to it (on keras/src, a median edit then checks 16 files again, not 382)."""
        classes = frozenset(c.name for c in source.classes)
        return cls(classes, identifiers(source.tree), classes, references(source))

    def linked(self, source: SourceFile) -> Names:
        """With what the graph reads of the file, once parsed (the prefilter's names stay
        what they were: a run with the cache keeps the files one without it keeps)."""
        if self.classes is not None:
            return self
        return replace(
            self, classes=frozenset(c.name for c in source.classes), refs=references(source)
        )


def references(source: SourceFile) -> frozenset[str]:
    """The dotted names the file's code reaches through its imports (`from .blocks import
    Block`, `blocks.Block`, `from .utils import keras`, `from pkg import *`): the only way a
    rule finds a class or a module of another file. Keras's and the other frameworks'
    public names reach no file of the project."""
    imports = source.imports
    found = set(imports.values())
    for node in walk(source.tree):
        if type(node) is not ast.Attribute:
            continue
        root = node.value
        while type(root) is ast.Attribute:
            root = root.value
        if type(root) is ast.Name and root.id in imports:
            found.add(source.resolve(node) or "")
    return frozenset(n for n in found if n and not (n.startswith(PUBLIC) and ".src." not in n))


def may_be_keras(text: str) -> bool:
    """A Keras class needs a Keras base (`keras` in the text), or is taken for one (its own
    `call`, bases we cannot read); a registration function names the registration call."""
    return REGISTRATION in text or ("class" in text and ("keras" in text or "def call" in text))


def prefilter(texts: dict[Path, str], names: Callable[[Path], Names] | None = None) -> list[Path]:
    """The files worth parsing, in their order: the others cannot change any finding.
    `names` tells what a file defines and names (by default, from its text)."""
    names = names or (lambda path: Names.of(texts[path]))
    needed = {path for path, text in texts.items() if may_be_keras(text)}
    maybe = [  # a file that defines no class cannot matter ("classifier" is not a class)
        path
        for path, text in texts.items()
        if path not in needed and "class" in text and CLASS.search(text)
    ]
    if maybe:
        used = set().union(*(names(p).used for p in needed))
        defined = set().union(*(names(p).defined for p in needed))
        grown = True
        while grown:  # a mixin of a mixin of a layer is read too
            grown = False
            for path in list(maybe):
                if names(path).defined & used or names(path).used & defined:
                    needed.add(path)
                    maybe.remove(path)
                    used |= names(path).used
                    defined |= names(path).defined
                    grown = True
    return [path for path in texts if path in needed]


class Graph:
    """Files joined by the class names they share: `direct` (the files defining what a file
    names) and `children` (the files naming what a file defines)."""

    def __init__(self, paths: list[Path], names: dict[Path, Names]):
        self.paths = paths
        definers: dict[str, list[Path]] = {}  # class name -> the files defining one
        modules: dict[str, list[Path]] = {}  # last part of a module -> its files
        for path in paths:
            for name in names[path].classes or ():
                definers.setdefault(name, []).append(path)
            parts = module_parts(str(path))
            if parts:
                modules.setdefault(parts[-1], []).append(path)
        self.direct = {path: _reached(path, names[path].refs, definers, modules) for path in paths}
        self.children: dict[Path, set[Path]] = {path: set() for path in paths}
        for path, reached in self.direct.items():
            for other in reached:
                self.children[other].add(path)

    def context(self, paths: list[Path]) -> set[Path]:
        """The files the findings of `paths` can depend on, themselves included: what they
        name, transitively, and their subclasses (read for their headers only). One walk
        for all: a walk per file is quadratic."""
        seen = set(paths).union(*(self.children[p] for p in paths))
        todo = list(paths)
        while todo:
            for named in self.direct[todo.pop()]:
                if named not in seen:
                    seen.add(named)
                    todo.append(named)
        return seen

    def keys(self, own: dict[Path, str], headers: dict[Path, str]) -> dict[Path, str]:
        """A key per file that changes when any file of its context changes: `own` keys
        combined along the graph, one component of files naming each other at a time;
        of the files that may subclass it, only their `headers`."""
        component = {}
        reach: dict[int, str] = {}  # component -> key of everything it reaches
        for number, members in enumerate(_components(self.paths, self.direct)):
            for path in members:
                component[path] = number
            below = {
                reach[component[d]]
                for m in members
                for d in self.direct[m]
                if component[d] != number  # the others are done: they come first
            }
            reach[number] = digest(sorted(own[m] for m in members), sorted(below))
        return {
            path: digest(
                [own[path], reach[component[path]]],
                sorted({headers[c] for c in self.children[path]}),
            )
            for path in self.paths
        }


def _reached(path: Path, refs, definers, modules) -> set[Path]:
    """The files a file's references can name: the module each names (or the module it
    imports a name from, which may re-export it), and the classes of that name in it or
    in a module of the package it names (as kinds.find_class looks them up)."""
    found = set()
    for ref in refs:
        parts = absolute(str(path), ref)
        *wanted, short = parts
        wanted = tuple(wanted)
        if short == "*":  # `from pkg import *`: any class of pkg
            found.update(
                p for ps in definers.values() for p in ps if _within(module_parts(str(p)), wanted)
            )
            continue
        for candidate in modules.get(short, ()):  # `import pkg.blocks`
            if module_parts(str(candidate))[-len(parts) :] == parts:
                found.add(candidate)
        if not wanted:
            continue
        for candidate in modules.get(wanted[-1], ()):  # `from pkg.utils import keras`
            if module_parts(str(candidate))[-len(wanted) :] == wanted:
                found.add(candidate)
        for candidate in definers.get(short, ()):  # `from pkg import Block`
            if _within(module_parts(str(candidate)), wanted):
                found.add(candidate)
    found.discard(path)
    return found


def _within(parts: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    """Whether `wanted` is a run of `parts` (the module it names, or a package above it)."""
    size = len(wanted)
    return any(parts[start : start + size] == wanted for start in range(len(parts) - size + 1))


def headers(source: SourceFile) -> str:
    """What the rules read of a file's classes when they check a parent of them: each
    class's name and bases, and the lines of its `super().__init__(...)` call (all of
    `__init__` when the call is not one of its statements)."""
    parts = []
    for cls in source.classes:
        init = cls.methods.get("__init__")
        spans = []
        if init is not None:
            calls = [
                s.value
                for s in init.body
                if isinstance(s, ast.Expr) and is_super_call(s.value, "__init__")
            ]
            spans = [(c.lineno, c.end_lineno) for c in calls] or [(init.lineno, init.end_lineno)]
        lines = ["\n".join(source.lines[start - 1 : end]) for start, end in spans]
        parts.append(f"{cls.name}({', '.join(cls.bases)}) {init is not None}: {lines}")
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()


def digest(*parts: list[str]) -> str:
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def _components(nodes: list[Path], edges: dict[Path, set[Path]]) -> list[list[Path]]:
    """Strongly connected components (Tarjan, without recursion), each after those it reaches."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    found: list[list[Path]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root], key=str)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    found.append(members)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child], key=str))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found
