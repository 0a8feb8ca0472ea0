"""Resolve a validated declaration: parse every piece of code, check every name.

Each section's check builds its piece of the IR (`ir.py`) from the snippets it parsed, and
`ir.assemble` puts the pieces together: no snippet is looked up by its YAML path. All
problems are collected and raised together as one `DiagnosticError`; the result, `Checked`,
holds the IR, everything the renderers need.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..config import MESH_AXES
from ..diagnostics import Diagnostic, DiagnosticError
from ..keras_names import LAYER_PRIVATE_ATTRIBUTES
from ..kinds import KINDS
from . import ir
from . import reserved as template_names  # `reserved` names a flag below
from .analyze_example import ExampleChecks
from .analyze_inputs import InputChecks
from .analyze_layer import LayerChecks
from .analyze_names import NameChecks
from .analyze_values import ValueChecks, _private, name_problem
from .branches import with_branches
from .code import BUILTINS, Code, parse, resolve
from .model import Declaration, Input, Param
from .sections import SECTIONS, Scope
from .yamlfile import Document, Pos

SEED_PARAM = Param(type="int", default=None, doc="seed of the layer's random number generator.")


@dataclass
class Analysis:
    """What every section's check reads, derived once from the declaration."""

    doc: Document
    decl: Declaration
    params: dict[str, Param]  # the declared params, plus `seed` for a random layer
    inputs: list[str]  # call arguments: a layer's inputs, or a loss's (y_true, y_pred), ...
    keywords: dict[str, Input]  # a layer's keyword call arguments (inputs with a `default`)
    members: tuple[str, ...]  # what becomes `self.<name>`

    @property
    def shaped(self) -> list[str]:
        """The tensor inputs, keyword ones included: what `build` knows the shape of."""
        tensors = [n for n, s in self.keywords.items() if s.type == "tensor"]
        return [*self.inputs, *tensors]

    @property
    def path(self) -> str:
        return self.doc.path


@dataclass
class Checked(Analysis):
    """A declaration that checks out: its analysis (for located errors) and its IR."""

    ir: ir.Declared = field(kw_only=True)


def analyze(
    doc: Document,
    decl: Declaration,
    *,
    ignore: frozenset[str] = frozenset(),
    mesh_axes: tuple[str, ...] = MESH_AXES,
) -> Checked:
    """Check names and code, and build the IR. `ignore`: names to take as known (their
    declarations had errors already reported); `mesh_axes`: the axes layouts may name
    (`[tool.layergen] mesh-axes`)."""
    return _Analyzer(doc, decl, ignore, mesh_axes).run()


