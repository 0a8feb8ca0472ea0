"""`layergen sync` (layergen/sync.py): hand edits carried back into the declaration.

Regression tests: no conflict passes unnoticed, no edit is lost; inputs that gave tracebacks, broken
code reported as success; everyday workflows that lost an edit or left stale code behind a green
`--check`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import (
    DECLARATION,
    HAND_CALL,
    conflicted_then_put_back,
    declaration,
    declaration_path,
    edit,
    edit_call_by_hand_and_in_the_declaration,
    mixin_by_hand_and_package_in_the_declaration,
    module,
    module_path,
    no_traceback,
    snapshot,
    write,
)
from helpers import cli as run

# -- sync never throws a pending declaration change away ------------------------------------------


def test_sync_does_not_settle_a_pending_conflict(scaler_project):
    edit_call_by_hand_and_in_the_declaration(scaler_project)
    run("generate", "layers")
    before = snapshot(scaler_project)
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 1 and "[conflict]" in result.output
    assert snapshot(scaler_project) == before
    assert run("generate", "--check", "layers").exit_code == 1


def test_sync_before_generate_keeps_the_declaration_change_and_reports_the_conflict(scaler_project):
    edit_call_by_hand_and_in_the_declaration(
        scaler_project
    )  # the declaration's change was never generated
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 1 and "conflict: `Scaler.call`" in result.output
    assert "call: x * scale + gain" in declaration(
        scaler_project
    )  # not overwritten by the module's call
    assert "return x * self.scale + self.gain" in module(scaler_project) and HAND_CALL in module(
        scaler_project
    )


def test_sync_carries_a_hand_edited_call_back_into_the_declaration(scaler_project):
    code = module(scaler_project).replace(
        "return x * self.scale * self.gain", "return (x + 1.0) * self.scale * self.gain"
    )
    (scaler_project / "layers" / "scaler.py").write_text(code)
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert "call: (x + 1.0) * scale * gain\n" in declaration(scaler_project)  # one line still
    assert "hand_written" not in declaration(scaler_project)
    assert module(scaler_project) == code
    assert run("generate", "--check", "layers").exit_code == 0
    # The declaration now describes call: a change there reaches the code without a conflict.
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        declaration(scaler_project).replace("(x + 1.0)", "(x + 2.0)")
    )
    assert run("generate", "layers").exit_code == 0
    assert "return (x + 2.0) * self.scale * self.gain" in module(scaler_project)


def test_sync_marks_what_it_cannot_carry_back_as_hand_written(scaler_project):
    code = module(scaler_project).replace(
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        print('building')  # mine\n",
        1,
    )
    (scaler_project / "layers" / "scaler.py").write_text(code)
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert "hand_written: [build]" in declaration(scaler_project)
    assert module(scaler_project) == code
    # The declaration says build is hand-written: generate keeps it even when the weights change,
    # and says so (a change it does not make is never silent) until it is seen.
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        declaration(scaler_project).replace("initializer: ones", "initializer: zeros")
    )
    result = run("generate", "layers")
    assert result.exit_code == 1 and "`Scaler.build` is yours" in result.output
    assert "print('building')  # mine" in module(scaler_project) and 'initializer="ones"' in module(
        scaler_project
    )
    assert run("resolve", "layers/scaler.py", "--ours").exit_code == 0
    assert run("generate", "--check", "layers").exit_code == 0


# -- sync takes folders and the configured paths; tuple defaults ----------------------------------


def test_sync_takes_a_folder_and_the_configured_paths(scaler_project):
    (scaler_project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    code = module(scaler_project).replace(
        "def __init__(self, gain=1.0, **kwargs):",
        "def __init__(self, gain=1.0, head_sizes=(4, 4), **kwargs):",
    )
    code = code.replace(
        "        self.gain = gain\n",
        "        self.gain = gain\n        self.head_sizes = head_sizes\n",
    )
    (scaler_project / "layers" / "scaler.py").write_text(code)
    result = run("sync", "layers")
    assert result.exit_code == 0, result.output
    assert "  head_sizes:\n    type: list[int]\n    default: [4, 4]\n" in declaration(
        scaler_project
    )
    # The generator writes `[4, 4]`: the person's `(4, 4)` is no longer what it would write.
    assert "hand_written: [__init__]" in declaration(scaler_project)
    assert "head_sizes=(4, 4)" in module(
        scaler_project
    ) and '"head_sizes": self.head_sizes,' in module(scaler_project)
    assert run("sync").exit_code == 0
    assert run("generate", "--check").exit_code == 0


def test_sync_reports_a_class_header_edited_on_both_sides(scaler_project):
    mixin_by_hand_and_package_in_the_declaration(scaler_project)
    result = run("sync", "layers")
    no_traceback(result)
    assert result.exit_code == 1 and "conflict: `Scaler.<header>`" in result.output


# -- a module with a syntax error -----------------------------------------------------------------


def test_sync_on_a_module_with_a_syntax_error_is_a_located_error(scaler_project):
    text = module(scaler_project).replace("return x * self.scale", "return (x * self.scale")
    write(scaler_project, "layers/scaler.py", text)
    before = snapshot(scaler_project)
    for args in (("sync", "layers"), ("sync", "layers/scaler.py"), ("generate", "layers")):
        result = run(*args)
        no_traceback(result)
        assert result.exit_code == 2 and "layers/scaler.py:" in result.output, args
        assert "invalid Python" in result.output and "[python-syntax]" in result.output
    assert snapshot(scaler_project) == before


# -- sync never changes a default it cannot write -------------------------------------------------


def with_alpha(root: Path, default: str) -> tuple[int, int]:
    """The module's `__init__` given `alpha=<default>`; the line and column of `alpha`."""
    text = module(root).replace(
        "def __init__(self, gain=1.0, **kwargs):",
        f"def __init__(self, gain=1.0, alpha={default}, **kwargs):",
    )
    write(root, "layers/scaler.py", text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "alpha=" in t)
    return line, text.splitlines()[line - 1].index("alpha") + 1


