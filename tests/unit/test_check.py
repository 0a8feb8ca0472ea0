"""`layergen check`: what is more than one rule's findings on one file (those are data, in
tests/fixtures/lint_rules/): classes across files, `--fix` and `--diff`, settings, ignore
comments, exit codes, and layergen's own generated code (which must be clean)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from layergen.init import PROBLEM_REGEXP
from layergen.lint.engine import check_files, python_files
from layergen.lint.fixes import apply_fixes
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

from helpers import (
    FIXTURES,
    HANDWRITTEN,
    OWN_EXAMPLES,
    REPO,
    layergen,
    layergen_in_process,
    make_project,
)

HEADER = (
    "import keras\nimport numpy as np\nimport tensorflow as tf\nfrom keras import layers, ops\n\n\n"
)


def findings(
    code: str,
    tmp_path: Path,
    name: str = "mod.py",
    settings: CheckSettings | None = None,
    extra=None,
):
    """[(code, line)] for a module holding HEADER + code."""
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(code))
    paths = [path]
    for other_name, other in (extra or {}).items():
        (tmp_path / other_name).write_text(textwrap.dedent(other))
        paths.append(tmp_path / other_name)
    report = check_files(paths, settings or CheckSettings(root=tmp_path, select=frozenset(RULES)))
    assert not report.errors
    return [(f.code, f.line - HEADER.count("\n")) for f in report.findings.get(path, [])]


REG = '@keras.saving.register_keras_serializable(package="t")\n'


# The findings of each rule, case by case, are data: tests/fixtures/lint_rules/ (run by
# test_lint_rule_fixtures.py). The tests here are about more than one rule's findings.
INIT_KWARGS = FIXTURES / "lint_rules" / "init-kwargs"
BUGGY = (INIT_KWARGS / "no_kwargs.py").read_text()
CLEAN = (INIT_KWARGS / "kwargs_through_old_style_super.py").read_text()


def test_every_rule_has_an_explanation():
    for rule in RULES.values():
        assert rule.summary and rule.bad and rule.good and rule.code in rule.explain()


def test_subclass_of_a_custom_layer_in_another_file_must_extend_its_config(tmp_path):
    parent = (
        HEADER
        + REG
        + (
            "class Base2(layers.Layer):\n    def __init__(self, f=1.0, **kwargs):\n        super().__init__(**kwargs)\n"
            "        self.f = f\n    def get_config(self):\n        return {**super().get_config(), 'f': self.f}\n"
        )
    )
    child = (
        "from .parent import Base2\nimport keras\n\n\n"
        + REG
        + "class Child(Base2):\n    def __init__(self, g=2.0, **kwargs):\n        super().__init__(**kwargs)\n        self.g = g\n"
    )
    found = findings("", tmp_path, extra={"parent.py": parent, "child.py": child})
    assert found == []
    report = check_files(
        [tmp_path / "parent.py", tmp_path / "child.py"], CheckSettings(root=tmp_path)
    )
    assert [f.code for f in report.findings[tmp_path / "child.py"]] == ["config-missing"]
    fixed = apply_fixes(child, [f.fix for f in report.findings[tmp_path / "child.py"]])
    assert fixed.endswith(
        "        self.g = g\n\n    def get_config(self):\n        config = super().get_config()\n"
        '        config.update({"g": self.g})\n        return config\n'
    )


def test_keras_ops_under_another_name_and_project_registration_decorators(tmp_path):
    code = (
        "import keras.ops as K\nimport numpy\nfrom myproj.api import export\n\n\n@export('x')\n"
        "class A(keras.layers.Layer):\n    def call(self, x):\n        if K.any(x > 0):\n            return numpy.abs(x)\n        return x\n"
    )
    (tmp_path / "a.py").write_text(code)
    settings = CheckSettings(
        root=tmp_path, registrars=frozenset({"myproj.api.export"}), select=frozenset(RULES)
    )
    report = check_files([tmp_path / "a.py"], settings)
    assert [f.code for f in report.findings[tmp_path / "a.py"]] == [
        "python-if-on-tensor",
        "numpy-in-call",
    ]


FIX_BEFORE = """\
import keras
from keras import layers


class Block(keras.layers.Layer):
    def __init__(
        self,
        units,
        rate=0.1,
    ):
        super().__init__()  # keep this comment
        self.units = units
        self.rate = rate
        self.activation = keras.activations.get("relu")
        self.dense = layers.Dense(units, activation="relu")
        self.drop = layers.Dropout(rate)

    def call(self, x, training=None):
        return self.drop(self.dense(x))

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
            }
        )
        return config
"""

FIX_AFTER = """\
import keras
from keras import layers


