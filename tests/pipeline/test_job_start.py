"""What `pipeline decode` does before Spark starts: the subject and the reader version asked for
are looked up in the registry (a mistyped `--subject` fails in seconds, naming it, where it cost
Spark's start-up before), and a local master's Spark is told to listen on loopback only."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from samples import EVENT_V1

from app.client import RegistryClient
from app.pipeline.job import loopback_environment

REPO = Path(__file__).resolve().parents[2]
# Runs the command in a new process and reports its exit status and whether a JVM was started.
RUN = """
import json, sys
from app.pipeline.job import main

code = main(json.loads(sys.argv[1]))
pyspark = sys.modules.get("pyspark")
print("RAN " + json.dumps({"code": code, "jvm": pyspark is not None and pyspark.SparkContext._gateway is not None}))
"""


@pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)
@pytest.mark.parametrize("asked, refusal", [
    (["--subject", "{subject}-typo"], "SubjectNotFound: Subject '{subject}-typo' not found. (error_code 40401"),
    (["--subject", "{subject}", "--reader", "7"], "VersionNotFound: Version 7 not found. (error_code 40402"),
    (["--subject", "{subject}-typo", "--reader", "latest-seen"],
     "SubjectNotFound: Subject '{subject}-typo' not found. (error_code 40401"),
])
def test_a_subject_or_version_the_registry_lacks_fails_before_spark_starts(
    live_server, unique_subject, tmp_path: Path, asked: list[str], refusal: str,
) -> None:
    subject = unique_subject()
    RegistryClient(live_server).register(subject, EVENT_V1)
    argv = ["decode", "--registry", live_server, "--input", str(tmp_path / "absent"), "--output",
            str(tmp_path / "out"), *[part.format(subject=subject) for part in asked]]
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(argv)], env={**os.environ, "PYTHONPATH": str(REPO)},
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          check=False)
    ran = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RAN "))[4:])
    assert ran == {"code": 1, "jvm": False}, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"sqlregistry pipeline: error: {refusal.format(subject=subject)}, HTTP 404) (--debug shows the whole trace)"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("master, environ, added", [
    ("local[*]", {}, {"SPARK_LOCAL_IP": "127.0.0.1"}),
    ("local[2]", {"SPARK_LOCAL_IP": "192.0.2.7"}, {}),  # the user's choice stands
    ("spark://cluster:7077", {}, {}),  # executors elsewhere must reach the driver
    ("yarn", {}, {}),
])
def test_a_local_master_is_told_to_listen_on_loopback_unless_asked_otherwise(
    master: str, environ: dict[str, str], added: dict[str, str],
) -> None:
    assert loopback_environment(master, environ) == added