@pytest.mark.parametrize(
    "default, why",
    [
        ("DEFAULT_ALPHA", "is an expression, and a declaration holds values only"),
        ("10**400", "is an expression"),
        ('float("nan")', "is an expression"),
        ("1e400", "is not a finite number"),
        ("1j", "is a complex number, which no param type holds"),
        ("-1j", "is a complex number"),
        ("(1, 2j)", "holds a complex number"),
        ("[[1]]", "holds a list"),
        ("...", "is Ellipsis, which no param type holds"),
        ('{"a": 1}', "is a dict"),
        ('b"x"', "is bytes"),
        ("{1, 2}", "is a set"),
    ],
)
def test_sync_refuses_a_default_it_cannot_write_at_its_place(scaler_project, default, why):
    line, column = with_alpha(scaler_project, default)
    before = snapshot(scaler_project)
    result = run("sync", "layers")
    no_traceback(result)
    assert result.exit_code == 2, result.output
    assert (
        f"layers/scaler.py:{line}:{column}: error: the default of `alpha` (`{default}`) {why}"
        in result.output
    ), result.output
    assert "[cannot-sync]" in result.output
    assert snapshot(scaler_project) == before


@pytest.mark.parametrize(
    "default, declared",
    [
        ("0.25", " {type: float, default: 0.25}"),
        ("-3", " {type: int, default: -3}"),
        ('"x"', " {type: str, default: x}"),
        ("None", " {type: float, default: null}"),
        ("True", " {type: bool, default: true}"),
        ("[4, 4]", "\n    type: list[int]\n    default: [4, 4]"),
    ],
)
def test_sync_writes_a_literal_default_as_it_is(scaler_project, default, declared):
    with_alpha(scaler_project, default)
    result = run("sync", "layers")
    assert result.exit_code == 0, result.output
    assert f"  alpha:{declared}\n" in (scaler_project / "layers/scaler.layer.yaml").read_text()


