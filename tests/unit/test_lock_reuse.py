"""An unchanged declaration is taken from the lock, nothing parsed, rendered or
formatted; anything its files are made from, or a hand edit, sends it through the pipeline."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from layergen.cli import app

from helpers import DECLARATION, module, snapshot

runner = CliRunner()


class Pipeline:
    """Counts the declarations parsed and the sources rendered and formatted."""

    def __init__(self, monkeypatch):
        from layergen.declaration import load
        from layergen.render import render

        self.parsed: list[str] = []
        self.rendered: list[str] = []
        self.formatted = 0
        parse, render_source, format_code = (
            load.parse_declarations,
            render.render_source,
            render.format_code,
        )

        def counting_parse(path, raw, **kwargs):
            self.parsed.append(Path(path).name)
            return parse(path, raw, **kwargs)

        def counting_render(template, context, **kwargs):
            self.rendered.append(template)
            return render_source(template, context, **kwargs)

        def counting_format(code, style):
            self.formatted += 1
            return format_code(code, style)

        monkeypatch.setattr(load, "parse_declarations", counting_parse)
        monkeypatch.setattr(render, "render_source", counting_render)
        monkeypatch.setattr(render, "format_code", counting_format)

    @property
    def untouched(self) -> bool:
        return not self.parsed and not self.rendered and not self.formatted


def generate(*args: str) -> int:
    result = runner.invoke(app, ["generate", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code


def would_change(*args: str) -> list[str]:
    """What `generate --check` says would change."""
    result = runner.invoke(app, ["generate", "--check", *args])
    changed = []
    for line in result.output.splitlines():
        if line.startswith("would change layergen's bookkeeping ("):  # `layergen.lock`...
            changed += line.split("(", 1)[1].split(":")[0].split(" and ")
        elif line.startswith("would change "):
            changed.append(line.split()[-1])
    return sorted(changed)


def test_an_unchanged_project_is_taken_from_the_lock(scaler_project, monkeypatch):
    before = snapshot(scaler_project)
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--check") == 0
    assert generate("layers") == 0
    assert pipeline.untouched
    assert snapshot(scaler_project) == before


def test_a_hand_edit_is_never_missed_even_with_the_old_time_and_size(scaler_project, monkeypatch):
    path = scaler_project / "layers" / "scaler.py"
    stat = path.stat()
    text = module(scaler_project)
    edited = text.replace("return x * self.scale * self.gain", "return x * self.scale / self.gain")
    assert edited != text and len(edited) == len(text)
    path.write_text(edited)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same time
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--check") == 0  # the edit is kept: nothing would change
    assert pipeline.parsed == ["scaler.layer.yaml"]
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("doc: Multiplies", "doc: Now multiplies")
    )
    assert generate("layers") == 0
    assert "/ self.gain" in module(scaler_project) and "Now multiplies" in module(scaler_project)


def test_a_touched_file_is_judged_by_its_content(scaler_project, monkeypatch):
    declaration = scaler_project / "layers" / "scaler.layer.yaml"
    for path in (declaration, scaler_project / "layers" / "scaler.py"):
        os.utime(path, (1, 1))  # touched, not changed: still as the lock recorded it
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--check") == 0
    assert pipeline.untouched
    # Changed, with the old size and time: read again.
    stat = declaration.stat()
    declaration.write_text(DECLARATION.replace("default: 1.0", "default: 2.0"))
    os.utime(declaration, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert declaration.stat().st_size == stat.st_size
    assert generate("layers", "--check") == 1
    assert generate("layers") == 0
    assert pipeline.parsed == ["scaler.layer.yaml", "scaler.layer.yaml"]
    assert "gain=2.0" in module(scaler_project)


def test_a_project_template_change_is_rendered(scaler_project, monkeypatch):
    from layergen.render.render import _builtin_templates

    shutil.copytree(_builtin_templates(), scaler_project / "templates")
    pyproject = scaler_project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.layergen]\ntemplates = 'templates'\n")
    pipeline = Pipeline(monkeypatch)
    assert generate("layers") == 0  # a config change: rendered again (the same text)
    assert pipeline.parsed == ["scaler.layer.yaml"]
    assert generate("layers") == 0
    assert pipeline.parsed == ["scaler.layer.yaml"]  # and then taken from the lock
    template = scaler_project / "templates" / "layer.py.j2"
    template.write_text(template.read_text().replace("import keras", "import keras  # ours", 1))
    assert generate("layers", "--check") == 1
    assert generate("layers") == 0
    assert "import keras  # ours" in module(scaler_project)


def test_a_builtin_template_change_is_rendered(scaler_project, monkeypatch, tmp_path_factory):
    from layergen import kinds

    copy = tmp_path_factory.mktemp("templates") / "templates"
    shutil.copytree(kinds.TEMPLATES, copy)
    monkeypatch.setattr(kinds, "TEMPLATES", copy)  # where every stage finds them
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--check") == 0
    assert pipeline.untouched  # the same templates
    (copy / "layer.py.j2").write_text((copy / "layer.py.j2").read_text() + "\n")
    # Rendered again, to the same text: only the lock's record of the inputs would change.
    assert would_change("layers") == ["layergen.lock"]
    assert pipeline.parsed == ["scaler.layer.yaml"]


@pytest.mark.parametrize(
    "change",
    [
        "\n[tool.layergen]\nline-length = 60\n",
        "\n[tool.layergen]\npackage = 'elsewhere'\n",
        "\n[tool.layergen]\ntests = 'checks'\n",
    ],
)
def test_a_config_change_is_rendered(scaler_project, monkeypatch, change):
    pyproject = scaler_project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + change)
    pipeline = Pipeline(monkeypatch)
    generate("layers", "--check")
    assert pipeline.parsed == ["scaler.layer.yaml"]


def test_a_command_line_option_is_rendered(scaler_project, monkeypatch):
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--package", "elsewhere", "--check") == 1
    assert pipeline.parsed == ["scaler.layer.yaml"]


def test_a_new_layergen_version_renders_again(scaler_project, monkeypatch):
    import layergen

    monkeypatch.setattr(layergen, "__version__", layergen.__version__ + ".post1")
    pipeline = Pipeline(monkeypatch)
    changed = would_change("layers")  # the support module names the version that wrote it
    assert "tests/layergen_support.py" in changed and "layergen.lock" in changed
    assert "layers/scaler.py" not in changed  # the layer renders the same
    assert pipeline.parsed == ["scaler.layer.yaml"]
    assert "support.py.j2" in pipeline.rendered


def test_a_change_to_layergen_code_renders_again(scaler_project, monkeypatch, tmp_path_factory):
    """A checkout changes without a new version: layergen's own code is part of the inputs."""
    from layergen import inputs

    copy = tmp_path_factory.mktemp("code") / "layergen"
    shutil.copytree(Path(inputs.__file__).parent, copy)
    monkeypatch.setattr(inputs, "__file__", str(copy / "inputs.py"))
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--check") == 0
    assert pipeline.untouched  # the same code
    render = copy / "render" / "render.py"
    render.write_text(render.read_text() + "# changed\n")
    assert would_change("layers") == ["layergen.lock"]
    assert pipeline.parsed == ["scaler.layer.yaml"]