@keras.saving.register_keras_serializable(package="pkg")
class Block(keras.layers.Layer):
    def __init__(
        self,
        units,
        rate=0.1,
        **kwargs,
    ):
        super().__init__(**kwargs)  # keep this comment
        self.units = units
        self.rate = rate
        self.activation = keras.activations.get("relu")
        self.dense = layers.Dense(units, activation="relu", dtype=self.dtype_policy)
        self.drop = layers.Dropout(rate, dtype=self.dtype_policy)

    def call(self, x, training=None):
        return self.drop(self.dense(x), training=training)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "rate": self.rate,
            }
        )
        return config
"""


def test_fix_rewrites_every_fixable_rule_and_keeps_the_rest_byte_for_byte(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "block.py").write_bytes(
        FIX_BEFORE.replace("\n", "\r\n").encode()
    )  # line endings are kept too
    fixable = ",".join(code for code, rule in RULES.items() if rule.fixable)
    result = layergen_in_process("check", "--fix", "--select", fixable, "pkg", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (folder / "block.py").read_bytes() == FIX_AFTER.replace("\n", "\r\n").encode()
    assert layergen_in_process("check", "--select", fixable, "pkg", cwd=tmp_path).returncode == 0


def test_diff_shows_the_fix_and_writes_nothing(tmp_path):
    (tmp_path / "buggy.py").write_text(FIX_BEFORE)
    result = layergen_in_process("check", "--diff", "buggy.py", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        "+        **kwargs,\n" in result.stdout
        and "-        super().__init__()  # keep this comment\n" in result.stdout
    )
    assert (tmp_path / "buggy.py").read_text() == FIX_BEFORE


def test_output_matches_the_problem_matcher_and_exit_codes(tmp_path):
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "buggy.py").write_text(BUGGY)
    assert layergen_in_process("check", "clean.py", cwd=tmp_path).returncode == 0
    result = layergen_in_process("check", "buggy.py", cwd=tmp_path)
    assert result.returncode == 1
    first, hint = result.stdout.splitlines()[:2]
    match = re.match(PROBLEM_REGEXP, first)
    assert (
        match
        and match.group(1) == "buggy.py"
        and match.group(4) == "error"
        and match.group(6) == "init-kwargs"
    ), first
    assert hint.startswith("  hint: ")
    # A syntax error is a finding, and the other files are checked all the same.
    (tmp_path / "broken.py").write_text("import keras\nclass A(:\n")
    result = layergen_in_process("check", "broken.py", "buggy.py", cwd=tmp_path)
    assert result.returncode == 1 and re.search(
        r"broken\.py:2:\d+: error: invalid Python.*\[python-syntax\]", result.stdout
    )
    assert "[init-kwargs]" in result.stdout
    # A file that cannot hold a Keras class is not read (see the prefilter), broken or not.
    (tmp_path / "other.py").write_text("class Point(:\n")
    assert layergen_in_process("check", "other.py", cwd=tmp_path).returncode == 0
    assert "Traceback" not in result.stderr
    missing = layergen_in_process("check", "nope.py", cwd=tmp_path)
    assert missing.returncode == 2 and "[no-such-file]" in missing.stderr


def test_explain(tmp_path):
    result = layergen_in_process("check", "--explain", "config-missing", cwd=tmp_path)
    assert result.returncode == 0 and "Flagged:" in result.stdout and "Instead:" in result.stdout
    result = layergen_in_process("check", "--explain", "config-mising", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean `config-missing`?" in result.stderr


def test_settings_and_ignore_comments(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.layergen]\npaths = ["layers"]\n\n[tool.layergen.check]\nignore = ["unregistered"]\n'
    )
    (tmp_path / "a.py").write_text(
        HEADER
        + "class A(layers.Layer):\n    def call(self, x):\n        return np.mean(x)  # layergen: ignore[numpy-in-call]\n"
    )
    assert layergen_in_process("check", "a.py", cwd=tmp_path).returncode == 0
    assert (
        layergen_in_process(
            "check", "--select", "unregistered", "--ignore", "", "a.py", cwd=tmp_path
        ).returncode
        == 0
    )  # ignored in config
    (tmp_path / "pyproject.toml").write_text('[tool.layergen.check]\nselect = ["unregisterd"]\n')
    result = layergen_in_process("check", "a.py", cwd=tmp_path)
    assert (
        result.returncode == 2
        and "pyproject.toml:2:1: error: unknown rule `unregisterd`" in result.stderr
    )
    (tmp_path / "pyproject.toml").write_text('[tool.layergen.check]\nselcet = ["unregistered"]\n')
    result = layergen_in_process("check", "a.py", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean `select`?" in result.stderr


def test_handwritten_seed_layers_are_clean_and_the_buggy_ones_flagged_at_their_class():
    root = HANDWRITTEN
    settings = CheckSettings(root=root)
    report = check_files(python_files([root], settings), settings)
    assert root / "seeds.py" not in report.findings
    found = {(f.code, f.line) for f in report.findings[root / "buggy.py"]}
    assert found == {("init-kwargs", 9), ("config-missing", 30)}


def test_generated_code_of_every_example_is_clean(tmp_path):
    project = make_project(tmp_path / "demo", {"examples": OWN_EXAMPLES})
    result = layergen("generate", "examples", cwd=project)
    assert result.returncode == 0, result.stderr
    assert len(list(project.rglob("*.py"))) > len(list(OWN_EXAMPLES.glob("*.yaml")))
    result = layergen_in_process("check", "--ignore", "", ".", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    settings = CheckSettings(root=project)
    report = check_files(python_files([project], settings), settings)
    kinds = sorted({c.kind for source in report.files.values() for c in source.classes if c.kind})
    assert kinds == [
        "constraint",
        "initializer",
        "layer",
        "loss",
        "regularizer",
    ]  # the rules did see every class


def test_init_adds_the_vscode_task_and_the_pre_commit_hook():
    import yaml

    from layergen.init import pre_commit_config, vscode_tasks

    task = next(t for t in vscode_tasks() if t["command"] == "layergen check")
    assert task["problemMatcher"]["pattern"]["regexp"] == PROBLEM_REGEXP
    hooks = {h["id"]: h for h in yaml.safe_load(pre_commit_config())["repos"][0]["hooks"]}
    assert hooks["layergen-check"]["entry"] == "layergen check" and hooks["layergen-check"][
        "types"
    ] == ["python"]
    shipped = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert shipped["layergen-check"]["entry"] == "layergen check"


def test_lines_are_counted_as_python_counts_them(tmp_path):
    """A form feed is not a line break to Python: positions and ignore comments stay right."""
    code = (
        REG
        + "class A(layers.Layer):\n    def __init__(self, f):  # \x0c\n        super().__init__()\n"
    )
    assert findings(code, tmp_path) == [("init-kwargs", 3)]
    silenced = code.replace("# \x0c", "# \x0c layergen: ignore[init-kwargs]")
    assert findings(silenced, tmp_path, name="b.py") == []


def test_test_files_are_skipped_when_a_folder_is_searched(tmp_path):
    buggy = BUGGY
    for name in ("test_layer.py", "layer_test.py", "conftest.py", "layer.py"):
        (tmp_path / name).write_text(buggy)
    settings = CheckSettings(root=tmp_path)
    assert [p.name for p in python_files([tmp_path], settings)] == ["layer.py"]
    named = python_files([tmp_path / "test_layer.py"], settings)  # named: checked all the same
    assert check_files(named, settings).findings


def _run(tmp_path, files: dict[str, str], select=None) -> dict[str, list[str]]:
    """{file: [codes]} of a run over `files` (relative paths under tmp_path)."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    settings = CheckSettings(root=tmp_path, select=frozenset(select or RULES))
    report = check_files(python_files([tmp_path], settings), settings)
    return {
        p.relative_to(tmp_path).as_posix(): [f.code for f in found]
        for p, found in report.findings.items()
    }


