"""A person's comments put back into the generated version of the same code.

Statements of the same code (formatting and comments aside) pair up, in order: each
comment goes back where it stood in the person's, relative to its statement (on its own
lines above it, after it on its line, after a block's header, at the end of a block). The
generated member may be the same code, or the declaration's change of it (a statement added). A comment inside an expression (between a
dict's entries) has no statement of its own to go with: then nothing is put back, and the
caller keeps the person's member as written."""

from __future__ import annotations

import ast
import io
import tokenize

import libcst as cst

_EMPTY = cst.Module([])


def put_back(person: cst.FunctionDef, made: cst.FunctionDef) -> cst.FunctionDef | None:
    """`made` with the comments of `person` where they stood; None where one cannot be
    placed so."""
    if not isinstance(person, cst.FunctionDef) or not isinstance(made, cst.FunctionDef):
        return None
    body = _suite(person.body, made.body)
    if body is None:
        return None
    out = made.with_changes(body=body)
    ours, theirs = (_EMPTY.code_for_node(n.with_changes(leading_lines=())) for n in (person, out))
    # every comment placed, once; the code is the generated code
    if _comments(ours) != _comments(theirs) or _tree(theirs) != _tree(
        _EMPTY.code_for_node(made.with_changes(leading_lines=()))
    ):
        return None
    return out


def _suite(person: cst.BaseSuite, made: cst.BaseSuite) -> cst.BaseSuite | None:
    if isinstance(person, cst.IndentedBlock) and isinstance(made, cst.IndentedBlock):
        body = _statements(person.body, made.body)
        if body is None:
            return None
        header = person.header if person.header.comment is not None else made.header
        return made.with_changes(body=body, header=header, footer=person.footer)
    if isinstance(person, cst.SimpleStatementSuite) and isinstance(made, cst.SimpleStatementSuite):
        return made.with_changes(trailing_whitespace=person.trailing_whitespace)
    return made  # laid out otherwise: a comment of it is missed, and the count says so


def _statements(person, made) -> list | None:
    """`made`'s statements, each with the comments of the person's statement it stands for
    (paired in order: the same code, or one changed for one; `made` may have statements
    added or taken out around them); None where a commented statement of the person's has
    no such statement in `made`."""
    from difflib import SequenceMatcher

    ours, theirs = [_key(n) for n in person], [_key(n) for n in made]
    out = list(made)
    paired = set()
    matcher = SequenceMatcher(None, ours, theirs, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        # the same statements, or as many changed one for one (a param renamed: the
        # comment on its store goes with the store as the declaration now writes it)
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for i, j in zip(range(i1, i2), range(j1, j2)):
                statement = _statement(person[i], made[j])
                if statement is None and tag == "equal":
                    return None
                if statement is not None:
                    out[j] = statement
                    paired.add(i)
    if any(i not in paired and _commented(n) for i, n in enumerate(person)):
        return None
    return out


def _key(node: cst.CSTNode) -> str:
    """A statement's code as Python reads it (its comments and layout aside)."""
    if hasattr(node, "leading_lines"):
        node = node.with_changes(leading_lines=())
    try:
        return _tree(_EMPTY.code_for_node(node))
    except SyntaxError:  # an `else:` or `except:` clause alone: its code, as written
        return _EMPTY.code_for_node(node)


def _commented(node: cst.CSTNode) -> bool:
    return bool(_comments(_EMPTY.code_for_node(node)))


def _statement(person: cst.CSTNode, made: cst.CSTNode) -> cst.CSTNode | None:
    if type(person) is not type(made):
        return None
    changes = {}
    if hasattr(person, "leading_lines"):
        changes["leading_lines"] = person.leading_lines
    if isinstance(person, cst.SimpleStatementLine):
        if person.trailing_whitespace.comment is not None:
            changes["trailing_whitespace"] = person.trailing_whitespace
        return made.with_changes(**changes)
    if isinstance(getattr(person, "body", None), cst.BaseSuite):
        body = _suite(person.body, made.body)
        if body is None:
            return None
        changes["body"] = body
    for key in ("orelse", "finalbody"):  # `else:`, `elif`, `finally:`
        ours, theirs = getattr(person, key, None), getattr(made, key, None)
        if ours is not None and theirs is not None:
            clause = _statement(ours, theirs)
            if clause is None:
                return None
            changes[key] = clause
    if isinstance(person, cst.Try):
        handlers = _statements(person.handlers, made.handlers)
        if handlers is None:
            return None
        changes["handlers"] = handlers
    return made.with_changes(**changes)


def _comments(text: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(text.strip() + "\n").readline)
    return [t.string for t in tokens if t.type == tokenize.COMMENT]


def _tree(text: str) -> str:
    return ast.dump(ast.parse(text.strip()))
