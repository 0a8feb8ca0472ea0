"""The generated conftest gives each test run a Keras home of its own (keeping ~/.keras
out of it), and removes it when the run ends: nothing piles up in the temp folder."""

from __future__ import annotations

import os
import subprocess
import sys

from layergen.config import load_config
from layergen.generate import conftest


def test_a_test_run_leaves_no_keras_home_behind(tmp_path):
    project, temp = tmp_path / "project", tmp_path / "temp"
    temp.mkdir()
    (project / "tests").mkdir(parents=True)
    ((path, text),) = conftest(load_config(project), [project]).items()
    path.write_text(text)
    (project / "tests" / "test_home.py").write_text(
        "import os\n\n\ndef test_home():\n"
        "    home = os.environ['KERAS_HOME']\n"
        "    assert os.path.basename(home).startswith('keras-home-')\n"
        "    open(os.path.join(home, 'keras.json'), 'w').close()  # as Keras does\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "KERAS_HOME"}
    env["TMPDIR"] = str(temp)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert [p.name for p in temp.iterdir() if p.name.startswith("keras-home-")] == []
