"""Merge a new generation into a file a person may have edited, member by member.

Three versions of a file meet here: `base`, what layergen generated last time
(kept in the lock file); `current`, the file as it is on disk; and `new`, what
layergen generates now. Each named member (an import, a function, a class, and
inside a class each method, its docstring and its header) is handled alone:

- untouched since `base`: the new version replaces it;
- edited by a person, unchanged by the generator: the person's version stays;
- changed on both sides: a line-based 3-way merge; the lines both sides changed
  are a conflict, written between git-style markers (see conflicts.py);
- edited by a person and no longer generated, or deleted by a person and changed by
  the generator: a conflict, one side empty;
- added by a person: it stays, where it was;
- new in the generation: it is added after the member it follows in `new`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

import libcst as cst

from ..textfiles import parsed
from .conflicts import OURS, UNKNOWN, Prefer
from .conflicts import block as conflict_block
from .diff3 import merge3_sides

_EMPTY = cst.Module([])


@dataclass(frozen=True)
class Conflict:
    member: str  # "ScaledDense.call", "import keras", ...
    line: int  # 1-based line of its `<<<<<<<` marker in the merged text
    # No base to merge against: the file's side may be a hand edit or an older generation.
    no_base: bool = False


@dataclass
class Merged:
    text: str  # with conflict markers where there are conflicts
    conflicts: list[Conflict] = field(default_factory=list)


@dataclass
class _Pending:
    """A member changed on both sides: `ours` sits in the merged tree, `theirs` is the generated one."""

    member: str
    ours: cst.CSTNode
    theirs: cst.CSTNode | None  # None: the generator writes the member no more
    ours_empty: bool = False  # a person deleted the member: `ours` is a stand-in


# A run reads, merges and compares the same module texts and members many times over (the
# base, the file, the generated text, each member against three sides). libcst's trees are
# immutable and its nodes compare by identity, so a tree (`parsed`) or a member's code is
# made once. `layergen watch` empties both caches after each run.


def fresh_code(node: cst.CSTNode) -> str:
    """The code of a node made for one comparison (not kept: no one asks for it again)."""
    return _EMPTY.code_for_node(node)


@functools.lru_cache(maxsize=4096)
def code(node: cst.CSTNode) -> str:
    """The code of a node of a parsed tree (kept: the same node is asked for again)."""
    return fresh_code(node)


def _key(node: cst.CSTNode) -> str:
    """What a member is called: a function or class by its name, an assignment by the names it
    binds (`ARGS =`: changed on both sides, it is one member, not two), anything else by its code.
    """
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
        statement = node.body[0]
        if is_docstring(node):
            return "__doc__"  # only ever the first statement in generated code
        if isinstance(statement, cst.Assign) and all(
            isinstance(t.target, cst.Name) for t in statement.targets
        ):
            return " = ".join(t.target.value for t in statement.targets) + " ="
        if isinstance(statement, cst.AnnAssign) and isinstance(statement.target, cst.Name):
            return statement.target.value + ":"
    return fresh_code(node.with_changes(leading_lines=())).strip()


def is_docstring(node: cst.CSTNode) -> bool:
    """Whether a statement is a string alone: a module's or class's docstring."""
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Expr)
        and isinstance(node.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _units(body) -> list[tuple[str, cst.CSTNode]]:
    units, seen = [], set()
    for node in body:
        key = _key(node)
        while key in seen:  # a repeated statement keeps its own place
            key += "'"
        seen.add(key)
        units.append((key, node))
    return units


def merge(
    base: str | None,
    current: str,
    new: str,
    *,
    prefer: Prefer = "merge",
    renames: dict[str, str] | None = None,
    keep: frozenset[str] = frozenset(),
    take: frozenset[str] = frozenset(),
) -> Merged:
    """The merged text of a file; `prefer` settles conflicting lines ("merge": write both
    sides between conflict markers; "generated": take the generated side). `renames` maps old names to new (a class renamed in its
    declaration): the person's code is renamed too before the merge, so edits carry over.
    `keep`: members (`Class.build`) whose version in the file stays as it is (hand-written);
    `take`: members `sync` carried into the declaration: their generation, with the person's
    comments kept (see `_Merger.carried`)."""
    if current == new:
        return Merged(current)
    if current == base and not keep:
        return Merged(new)  # nobody touched the file since it was generated
    current_tree = parsed(current)  # the caller checked that it parses
    base_tree = parsed(base or "")  # never generated before: everything in the file is the person's
    if renames:
        base_tree, current_tree = (renamed(tree, renames) for tree in (base_tree, current_tree))
    new_tree = parsed(new)
    merger = _Merger(prefer, keep, take)
    body = merger.members(
        _units(base_tree.body), _units(current_tree.body), _units(new_tree.body), ""
    )
    result = current_tree.with_changes(body=body)
    if base_tree.header != new_tree.header and current_tree.header == base_tree.header:
        result = result.with_changes(header=new_tree.header)
    if not merger.pending:
        return Merged(result.code)
    return _with_markers(result, merger.pending, OURS if base is not None else UNKNOWN)


def _with_markers(result: cst.Module, pending: list[_Pending], first: str = OURS) -> Merged:
    """The merged text with each conflict written between markers.

    The tree holds our side of every conflict; swapping in their side of one conflict
    at a time and diffing the two texts gives that conflict's lines, exactly as the
    file lays them out (indentation, blank lines).
    """
    ours_lines = lines(result.code)
    hunks = []
    for index, p in enumerate(pending):
        theirs = (
            result.deep_remove(p.ours)
            if p.theirs is None
            else result.deep_replace(p.ours, p.theirs)
        )
        theirs_lines = lines(theirs.code)
        matcher = SequenceMatcher(None, ours_lines, theirs_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                hunks.append(
                    (i1, i2, [] if p.ours_empty else ours_lines[i1:i2], theirs_lines[j1:j2], index)
                )
    out = list(ours_lines)
    for i1, i2, ours, theirs, _ in sorted(hunks, key=lambda h: h[0], reverse=True):
        out[i1:i2] = conflict_block(ours, theirs, first)
    # Lines of the first marker of each conflict, in the final text.
    firsts: dict[int, int] = {}
    shift = 0
    for i1, i2, ours, theirs, index in sorted(hunks, key=lambda h: h[0]):
        firsts.setdefault(index, i1 + shift + 1)
        shift += len(ours) + len(theirs) + 3 - (i2 - i1)
    conflicts = [
        Conflict(p.member, firsts.get(i, 1), first == UNKNOWN) for i, p in enumerate(pending)
    ]
    return Merged("".join(out), sorted(conflicts, key=lambda c: c.line))


def renamed(tree: cst.Module, renames: dict[str, str]) -> cst.Module:
    """`tree` with each module-level name in `renames` renamed where it is bound (the class, or
    the name it is imported as) and wherever scope analysis finds it used. An attribute
    (`keras.layers.Dense`), a string or a local of the same name is another thing and stays."""
    from libcst.metadata import MetadataWrapper, ScopeProvider

    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    scope = wrapper.resolve(ScopeProvider)[tree]
    names: dict[int, str] = {}  # id of a Name node -> its new value
    for old, new in renames.items():
        for assignment in scope.assignments[old] if scope is not None else ():
            bound = _bound_name(getattr(assignment, "node", None), old)
            if bound is None:
                continue
            names[id(bound)] = new
            for reference in assignment.references:
                if isinstance(reference.node, cst.Name):
                    names[id(reference.node)] = new
    return tree.visit(_Rename(names)) if names else tree


def _bound_name(node, name: str) -> cst.Name | None:
    """The Name node in a class statement or an import that binds `name`."""
    if isinstance(node, cst.ClassDef):
        return node.name
    if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(
        node.names, cst.ImportStar
    ):
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                return bound
    return None


class _Rename(cst.CSTTransformer):
    def __init__(self, names: dict[int, str]):
        self.names = names

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        new = self.names.get(id(original))
        return updated if new is None else updated.with_changes(value=new)


# The generated module's docstring names its class and declaration: a person who rewrote it
# (or took it out, or adopted a module that had their own) keeps theirs, whatever the
# declaration then renames.
MODULE_DOCSTRING = "__doc__"


class _Merger:
    def __init__(self, prefer: Prefer, keep: frozenset[str], take: frozenset[str]):
        self.prefer = prefer
        self.keep = keep
        self.take = take
        self.pending: list[_Pending] = []

    def members(self, base_units, current_units, new_units, owner: str) -> list:
        base, new = dict(base_units), dict(new_units)
        current_keys = {k for k, _ in current_units}
        out: list[tuple[str, cst.CSTNode]] = []
        dropped: list[tuple[str | None, str, cst.CSTNode]] = []  # imports: (after, key, node)
        for key, node in current_units:
            if key in new:
                out.append((key, self.one(owner + key, base.get(key), node, new[key])))
            elif key in base and code(node) == code(base[key]):
                if not owner and _bound(node):  # unless the code left still reads it
                    dropped.append((out[-1][0] if out else None, key, node))
                continue  # the generator dropped it and nobody had touched it
            elif key in base and owner + key not in self.keep:  # edited, and dropped
                if self.prefer == "merge":
                    out.append((key, self.conflict(owner + key, node, None)))
            else:
                out.append((key, node))  # a person's member
        for index, (key, node) in enumerate(new_units):
            if key in current_keys or owner + key in self.keep:  # kept: absent, as written
                continue
            if owner + key == MODULE_DOCSTRING and key in base:
                continue  # the person took the module's docstring out: it stays out
            if key in base and code(base[key]) == code(node):
                continue  # a person deleted a generated member: it stays deleted
            if key in base and self.prefer != "generated":
                if self.prefer == "merge":  # deleted by hand, changed by the generator
                    node = self.conflict(
                        owner + key, cst.SimpleStatementLine([cst.Pass()]), node, ours_empty=True
                    )
                else:
                    continue
            after = next(
                (k for k, _ in reversed(new_units[:index]) if any(k == o for o, _ in out)), None
            )
            position = (
                0 if after is None else next(i for i, (o, _) in enumerate(out) if o == after) + 1
            )
            out.insert(position, (key, node))
        if dropped:
            read = _names_read(node for _, node in out if not _bound(node))
            for after, key, node in dropped:
                if _bound(node) & read:  # the person's code reads it still
                    keys = [k for k, _ in out]
                    out.insert(keys.index(after) + 1 if after in keys else 0, (key, node))
        return [node for _, node in out]

    def one(self, name: str, base, current, new):
        if base is not None and _leading(new) == _leading(base) != _leading(current):
            # the lines above it (comments, blank lines) are the person's alone: merged as
            # they are, not line by line beside a change of the generator's
            above = current.leading_lines
            base, new = (n.with_changes(leading_lines=above) for n in (base, new))
        settled = self.settled(name, base, current, new)
        if settled is not None:
            return settled
        if isinstance(current, cst.ClassDef) and isinstance(new, cst.ClassDef):
            return self.class_(name, base, current, new)
        return self.text(name, base, current, new)

    def settled(self, name: str, base, current, new):
        """The member's version when at most one side changed it; None when both did."""
        if code(current) == code(new) or name in self.keep:
            return current
        if name in self.take:
            return self.carried(current, new)
        holds_kept = any(kept.startswith(name + ".") for kept in self.keep)
        if base is not None and code(current) == code(base) and not holds_kept:
            return new  # untouched by hand (a class holding owned members merges member by member)
        if base is not None and code(new) == code(base):
            return current  # only the person changed it
        if name == MODULE_DOCSTRING and base is not None:
            return current  # the module's docstring, once the person's, stays theirs
        if base is not None and not holds_kept and _commented(current, base):
            # the person's edit is comments alone: the generator's change, with them
            from .comments import put_back

            return put_back(current, new)
        return None

    def class_(self, name: str, base, current: cst.ClassDef, new: cst.ClassDef) -> cst.ClassDef:
        """A class merges member by member, its header (decorators, bases) as one more member."""

        def header(c):  # a body of `pass`: a header alone is no statement to merge lines of
            return c.with_changes(body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])]))

        conflicts = len(self.pending)
        sides = (header(base) if base is not None else None, header(current), header(new))
        merged_header = self.settled(name + ".<header>", *sides) or self.text(
            name + ".<header>", *sides
        )
        header_conflict = self.pending[conflicts] if len(self.pending) > conflicts else None
        members = self.members(
            _units(base.body.body) if base is not None else [],
            _units(current.body.body),
            _units(new.body.body),
            name + ".",
        )
        merged = merged_header.with_changes(body=current.body.with_changes(body=members))
        if header_conflict is not None:  # the stand-ins become the whole class, its body shared
            header_conflict.ours = merged
            header_conflict.theirs = header_conflict.theirs.with_changes(body=merged.body)
        return merged

    def carried(self, current, new):
        """A member whose hand edit `sync` stated in the declaration. Its generation, so that
        the declaration's later changes merge cleanly (`gain*2` comes back as `gain * 2`), with
        the person's comments put back."""
        return with_comments(current, new)

    def text(self, name: str, base, current, new):
        """A member changed on both sides, merged line by line; `--force` settles the lines
        both sides changed with the generated ones, and keeps every other hand edit."""
        if base is None:  # nothing to merge against: the member is one conflict
            return new if self.prefer == "generated" else self.conflict(name, current, new)
        ours, theirs = merge3_sides(*(lines(code(n)) for n in (base, current, new)))
        if self.prefer == "generated":
            ours = theirs
        try:
            ours_node, theirs_node = _member(ours), _member(theirs)
        except (cst.ParserSyntaxError, ValueError):  # the merged lines are no statement
            return new if self.prefer == "generated" else self.conflict(name, current, new)
        if ours == theirs:
            return ours_node
        return self.conflict(name, ours_node, theirs_node)

    def conflict(self, name: str, ours, theirs: cst.CSTNode | None, ours_empty: bool = False):
        """Record a conflict; `ours` goes into the merged tree."""
        self.pending.append(_Pending(name, ours, theirs, ours_empty))
        return ours


