"""`layergen init`: set a project up for layergen, merging with what is already there.

- `[tool.layergen]` in pyproject.toml: missing keys are added, comments and everything
  else are kept (tomlkit); values given on the command line replace the file's.
- `.vscode/settings.json`: the declaration schema mapped to every declaration file for the
  YAML extension (`yaml.schemas`), and `.vscode/extensions.json` recommending it; both
  edited in place (`jsonc.py`), a person's keys, values and comments kept.
- `.gitattributes`: layergen's bookkeeping (`.layergen/**`, `layergen.lock`) marked
  `linguist-generated`, so reviews collapse it; a line of the person's for it stands.
- `.vscode/tasks.json`: tasks generate, check, sync, watch and check layers with a problem matcher for
  `path:line:col: error: message [code]`. Tasks are merged by label: layergen's own
  (`layergen: ...`) are added or updated in place, every other task is kept as it is.
- the declaration JSON Schema (`.layergen/declaration.schema.json`), which the first line
  of each new declaration points the YAML language server to.
- `.pre-commit-config.yaml`: written when absent; otherwise the snippet to add is returned.

Nothing here prints: `init()` returns what it did and the CLI reports it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import jsonc
from .config import DEFAULT_FOLDER
from .diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .jsonc import has_comments, strip_jsonc
from .kinds import declaration_files_pattern
from .schema import SCHEMA_FILE
from .targets import SUFFIXES
from .textfiles import read_text, same_text

TASKS_FILE = ".vscode/tasks.json"
SETTINGS_FILE = ".vscode/settings.json"
EXTENSIONS_FILE = ".vscode/extensions.json"
GITATTRIBUTES_FILE = ".gitattributes"
YAML_EXTENSION = "redhat.vscode-yaml"  # Red Hat's YAML extension: reads `yaml.schemas`
# The schema, as `yaml.schemas` names it (from the workspace folder), and every declaration.
SCHEMA_KEY = f"./{SCHEMA_FILE}"
DECLARATION_GLOBS = [f"**/*{suffix}" for suffix in SUFFIXES]
# What layergen writes for itself: generated, for git hosts' reviews.
BOOKKEEPING = (".layergen/**", "layergen.lock")
PRE_COMMIT_FILE = ".pre-commit-config.yaml"
DEFAULTS: dict[str, Any] = {"paths": [DEFAULT_FOLDER], "tests": "tests"}

# `path:line:col: kind: message [code]`, the shape of every problem the commands print;
# the column is optional (merge conflicts carry a line only). Any kind: error, warning,
# conflict, hand-written, orphan, ... (VS Code shows a kind it has no severity for, such
# as `orphan`, as an error). Valid as a JavaScript regular expression (VS Code) and a
# Python one.
PROBLEM_REGEXP = r"^(.*?):(\d+):(?:(\d+):)? ([a-z][\w -]*?): (.*) \[([\w-]+)\]$"
PROBLEM_PATTERN = {
    "regexp": PROBLEM_REGEXP,
    "file": 1,
    "line": 2,
    "column": 3,
    "severity": 4,
    "message": 5,
    "code": 6,
}
# What `layergen watch` prints when a run starts and when it waits again.
WATCH_BEGINS = "^layergen watch: generating"
WATCH_ENDS = "^layergen watch: watching"
DECLARATION_FILES = declaration_files_pattern()


def problem_matcher(background: bool = False) -> dict[str, Any]:
    matcher: dict[str, Any] = {
        "owner": "layergen",
        "source": "layergen",
        "fileLocation": ["autoDetect", "${workspaceFolder}"],
        "pattern": dict(PROBLEM_PATTERN),
    }
    if background:
        matcher["background"] = {
            "activeBegin": True,
            "beginsPattern": WATCH_BEGINS,
            "endsPattern": WATCH_ENDS,
        }
    return matcher


def vscode_tasks() -> list[dict[str, Any]]:
    def task(label: str, command: str, **more: Any) -> dict[str, Any]:
        return {
            "label": f"layergen: {label}",
            "type": "shell",
            "command": command,
            **more,
            "problemMatcher": problem_matcher(more.get("isBackground", False)),
        }

    return [
        task(
            "generate",
            "layergen generate",
            group="build",
            detail="Render every declaration into its layer and tests",
        ),
        task(
            "check",
            "layergen generate --check",
            group="test",
            detail="Fail if a generated file is out of date",
        ),
        task(
            "sync",
            "layergen sync ${file}",
            detail="Bring the declaration of the module in the editor up to date with it",
        ),
        task(
            "watch",
            "layergen watch",
            isBackground=True,
            detail="Regenerate each declaration when it is saved",
        ),
        task(
            "check layers",
            "layergen check",
            group="test",
            detail="Find the classic bugs of hand-written Keras layers",
        ),
    ]


def pre_commit_config() -> str:
    """A `repo: local` config: the hook runs the project's own layergen (the one that wrote the files).

    `layergen-generate`, and `layergen-check` on the Python files committed; `layergen-sync`
    rewrites declarations, so it is left for a person to opt into (it is in layergen's own .pre-commit-hooks.yaml).
    """
    return (
        "repos:\n"
        "  - repo: local\n"
        "    hooks:\n"
        "      - id: layergen-generate\n"
        "        name: layergen generate --check\n"
        "        entry: layergen generate --check\n"
        "        language: system\n"
        "        pass_filenames: false\n"
        f"        files: '{DECLARATION_FILES}'\n"
        "      - id: layergen-check\n"
        "        name: layergen check\n"
        "        entry: layergen check\n"
        "        language: system\n"
        "        types: [python]\n"
    )


@dataclass
class Done:
    """What `init` did: (path, "created" | "updated" | "unchanged", note) per file, and a snippet to show."""

    files: list[tuple[Path, str, str]] = field(default_factory=list)
    snippet: str | None = None


def init(
    root: Path,
    *,
    paths: list[str] | None = None,
    tests: str | None = None,
    package: str | None = None,
) -> Done:
    """Set `root` up; raises `DiagnosticError` (and writes nothing) when a file there is broken."""
    from .schema import schema_path, schema_text
    from .writes import write

    flags = {
        k: v
        for k, v in {"paths": paths, "tests": tests, "package": package}.items()
        if v is not None
    }
    pyproject = root / "pyproject.toml"
    tasks_file = root / TASKS_FILE
    pre_commit = root / PRE_COMMIT_FILE
    outputs: dict[Path, tuple[str, str]] = {}  # every text is computed before anything is written
    errors: list[Diagnostic] = []
    for path, merge in (
        (pyproject, lambda text: merge_pyproject(text, flags, str(pyproject))),
        (tasks_file, lambda text: merge_tasks(text, vscode_tasks(), str(tasks_file))),
        *_editor_merges(root),
        (root / GITATTRIBUTES_FILE, merge_gitattributes),
    ):
        try:
            outputs[path] = merge(_read(path))
        except DiagnosticError as exc:
            errors.extend(exc.diagnostics)
    if errors:
        raise DiagnosticError(errors)
    outputs[schema_path(root)] = (schema_text(), "")
    done = Done()
    existing_pre_commit = _read(pre_commit)
    if existing_pre_commit is None:
        outputs[pre_commit] = (pre_commit_config(), "")
    elif "layergen-generate" not in existing_pre_commit:
        done.snippet = pre_commit_config().split("\n", 1)[1]  # the entry under `repos:`
    states = {
        p: "created" if not p.exists() else "unchanged" if same_text(p, t) else "updated"
        for p, (t, _) in outputs.items()
    }
    write({path: text for path, (text, _) in outputs.items()})
    done.files = [(path, states[path], note) for path, (_, note) in outputs.items()]
    return done


def editor_files(root: Path) -> dict[Path, str]:
    """The VS Code files that let the editor know every declaration, where they lack it
    (`new` writes them with a project's first layer); a broken one is left to `init`."""
    changed = {}
    for path, merge in _editor_merges(root):
        text = _read(path)
        try:
            merged, _ = merge(text)
        except DiagnosticError:
            continue
        if merged != text:
            changed[path] = merged
    return changed


def _editor_merges(root: Path) -> list[tuple[Path, Any]]:
    settings, extensions = root / SETTINGS_FILE, root / EXTENSIONS_FILE
    return [
        (settings, lambda text: merge_settings(text, str(settings))),
        (extensions, lambda text: merge_extensions(text, str(extensions))),
    ]


def merge_settings(text: str | None, where: str = SETTINGS_FILE) -> tuple[str, str]:
    """`yaml.schemas` maps the declaration schema to every declaration file (added to the
    files the person mapped it to, if any); nothing else changes."""
    if text is None or not text.strip():
        return json.dumps({"yaml.schemas": {SCHEMA_KEY: DECLARATION_GLOBS}}, indent=4) + "\n", ""
    document = jsonc.parse(text, where)
    schemas = document.members.get("yaml.schemas")
    if schemas is None:
        return jsonc.add(text, document, {SCHEMA_KEY: DECLARATION_GLOBS}, "yaml.schemas"), ""
    if not isinstance(schemas.value, dict):
        raise DiagnosticError(
            [
                Diagnostic(
                    where,
                    *_position(text, schemas.start),
                    "bad-json",
                    "`yaml.schemas` must be an object",
                )
            ]
        )
    mapped = schemas.members.get(SCHEMA_KEY)
    if mapped is None:
        return jsonc.add(text, schemas, DECLARATION_GLOBS, SCHEMA_KEY), ""
    globs = [mapped.value] if isinstance(mapped.value, str) else list(mapped.value or [])
    missing = [glob for glob in DECLARATION_GLOBS if glob not in globs]
    return (jsonc.replace(text, mapped, globs + missing) if missing else text), ""


def merge_extensions(text: str | None, where: str = EXTENSIONS_FILE) -> tuple[str, str]:
    """The YAML extension among the workspace's recommendations."""
    if text is None or not text.strip():
        return json.dumps({"recommendations": [YAML_EXTENSION]}, indent=4) + "\n", ""
    document = jsonc.parse(text, where)
    recommended = document.members.get("recommendations")
    if recommended is None:
        return jsonc.add(text, document, [YAML_EXTENSION], "recommendations"), ""
    if not isinstance(recommended.value, list):
        raise DiagnosticError(
            [
                Diagnostic(
                    where,
                    *_position(text, recommended.start),
                    "bad-json",
                    "`recommendations` must be a list",
                )
            ]
        )
    if YAML_EXTENSION in recommended.value:
        return text, ""
    return jsonc.add(text, recommended, YAML_EXTENSION), ""


def merge_gitattributes(text: str | None) -> tuple[str, str]:
    """A `linguist-generated` line for each of layergen's bookkeeping paths that has none
    (a line of the person's setting it, to any value, stands)."""
    text = text or ""
    set_already = {
        fields[0]
        for fields in map(str.split, text.splitlines())
        if fields and any(a.lstrip("-!").split("=")[0] == "linguist-generated" for a in fields[1:])
    }
    lines = [f"{path} linguist-generated=true\n" for path in BOOKKEEPING if path not in set_already]
    if not lines:
        return text, ""
    return text + ("\n" if text and not text.endswith("\n") else "") + "".join(lines), ""


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _read(path: Path) -> str | None:
    return read_text(path, missing_ok=True)


def merge_pyproject(
    text: str | None, flags: dict[str, Any], where: str = "pyproject.toml"
) -> tuple[str, str]:
    """`[tool.layergen]` with DEFAULTS for missing keys and `flags` over everything; the rest kept."""
    import tomlkit
    from tomlkit.exceptions import ParseError

    from .config import KEYS

    try:
        doc = tomlkit.parse(text or "")
    except ParseError as exc:
        raise DiagnosticError(
            [Diagnostic(where, exc.line, exc.col, "toml-syntax", f"invalid TOML: {exc}")]
        ) from None
    tool = doc.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        doc.append("tool", tool)
    section = tool.get("layergen") if isinstance(tool, dict) else None
    if section is None and isinstance(tool, dict):
        section = tomlkit.table()
        tool.append("layergen", section)
    if not isinstance(section, dict):
        raise DiagnosticError(
            [Diagnostic(where, 1, 1, "bad-config", "`tool` and `tool.layergen` must be tables")]
        )
    from .config import _dashed, line_of

    # Keys with dashes or underscores, as `load_config` reads them (`mesh_axes` = `mesh-axes`).
    unknown = [key for key in section if _dashed(key) not in KEYS]
    if unknown:  # the same located errors as every other command gives

        raise DiagnosticError(
            [
                Diagnostic(
                    where,
                    line_of(text or "", key),
                    1,
                    "unknown-config",
                    f"unknown key `{key}` in [tool.layergen]",
                    did_you_mean(key, KEYS) or f"keys: {', '.join(KEYS)}",
                )
                for key in unknown
            ]
        )
    added = []
    for key, value in {**DEFAULTS, **flags}.items():
        if key in flags or key not in section:
            if key not in section or section[key] != value:
                added.append(key)
            section[key] = value
    return tomlkit.dumps(doc), f"[tool.layergen]: {', '.join(added)}" if added else ""


def merge_tasks(
    text: str | None, tasks: list[dict[str, Any]], where: str = TASKS_FILE
) -> tuple[str, str]:
    """Add or update layergen's tasks by label; keep every other task and key."""
    data: Any = {"version": "2.0.0", "tasks": []}
    had_comments = False
    if text is not None and text.strip():
        plain = strip_jsonc(text)
        had_comments = has_comments(text)
        try:
            data = json.loads(plain)
        except json.JSONDecodeError as exc:
            raise DiagnosticError(
                [Diagnostic(where, exc.lineno, exc.colno, "bad-json", f"invalid JSON: {exc.msg}")]
            ) from None
        if not isinstance(data, dict) or not isinstance(data.setdefault("tasks", []), list):
            raise DiagnosticError(
                [Diagnostic(where, 1, 1, "bad-json", "expected an object with a `tasks` list")]
            )
        data.setdefault("version", "2.0.0")
    existing = data["tasks"]
    by_label = {t.get("label"): i for i, t in enumerate(existing) if isinstance(t, dict)}
    for task in tasks:
        if task["label"] in by_label:
            existing[by_label[task["label"]]] = task
        else:
            existing.append(task)
    new_text = json.dumps(data, indent=2) + "\n"
    note = "its comments were not kept" if had_comments and new_text != text else ""
    if text is not None and _same_json(text, data):
        return text, ""  # nothing to add: leave the file byte for byte
    return new_text, note


def _same_json(text: str, data: Any) -> bool:
    try:
        return json.loads(strip_jsonc(text)) == data
    except json.JSONDecodeError:
        return False
