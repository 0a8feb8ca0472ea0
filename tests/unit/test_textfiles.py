"""Reading files people write (layergen/textfiles.py): encodings, byte order marks, line ends.

Regression tests: inputs that gave tracebacks, broken code reported as success.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import DECLARATION, corrupt, no_traceback, snapshot
from helpers import cli as run


def test_a_module_that_is_not_utf8_is_a_located_error_for_every_command(scaler_project):
    corrupt(scaler_project / "layers" / "scaler.py")
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("x * scale * gain", "x * scale + gain")
    )
    before = snapshot(scaler_project)
    for args in (
        ("generate", "layers"),
        ("generate", "--check", "layers"),
        ("generate", "--diff", "layers"),
        ("generate", "--force", "layers"),
        ("sync", "layers"),
        ("resolve", "layers/scaler.py", "--ours"),
        ("tests", "layers/plain.py"),  # a hand-written module: a declaration's is refused
    ):
        if args[0] == "tests":
            shutil.copy(scaler_project / "layers" / "scaler.py", scaler_project / "layers/plain.py")
            before = snapshot(scaler_project)
        result = run(*args)
        no_traceback(result)
        assert result.exit_code == 2, args
        path = "layers/plain.py" if args[0] == "tests" else "layers/scaler.py"
        assert f"{path}:2:6: error: the file is not valid UTF-8 (byte 0xe9)" in result.output, args
        assert "[encoding]" in result.output and "nothing was written" in result.output
        assert snapshot(scaler_project) == before, args


def test_a_test_module_and_a_package_init_that_are_not_utf8_are_located_errors(scaler_project):
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("x * scale * gain", "x * scale + gain")
    )
    for relative in ("tests/test_scaler.py", "layers/__init__.py"):
        corrupt(scaler_project / relative)
        before = snapshot(scaler_project)
        for args in (("generate", "layers"), ("generate", "--check", "layers"), ("sync", "layers")):
            result = run(*args)
            no_traceback(result)
            assert result.exit_code == 2 and f"{relative}:2:6: error:" in result.output, args
            assert snapshot(scaler_project) == before
        (scaler_project / relative).write_bytes((scaler_project / relative).read_bytes()[25:])


# -- what users see after a merge -----------------------------------------------------------------


WRITTEN = ["layers/scaler.py", "tests/test_scaler.py", "layers/__init__.py"]


def merge_in_the_form(root: Path, form: Callable[[bytes], bytes]) -> str:
    """Every written file saved in `form` (line ends, a byte order mark); then a hand edit,
    a declaration change and a new layer merged. The module's text, as stored."""
    for relative in WRITTEN:
        path = root / relative
        path.write_bytes(form(path.read_bytes()))
    assert run("generate", "--check", "layers").exit_code == 0  # the form is no edit
    path = root / "layers" / "scaler.py"
    edited = path.read_bytes().decode().replace("* self.gain", "* self.gain * 1  # mine", 1)
    path.write_bytes(edited.encode())
    (root / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("initializer: ones", "initializer: zeros")
    )
    (root / "layers" / "other.layer.yaml").write_text(DECLARATION.replace("Scaler", "Other"))
    result = run("generate", "layers")
    assert result.exit_code == 0, result.output
    return path.read_bytes().decode()


def test_a_byte_order_mark_stays_through_a_merge(scaler_project):
    """Found by an attack: a module saved with a UTF-8 byte order mark (some Windows editors)
    lost it at the next merge."""
    mark = b"\xef\xbb\xbf"
    text = merge_in_the_form(scaler_project, lambda data: mark + data)
    for relative in WRITTEN:
        data = (scaler_project / relative).read_bytes()
        assert data.startswith(mark) and not data.startswith(mark * 2), relative
    assert "# mine\n" in text and 'initializer="zeros",\n' in text
    assert run("generate", "--check", "layers").exit_code == 0


def test_crlf_files_stay_crlf_through_a_merge_a_conflict_and_resolve(scaler_project):
    """Files checked out with CRLF line ends (git's autocrlf) keep them."""
    text = merge_in_the_form(scaler_project, lambda data: data.replace(b"\n", b"\r\n"))
    for relative in WRITTEN:
        data = (scaler_project / relative).read_bytes()
        assert data.count(b"\n") == data.count(b"\r\n") > 5, relative
    assert "# mine\r\n" in text and 'initializer="zeros",\r\n' in text
    assert b"from .other import Other\r\n" in (scaler_project / "layers/__init__.py").read_bytes()
    assert run("generate", "--check", "layers").exit_code == 0

    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("x * scale * gain", "x * scale + gain")
    )
    result = run("generate", "layers")
    assert result.exit_code == 1 and "[conflict]" in result.output
    data = (scaler_project / "layers" / "scaler.py").read_bytes()
    assert b"<<<<<<< yours (edited by hand)\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")
    assert run("generate", "--check", "layers").exit_code == 1  # the markers are seen
    assert run("resolve", "layers/scaler.py", "--theirs").exit_code == 0
    data = (scaler_project / "layers" / "scaler.py").read_bytes()
    assert b"<<<<<<<" not in data and data.count(b"\n") == data.count(b"\r\n")
    assert run("generate", "--check", "layers").exit_code == 0


def test_an_empty_file_emptied_long_ago_is_read_at_once(tmp_path, monkeypatch):
    """An empty `__init__.py` is the commonest file of a package: one untouched for an hour
    is no save in progress, and reading it waits for nothing."""
    from layergen import textfiles

    init = tmp_path / "__init__.py"
    init.write_text("")
    an_hour_ago = time.time_ns() - 3600 * 10**9 + 123
    os.utime(init, ns=(an_hour_ago, an_hour_ago))
    waits = []
    monkeypatch.setattr(textfiles.time, "sleep", waits.append)
    assert textfiles.Seen.read(init).text == ""
    assert waits == []


@pytest.mark.parametrize("after", [0.05, 0.25])
def test_an_empty_file_a_save_fills_a_moment_later_is_read_as_saved(tmp_path, after):
    """An editor saving in place empties the file, then writes it: the run reads the text it
    wrote, not the instant between (a save that takes a quarter of a second included)."""
    from layergen import textfiles

    module = tmp_path / "module.py"
    module.write_text("")
    saving = threading.Timer(after, module.write_text, ["x = 1\n"])
    saving.start()
    try:
        assert textfiles.Seen.read(module).text == "x = 1\n"
    finally:
        saving.join()


def test_an_empty_file_whose_time_says_nothing_is_waited_on_once(tmp_path, monkeypatch):
    """A modification time on a whole second may be a file system's rounding (it says nothing
    of when the file was emptied): the file is read again once, after the whole wait."""
    from layergen import textfiles

    init = tmp_path / "__init__.py"
    init.write_text("")
    os.utime(init, (time.time() // 1, time.time() // 1))
    waits = []
    monkeypatch.setattr(textfiles.time, "sleep", waits.append)
    assert textfiles.Seen.read(init).text == ""
    assert waits == [textfiles.EMPTY_SETTLES]
