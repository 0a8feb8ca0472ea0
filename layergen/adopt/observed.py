"""Example values and input shapes observed by running the project's own tests, where static
evidence (evidence.py, shapes.py) leaves a required argument without a value or the input
without a shape the code's calls show: a layer built only inside an outer model's
`__init__`, on `keras.Input` tensors, by a test handing that model `**self.init_kwargs`.

The tests run are those of the class's folder, those that import its module and name it,
and those that import a module that constructs it, the ones naming it first, in a
pytest subprocess with `observer.py` as a plugin: the first construction's literal
arguments, and the input shapes and dtypes of a call of an instance so constructed (a
concrete call's, else a symbolic one's, its batch dim 2 and other unknown dims 4, said so),
then the session stops. Nothing is guessed: what the tests do not show stays unknown."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..introspect import REQUIRED
from .evidence import Given, _fits, _is_test, _sources, _text, _tree
from .reader import Found
from .shapes import Shape, Shapes, one_long

TIME_LIMIT = 120  # seconds of the project's tests, at most, per class
BATCH, UNKNOWN = 2, 4  # the dims a symbolic call leaves unknown: the batch, the others


@dataclass
class Observed:
    values: dict
    shape: Shape | Shapes | None
    source: str


def observed(root: Path, path: Path, found: Found, given: dict, shape, person: dict):
    """`given` and `shape` with what the project's tests show where static evidence left a
    required argument without a value, or the input without the shape of a call (none, or
    only the rank the code reads); the reason nothing was observed, else None."""
    needed = {a.name for a in found.cls.args if a.default is REQUIRED} - given.keys()
    unshaped = shape is None or (getattr(shape, "source", None) or "").startswith("the rank")
    # the project's call found has an axis one long: its tests may make one on longer axes
    poor = isinstance(shape, (Shape, Shapes)) and bool(shape.source) and one_long(shape)
    if not needed and not unshaped and not poor:
        return given, shape, None
    seen = observe(root, path, found)
    if isinstance(seen, str):
        return given, shape, seen
    params = {a.name: a.default for a in found.cls.args}
    values = {
        k: v
        for k, v in seen.values.items()
        if k in params and (params[k] is REQUIRED or _fits(v, params[k]))
    }
    missing = ", ".join(f"`{k}`" for k in sorted(needed - values.keys() - person.keys()))
    at = seen.source.removeprefix("observed ")
    why = f"{at}, it is constructed with no literal {missing}" if missing else None
    better = unshaped or (poor and not one_long(seen.shape))
    if better and _covers(found, seen.shape):  # one construction's values and shape together
        out = Given({**given, **values, **person})
        changed = any(given.get(k, out) != v for k, v in values.items() if k not in person)
        out.source = seen.source if changed else getattr(given, "source", None)
        return out, seen.shape, why
    out = Given({**values, **given})
    out.source = seen.source if needed & values.keys() else getattr(given, "source", None)
    return out, shape, why


def observed_call(root: Path, path: Path, found: Found, person: dict):
    """The example the project's tests make: one construction's literal values and the
    input shapes of its call, which fit together (the person's values over them); None
    where the tests show no call that shapes every input."""
    seen = observe(root, path, found)
    if isinstance(seen, str) or not _covers(found, seen.shape):
        return None
    params = {a.name: a.default for a in found.cls.args}
    values = {
        k: v
        for k, v in seen.values.items()
        if k in params and (params[k] is REQUIRED or _fits(v, params[k]))
    }
    given = Given({**values, **person})
    given.source = seen.source
    return given, seen.shape


def _covers(found: Found, shape) -> bool:
    """The observed call shapes every tensor input (a (cos, sin) pair passed as one is none):
    a shape for some inputs only is no evidence of the example's inputs."""
    if shape is None:
        return False
    tensors = {name for name, default in found.inputs if default is None}
    return not isinstance(shape, dict) or tensors <= shape.keys()


def observe(root: Path, path: Path, found: Found) -> Observed | str:
    """What the project's tests show of the class, or why they show nothing."""
    tests = _tests(root, path, found.cls.name)
    if not tests:
        return "no test of the project names it or imports a module that constructs it"
    module = dotted(path, root)
    if module is None:
        return "its module is outside the project's folder"
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "observed.json")
        target = {"module": module.removesuffix(".__init__"), "name": found.cls.name}
        env = {
            **os.environ,
            "LAYERGEN_OBSERVE": json.dumps({**target, "out": out}),
            # the backend Keras picks for the person (KERAS_BACKEND, else their keras.json)
            "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
        }
        command = [sys.executable, "-m", "pytest", "-p", "layergen.adopt.observer"]
        command += ["-p", "no:cacheprovider", "-q", "-o", "addopts="]
        command += ["--continue-on-collection-errors", *map(str, tests)]  # one bad, others run
        try:
            ran = subprocess.run(
                command, cwd=root, env=env, capture_output=True, text=True, timeout=TIME_LIMIT
            )
            output = ran.stdout + ran.stderr
        except subprocess.TimeoutExpired:
            output = None
        except OSError as exc:
            return f"its tests could not be run ({exc})"
        try:
            seen = json.loads(Path(out).read_text())
        except (OSError, ValueError):
            seen = {}
    if seen.get("error"):
        return seen["error"]
    if seen.get("values") is None:
        return _why(output, tests, root)
    where = f"observed in {seen['where']}"
    return Observed(seen["values"], _shape(seen.get("inputs"), found, where), where)


