"""The lock (layergen/update/lock.py): its format, old versions, unreadable ones.

Regression tests: no conflict passes unnoticed, no edit is lost; inputs that gave tracebacks, broken
code reported as success.
"""

from __future__ import annotations

import json

from helpers import DECLARATION, HAND_CALL, corrupt, module, no_traceback, snapshot
from helpers import cli as run


def test_the_lock_is_a_short_index_with_the_bases_out_of_line(scaler_project):
    lock = json.loads((scaler_project / "layergen.lock").read_text())
    # The tests' support module is generated and merged like the others.
    assert set(lock["files"]) == {
        "layers/scaler.py",
        "tests/test_scaler.py",
        "tests/layergen_support.py",
    }
    assert all(set(entry) <= {"digest", "source"} for entry in lock["files"].values())
    # What each file is made from (so that an unchanged run reads no declaration).
    assert set(lock["records"]) == {"layers/scaler.layer.yaml", "tests/layergen_support.py"}
    record = {"inputs", "outputs", "class", "package", "default_package", "hand_written"}
    record |= {"seal", "content"}
    assert all(set(entry) <= record for entry in lock["records"].values())
    assert len((scaler_project / "layergen.lock").read_text().splitlines()) <= 4 + 4 * len(
        lock["files"]
    ) + 2 + 11 * len(
        lock["records"]
    )  # no texts

    def bookkeeping():
        return sorted(
            p.relative_to(scaler_project).as_posix()
            for p in (scaler_project / ".layergen").rglob("*")
            if p.is_file()
        )

    bases = bookkeeping()
    assert bases == [  # one per generated file, under a stable name
        ".layergen/base/layers/scaler.py.base",
        ".layergen/base/tests/layergen_support.py.base",
        ".layergen/base/tests/test_scaler.py.base",
    ]
    assert (scaler_project / bases[0]).read_text() == module(scaler_project)
    # A new generation replaces its base in place. The texts an undo of that run needs (issue
    # 34: a file put back is merged against the base it replaced) are kept beside it, as
    # changes to the new base.
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("initializer: ones", "initializer: zeros")
    )
    assert run("generate", "layers").exit_code == 0
    assert bookkeeping() == [*bases, ".layergen/undo/layers/scaler.py.undo"]
    assert (scaler_project / bases[0]).read_text() == module(scaler_project)
    undo = (scaler_project / ".layergen/undo/layers/scaler.py.undo").read_text()
    assert len(undo.splitlines()) < 10 and 'initializer="ones"' in undo


def test_a_lock_of_layergen_0_1_is_read_and_rewritten(scaler_project):
    bases = {
        k: (scaler_project / ".layergen" / "base").glob(f"{k}.*")
        for k in ("layers/scaler.py", "tests/test_scaler.py")
    }
    texts = {k: next(iter(v)).read_text() for k, v in bases.items()}
    (scaler_project / "layergen.lock").write_text(
        json.dumps({"version": 1, "files": {k: {"generated": t} for k, t in texts.items()}})
    )
    import shutil

    shutil.rmtree(scaler_project / ".layergen")
    code = module(scaler_project).replace("return x * self.scale * self.gain", HAND_CALL)
    (scaler_project / "layers" / "scaler.py").write_text(code)
    assert (
        run("generate", "--check", "layers").exit_code == 1
    )  # the lock's new form is to be written
    assert run("generate", "layers").exit_code == 0
    assert HAND_CALL in module(scaler_project)  # the old lock's base told the hand edit apart
    assert json.loads((scaler_project / "layergen.lock").read_text())["version"] == 2


def test_an_unreadable_lock_stops_the_run(scaler_project):
    lock = scaler_project / "layergen.lock"
    text = lock.read_text()
    lock.write_text("<<<<<<< HEAD\n" + text + "=======\n" + text + ">>>>>>> other\n")
    before = snapshot(scaler_project)
    result = run("generate", "layers")
    assert result.exit_code == 2
    assert (
        "layergen.lock:1:1: error: cannot read the lock: it holds merge conflict markers [bad-lock]"
        in result.output
    )
    assert snapshot(scaler_project) == before


def test_a_lock_that_is_not_utf8_is_a_located_error_and_a_bad_base_is_said(scaler_project):
    (scaler_project / "layers" / "scaler.layer.yaml").write_text(
        DECLARATION.replace("x * scale * gain", "x * scale + gain")
    )
    lock = scaler_project / "layergen.lock"
    good = lock.read_bytes()
    lock.write_bytes(good.replace(b'"version"', b'"v\xe9rsion"'))
    result = run("generate", "--check", "layers")
    no_traceback(result)
    assert result.exit_code == 2 and "layergen.lock:2:" in result.output
    lock.write_bytes(good)
    (base,) = (scaler_project / ".layergen" / "base" / "layers").glob("scaler.py.*")
    corrupt(base)
    # A file as the lock recorded it is its own base; hand-edited, nothing tells its base.
    module = scaler_project / "layers" / "scaler.py"
    module.write_text(
        module.read_text().replace("        return x", "        # mine\n        return x")
    )
    # A base text lost or altered is no dead end: merged as never generated, said.
    for args in (("generate", "--check", "layers"), ("sync", "layers")):
        result = run(*args)
        no_traceback(result)
        assert result.exit_code == 1 and "[no-base]" in result.output, args
    result = run("generate", "layers")  # the conflict sync wrote, said until it is settled
    assert result.exit_code == 1 and "[conflict]" in result.output


def lock_state(lock) -> dict:
    """Every attribute of the lock, copied: what reading it must leave as it was."""
    import copy
    from collections.abc import Mapping

    return {
        name: dict(value) if isinstance(value, Mapping) else copy.copy(value)
        for name, value in vars(lock).items()
    }


def test_reading_the_lock_writes_nothing_in_it(scaler_project):
    from layergen.update.lock import Lock

    lock = Lock.read(scaler_project)
    module = scaler_project / "layers" / "scaler.py"
    before = lock_state(lock)
    assert lock.base(module) == module.read_text()
    assert lock.merge_base(module, module.read_text()) == module.read_text()
    (scaler_project / ".layergen" / "base" / "layers" / "scaler.py.base").unlink()
    module.write_text(module.read_text() + "# mine\n")
    assert lock.base(module) is None  # lost: the lock says so each time it is asked
    assert lock_state(lock) == before


def test_a_run_reads_each_base_once_and_says_which_are_lost(scaler_project, monkeypatch):
    from layergen.update import lock as lock_module
    from layergen.update.lock import Lock, LockReader

    reads = []
    read = lock_module._read
    monkeypatch.setattr(lock_module, "_read", lambda file: reads.append(file) or read(file))
    bases = LockReader(Lock.read(scaler_project))
    module, tests = scaler_project / "layers" / "scaler.py", scaler_project / "tests"
    assert bases.base(module) == bases.merge_base(module, module.read_text()) is not None
    assert len(reads) == 1 and not bases.lost(module)
    (scaler_project / ".layergen" / "base" / "tests" / "test_scaler.py.base").unlink()
    (tests / "test_scaler.py").write_text("# mine\n")
    assert bases.lost(tests / "test_scaler.py")  # generated, its base gone
    assert not bases.lost(tests / "conftest.py")  # never generated: nothing lost
