"""The JVM path's plan files: a private folder per job (mkdtemp, owner-only, a name no one can
make first), each file written exclusively and checked against its digest before it is shipped,
and the folder removed when the job ends, failure included; a stream's plan (which holds the
registry's credentials) is shipped from there and goes with it."""
from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from samples import EVENT_V1, event

from app.client import CONFLUENT, AvroSerializer, RegistryClient
from app.pipeline.jvm_decode import decode_plan
from app.pipeline.jvm_plans import PlanFileMismatch, PlanFolder, plan_folder, ship_plan

REPO = Path(__file__).resolve().parents[2]
PLAN = {"reader": ["\"string\""], "writers": {}}
TEXT = json.dumps(PLAN, sort_keys=True)
DIGEST = hashlib.sha256(TEXT.encode()).hexdigest()[:24]


def shipped_files(spark) -> list[str]:
    """The files this Spark application has added (SparkContext.addFile), as Spark lists them."""
    return [name for name in spark.sparkContext._jsc.sc().listFiles().mkString("|").split("|") if name]


@pytest.fixture
def own_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The temporary folder mkdtemp uses, this test's own, so that what is left there is seen."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_each_folder_is_private_and_named_so_no_one_could_make_it_first(own_tmp: Path) -> None:
    first, second = PlanFolder(), PlanFolder()
    try:
        assert first.path != second.path and first.path.parent == second.path.parent == own_tmp
        for folder in (first, second):
            status = folder.path.stat()
            assert stat.S_IMODE(status.st_mode) == 0o700 and status.st_uid == os.getuid()
            assert folder.path.name.startswith("sqlregistry-plans-") and len(folder.path.name) > 24
    finally:
        first.remove()
        second.remove()
    assert list(own_tmp.iterdir()) == []


def test_a_plan_file_is_owner_only_and_named_for_its_content(own_tmp: Path) -> None:
    folder = PlanFolder()
    try:
        path, digest = folder.write("decode", TEXT)
        again, _ = folder.write("decode", TEXT)  # shipped twice: one file
        assert path == again and digest == DIGEST and path.name.endswith(f"-{DIGEST}.json")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text() == TEXT
    finally:
        folder.remove()


def test_a_file_planted_under_the_expected_name_is_refused_and_not_shipped(spark) -> None:
    folder = plan_folder(spark)
    planted = folder.path / f"sqlregistry-decode-{folder.token}-{DIGEST}.json"
    planted.write_text(json.dumps({**PLAN, "registry": {"urls": ["http://elsewhere"]}}))
    planted.chmod(0o600)
    try:
        with pytest.raises(PlanFileMismatch, match="does not hold the plan written there"):
            ship_plan(spark, "decode", PLAN)
        assert not any(planted.name in name for name in shipped_files(spark))
    finally:
        planted.unlink()


def test_a_link_planted_under_the_expected_name_is_not_followed(spark, tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text(TEXT)  # even the right content, through a link, is not the job's own file
    folder = plan_folder(spark)
    link = folder.path / f"sqlregistry-decode-{folder.token}-{DIGEST}.json"
    link.symlink_to(target)
    try:
        with pytest.raises(PlanFileMismatch, match="cannot be read as written"):
            ship_plan(spark, "decode", PLAN)
        assert not any(link.name in name for name in shipped_files(spark))
    finally:
        link.unlink()
    assert target.read_text() == TEXT


def test_a_stream_plan_holding_credentials_is_shipped_owner_only_from_the_private_folder(spark) -> None:
    registry = RegistryClient("http://127.0.0.1:9", auth=("pipeline", "s3cret"))
    plan = decode_plan(None, registry, '"string"', CONFLUENT, b"\x00")
    name, _ = ship_plan(spark, "decode", plan)
    path = plan_folder(spark).path / name
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text())["registry"]["authorization"] == registry.transport.authorization
    assert any(name in shipped for shipped in shipped_files(spark))


# Runs `pipeline decode` jobs in a new process, each starting and stopping its own Spark (what
# the command does when no session is running); it
# reports, for each session at its stop, the driver's address settings, the addresses the
# driver's JVM listens on and the plan folders present, and the plan folders left after each job.
JOBS = r"""
import json, os, sys
from pathlib import Path
from pyspark import SparkContext

LOOPBACK = {"0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F"}


def listening(pid):
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:
                found.append(fields[1].split(":")[0])
    return found


def plan_folders():
    return sorted(p.name for p in Path(os.environ["TMPDIR"]).glob("sqlregistry-plans-*"))


sessions = []
stop = SparkContext.stop


def recording_stop(self):
    conf = self.getConf()
    addresses = listening(self._gateway.proc.pid)
    sessions.append({"host": conf.get("spark.driver.host"), "bind": conf.get("spark.driver.bindAddress"),
                     "listening": len(addresses), "loopback": all(a in LOOPBACK for a in addresses),
                     "plans": [name for name in plan_folders()]})
    stop(self)


SparkContext.stop = recording_stop
from app.pipeline.job import main

codes, left = [], []
for argv in json.loads(sys.argv[1]):
    codes.append(main(argv))
    left.append(plan_folders())  # what the job left behind, before anything else runs
print("SEEN " + json.dumps({"codes": codes, "sessions": sessions, "left": left}), flush=True)
"""


@pytest.mark.slow
@pytest.mark.timeout(600)  # two Spark start-ups in a new process
@pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)
def test_the_decode_command_binds_loopback_and_removes_its_plans_when_its_spark_stops(
    spark, decoder_jar, live_server, unique_subject, tmp_path: Path,
) -> None:
    subject = unique_subject()
    serialize = AvroSerializer(RegistryClient(live_server), EVENT_V1, subject=subject)
    good, bad = tmp_path / "good", tmp_path / "bad"
    spark.createDataFrame([(serialize(event(1, n)),) for n in range(3)], "value binary").write.parquet(str(good))
    spark.createDataFrame([(b"\x00\x00\x00\x00\x01\xff",)], "value binary").write.parquet(str(bad))
    common = ["decode", "--registry", live_server, "--subject", subject, "--engine", "jvm", "--master", "local[1]"]
    jobs = [[*common, "--input", str(good), "--output", str(tmp_path / "out")],
            [*common, "--input", str(bad), "--output", str(tmp_path / "out2")]]
    own_tmp = tmp_path / "tmp"
    own_tmp.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "SPARK_LOCAL_IP"}
    env.update(PYTHONPATH=str(REPO), TMPDIR=str(own_tmp), PYSPARK_PYTHON=sys.executable)
    done = subprocess.run([sys.executable, "-c", JOBS, json.dumps(jobs)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=280, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("SEEN "))[5:])
    assert seen["codes"] == [0, 1], done.stderr[-4000:]
    for session in seen["sessions"]:
        # Every socket the driver's JVM listens on (py4j's, the driver's RPC, the block manager,
        # the UI) is on loopback, where executors on this machine reach it.
        assert session["listening"] >= 3 and session["loopback"], json.dumps(session)
        assert session["host"] in ("localhost", "127.0.0.1") and session["bind"] in (None, "127.0.0.1")
        assert len(session["plans"]) == 1  # the job's plan folder, while its Spark ran
    assert len(seen["sessions"]) == 2 and seen["left"] == [[], []]
    assert list(own_tmp.glob("sqlregistry-plans-*")) == []
    assert spark.read.parquet(str(tmp_path / "out")).count() == 3