def _leading(node: cst.CSTNode) -> str:
    """The comments and blank lines above a member, as written."""
    return "".join(fresh_code(line) for line in getattr(node, "leading_lines", ()))


def lines(text: str) -> list[str]:
    """`text` cut after each line break Python knows (`\\n`, `\\r\\n`): `str.splitlines` also cuts
    at U+2028, `\\f` and the like, which may sit inside a string or a comment."""
    return _LINE.findall(text)


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def with_comments(current: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    """The generated member `new` with the comments of the person's `current` (the same
    code) put back, each with its statement (comments.py), else by a line merge against
    `current` without them; `current` as written where they cannot be put back (nothing a
    person wrote is lost)."""
    from .comments import put_back

    placed = put_back(current, new)
    if placed is not None:
        return placed
    bare = current.visit(_WithoutComments())
    ours, theirs = merge3_sides(*(lines(code(n)) for n in (bare, current, new)))
    if ours == theirs:
        try:
            return _member(ours)
        except (cst.ParserSyntaxError, ValueError):  # the merged lines are no statement
            pass
    return current


def _bound(node: cst.CSTNode) -> set[str]:
    """The names an import statement binds (none for any other statement)."""
    if not isinstance(node, cst.SimpleStatementLine):
        return set()
    names = set()
    for statement in node.body:
        if isinstance(statement, (cst.Import, cst.ImportFrom)) and not isinstance(
            statement.names, cst.ImportStar
        ):
            for alias in statement.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                while isinstance(bound, cst.Attribute):  # `import keras.ops` binds `keras`
                    bound = bound.value
                if isinstance(bound, cst.Name):
                    names.add(bound.value)
    return names


def _names_read(nodes) -> set[str]:
    """Every name the statements mention (a superset of those they read: enough to keep an
    import that is needed)."""
    names: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    for node in nodes:
        node.visit(Names())
    return names


def _commented(current: cst.CSTNode, base: cst.CSTNode) -> bool:
    """Whether `current` is `base` with comments added (or changed), and nothing else."""
    return isinstance(current, cst.FunctionDef) and fresh_code(
        current.visit(_WithoutComments())
    ) == fresh_code(base.visit(_WithoutComments()))


def _member(merged: list[str]) -> cst.CSTNode:
    """The one statement of a merged member's lines. Parsed alone, its leading comments and
    blank lines are the module's header: they are the statement's own again."""
    tree = cst.parse_module("".join(merged))  # one member's lines: not met again
    (node,) = tree.body
    if tree.footer:
        raise ValueError("lines after the member")
    # Blank lines of a module's header are "indented"; in a class they would gain spaces.
    header = [line.with_changes(indent=line.comment is not None) for line in tree.header]
    return node.with_changes(leading_lines=[*header, *node.leading_lines])


class _WithoutComments(cst.CSTTransformer):
    """A node with its comments taken out: the lines a comment stood on alone go with it."""

    def leave_EmptyLine(self, original: cst.EmptyLine, updated: cst.EmptyLine):
        return cst.RemoveFromParent() if updated.comment is not None else updated

    def leave_TrailingWhitespace(
        self, original: cst.TrailingWhitespace, updated: cst.TrailingWhitespace
    ) -> cst.TrailingWhitespace:
        if updated.comment is None:
            return updated
        return updated.with_changes(comment=None, whitespace=cst.SimpleWhitespace(""))
