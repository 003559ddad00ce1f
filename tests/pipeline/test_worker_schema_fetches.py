"""One registry request per schema id per Python worker (the JVM path: once, on the driver),
counted on the server: never per record, per batch or per task. The registry runs in-process (SQLite and PostgreSQL) and
Spark's Python workers reach it over HTTP like any consumer; the server records which process
sent each request (support/counting.py), so the driver (this process), the executors (Spark's
JVM, a child of this process) and the Python workers are told apart."""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from samples import EVENT_V1, EVENT_V2, EVENT_V3, event

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode

RECORDS = 3000
TASKS = 8


def python_workers() -> int:
    """How many Python workers this session's Spark daemon has forked and keeps for reuse.
    local[2] runs two tasks at once, but a task whose plan holds two Python steps uses two
    workers, so the pool an earlier test left behind may hold more than two. Only processes
    under this test run's own JVM count: other Spark sessions may run on the same machine."""
    processes: dict[int, tuple[int, str]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        processes[int(proc.name)] = (parent, command)
    jvms = {pid for pid, (parent, command) in processes.items() if parent == os.getpid() and "java" in command}
    daemons = {pid for pid, (parent, command) in processes.items() if parent in jvms and "pyspark.daemon" in command}
    return sum(1 for parent, _ in processes.values() if parent in daemons)


def three_writers(spark, url: str, subject: str):
    """RECORDS records of `subject` written by its three versions in turn, over TASKS partitions."""
    producer = RegistryClient(url)
    serializers = [AvroSerializer(producer, text, subject=subject) for text in (EVENT_V1, EVENT_V2, EVENT_V3)]
    rows = [(n, serializers[n % 3](event(n % 3 + 1, n))) for n in range(RECORDS)]
    return spark.createDataFrame(rows, "n long, value binary").repartition(TASKS)


def command_of(pid: int | None) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_each_writer_id_is_fetched_at_most_once_per_worker(spark, counting_registry):
    subject = "counted-value"
    df = three_writers(spark, counting_registry.url, subject)
    counting_registry.identify_senders()
    previous = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "50")  # dozens of batches per task
    try:
        consumer = RegistryClient(counting_registry.url)
        out = decode(df, "value", consumer, subject=subject, reader="latest", engine="python")
        assert out.where("value is not null").count() == RECORDS
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous)
    sent = [s for s in counting_registry.sent if s.method == "GET"]
    by_id = [s for s in sent if s.target.startswith("/schemas/ids/")]
    per_worker = Counter((s.pid, s.target) for s in by_id)
    assert len({s.target for s in by_id}) == 3 and set(per_worker.values()) == {1}, per_worker
    senders = {s.pid for s in by_id}
    assert os.getpid() not in senders and all("pyspark.daemon" in command_of(pid) for pid in senders), senders
    assert 1 <= len(senders) <= python_workers() < TASKS
    others = [s for s in sent if s not in by_id]
    # The driver's look-ups: the latest version, and the subject's versions whose rules it checks.
    assert others and {s.pid for s in others} == {os.getpid()}, others


def test_the_jvm_path_fetches_each_writer_id_once_on_the_driver_and_never_on_executors(spark, counting_registry):
    subject = "counted-jvm-value"
    df = three_writers(spark, counting_registry.url, subject)
    counting_registry.identify_senders()
    out = decode(df, "value", RegistryClient(counting_registry.url), subject=subject, reader="latest", engine="jvm")
    assert out.where("value is not null").count() == RECORDS
    assert out.where("value is not null").count() == RECORDS  # a second action plans nothing again
    sent = [s for s in counting_registry.sent if s.method == "GET"]
    # Every request came from the driver's Python client, none from the JVM that runs the executors.
    assert {s.pid for s in sent} == {os.getpid()}, sent
    assert all(s.user_agent and s.user_agent.startswith("sqlregistry-client") for s in sent), sent
    by_id = Counter(s.target for s in sent if s.target.startswith("/schemas/ids/"))
    # At most once each: the look-ups of the subject's versions (their rules checked before the
    # job) may already have brought the ids' texts.
    assert len(by_id) <= 3 and set(by_id.values()) <= {1}, by_id