@pytest.mark.parametrize(
    "declared, edited, synced",
    [
        ("x * scale * gain", "x * self.scale * self.gain * 2", "call: x * scale * gain * 2\n"),
        ('"x * scale * gain"', "x * self.scale * 2", 'call: "x * scale * 2"\n'),
        ("'x * scale * gain'", "x * self.scale * 2", "call: 'x * scale * 2'\n"),
        ("x * scale * gain", "(lambda v: v)(x) * 2", "call: '(lambda v: v)(x) * 2'\n"),
        ("|\n  return x * scale * gain", "x * self.scale * 2", "call: |\n  return x * scale * 2\n"),
    ],
)
def test_sync_keeps_a_one_line_call_on_one_line(scaler_project, declared, edited, synced):
    write(
        scaler_project,
        "layers/scaler.layer.yaml",
        DECLARATION.replace("call: x * scale * gain", f"call: {declared}"),
    )
    assert run("generate", "layers").exit_code == 0
    write(
        scaler_project,
        "layers/scaler.py",
        module(scaler_project).replace("return x * self.scale * self.gain", f"return {edited}"),
    )
    result = run("sync", "layers")
    assert result.exit_code == 0, result.output
    assert (scaler_project / "layers/scaler.layer.yaml").read_text().endswith(synced)


def test_sync_writes_a_call_of_several_statements_as_a_block(scaler_project):
    write(
        scaler_project,
        "layers/scaler.py",
        module(scaler_project).replace(
            "return x * self.scale * self.gain",
            "y = x * self.scale\n        return y * self.gain",
        ),
    )
    assert run("sync", "layers").exit_code == 0
    assert (
        (scaler_project / "layers/scaler.layer.yaml")
        .read_text()
        .endswith("call: |\n  y = x * scale\n  return y * gain\n")
    )


def test_sync_after_a_file_is_put_back_keeps_the_declaration_change(scaler_project):
    """Found by a second attack: `sync` read the put-back module against the new base and
    wrote it into the declaration, dropping the declaration's change (exit 0)."""
    conflicted_then_put_back(scaler_project)
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 1 and "conflict" in result.output, result.output
    assert "call: x * scale * gain + bias" in declaration_path(scaler_project).read_text()


def test_sync_keeps_the_comments_above_a_member_it_carries(scaler_project):
    """Found by the stateful test: a comment above `def call` was dropped when sync carried
    the hand-edited call into the declaration."""
    edit(module_path(scaler_project), "    def call(self", "    # why it halves\n    def call(self")
    edit(module_path(scaler_project), "return x * self.scale * self.gain\n", "return x * 0.5\n")
    assert run("sync", "layers").exit_code == 0
    assert "x * 0.5" in declaration_path(scaler_project).read_text()
    code = module(scaler_project)
    assert "    # why it halves\n    def call(self" in code and "return x * 0.5\n" in code
    assert run("generate", "--check", "layers").exit_code == 0


def test_sync_keeps_the_comments_in_a_member_it_carries(scaler_project):
    """A comment in `__init__` went when sync stated the new default in the declaration."""
    edit(
        module_path(scaler_project),
        "def __init__(self, gain=1.0, **kwargs):\n",
        "def __init__(self, gain=2.0, **kwargs):\n        # doubled, see issue 7\n",
    )
    assert run("sync", "layers").exit_code == 0
    assert "default: 2.0" in declaration_path(scaler_project).read_text()
    code = module(scaler_project)
    assert "gain=2.0, **kwargs):\n        # doubled, see issue 7\n" in code
    assert run("generate", "--check", "layers").exit_code == 0


# -- members sync hands to the person: each said; an edited op among them ----------------------


def test_sync_says_each_member_it_hands_to_the_person(scaler_project):
    """`sync` (and `watch`, on every save) added `hand_written: [build]` with only `updated
    scaler.layer.yaml` printed."""
    edit(
        module_path(scaler_project),
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        print('building')\n",
    )
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if "`Scaler.build`" in line]
    assert len(said) == 1 and said[0].startswith("layers/scaler.py:"), result.output
    assert "hand_written" in said[0] and "scaler.layer.yaml" in said[0]