def test_a_new_golden_file_renders_the_tests_again(scaler_project, monkeypatch):
    (scaler_project / "tests" / "test_scaler.golden.json").write_text("{}")
    pipeline = Pipeline(monkeypatch)
    generate("layers", "--check")
    assert pipeline.parsed == ["scaler.layer.yaml"]


def test_a_conflict_is_reported_on_every_run(scaler_project, monkeypatch):
    path = scaler_project / "layers" / "scaler.py"
    path.write_text(
        module(scaler_project).replace("x * self.scale * self.gain", "x * self.scale * 0.5")
    )
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("x * scale * gain", "x * scale + gain")
    )
    assert generate("layers") == 1
    pipeline = Pipeline(monkeypatch)
    assert generate("layers") == 1  # the markers are still there
    assert generate("layers", "--check") == 1
    assert pipeline.parsed == ["scaler.layer.yaml", "scaler.layer.yaml"]


def test_a_record_over_an_unsettled_conflict_is_kept_but_never_taken(scaler_project, monkeypatch):
    """Claims need it (a rename moves its files); the fast path must not trust it."""
    import json

    path = scaler_project / "layers" / "scaler.py"
    path.write_text(
        module(scaler_project).replace("x * self.scale * self.gain", "x * self.scale * 0.5")
    )
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("x * scale * gain", "x * scale + gain")
    )
    assert generate("layers") == 1  # a conflict, its markers made against this rendering
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("x * scale * gain", "x * scale - gain")
    )
    assert generate("layers") == 1  # unsettled: the file keeps the base they were made against

    def record() -> dict:
        data = json.loads((scaler_project / "layergen.lock").read_text())
        return data["records"]["layers/scaler.layer.yaml"]

    assert record()["seal"] is None and record()["class"] == "Scaler"
    (scaler_project / "blocks").mkdir()
    (scaler_project / "blocks" / "other.layer.yaml").write_text(
        DECLARATION.replace("Scaler", "Other")
    )
    assert generate("blocks") == 1  # a run without it leaves it unsealed, and says it
    assert record()["seal"] is None
    assert runner.invoke(app, ["resolve", "layers/scaler.py", "--theirs"]).exit_code == 0
    pipeline = Pipeline(monkeypatch)
    assert generate("layers") == 0
    assert pipeline.parsed == ["scaler.layer.yaml"]  # rendered, not taken from the lock
    assert "x * self.scale - self.gain" in path.read_text()  # the later change arrives
    assert record()["seal"] is not None
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--check") == 0 and pipeline.untouched


