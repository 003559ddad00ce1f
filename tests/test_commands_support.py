"""support/commands.py: a command still running at its limit fails the test naming what ran."""
from __future__ import annotations

import subprocess
import sys

import pytest
from support.commands import communicate, run_command


def test_a_finished_command_is_returned_like_subprocess_run() -> None:
    done = run_command([sys.executable, "-c", "print('hi')"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "hi\n")


def test_a_command_over_its_limit_fails_listing_its_running_processes_and_output() -> None:
    script = ("import subprocess, sys, time; print('started', flush=True); "
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); time.sleep(120)")
    with pytest.raises(pytest.fail.Exception) as failed:
        run_command([sys.executable, "-c", script], capture_output=True, text=True, timeout=3)
    message = str(failed.value)
    assert "still running after 3s; its processes then:" in message
    assert message.count("time.sleep(120)") >= 2  # the command and the child it started
    assert "stdout (end): started" in message


def test_communicate_fails_the_same_way_for_a_started_process() -> None:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], stdout=subprocess.PIPE)
    with pytest.raises(pytest.fail.Exception, match="still running after 1s"):
        communicate(process, timeout=1)
    assert process.poll() is not None  # killed
