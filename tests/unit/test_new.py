"""`layergen new` (layergen/cli.py, scaffold.py). Issue 34."""

from __future__ import annotations

from helpers import cli, snapshot


def test_new_refuses_a_folder_outside_the_configured_paths(tmp_path, monkeypatch):
    """Issue 34 item 8: `new --dir` outside `paths` wrote a layer that `generate` and its
    `--check` never saw again, while the printed next step said they would."""
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.layergen]\npaths = ['layers']\n"
    )
    (tmp_path / "layers").mkdir()
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    result = cli("new", "Gain", "--dir", "elsewhere")
    assert result.exit_code == 2 and "[outside-paths]" in result.output, result.output
    assert 'paths = ["layers"]' in result.output
    assert snapshot(tmp_path) == before
    assert cli("new", "Gain", "--dir", "layers/nn").exit_code == 0  # inside: fine
    assert cli("generate", "--check").exit_code == 0
