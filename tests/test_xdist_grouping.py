"""The suite refuses to run its grouped tests when `--dist loadgroup` groups nothing
(support/xdist_groups.py): a pytest that ignores xdist's renamed node ids is simulated by a
`Node.nodeid` that drops the `@group` suffix, as pytest 9.2 with pytest-xdist 3.8 does."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.commands import run_command

TESTS = Path(__file__).resolve().parent

SAMPLE = """
import pytest

@pytest.mark.xdist_group("spark")
def test_grouped():
    pass

def test_plain():
    pass
"""
CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
pytest_plugins = ("support.xdist_groups",)
"""
IGNORES_RENAMED_IDS = """
import _pytest.nodes
_pytest.nodes.Node.nodeid = property(lambda self: self._nodeid.split("@")[0])
"""


def run_pytest(tmp_path: Path, conftest: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    (tmp_path / "conftest.py").write_text(conftest)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SQLREGISTRY_TEST"))}
    # xdist alone: the venv's other plugins (Schemathesis, Hypothesis, Playwright...) took most
    # of each run's start-up, in the controller and again in its worker.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return run_command(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist.plugin", "-n", "1",
         "--dist", "loadgroup", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True,
    )


def test_grouped_tests_run_when_the_groups_hold(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, CONFTEST)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_grouped_tests_error_naming_the_versions_when_the_groups_do_not_hold(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, CONFTEST + IGNORES_RENAMED_IDS)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed, 1 error" in done.stdout
    assert "--dist loadgroup does not hold: 1 tests marked xdist_group keep their plain node id" in done.stdout
    assert "tests/constraints.txt" in done.stdout
