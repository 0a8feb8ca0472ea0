"""`layergen init`: set a project up for layergen, merging with what is already there.

- `[tool.layergen]` in pyproject.toml: missing keys are added, comments and everything
  else are kept (tomlkit); values given on the command line replace the file's.
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
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import DEFAULT_FOLDER
from .diagnostics import Diagnostic, DiagnosticError, did_you_mean
from .kinds import declaration_files_pattern
from .textfiles import read_text, same_text

TASKS_FILE = ".vscode/tasks.json"
PRE_COMMIT_FILE = ".pre-commit-config.yaml"
DEFAULTS: dict[str, Any] = {"paths": [DEFAULT_FOLDER], "tests": "tests"}

# `path:line:col: severity: message [code]`; the column is optional (merge conflicts carry
# a line only). Valid as a JavaScript regular expression (VS Code) and a Python one.
PROBLEM_REGEXP = r"^(.*?):(\d+):(?:(\d+):)? (error|warning|info|conflict): (.*) \[([\w-]+)\]$"
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
    from .config import _dashed, _line_of

    # Keys with dashes or underscores, as `load_config` reads them (`mesh_axes` = `mesh-axes`).
    unknown = [key for key in section if _dashed(key) not in KEYS]
    if unknown:  # the same located errors as every other command gives

        raise DiagnosticError(
            [
                Diagnostic(
                    where,
                    _line_of(text or "", key),
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
        had_comments = _scan(text, comments=True) != text
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


_CLOSING = re.compile(r"\s*[}\]]")


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (VS Code's format) -> JSON, positions kept."""
    plain = _scan(text, comments=True)
    return _scan(plain, comments=False)


def _scan(text: str, *, comments: bool) -> str:
    """Blank out comments (`comments=True`) or trailing commas, leaving strings alone."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if comments and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif comments and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif not comments and char == "," and _CLOSING.match(text, i + 1):
            j = i + 1
        else:
            out.append(char)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)
