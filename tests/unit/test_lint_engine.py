"""`layergen check`'s engine (layergen/lint/engine.py): what it reads and what stops a run."""

from __future__ import annotations

from pathlib import Path

from layergen.lint.engine import check_files, python_files
from layergen.lint.rules import RULES
from layergen.lint.settings import CheckSettings

from helpers import layergen

# `n` is never saved: a config-missing finding, so we see the file was checked.
FORGETFUL = """\
import keras


@keras.saving.register_keras_serializable()
class Forgetful(keras.layers.Layer):
    def __init__(self, n=1, **kwargs):  # {comment}
        super().__init__(**kwargs)
        self.n = n

    def get_config(self):
        return {{**super().get_config()}}
"""


def run(tmp_path: Path, files: dict[str, bytes]):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    settings = CheckSettings(root=tmp_path, select=frozenset(RULES))
    return check_files(python_files([tmp_path], settings), settings)


def codes(report) -> dict[str, list[tuple[str, int, int]]]:
    return {p.name: [(f.code, f.line, f.col) for f in fs] for p, fs in report.findings.items()}


def test_a_coding_cookie_is_honoured(tmp_path):
    """A valid file with a PEP 263 `# -*- coding: latin-1 -*-` cookie was
    `unreadable`, stopped the run (exit 2) and hid every other finding."""
    latin = "# -*- coding: latin-1 -*-\n" + FORGETFUL.format(comment="café, naïve")
    report = run(
        tmp_path,
        {
            "latin.py": latin.encode("latin-1"),
            "plain.py": FORGETFUL.format(comment="plain").encode(),
        },
    )
    assert not report.errors
    assert codes(report) == {
        "latin.py": [("config-missing", 11, 5)],
        "plain.py": [("config-missing", 10, 5)],
    }
    # --fix writes UTF-8: a file in another encoding is reported, never rewritten.
    assert report.findings[tmp_path / "latin.py"][0].fix is None
    assert report.findings[tmp_path / "plain.py"][0].fix is not None


def test_bytes_python_cannot_decode_are_a_syntax_finding_not_the_end_of_the_run(tmp_path):
    """A file Python itself cannot decode is invalid Python: a finding of
    its own, and the other files are checked all the same."""
    report = run(
        tmp_path,
        {
            "broken.py": FORGETFUL.format(comment="caf\xe9").encode("latin-1"),  # no cookie
            "unknown.py": b"# coding: no-such-codec\n" + FORGETFUL.format(comment="").encode(),
            "plain.py": FORGETFUL.format(comment="plain").encode(),
        },
    )
    assert not report.errors
    assert codes(report) == {
        "broken.py": [("python-syntax", 1, 1)],
        "unknown.py": [("python-syntax", 1, 1)],
        "plain.py": [("config-missing", 10, 5)],
    }
    assert "UTF-8" in report.findings[tmp_path / "broken.py"][0].message
    assert "no-such-codec" in report.findings[tmp_path / "unknown.py"][0].message


DEEP = """\
import keras


@keras.saving.register_keras_serializable()
class Deep(keras.layers.Layer):
    def call(self, x):
        if {terms}:
            return x
        return -x
"""


def test_an_expression_too_deep_for_python_is_a_syntax_finding(tmp_path):
    """A 3,000-term expression (CPython cannot compile it) was a
    RecursionError traceback; one CPython compiles is checked like any other."""
    report = run(
        tmp_path,
        {
            "too_deep.py": DEEP.format(terms=" + ".join(["x"] * 3000)).encode(),
            "deep.py": DEEP.format(terms=" + ".join(["x"] * 2000)).encode(),
        },
    )
    assert codes(report) == {
        "too_deep.py": [("python-syntax", 1, 1)],
        "deep.py": [("python-if-on-tensor", 7, 12)],
    }
    assert "too deeply nested" in report.findings[tmp_path / "too_deep.py"][0].message


