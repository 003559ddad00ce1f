"""Decode throughput of `app.pipeline` on Spark against a plain fastavro loop, in one run.

N Confluent-framed records (8 mixed fields, 3 writer versions interleaved 1,2,3,1,2,3...) are
written once to a Parquet topic dump. Then, projected onto the latest version, taking turns
over `--rounds` rounds (`bench/timing.py`; the best round of each counts):

- a plain loop: one process, fastavro's `schemaless_reader` per record (writer/reader parsed
  once per version), no Spark;
- the pipeline on `local[2]`, on each decoder path (`engine="jvm"`: the Java UDF; `"python"`:
  fastavro in Spark's Python workers): `decode(...)` to Spark's no-op sink, and to Parquet. The
  JVM path's timing includes its planning pass (the distinct headers read on the driver).
  The session starts with the decoder's jar in `spark.jars`, as `spark-submit --jars` would.

Also printed: Spark session start-up; peak memory (VmHWM from /proc, no psutil) of the JVM and
of each Spark Python worker, sampled while the pipeline runs, and the peak of the workers'
summed resident memory; the CPU-seconds each variant spent (this process for the loop; the JVM
and every Python worker, from /proc, for the pipeline), which a busy shared machine distorts
far less than wall time; and a profile of one executor's work: the very function `mapInArrow`
runs (`batch_decoder`), fed the dump's Arrow batches in this process, phase by phase and under
cProfile, with its records per CPU-second unprofiled. The registry runs under gunicorn on SQLite (`support.live`).
Prints figures only; nothing is asserted.

    python bench/pipeline_decode.py [--records 1000000] [--rounds 2] [--profile-records 100000]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import sys
import threading
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from fastavro import parse_schema, schemaless_reader  # noqa: E402

from app.client import AvroSerializer, RegistryClient  # noqa: E402
from bench.timing import best_of_rounds, timed  # noqa: E402

BASE = [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": "string"},
    {"name": "quantity", "type": "int"},
    {"name": "price", "type": "double"},
    {"name": "paid", "type": "boolean"},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
]
EXTRA = [
    {"name": "email", "type": ["null", "string"], "default": None},
    {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
]
VERSIONS = [json.dumps({"type": "record", "name": "Purchase", "namespace": "bench", "fields": BASE + EXTRA[:n]})
            for n in range(3)]
SUBJECT = "purchases-value"
ARROW_BATCH = 10_000  # Spark's default spark.sql.execution.arrow.maxRecordsPerBatch


def record(version: int, n: int) -> dict:
    from datetime import datetime, timezone

    out = {"id": n, "customer": f"customer-{n % 997}", "quantity": n % 13, "price": n * 0.25, "paid": n % 2 == 0,
           "at": datetime(2026, 1, 1, tzinfo=timezone.utc)}
    if version >= 1:
        out["email"] = None if n % 3 else f"c{n}@example.com"
    if version >= 2:
        out["tags"] = ["a", "b"][: n % 3]
    return out


def plain_loop(values: list[bytes], client: RegistryClient) -> None:
    """fastavro alone, schemas parsed once per writer id."""
    reader = parse_schema(json.loads(VERSIONS[-1]))
    writers: dict[bytes, object] = {}
    for data in values:
        header = data[:5]
        writer = writers.get(header)
        if writer is None:
            writer = writers[header] = parse_schema(json.loads(client.get_schema(int.from_bytes(header[1:], "big")).text))
        stream = BytesIO(data)
        stream.seek(5)
        schemaless_reader(stream, writer, reader)


def write_dump(values: list[bytes], folder: Path, files: int = 8) -> None:
    """The topic dump as Parquet, written by pyarrow (Spark's createDataFrame would pickle every
    row through the driver); several files so that Spark has several tasks to spread."""
    folder.mkdir()
    per_file = -(-len(values) // files)
    for part, start in enumerate(range(0, len(values), per_file)):
        chunk = values[start:start + per_file]
        table = pa.table({"offset": pa.array(range(start, start + len(chunk)), pa.int64()),
                          "value": pa.array(chunk, pa.binary())})
        pq.write_table(table, folder / f"part-{part:03d}.parquet")


# ---------------------------------------------------------------- memory, read from /proc
def _status(pid: int) -> dict[str, int]:
    """VmHWM and VmRSS of a process, in KiB (empty if it is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()
            if line.startswith(("VmHWM:", "VmRSS:"))}


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spark_processes() -> list[int]:
    """The JVM this driver started and every process under it (Python daemon and workers)."""
    tree = _children()
    found = [pid for pid in tree.get(os.getpid(), []) if "java" in _command(pid)]
    pending = list(found)
    while pending:
        children = tree.get(pending.pop(), [])
        found.extend(children)
        pending.extend(children)
    return found