class _Analyzer(NameChecks, LayerChecks, InputChecks, ExampleChecks, ValueChecks):
    """The state and run order of one analysis; each section's checks are a mixin of their
    own module (`analyze_names.py`, `analyze_layer.py`, `analyze_inputs.py`,
    `analyze_example.py`, `analyze_values.py`)."""

    def __init__(
        self,
        doc: Document,
        decl: Declaration,
        ignore: frozenset[str] = frozenset(),
        mesh_axes: tuple[str, ...] = MESH_AXES,
    ):
        self.doc, self.decl = doc, decl
        self.ignore = ignore
        self.mesh_axes = mesh_axes
        self.errors: list[Diagnostic] = []
        self.scopes: list[tuple[Code, set[str], set[str], str, bool]] = []
        # Sublayer arguments that are one bare word, by id of their code: if the word is
        # unknown, it was most likely meant as a string.
        self.bare_words: dict[int, tuple[str, str]] = {}
        # Checks that read the free names of what a section parsed: run once they are resolved.
        self.after_resolve: list[Callable[[], None]] = []
        self.kind = decl.kind
        params = dict(decl.params)
        if decl.random and "seed" not in params:
            params["seed"] = SEED_PARAM
        keywords: dict[str, Input] = {}
        if self.kind == "layer":
            specs = decl.inputs or {"x": None}
            keywords = {n: s for n, s in specs.items() if s is not None and s.keyword}
            inputs = [n for n in specs if n not in keywords] or list(specs)[:1]
        else:
            inputs = list(KINDS[self.kind].arguments)
        members = (*params, *decl.weights, *decl.sublayers, *decl.ops, *decl.methods)
        members += ("seed_generator",) if decl.random else ()
        self.result = Analysis(doc, decl, params, inputs, keywords, members)
        self.imported = self._imported_names()
        self.globals = {"ops", "keras", "self"} | self.imported | BUILTINS | set(ignore)
        self.members = set(members)
        self.scope = Scope(
            doc,
            inputs=frozenset(inputs),
            params=frozenset(params),
            members=frozenset(members),
            imported=frozenset(self.imported),
            known=frozenset(self.globals),
        )

    def run(self) -> Checked:
        self._check_names()
        self._check_params()
        keywords: tuple[ir.Keyword, ...] = ()
        if self.kind == "layer":
            body = self._check_layer()
            keywords = self._check_caches()
        else:
            body = self._check_other_kind()
        ops, methods = self._check_ops_and_methods()
        self._check_hand_written()
        inputs = self._input_records()
        example = self._check_example(inputs, keywords)
        self._check_free_names()
        body = replace(body, sublayers=tuple(self._finish_sublayer(s) for s in body.sublayers))
        for check in self.after_resolve:
            check()
        if self.errors:
            raise DiagnosticError(self.errors)
        declared = ir.assemble(
            self.doc,
            self.decl,
            params=self.result.params,
            inputs=inputs,
            keywords=keywords,
            members=self.result.members,
            body=body,
            ops=ops,
            methods=methods,
            example=example,
        )
        declared = with_branches(declared, lambda loc: self.doc.pos(loc, key=True))
        self._check_mask_input(declared)
        if self.errors:
            raise DiagnosticError(self.errors)
        return Checked(**vars(self.result), ir=declared)

    def _check_mask_input(self, declared: ir.Declared) -> None:
        """A tensor input named `mask` (`call(self, x, mask)`) is read by `call` only: Keras
        gives `build` and `compute_output_shape` no shape of an argument so named."""
        if self.kind != "layer" or "mask" not in self.result.inputs:
            return
        hand_written = set(self.decl.hand_written)

        def codes(shape) -> list[Code]:
            if isinstance(shape, dict):
                return [c for one in shape.values() for c in codes(one)]
            if shape is None:
                return []
            return [shape.code, *(d for d in shape.dims or () if isinstance(d, Code))]

        shapes = [c for w in declared.weights for c in codes(w.shape)]
        shapes += [w.created for w in declared.weights if isinstance(w.created, Code)]
        for sub in declared.sublayers:
            shapes += [v for v in sub.args.values() if isinstance(v, Code)] + codes(sub.build)
            shapes += [sub.created] if isinstance(sub.created, Code) else []
        if "compute_output_shape" not in hand_written:
            shapes += codes(declared.output_shape)
            shapes += [c for one in (declared.outputs or {}).values() for c in codes(one)]
        reads = any("mask" in {f.name for f in c.free} for c in shapes)
        mask = next(i for i in declared.inputs if i.name == "mask")
        if mask.axes:
            self.error(
                ("inputs", "mask", "axes"),
                "conflicting-keys",
                "`axes` fixes dims of the shape `build` is given, and Keras gives it none of"
                " the input `mask`",
                "remove `axes` from `mask`",
                key=True,
            )
        if reads:
            self.error(
                ("inputs", "mask"),
                "conflicting-keys",
                "a shape (or a `when`) reads the input `mask`, whose shape Keras gives neither `build` nor"
                " `compute_output_shape` (it leaves an argument named `mask` out)",
                "read the shape of another input there",
                key=True,
            )
        elif declared.build_traces_call and "build" not in hand_written:
            self.error(
                ("inputs", "mask"),
                "conflicting-keys",
                "`build` traces `call` to build the sublayers, on inputs of the shapes Keras"
                " gives it, which leave out the input `mask`",
                "give each sublayer the shape its `build` takes (`build:`)",
                key=True,
            )

    def _input_records(self) -> tuple[ir.Input, ...]:
        """The call arguments as the IR holds them (the other kinds' carry no spec)."""
        specs = self.decl.inputs or {}
        return tuple(
            (
                ir.Input(n, s.dtype, s.rank, s.min_rank, tuple(s.axes or ()), s.doc)
                if (s := specs.get(n))
                else ir.Input(n)
            )
            for n in self.result.inputs
        )

    # -- helpers -----------------------------------------------------------

    def error(
        self, loc: tuple, code: str, message: str, hint: str | None = None, *, key: bool = False
    ) -> None:
        self.errors.append(self.doc.error(loc, code, message, hint, key=key))

    def code(
        self,
        loc: tuple,
        text: str,
        local: set[str],
        members: set[str],
        *,
        expression: bool | None = None,
        what: str = "name",
        report: bool = True,
        pos: Pos | None = None,
        prefix: str = "",
        suffix: str = "",
    ) -> Code | None:
        """Parse the snippet at `loc`; its names are checked once all code is parsed.

        `report=False`: the snippet's names were checked already, piece by piece.
        """
        result = parse(
            text,
            pos or self.doc.pos(loc),
            self.doc.path,
            expression=expression,
            prefix=prefix,
            suffix=suffix,
        )
        if isinstance(result, Diagnostic):
            self.errors.append(result)
            return None
        self.scopes.append((result, local, members, what, report))
        return result

    def _parsed_since(self, first: int) -> list[Code]:
        """The snippets parsed since `len(self.scopes)` was `first`: what one section parsed."""
        return [code for code, *_ in self.scopes[first:]]

    def _check_free_names(self) -> None:
        """Resolve every snippet's names in one pass, then report those not in scope."""
        resolve([code for code, *_ in self.scopes])
        for code, local, members, what, report in self.scopes:
            if report:
                bare_word = self.bare_words.get(id(code))
                self.errors += self.scope.name_problems(code, local, members, what, bare_word)

    def section(self, key: str) -> Any:
        """The piece of the section `key` (`sections/`), built from its part of the
        declaration and the scope; its problems join the others."""
        piece, problems = SECTIONS[key].build(getattr(self.decl, key), self.scope)
        self.errors.extend(problems)
        return piece

    def _imported_names(self) -> set[str]:
        names: set[str] = set()
        for i, line in enumerate(self.decl.imports):
            try:
                tree = ast.parse(line)
            except SyntaxError as exc:
                self.error(("imports", i), "python-syntax", f"invalid import: {exc.msg}")
                continue
            except (ValueError, MemoryError, RecursionError) as exc:
                self.error(("imports", i), "python-syntax", f"invalid import: {exc}")
                continue
            if not tree.body or not all(
                isinstance(s, (ast.Import, ast.ImportFrom)) for s in tree.body
            ):
                self.error(
                    ("imports", i),
                    "bad-import",
                    "`imports` holds import statements only",
                    "one `import ...` or `from ... import ...` per item; code goes in `init` or `methods`",
                )
                continue
            if any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in tree.body):
                self.error(
                    ("imports", i),
                    "bad-import",
                    "a `__future__` import must open the module; layergen's modules need none",
                )
                continue
            for statement in tree.body:
                for alias in statement.names:
                    if alias.name == "*":
                        self.error(
                            ("imports", i),
                            "bad-import",
                            "star imports hide names",
                            "import the names you use",
                        )
                    bound = alias.asname or alias.name.split(".")[0]
                    if bound in template_names.MODULE:
                        self.error(
                            ("imports", i),
                            "reserved-name",
                            f"the import binds `{bound}`, which the generated module uses",
                            f"import it under another name: `as {bound}_`",
                        )
                    names.add(bound)
        return names

    def _identifier(self, loc: tuple, name: Any, what: str, *, reserved: bool = True) -> bool:
        problem = name_problem(name)
        if problem is not None:
            code, hint = problem
            self.error(
                loc,
                code,
                f"{what} `{name}` {'is a Python keyword' if code == 'keyword-name' else 'is not a Python identifier'}",
                hint,
                key=True,
            )
            return False
        if not reserved:
            return True
        taken = KINDS[self.kind].reserved
        if name in taken:
            owner = "every Keras layer" if self.kind == "layer" else f"every Keras {self.kind}"
            self.error(
                loc,
                "reserved-name",
                f"{what} `{name}` would shadow the attribute {owner} has under that name",
                f"pick another name, such as `{name}_value`",
                key=True,
            )
            return False
        if what in ("weight", "sublayer") and self.kind == "layer" and _private(name):
            if name in LAYER_PRIVATE_ATTRIBUTES:
                self.error(
                    loc,
                    "reserved-name",
                    f"{what} `{name}` would overwrite Keras's own private attribute `{name}`",
                    f"pick another name, such as `{name}_layer`",
                    key=True,
                )
                return False
            return True  # checkpoints of Keras's own layers name attributes so
        if name.startswith("_"):
            self.error(
                loc,
                "reserved-name",
                f"{what} `{name}` starts with `_`, which Keras keeps for its own attributes",
                f"call it `{name.lstrip('_') or 'value'}`",
                key=True,
            )
            return False
        return True