LAYER = """
class Scale(keras.layers.Layer):
    def call(self, x):
        return x
"""


def test_registration_through_an_alias_or_an_export_class_is_recognised(tmp_path):
    found = _run(
        tmp_path,
        {
            "alias.py": "import keras\nreg = keras.saving.register_keras_serializable(package='x')\n\n@reg"
            + LAYER,
            "api.py": """
                import keras
                def _register(symbol):
                    keras.saving.register_keras_serializable(package="x")(symbol)
                class my_export:
                    def __init__(self, path):
                        self.path = path
                    def __call__(self, symbol):
                        _register(symbol)
                        return symbol
                """,
            "exported.py": "import keras\nfrom api import my_export\n\n@my_export('x.Scale')"
            + LAYER,
        },
        select=["unregistered"],
    )
    assert found == {}


def test_keras_packages_are_found_by_module_path_and_keras_2_is_not_judged_as_keras_3(
    tmp_path,
):
    (tmp_path / "keras_hub").mkdir()
    (tmp_path / "keras_hub" / "__init__.py").write_text("")
    keras2 = """
        import tensorflow as tf, tf_keras
        layers = tf_keras.layers

        class Scale(layers.Layer):
            def call(self, x):
                if tf.reduce_max(x) > 1.0:
                    x = tf.nn.relu(x)
                return x
        """
    found = _run(
        tmp_path,
        {"keras_hub/src/models/scale.py": "import keras\n" + LAYER, "tfm.py": keras2},
    )
    assert found == {}
