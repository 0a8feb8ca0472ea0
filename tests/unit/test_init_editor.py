"""What `init` sets up beyond pyproject.toml: VS Code knows every declaration (the schema
mapped in `.vscode/settings.json`, the YAML extension recommended) and git marks layergen's
bookkeeping as generated; each merged into a person's file, their comments and values kept."""

from __future__ import annotations

import json

import pytest

from layergen.jsonc import strip_jsonc
from layergen.targets import SUFFIXES

from helpers import cli as run
from helpers import snapshot

SCHEMA = "./.layergen/declaration.schema.json"
GLOBS = [f"**/*{suffix}" for suffix in SUFFIXES]

SETTINGS = """\
// my settings
{
    "editor.rulers": [100], // mine
    "yaml.schemas": {
        "https://json.schemastore.org/github-workflow.json": ".github/workflows/*.yml",
    },
    /* trailing comma, as VS Code allows */
    "files.trimTrailingWhitespace": true,
}
"""

EXTENSIONS = """\
{
    // what we use
    "recommendations": ["ms-python.python"]
}
"""


def _json(path):
    return json.loads(strip_jsonc(path.read_text()))


def test_init_maps_the_schema_to_every_declaration_and_recommends_the_yaml_extension(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    result = run("init")
    assert result.exit_code == 0, result.output
    assert _json(tmp_path / ".vscode" / "settings.json") == {"yaml.schemas": {SCHEMA: GLOBS}}
    assert _json(tmp_path / ".vscode" / "extensions.json") == {
        "recommendations": ["redhat.vscode-yaml"]
    }
    assert (tmp_path / SCHEMA).is_file()
    attributes = (tmp_path / ".gitattributes").read_text().splitlines()
    assert ".layergen/** linguist-generated=true" in attributes
    assert "layergen.lock linguist-generated=true" in attributes
    before = snapshot(tmp_path)
    again = run("init")
    assert again.exit_code == 0 and snapshot(tmp_path) == before
    assert "updated" not in again.output and "created" not in again.output, again.output


def test_init_merges_into_a_persons_settings_keeping_every_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(SETTINGS)
    (tmp_path / ".vscode" / "extensions.json").write_text(EXTENSIONS)
    (tmp_path / ".gitattributes").write_text("*.png binary\nlayergen.lock -linguist-generated\n")
    result = run("init")
    assert result.exit_code == 0, result.output
    settings = (tmp_path / ".vscode" / "settings.json").read_text()
    for line in SETTINGS.splitlines():  # each line of theirs, in order
        assert line.rstrip(",") in settings, (line, settings)
    assert _json(tmp_path / ".vscode" / "settings.json") == {
        "editor.rulers": [100],
        "yaml.schemas": {
            "https://json.schemastore.org/github-workflow.json": ".github/workflows/*.yml",
            SCHEMA: GLOBS,
        },
        "files.trimTrailingWhitespace": True,
    }
    extensions = (tmp_path / ".vscode" / "extensions.json").read_text()
    assert "// what we use" in extensions
    assert _json(tmp_path / ".vscode" / "extensions.json") == {
        "recommendations": ["ms-python.python", "redhat.vscode-yaml"]
    }
    assert (tmp_path / ".gitattributes").read_text() == (
        "*.png binary\nlayergen.lock -linguist-generated\n.layergen/** linguist-generated=true\n"
    )  # their own choice for layergen.lock stands
    before = snapshot(tmp_path)
    assert run("init").exit_code == 0 and snapshot(tmp_path) == before


def test_init_adds_its_glob_to_a_schema_a_person_mapped_to_other_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(
        json.dumps({"yaml.schemas": {SCHEMA: "extra/*.yaml"}})
    )
    assert run("init").exit_code == 0
    assert _json(tmp_path / ".vscode" / "settings.json") == {
        "yaml.schemas": {SCHEMA: ["extra/*.yaml", *GLOBS]}
    }


def test_init_reports_a_broken_settings_file_where_it_is_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text('{\n    "a": 1\n    "b": 2\n}\n')
    before = snapshot(tmp_path)
    result = run("init")
    assert result.exit_code == 2, result.output
    assert ".vscode/settings.json:3:5: error: invalid JSON" in result.output
    assert snapshot(tmp_path) == before


def test_new_in_a_project_without_init_maps_the_schema_for_the_editor(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("new", "Gain").exit_code == 0
    assert _json(tmp_path / ".vscode" / "settings.json") == {"yaml.schemas": {SCHEMA: GLOBS}}
    assert _json(tmp_path / ".vscode" / "extensions.json") == {
        "recommendations": ["redhat.vscode-yaml"]
    }


@pytest.mark.parametrize(
    "text, expected",
    [
        ("{}", '{\n    "k": [\n        1\n    ]\n}'),
        ('{"a": 1}', '{"a": 1, "k": [1]}'),
        ("{ // note\n}\n", '{ // note\n    "k": [\n        1\n    ]\n}\n'),
        ('{\n\t"a": 1, // mine\n}\n', '{\n\t"a": 1, // mine\n\t"k": [\n\t\t1\n\t]\n}\n'),
        ('{\n  "a": 1 /* mine */\n}', '{\n  "a": 1, /* mine */\n  "k": [\n    1\n  ]\n}'),
    ],
)
def test_a_member_is_added_as_text_keeping_comments_and_indentation(text, expected):
    from layergen import jsonc

    assert jsonc.add(text, jsonc.parse(text, "s.json"), [1], "k") == expected
