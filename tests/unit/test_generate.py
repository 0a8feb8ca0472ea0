"""Planning a run (layergen/generate.py). Issue 34."""

from __future__ import annotations

from helpers import DECLARATION, cli, edit


def test_a_run_on_part_of_the_project_says_a_conflict_elsewhere(scaler_project):
    """Issue 34 item 14: `generate`/`sync` on one declaration exited 0 while another file
    held unsettled conflict markers."""
    layers = scaler_project / "layers"
    (layers / "other.layer.yaml").write_text(DECLARATION.replace("Scaler", "Other"))
    assert cli("generate", "layers").exit_code == 0
    edit(
        layers / "scaler.py",
        "        return x",
        "        # mine\n        return x * 2\n        return x",
    )
    edit(layers / "scaler.layer.yaml", "call: x * scale * gain", "call: x * scale + gain")
    assert cli("generate", "layers").exit_code == 1  # the conflict is written
    for args in (
        ("generate", "layers/other.layer.yaml"),
        ("generate", "--check", "layers/other.layer.yaml"),
        ("sync", "layers/other.py"),
    ):
        result = cli(*args)
        assert result.exit_code == 1, (args, result.output)
        assert "layers/scaler.py:" in result.output and "[conflict]" in result.output
    assert cli("resolve", "layers/scaler.py", "--ours").exit_code == 0
    assert cli("generate", "layers/other.layer.yaml").exit_code == 0
