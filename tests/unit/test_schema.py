"""`layergen schema`: generated from the models, accepts every example, rejects mistakes where the CLI does."""

from __future__ import annotations

import json

import pytest
from test_errors import CASES
from typer.testing import CliRunner

from layergen.cli import app
from layergen.declaration import model
from layergen.declaration.load import parse_declaration
from layergen.declaration.yamlfile import load
from layergen.diagnostics import DiagnosticError
from layergen.kinds import KINDS
from layergen.schema import DESCRIPTIONS, declaration_schema

from helpers import ACCEPTANCE, OWN_EXAMPLES

jsonschema = pytest.importorskip("jsonschema")

EXAMPLES = sorted([*ACCEPTANCE.glob("*.yaml"), *OWN_EXAMPLES.glob("*.yaml")])
# Mistakes in the shape of a declaration, which a schema can see (names and code it cannot).
STRUCTURAL = [
    "unknown key",
    "unknown nested key",
    "unknown type",
    "wrong type",
    "no kind key",
    "bad class name",
]
MORE = {
    "unknown type, shorthand": "layer: A\nparams:\n  u: integer\n",
    "unknown key in a param": "layer: A\nparams:\n  u: {type: int, mn: 1}\n",
    "wrong type in a list": "layer: A\nlosses: [1]\n",
    "missing required key": "layer: A\nops:\n  f:\n    args: [v]\n    forward: v\n",
    "weight shape of the wrong type": "layer: A\nweights:\n  k: {shape: true}\n",
    "unknown key in example": "layer: A\nexample:\n  input_shap: [2, 3]\n",
}


@pytest.fixture(scope="module")
def validator():
    schema = declaration_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_the_command_prints_the_schema():
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == declaration_schema()


def test_the_command_writes_the_schema_to_a_file(tmp_path):
    out = tmp_path / "schema.json"
    assert CliRunner().invoke(app, ["schema", "--output", str(out)]).exit_code == 0
    assert json.loads(out.read_text()) == declaration_schema()


def test_it_comes_from_the_models():
    schema = declaration_schema()
    fields = {f.alias or name for name, f in model.Declaration.model_fields.items()}
    assert set(schema["properties"]) == fields
    assert schema["additionalProperties"] is False
    assert schema["oneOf"] == [{"required": [k], "title": f"a {k}"} for k in KINDS]
    assert schema["definitions"]["Param"]["anyOf"][0]["enum"] == list(model.ParamType.__args__)


def test_every_description_names_a_field_of_its_model():
    for cls_name, key in DESCRIPTIONS:
        cls = getattr(model, cls_name)
        assert key in {f.alias or name for name, f in cls.model_fields.items()}, (cls_name, key)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_example_validates(validator, path):
    doc = load(str(path), path.read_bytes())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc.data)]
    assert errors == []


def test_scaffolded_declarations_validate(validator, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert (
        runner.invoke(app, ["new", "ScaledDense", "--weights", "kernel,scale,bias"]).exit_code == 0
    )
    assert (
        runner.invoke(
            app,
            [
                "new",
                "Mixer",
                "--weights",
                "gamma,beta",
                "--params",
                "rate:float=0.1",
                "--inputs",
                "a,b",
            ],
        ).exit_code
        == 0
    )
    for path in (tmp_path / "layers").glob("*.layer.yaml"):
        first = path.read_text().splitlines()[0]
        assert first == "# yaml-language-server: $schema=../.layergen/declaration.schema.json"
        assert list(validator.iter_errors(load(str(path), path.read_bytes()).data)) == []
    assert (
        json.loads((tmp_path / ".layergen" / "declaration.schema.json").read_text())
        == declaration_schema()
    )


def _leaves(error):
    if not error.context:
        return [error]
    return [leaf for sub in error.context for leaf in _leaves(sub)]


def schema_position(validator, doc):
    """Where the schema's most specific complaint is, as (line, col) in the file."""
    best = None
    for error in validator.iter_errors(doc.data):
        for leaf in _leaves(error):
            path, key = tuple(leaf.absolute_path), False
            if leaf.validator == "additionalProperties":
                extra = sorted(set(leaf.instance) - set(leaf.schema.get("properties", {})), key=str)
                path, key = path + (extra[0],), True
            if best is None or len(path) > len(best[0]):
                best = (path, key)
    assert best is not None, "the schema accepted it"
    pos = doc.pos(best[0], key=best[1])
    return pos.line, pos.col


def cli_positions(text: str):
    with pytest.raises(DiagnosticError) as info:
        parse_declaration("broken.layer.yaml", text.encode())
    return {(d.line, d.col) for d in info.value.diagnostics}


@pytest.mark.parametrize("name", [*STRUCTURAL, *MORE])
def test_mistakes_are_rejected_where_the_cli_reports_them(validator, name):
    text = CASES[name][0] if name in CASES else MORE[name]
    doc = load("broken.layer.yaml", text.encode())
    assert schema_position(validator, doc) in cli_positions(text)


def test_two_kind_keys_are_rejected(validator):
    # The CLI points at the second kind key; a schema can only say the mapping is wrong.
    doc = load("broken.layer.yaml", b"layer: A\nloss: B\n")
    assert not validator.is_valid(doc.data)