def test_a_record_for_other_files_is_never_used(scaler_project, monkeypatch):
    """A lock merged by hand may keep a record whose files' entries changed since."""
    import json

    lock = scaler_project / "layergen.lock"
    data = json.loads(lock.read_text())
    record = data["records"]["layers/scaler.layer.yaml"]
    record["outputs"] = list(reversed(record["outputs"]))
    lock.write_text(json.dumps(data))
    pipeline = Pipeline(monkeypatch)
    assert generate("layers", "--check") == 1  # only the lock would change
    assert pipeline.parsed == ["scaler.layer.yaml"]


def test_many_declarations_render_alike_in_a_pool(tmp_path, monkeypatch):
    from layergen import render_many
    from layergen.config import load_config
    from layergen.generate import find_declarations, plan_run

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers").mkdir()
    for number in range(4):
        text = DECLARATION.replace("layer: Scaler", f"layer: Scaler{number}")
        (tmp_path / "layers" / f"scaler{number}.layer.yaml").write_text(text)
    (tmp_path / "layers" / "broken.layer.yaml").write_text("layer: Broken\nparams: [1]\n")
    monkeypatch.chdir(tmp_path)
    declarations = find_declarations([tmp_path / "layers"])
    results = {}
    for parallel_from in (2, 1000):
        monkeypatch.setattr(render_many, "PARALLEL_FROM", parallel_from)
        monkeypatch.setattr(render_many, "_cores", lambda: 2)
        with pytest.raises(Exception) as caught:
            plan_run(declarations, load_config())
        results[parallel_from] = [d.format() for d in caught.value.diagnostics]
        files = plan_run(declarations[1:], load_config()).generated
        results[parallel_from, "files"] = list(files.items())
    assert results[2] == results[1000] and "broken.layer.yaml:2:" in results[2][0]
    assert results[2, "files"] == results[1000, "files"]