def _tests(root: Path, path: Path, name: str) -> list[Path]:
    """The test modules that may construct the class: those of its folder, those that import
    its module and name it, and those that import a module constructing it (its own, where
    it names the class outside its definition), those naming the class first. A test that
    imports its module and names neither cannot construct it (another class's tests), nor
    can a module whose class of that name is its own."""
    own = dotted(path, root)
    sources = _sources(root)
    mentioning = {
        dotted(p, root)
        for p in sources
        if not _is_test(p) and p != path and name in _text(p) and not _own_class(p, name)
    } - {None}
    if _made_outside(path, name) and own is not None:  # its own module constructs it
        mentioning.add(own)
    found = []
    for test in (p for p in sources if _is_test(p) and p.suffix == ".py"):
        text = _text(test)
        if "import" not in text or "def test" not in text:
            continue
        named = name in text and own is not None and own in text
        if test.parent == path.parent or named or any(m in text for m in mentioning):
            found.append((name not in text, test.parent != path.parent, str(test), test))
    return [test for *_, test in sorted(found)]


def dotted(path: Path, root: Path) -> str | None:
    """The module's dotted name, as Python imports it from the project's folder (through a
    linked folder too), None outside it."""
    for module, folder in ((path.absolute(), root.absolute()), (path.resolve(), root.resolve())):
        try:
            return ".".join(module.relative_to(folder).with_suffix("").parts)
        except ValueError:
            continue
    return None


def _made_outside(path: Path, name: str) -> bool:
    """The module names the class outside its own definition (a function or an outer class
    of the module that constructs it)."""
    tree = _tree(path, _text(path))
    if tree is None:
        return True
    own = {
        id(n)
        for c in tree.body
        if isinstance(c, ast.ClassDef) and c.name == name
        for n in ast.walk(c)
    }
    return any(
        isinstance(n, ast.Name) and n.id == name and id(n) not in own for n in ast.walk(tree)
    )


def _own_class(path: Path, name: str) -> bool:
    """The module defines a class `name` of its own and reaches no other by that name (no
    import of one, no `module.name`): where it names the class, it is its own."""
    tree = _tree(path, _text(path))
    if tree is None or not any(isinstance(n, ast.ClassDef) and n.name == name for n in tree.body):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
            return False
        if isinstance(node, ast.Attribute) and node.attr == name:
            return False
    return True


def _shape(inputs: dict | None, found: Found, where: str) -> Shape | Shapes | None:
    """The example input shape of the call observed: of the class's tensor inputs, and of
    the keyword tensors it passed that the tests can pass in every call (the first keyword
    params, by position: an `attention_mask=None` the code may read unconditionally)."""
    tensors = [name for name, default in found.inputs if default is None] or ["inputs"]
    observed = inputs or {}
    if not found.separate and tensors[0] not in observed:
        return None
    for name in found.positional_keywords:  # the leading run the call passed
        if name not in observed:
            break
        tensors.append(name)
    inputs = {k: observed[k] for k in tensors if k in observed}
    if not inputs:
        return None
    keywords = any(name in inputs for name in found.positional_keywords)
    filled = []
    shapes = {}
    for name, seen in inputs.items():
        dims = list(seen["shape"])
        if dims and dims[0] is None:
            dims[0] = BATCH
        filled += [i for i, d in enumerate(dims) if d is None]
        shapes[name] = [UNKNOWN if d is None else d for d in dims]
    shape = Shapes(shapes) if found.separate or keywords else Shape(shapes[tensors[0]])
    shape.source = where + (f" (unknown dims {UNKNOWN})" if filled else "")
    dtypes = {k: v["dtype"] for k, v in inputs.items() if v["dtype"] != "float32"}
    shape.dtypes = dtypes or None
    ranges = [v["range"] for v in inputs.values() if "range" in v]
    if ranges:
        shape.input_range = [min(r[0] for r in ranges), max(r[1] for r in ranges)]
    return shape


def _why(output: str | None, tests: list[Path], root: Path) -> str:
    """Why the tests showed nothing: the limit, the error they stopped at, else that none
    built it."""
    if output is None:
        return f"its tests ran past {TIME_LIMIT} s"
    if "No module named pytest" in output:
        return "pytest is not installed"
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("E ") and ("Error" in line or "Exception" in line):
            return f"running its tests stopped at `{line[1:].strip()}`"
        if line.startswith("ERROR: "):  # pytest's own usage errors
            return f"running its tests failed: {line.removeprefix('ERROR: ')}"
    names = ", ".join(str(t.relative_to(root)) for t in tests[:3])
    more = f" and {len(tests) - 3} more" if len(tests) > 3 else ""
    return f"its tests ({names}{more}) never constructed it"