def spark_cpu(work) -> float:
    """CPU seconds Spark's processes spent while `work()` ran. Python workers are reused, so
    they are there before and after; one started during the run counts from its start."""
    before = {pid: _cpu_seconds(pid) for pid in spark_processes()}
    work()
    after = {pid: _cpu_seconds(pid) for pid in spark_processes()}
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


class MemoryWatch:
    """Samples the JVM this driver started and every Python process under it (Spark's daemon
    and the workers it forks) until stopped: each one's VmHWM, and the peak of the workers'
    summed VmRSS (workers that come and go are caught by the sampling, not after the fact)."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.jvm_hwm = 0
        self.worker_hwm: dict[int, int] = {}
        self.workers_rss_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _jvm(self, tree: dict[int, list[int]]) -> int | None:
        return next((pid for pid in tree.get(os.getpid(), []) if "java" in _command(pid)), None)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            tree = _children()
            jvm = self._jvm(tree)
            if jvm is None:
                continue
            self.jvm_hwm = max(self.jvm_hwm, _status(jvm).get("VmHWM", 0))
            pending, rss = list(tree.get(jvm, [])), 0
            while pending:
                pid = pending.pop()
                pending.extend(tree.get(pid, []))
                if "pyspark" not in _command(pid) or "java" in _command(pid):
                    continue
                status = _status(pid)
                self.worker_hwm[pid] = max(self.worker_hwm.get(pid, 0), status.get("VmHWM", 0))
                rss += status.get("VmRSS", 0)
            self.workers_rss_peak = max(self.workers_rss_peak, rss)

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


# ---------------------------------------------------------------- one executor's work, profiled
def bench_session(config: dict[str, str] | None = None):
    """The pipeline benches' Spark session: `local[2]`, UI and progress bars off, UTC, and the
    decoder's jar in `spark.jars` as `spark-submit --jars` would give it; `config` adds a bench's
    own settings. One builder, so the decode and encode benches measure the same session."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    from app.pipeline.jvm import jar_path

    builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.jars", str(jar_path())).config("spark.driver.host", "127.0.0.1")
               .config("spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC"))
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def profile_one_executor(dump: Path, client: RegistryClient, records: int, spark_schema) -> None:
    """Run the function `mapInArrow` ships to a worker on the dump's first `records` rows, as
    Arrow batches of Spark's size, in this process: once timed, once under cProfile, and once
    phase by phase (fastavro is compiled code, which cProfile books to its Python caller)."""
    from pyspark.sql.pandas.types import to_arrow_type

    from app.client import CONFLUENT
    from app.pipeline.decode import batch_decoder
    from app.pipeline.types import avro_to_spark
    from app.pipeline.workers import worker_decoder

    table = pq.read_table(dump).slice(0, records)
    batches = table.to_batches(max_chunksize=ARROW_BATCH)
    latest = client.get_latest_version(SUBJECT).schema.text
    job, _ = batch_decoder(spark_schema, "value", client, latest)
    for _ in job(iter(batches[:1])):  # warm: fetch and compile each writer once
        pass
    seconds, _ = timed(lambda: sum(out.num_rows for out in job(iter(batches))), time.process_time)
    print(f"one worker's function, 1 core  {table.num_rows / seconds:12,.0f} records/CPU-second (no Spark, no IPC)")

    decoder = worker_decoder(client, latest, CONFLUENT)

    def refuse(row: int, exc: Exception) -> None:
        raise exc
    arrow_type = to_arrow_type(avro_to_spark(latest).data_type, timezone="UTC")
    phases = {"Arrow binary -> Python bytes": 0.0, "framing + fastavro decode": 0.0, "Python -> Arrow struct": 0.0}
    for batch in batches:
        took, values = timed(lambda: batch.column("value").to_pylist(), time.process_time)
        phases["Arrow binary -> Python bytes"] += took
        took, decoded = timed(lambda: decoder.decode_all(values, refuse), time.process_time)
        phases["framing + fastavro decode"] += took
        phases["Python -> Arrow struct"] += timed(lambda: pa.array(decoded, type=arrow_type), time.process_time)[0]
    plain_seconds = timed(lambda: plain_loop(table.column("value").to_pylist(), client), time.process_time)[0]
    total = sum(phases.values())
    print(f"phases of one worker's function on {table.num_rows:,} records:")
    for name, took in phases.items():
        print(f"  {name:<30} {took / table.num_rows * 1e6:7.2f} µs/record  {took / total:6.1%}")
    print(f"  {'(plain fastavro loop, same)':<30} {plain_seconds / table.num_rows * 1e6:7.2f} µs/record")

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in job(iter(batches)):
        pass
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(6)
    print("cProfile, top by own time:")
    for line in out.getvalue().splitlines():
        if line.strip() and line.lstrip()[0].isdigit():
            print("   " + line.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile-records", type=int, default=100_000)
    args = parser.parse_args()
    from support.live import scratch_registry

    with scratch_registry("bench-pipeline-") as scratch:
        client = RegistryClient(scratch.server.url)
        serializers = [AvroSerializer(client, text, subject=SUBJECT) for text in VERSIONS]
        values = [serializers[n % 3](record(n % 3, n)) for n in range(args.records)]
        dump = scratch.workdir / "dump"
        write_dump(values, dump)
        print(f"records                        {args.records:>12,}  (8 fields at v3, 3 writer versions interleaved)")

        from app.pipeline.jvm import jar_path

        jar_path()  # built (if need be) before the start-up is timed
        startup, spark = timed(lambda: bench_session({
            "spark.sql.shuffle.partitions": "2", "spark.sql.files.maxPartitionBytes": str(8 * 1024 * 1024)}))
        print(f"spark start-up                 {startup:12.1f} s")
        from app.pipeline import decode

        source = spark.read.parquet(str(dump))
        # Warm-up: start the Python workers, fill their schema caches, JIT the UDF, untimed.
        for engine in ("python", "jvm"):
            decode(source, "value", client, subject=SUBJECT, engine=engine).write.format("noop").mode(
                "overwrite").save()

        def pipeline(engine: str, sink: str) -> list[float]:
            """Wall seconds, and CPU seconds of the JVM and Python workers, for one run."""
            def save() -> None:
                decoded = decode(source, "value", client, subject=SUBJECT, reader="latest", engine=engine)
                writer = decoded.write.mode("overwrite")
                if sink == "noop":
                    writer.format("noop").save()
                else:
                    writer.parquet(str(scratch.workdir / "out"))
            wall, cpu = timed(lambda: spark_cpu(save))
            return [wall, cpu]

        def loop() -> list[float]:
            wall, cpu = timed(lambda: timed(lambda: plain_loop(values, client), time.process_time)[0])
            return [wall, cpu]

        def progress(round_number: int, name: str, seconds) -> None:
            print(f"  round {round_number + 1} {name:<22} {args.records / seconds[0]:12,.0f} records/s, "
                  f"{args.records / seconds[1]:10,.0f} per CPU-second", flush=True)

        with MemoryWatch() as memory:
            best = best_of_rounds(args.rounds, {
                "plain fastavro loop": loop,
                "python path -> noop": lambda: pipeline("python", "noop"),
                "python path -> parquet": lambda: pipeline("python", "parquet"),
                "jvm path -> noop": lambda: pipeline("jvm", "noop"),
                "jvm path -> parquet": lambda: pipeline("jvm", "parquet"),
            }, progress)
        rates = {name: args.records / seconds[0] for name, seconds in best.items()}
        per_cpu = {name: args.records / seconds[1] for name, seconds in best.items()}
        print(f"best of {args.rounds} rounds (wall clock; CPU-seconds of every process doing the work):")
        for name, rate in rates.items():
            print(f"  {name:<28} {rate:12,.0f} records/s  ({rate / rates['plain fastavro loop']:.2f}x the loop)"
                  f"  {per_cpu[name]:10,.0f} per CPU-second ({per_cpu[name] / per_cpu['plain fastavro loop']:.2f}x)")
        for sink in ("noop", "parquet"):
            print(f"  jvm path -> {sink:<8} is {rates[f'jvm path -> {sink}'] / rates[f'python path -> {sink}']:.2f}x "
                  f"the python path -> {sink}")
        workers = sorted(memory.worker_hwm.values(), reverse=True)
        print(f"JVM peak (VmHWM)               {memory.jvm_hwm / 1024:12.0f} MiB")
        print(f"Python workers seen            {len(workers):12d}  (the daemon included)")
        print(f"largest worker peak (VmHWM)    {workers[0] / 1024 if workers else 0:12.0f} MiB; others: "
              + ", ".join(f"{kib / 1024:.0f}" for kib in workers[1:6]))
        print(f"workers' summed RSS, peak      {memory.workers_rss_peak / 1024:12.0f} MiB")
        driver_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"driver (python) peak RSS       {driver_peak:12.0f} MiB  (holds the {args.records:,} records for the loop)")
        profile_one_executor(dump, client, args.profile_records, source.schema)
        spark.stop()


if __name__ == "__main__":
    main()
