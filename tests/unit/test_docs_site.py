"""The docs site: `mkdocs build --strict` of docs/ passes (no broken link or anchor, no stale
generated page, no undocumented error code) and fails when one of those breaks; the pages
generated from layergen's code are up to date; the README is short and its links land.

About 15 s: two builds of the site.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import REPO

sys.path.insert(0, str(REPO / "docs"))
import gen_pages

from layergen.lint.rules import RULES


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_site_builds_strict_with_a_page_per_rule(tmp_path):
    result = build(REPO, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    for code in RULES:
        page = (tmp_path / "site" / "check" / "rules" / code / "index.html").read_text()
        assert f"<code>{code}</code>" in page and RULES[code].severity in page
    errors = (tmp_path / "site" / "errors" / "index.html").read_text()
    assert "<code>unknown-name</code>" in errors


def test_a_broken_link_or_a_stale_page_fails_the_build(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "docs", copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "mkdocs.yml", copy)
    (copy / "layergen").symlink_to(REPO / "layergen")  # the source the hook reads codes from
    with (copy / "docs" / "configuration.md").open("a") as page:
        page.write("\n[a page that is not there](nowhere.md), [an anchor](editing.md#nowhere)\n")
    rule_page = copy / "docs" / "check" / "rules" / "init-kwargs.md"
    rule_page.write_text(rule_page.read_text().replace("## Flagged", "## Flagged once"))
    result = build(copy, tmp_path / "site")
    assert result.returncode == 1
    assert "contains a link 'nowhere.md', but the target is not found" in result.stderr
    assert "does not contain an anchor '#nowhere'" in result.stderr
    assert "docs/check/rules/init-kwargs.md is stale" in result.stderr


def test_the_generated_pages_are_up_to_date():
    assert gen_pages.stale() == [], "run `python docs/gen_pages.py`"


def test_every_error_code_of_the_source_is_listed_once_and_every_listed_one_is_given():
    assert gen_pages.undocumented() == []


def test_codes_are_found_however_the_source_gives_them(tmp_path):
    (tmp_path / "lint" / "rules").mkdir(parents=True)
    (tmp_path / "lint" / "rules" / "a_rule.py").write_text('at(source, node, "rule-code", "m")\n')
    (tmp_path / "module.py").write_text(
        "def fail(path, message, hint, code='moved-wrong'): ...\n"
        "def error(self, loc, code, message, hint=None): ...\n"
        "def shape(code): ...\n"
        "Diagnostic(path, 1, 1, 'by-position', 'message')\n"
        "Diagnostic(path, 1, 1, 'one' if x else 'other', 'message')\n"
        "doc.error(loc, 'by-helper', 'message')\n"
        "Finding(code='by-keyword', message='m')\n"
        "problems.append(((i,), 'in-a-problem', 'message', None))\n"
        "echo(f'{where}: conflict: {what} [conflict]')\n"
        "doc.error(loc, f'unknown-{kind}', 'message')\n"
        "shape('python')\n"  # a `code` parameter of a function that takes no message
        "text = 'types: [python]\\n'\n"
    )
    assert gen_pages.source_codes(tmp_path) == {
        "moved-wrong",
        "by-position",
        "one",
        "other",
        "by-helper",
        "by-keyword",
        "in-a-problem",
        "conflict",
        "unknown-*",
    }


def test_the_readme_is_short_and_its_links_land():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert links
    missing = [link for link in links if "://" not in link and not (REPO / link).exists()]
    assert missing == []


def test_the_readme_declaration_generates(tmp_path):
    text = (REPO / "README.md").read_text()
    declaration = re.search(r"```yaml\n(.*?)```", text, re.DOTALL).group(1)
    (tmp_path / "pyproject.toml").write_text('[tool.layergen]\npaths = ["layers"]\n')
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "scaled_dense.layer.yaml").write_text(declaration)
    result = subprocess.run(
        [sys.executable, "-m", "layergen", "generate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "tests" / "test_scaled_dense.py").is_file()
