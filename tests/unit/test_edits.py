"""layergen/lint/edits.py and the rule table: a fix is a small frozen dataclass
that the one generic fixer applies at the node it names, whatever the rule; the check cache
keeps fixes as JSON."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from typing import ClassVar

import pytest

from layergen.lint import rules
from layergen.lint.edits import (
    AddDecorator,
    AddGetConfig,
    AddKeys,
    AddKeywords,
    AddKwargs,
    Fix,
    SetKeysBeforeReturn,
    as_json,
    from_json,
)
from layergen.lint.fixes import apply_fixes

FIXES = [
    AddKeywords((3, 14), (("dtype", "self.dtype_policy"),)),
    AddKeys((7, 16), (("units", "self.units"), ("rate", "self.rate"))),
    SetKeysBeforeReturn(9, "config", (("units", "self.units"),)),
    AddKwargs("Scale"),
    AddGetConfig("Scale", (("factor", "self.factor"),), True),
    AddDecorator("Scale", 'keras.saving.register_keras_serializable(package="p")', True),
]


@pytest.mark.parametrize("fix", FIXES, ids=lambda f: type(f).__name__)
def test_a_fix_is_kept_in_the_cache_as_json(fix):
    assert from_json(json.loads(json.dumps(as_json(fix)))) == fix


def test_every_rule_is_a_module_named_after_its_code():
    assert list(rules.RULES) == [m.RULE.code for m in rules.MODULES]
    for module in rules.MODULES:
        assert module.__name__.rsplit(".", 1)[1] == module.RULE.code.replace("-", "_")
        assert callable(module.check)


def test_a_new_kind_of_fix_needs_no_change_to_the_fixer():
    """What a rule with an edit of its own would do: define a `Fix` beside it."""

    @dataclass(frozen=True)
    class Renamed(Fix):
        node: ClassVar[str] = "Call"
        position: tuple[int, int]
        name: str

        @property
        def anchor(self):
            return self.position

        def apply(self, node, module):
            import libcst as cst

            return node.with_changes(func=cst.parse_expression(self.name))

    code = textwrap.dedent("""\
        def f(x):
            return np.sum(x) + np.sum(x)
        """)
    fixed = apply_fixes(code, [Renamed((2, 24), "ops.sum")])
    assert fixed == code.replace("+ np.sum", "+ ops.sum")
    assert from_json(as_json(Renamed((2, 24), "ops.sum"))) == Renamed((2, 24), "ops.sum")


def test_fixes_at_one_class_are_made_in_order_and_their_imports_added_once():
    code = textwrap.dedent('''\
        """Layers."""


        class Scale(Layer):
            def __init__(self, factor):
                super().__init__()
                self.factor = factor
        ''')
    fixed = apply_fixes(
        code,
        [
            AddKwargs("Scale"),
            AddGetConfig("Scale", (("factor", "self.factor"),), True),
            AddDecorator("Scale", "keras.saving.register_keras_serializable()", True),
        ],
    )
    assert fixed.count("import keras\n") == 1
    assert "def __init__(self, factor, **kwargs):" in fixed
    assert "super().__init__(**kwargs)" in fixed
    assert "@keras.saving.register_keras_serializable()\nclass Scale" in fixed
    assert 'config.update({"factor": self.factor})' in fixed
