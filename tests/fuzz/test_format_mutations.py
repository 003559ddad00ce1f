"""Seeded mutations of valid schemas, per format, through registration and compatibility in a
process of their own (mutation_runner.py): the process never dies by a signal (the input that
killed it would be named), no refusal is a crash of the Protobuf compiler's process, and every
reply is 200, 409 or 422 in Confluent's error shape (400 only for a text no JSON request may
carry). `FUZZ_MUTATIONS` raises the count (default 1000 a format, seed 35)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("mutation_runner.py")
REPO = RUNNER.parents[2]
COUNT = int(os.environ.get("FUZZ_MUTATIONS", "1000"))
SEED = int(os.environ.get("FUZZ_SEED", "35"))


@pytest.mark.parametrize("schema_type", ["AVRO", "JSON", "PROTOBUF"])
def test_no_mutated_schema_ends_the_process_or_gets_an_unexpected_reply(
    schema_type: str, tmp_path: Path, sqlite_at_head: Callable[[Path], str]
) -> None:
    last_input = tmp_path / "last-input.json"
    command = [sys.executable, str(RUNNER), "--format", schema_type, "--seed", str(SEED), "--count", str(COUNT),
               "--database-url", sqlite_at_head(tmp_path / "registry.db"), "--last-input", str(last_input)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    if done.returncode < 0:
        pytest.fail(f"{signal.Signals(-done.returncode).name} ended the process on input "
                    f"{last_input.read_text(errors='replace')}\n{done.stderr.decode(errors='replace')[-2000:]}")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    summary = json.loads(done.stdout.decode().splitlines()[-1])
    assert summary["problems"] == []
    assert summary["crashes"] == 0
    assert sum(summary["statuses"].values()) == 2 * COUNT
    assert b"ended while compiling" not in done.stderr