def test_the_command_reports_them_and_goes_on(tmp_path):
    """A latin-1 file and a too-deep expression: exit 1 with their findings, not 2 with a
    traceback."""
    (tmp_path / "latin.py").write_bytes(
        ("# coding: latin-1\n" + FORGETFUL.format(comment="caf\xe9")).encode("latin-1")
    )
    (tmp_path / "deep.py").write_text(DEEP.format(terms=" + ".join(["x"] * 3000)))
    result = layergen("check", "--no-cache", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "latin.py:11:5: error:" in result.stdout and "[config-missing]" in result.stdout
    assert "deep.py:1:1: error:" in result.stdout and "[python-syntax]" in result.stdout


def test_a_deep_expression_is_fixed_like_any_other(tmp_path):
    """What Python parses, --fix rewrites (libcst and black recurse too):
    it was a RecursionError traceback."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    deep = DEEP.format(terms=" + ".join(["x"] * 2000)).replace(
        "class Deep(keras.layers.Layer):",
        "class Deep(keras.layers.Layer):\n"
        "    def __init__(self, n):\n        super().__init__()\n        self.n = n\n",
    )
    (tmp_path / "deep.py").write_text(deep)
    result = layergen("check", "--fix", "--select", "init-kwargs", ".", cwd=tmp_path)
    assert "Traceback" not in result.stderr and result.returncode == 0, result.stderr
    assert "def __init__(self, n, **kwargs):" in (tmp_path / "deep.py").read_text()


def test_a_byte_order_mark_is_read_as_python_reads_it(tmp_path):
    """A valid UTF-8 file that opens with a byte-order mark is Python: its classes are
    checked, at the columns of its text (the mark is no character of line 1)."""
    report = run(
        tmp_path,
        {
            "marked.py": b"\xef\xbb\xbf" + FORGETFUL.format(comment="caf\xe9").encode(),
            "plain.py": FORGETFUL.format(comment="plain").encode(),
        },
    )
    assert codes(report) == {
        "marked.py": [("config-missing", 10, 5)],
        "plain.py": [("config-missing", 10, 5)],
    }
    assert report.findings[tmp_path / "marked.py"][0].fix is not None


def test_fix_keeps_the_byte_order_mark(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    layer = FORGETFUL.format(comment="plain").replace(", **kwargs", "").replace("(**kwargs)", "()")
    (tmp_path / "marked.py").write_bytes(b"\xef\xbb\xbf" + layer.encode())
    result = layergen("check", "--fix", "--select", "init-kwargs", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    data = (tmp_path / "marked.py").read_bytes()
    assert data.startswith(b"\xef\xbb\xbfimport keras\n")
    assert b"def __init__(self, n=1, **kwargs):" in data


def test_a_dangling_symlink_is_skipped_and_named_not_the_end_of_the_run(tmp_path):
    """A `*.py` link to nothing in the tree is no Python to check: a warning naming it,
    and every other file checked (the files named on the command line too)."""
    (tmp_path / "plain.py").write_text(FORGETFUL.format(comment="plain"))
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    report = run(tmp_path, {})
    assert not report.errors
    assert codes(report) == {"plain.py": [("config-missing", 10, 5)]}
    assert [(Path(d.path).name, d.code) for d in report.skipped] == [("gone.py", "dangling-link")]
    for named in ([], ["plain.py"]):
        result = layergen("check", "--no-cache", *named, cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert "plain.py:10:5: error:" in result.stdout and "[config-missing]" in result.stdout
        if not named:
            assert "gone.py:" in result.stderr and "warning:" in result.stderr
            assert "[dangling-link]" in result.stderr
        assert "Traceback" not in result.stderr


def test_a_keras_module_without_classes_that_does_not_parse_is_reported(tmp_path):
    """A module of Keras helpers with no class: a syntax error in it is a finding too."""
    report = run(
        tmp_path,
        {
            "helpers.py": b"import keras\n\n\ndef scale(x:\n    return keras.ops.sum(x)\n",
            "notes.py": b"def broken(:\n    pass\n",  # no Keras: not read
        },
    )
    assert codes(report) == {"helpers.py": [("python-syntax", 4, 10)]}
