"""A person-owned `call` (`hand_written: [call]`) against the declaration's contract: a call
input the declaration adds and the person's `call` does not take is said on every run, at the
call, until the call takes it or the declaration drops it; acknowledging the change
(`resolve --ours`) does not settle it, since the layer would still fail when called with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import DECLARATION, cli, declaration_path, edit, module, module_path

STATED = DECLARATION.replace(
    "call: x * scale * gain\n", "call: x * scale * gain\nhand_written: [call]\n"
)
UNSTATED = DECLARATION.replace(
    "call: x * scale * gain\n",
    "hand_written: [call]\nexample:\n  input_shape: [2, 3]\n  reference: x * scale * gain\n",
)
KEYWORD = "inputs:\n  x: {}\n  start_index: {type: int, default: 0, doc: The first position.}\n"


def owned_call_project(root: Path, declaration: str) -> None:
    """The Scaler project with its call the person's, written as they want it."""
    declaration_path(root).write_text(declaration)
    assert cli("generate", "layers").exit_code == 0
    stand_in = "        return x\n"  # the call taken over before it was ever declared
    if stand_in in module(root):
        edit(module_path(root), stand_in, "        return x * self.scale * self.gain\n")
    assert cli("generate", "--check", "layers").exit_code == 0


def said_at_the_call(root: Path, output: str) -> bool:
    line = module(root).split("\n").index("    def call(self, x):") + 1
    return f"layers/scaler.py:{line}:" in output and "`start_index`" in output


@pytest.mark.parametrize("declared", [STATED, UNSTATED], ids=["call-stated", "call-unstated"])
def test_a_declared_keyword_the_owned_call_does_not_take_is_said_until_settled(
    scaler_project, declared
):
    owned_call_project(scaler_project, declared)
    edit(declaration_path(scaler_project), "params:\n", KEYWORD + "params:\n")
    for args in (("generate", "layers"), ("generate", "layers"), ("generate", "--check", "layers")):
        result = cli(*args)
        assert result.exit_code == 1, (args, result.output)
        assert said_at_the_call(scaler_project, result.output), (args, result.output)
    assert "    def call(self, x):\n" in module(scaler_project)  # the person's, as written
    # The docstring documents the declared contract, said wrong by the report until settled.
    assert "        start_index: The first position." in module(scaler_project)
    # Seeing it is not settling it: the call still does not take the keyword.
    cli("resolve", "layers/scaler.py", "--ours")
    result = cli("generate", "--check", "layers")
    assert result.exit_code == 1 and said_at_the_call(scaler_project, result.output), result.output
    # Settled by the call taking it.
    edit(
        module_path(scaler_project),
        "    def call(self, x):",
        "    def call(self, x, start_index=0):",
    )
    result = cli("generate", "--check", "layers")
    assert result.exit_code == 0, result.output


def test_a_declared_keyword_dropped_again_settles_it(scaler_project):
    owned_call_project(scaler_project, STATED)
    edit(declaration_path(scaler_project), "params:\n", KEYWORD + "params:\n")
    assert cli("generate", "layers").exit_code == 1
    cli("resolve", "layers/scaler.py", "--ours")
    edit(declaration_path(scaler_project), KEYWORD, "")
    assert cli("generate", "layers").exit_code in (0, 1)
    cli("resolve", "layers/scaler.py", "--ours")  # the call's generation changed back: seen
    result = cli("generate", "--check", "layers")
    assert result.exit_code == 0 and "start_index" not in result.output, result.output


@pytest.mark.parametrize(
    "signature",
    ["(self, x, **kwargs)", "(self, inputs, start_index=None)", "(self, x, *, start_index)"],
)
def test_a_call_that_takes_the_keyword_in_any_form_is_not_reported(scaler_project, signature):
    owned_call_project(scaler_project, STATED)
    edit(declaration_path(scaler_project), "params:\n", KEYWORD + "params:\n")
    edit(module_path(scaler_project), "    def call(self, x):", f"    def call{signature}:")
    if "inputs" in signature:
        edit(module_path(scaler_project), "return x * self", "return inputs * self")
    cli("generate", "layers")
    cli("resolve", "layers/scaler.py", "--ours")  # the generation of `call` changed: seen
    result = cli("generate", "--check", "layers")
    assert result.exit_code == 0 and "start_index" not in result.output, result.output