def test_sync_hands_an_edited_op_to_the_person(tmp_path, monkeypatch):
    """A hand edit of a custom-gradient op's body: `sync` listed the op under `hand_written`,
    which refused it, `[unknown-member]` at a line past the end of the declaration file, and
    nothing was written."""
    import shutil

    from helpers import OWN_EXAMPLES

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    shutil.copy(OWN_EXAMPLES / "uniform_quantizer.layer.yaml", tmp_path / "layers")
    monkeypatch.chdir(tmp_path)
    assert run("generate", "layers").exit_code == 0
    path = tmp_path / "layers" / "uniform_quantizer.py"
    floor = "return ops.floor(v * self.levels) / self.levels, grad"
    edit(path, "return ops.round(v * self.levels) / self.levels, grad", floor)
    result = run("sync", "layers/uniform_quantizer.py")
    assert result.exit_code == 0, result.output
    assert "`UniformQuantizer.snap_to_grid`" in result.output
    assert (
        "hand_written: [snap_to_grid]"
        in (tmp_path / "layers" / "uniform_quantizer.layer.yaml").read_text()
    )
    assert floor in path.read_text()
    assert run("generate", "--check", "layers").exit_code == 0


def test_sync_plans_one_run_and_reads_the_lock_once(scaler_project, monkeypatch):
    """Its trials (the module before, a carried `call`, the declaration's members) are renders
    of the declaration alone (`generate.render`); the planner runs once, for the run it writes."""
    import layergen.generate
    from layergen.update.lock import Lock

    planned, reads = [], []
    plan_run, read = layergen.generate.plan_run, Lock.read.__func__
    monkeypatch.setattr(
        layergen.generate, "plan_run", lambda *a, **k: planned.append(a) or plan_run(*a, **k)
    )
    monkeypatch.setattr(
        Lock, "read", classmethod(lambda cls, root: reads.append(root) or read(cls, root))
    )
    code = module(scaler_project).replace(
        "return x * self.scale * self.gain", "return (x + 1.0) * self.scale * self.gain"
    )
    (scaler_project / "layers" / "scaler.py").write_text(code)
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert "call: (x + 1.0) * scale * gain\n" in declaration(scaler_project)
    assert (len(planned), len(reads)) == (1, 1)


# -- an `__init__` that is the person's still says the params -------------------------------------


def _init_handed_to_the_person(root: Path) -> str:
    """The Scaler project with `__init__` edited beyond what a declaration says, and synced:
    `__init__` listed under hand_written, `get_config` still generated."""
    code = module(root).replace(
        "        self.gain = gain\n", "        self.gain = gain\n        self.floor = FLOOR\n"
    )
    write(root, "layers/scaler.py", code.replace("import keras\n", "import keras\n\nFLOOR = 0\n"))
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert "hand_written: [__init__]" in declaration(root)
    return module(root)


def test_sync_carries_an_argument_added_to_an_init_that_is_yours(scaler_project):
    """An `__init__` the declaration cannot say stays the person's, but its arguments are the
    layer's params: an argument added by hand is declared, and the generated `get_config`
    and tests follow it (else a saved model lost it on load behind a green `--check`)."""
    code = _init_handed_to_the_person(scaler_project)
    edited = code.replace("gain=1.0,", "gain=1.0, bias=0.5,", 1).replace(
        "        self.floor = FLOOR\n", "        self.floor = FLOOR\n        self.bias = bias\n"
    )
    assert edited != code
    write(scaler_project, "layers/scaler.py", edited)
    checked = run("generate", "--check", "layers")  # said until it is declared
    assert checked.exit_code == 1, checked.output
    assert "`Scaler.__init__` is yours (hand_written) and takes `bias`" in checked.output
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 0, result.output
    assert "  bias: {type: float, default: 0.5}" in declaration(scaler_project)
    synced = module(scaler_project)
    assert '"bias": self.bias' in synced
    assert synced.split("def build")[0].count("self.bias = bias") == 1  # the person's, as written
    assert run("generate", "--check", "layers").exit_code == 0
    assert run("check", "layers").exit_code == 0


def test_sync_drops_an_argument_removed_from_an_init_that_is_yours(scaler_project):
    code = _init_handed_to_the_person(scaler_project)
    added = code.replace("gain=1.0,", "gain=1.0, bias=0.5,", 1).replace(
        "        self.floor = FLOOR\n", "        self.floor = FLOOR\n        self.bias = bias\n"
    )
    write(scaler_project, "layers/scaler.py", added)
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert '"bias": self.bias' in module(scaler_project)
    removed = module(scaler_project).replace(" bias=0.5,", "", 1)
    write(scaler_project, "layers/scaler.py", removed.replace("self.bias = bias", "self.bias = 0"))
    result = run("sync", "layers/scaler.py")
    assert result.exit_code == 0, result.output
    assert "bias" not in declaration(scaler_project)
    assert '"bias"' not in module(scaler_project)
    assert run("generate", "--check", "layers").exit_code == 0


def test_sync_leaves_the_params_of_an_unchanged_init_that_is_yours(scaler_project):
    """Nothing in the signature changed: the declaration is left byte for byte."""
    _init_handed_to_the_person(scaler_project)
    before = declaration(scaler_project)
    write(
        scaler_project,
        "layers/scaler.py",
        module(scaler_project).replace("self.floor = FLOOR", "self.floor = FLOOR + 1"),
    )
    assert run("sync", "layers/scaler.py").exit_code == 0
    assert declaration(scaler_project) == before


def test_sync_keeps_a_commented_block_list_as_it_is(scaler_project):
    """A `hand_written:` list in block style whose key line ends in a comment (as adopt
    writes it) keeps its indentation when sync rewrites the document for another reason."""
    text = declaration(scaler_project) + (
        "hand_written:  # yours, kept as written in the module\n" "  - build  # it prints\n"
    )
    write(scaler_project, "layers/scaler.layer.yaml", text)
    code = module(scaler_project).replace(
        "    def build(self, input_shape):\n",
        "    def build(self, input_shape):\n        print('building')\n",
        1,
    )
    write(scaler_project, "layers/scaler.py", code)
    assert run("generate", "layers").exit_code == 0
    write(
        scaler_project,
        "layers/scaler.py",
        module(scaler_project).replace("x * self.scale * self.gain", "self.gain * x * self.scale"),
    )
    assert run("sync", "layers/scaler.py").exit_code == 0, declaration(scaler_project)
    synced = declaration(scaler_project)
    assert synced != text  # the call was carried
    assert synced.endswith(
        "hand_written:  # yours, kept as written in the module\n  - build  # it prints\n"
    ), synced


KERAS_HUB_STYLE = """\
import keras
from keras import ops

EPSILON = 1e-6


@keras.saving.register_keras_serializable(package="layers")
class ScaleNorm(keras.layers.Layer):
    def __init__(self, epsilon=EPSILON, dtype=None, **kwargs):
        super().__init__(dtype=dtype, **kwargs)
        self.epsilon = epsilon

    def call(self, x):
        return x * ops.rsqrt(ops.mean(ops.square(x), axis=-1, keepdims=True) + self.epsilon)

    def get_config(self):
        config = super().get_config()
        config.update({"epsilon": self.epsilon})
        return config
"""


def test_sync_after_adopt_leaves_an_init_that_is_yours_as_declared(project):
    """keras-hub's `__init__`: a default that is an expression (declared `default: null`)
    and `dtype` passed on to the base (left to `**kwargs`). Nothing edited: sync changes
    nothing, and refuses nothing; an argument added by hand is carried, the rest left."""
    layer = project / "layers" / "norm.py"
    layer.write_text(KERAS_HUB_STYLE)
    adopted = run("adopt", "layers/norm.py", "--input-shape", "2,4", "--no-trial")
    assert adopted.exit_code == 0, adopted.output
    declaration = project / "layers" / "norm.layer.yaml"
    before = declaration.read_text()
    result = run("sync", "layers/norm.py")
    assert result.exit_code == 0, result.output
    assert declaration.read_text() == before
    layer.write_text(
        layer.read_text()
        .replace("dtype=None, **kwargs", "dtype=None, center=True, **kwargs")
        .replace(
            "        self.epsilon = epsilon\n",
            "        self.epsilon = epsilon\n        self.center = center\n",
        )
    )
    result = run("sync", "layers/norm.py")
    assert result.exit_code == 0, result.output
    synced = declaration.read_text()
    assert "  center: {type: bool, default: true}" in synced, synced
    assert synced.replace("  center: {type: bool, default: true}\n", "") == before
    assert '"center": self.center' in layer.read_text()
    assert run("generate", "--check", "layers").exit_code == 0
