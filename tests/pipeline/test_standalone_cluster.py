"""The JVM decoder on a real Spark standalone cluster (`--master spark://...`), run the way a user
runs it: `sqlregistry pipeline decode` as a process of its own, and `spark-submit --jars` for a job
of one's own. The executor is a separate JVM under the Worker, so the decoder jar and the plan
must travel to it; the Worker's work folder shows they did and that its executor ran the tasks.
A JSON Schema decode runs there too, in the executor's Python workers.

One Master and one Worker (1 core) are shared by the module's tests. Without Java or a JDK the
module skips locally and fails under CI, as the other Spark tests do."""
from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from format_samples import READING_V1, reading
from support.commands import run_command
from support import spark_jvm
from support.live import REPO_ROOT
from support.spark_standalone import StandaloneCluster, loopback_env, spark_bin, start_cluster

from app.client import JsonSerializer, RegistryClient
from app.pipeline import decode
from app.pipeline.sample import payment, write_sample

pytestmark = [pytest.mark.parametrize("live_server", ["sqlite"], indirect=True), pytest.mark.slow,
              pytest.mark.timeout(900)]  # two Spark clusters and spark-submit runs, each up to 180 s

RECORDS = 40
JOB = '''
import logging
import sys

from pyspark.sql import SparkSession

from app.client import RegistryClient
from app.pipeline import decode

logging.getLogger("app.pipeline").addHandler(logging.StreamHandler())
logging.getLogger("app.pipeline").setLevel(logging.INFO)
registry, source, subject, target = sys.argv[1:]
spark = SparkSession.builder.appName("sqlregistry-submitted-job").getOrCreate()
decode(spark.read.parquet(source), "value", RegistryClient(registry), subject=subject, engine="jvm") \\
    .write.parquet(target)
spark.stop()
'''


@pytest.fixture(scope="module")
def cluster(decoder_jar, tmp_path_factory) -> Iterator[StandaloneCluster]:
    running = start_cluster(tmp_path_factory.mktemp("standalone"))
    try:
        yield running
    finally:
        running.stop()


def run(command: list[str], root: Path) -> subprocess.CompletedProcess[str]:
    done = run_command(command, cwd=REPO_ROOT, env=loopback_env(root), capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return done


def sample(live_server: str, subject: str, path: Path) -> list[dict[str, object]]:
    """A framed topic dump at `path`; returns its records as written."""
    write_sample(live_server, subject, str(path), RECORDS)
    rng = random.Random(7)
    return [payment(n, rng) for n in range(RECORDS)]


def executor_ran(cluster: StandaloneCluster, before: set[Path], jar: Path) -> str:
    """The one application folder the Worker made since `before`: it holds the decoder jar the
    executor fetched, and the executor's log shows the jar on its class loader and tasks done.
    Returns the application's id."""
    new = cluster.app_dirs() - before
    assert len(new) == 1, (new, cluster.logs())
    executors = list(next(iter(new)).iterdir())
    assert len(executors) == 1
    executor = executors[0]
    assert (executor / jar.name).is_file()
    log = (executor / "stderr").read_text(errors="replace")
    assert f"{jar.name} to class loader" in log
    assert "Finished task" in log
    return next(iter(new)).name


def test_the_decode_command_runs_the_jvm_decoder_on_the_clusters_executor(
        spark, cluster, decoder_jar, live_server, unique_subject, tmp_path):
    subject = unique_subject()
    expected = sample(live_server, subject, tmp_path / "dump.parquet")
    before = cluster.app_dirs()
    done = run([sys.executable, "-m", "app.cli", "pipeline", "decode", "--registry", live_server,
                "--subject", subject, "--input", str(tmp_path / "dump.parquet"), "--output", str(tmp_path / "out"),
                "--master", cluster.url, "--engine", "jvm"], tmp_path)

    assert "sqlregistry pipeline: decoding on the JVM path: the decoder jar is on the session's classpath" \
        in done.stderr
    app_id = executor_ran(cluster, before, decoder_jar)
    finished = cluster.completed_app(app_id)
    assert finished is not None and finished["state"] == "FINISHED"
    assert finished["name"] == "sqlregistry-pipeline-decode"
    rows = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [row["value"].asDict() for row in rows] == expected


def test_spark_submit_with_the_jar_in_jars_decodes_on_the_clusters_executor(
        spark, cluster, decoder_jar, live_server, unique_subject, tmp_path):
    subject = unique_subject()
    expected = sample(live_server, subject, tmp_path / "dump.parquet")
    job = tmp_path / "job.py"
    job.write_text(JOB, encoding="utf-8")
    before = cluster.app_dirs()
    conf = [argument for key, value in spark_jvm.current().submit_conf().items()
            for argument in ("--conf", f"{key}={value}")]
    done = run([str(spark_bin() / "spark-submit"), "--master", cluster.url, "--jars", str(decoder_jar), *conf, str(job),
                live_server, str(tmp_path / "dump.parquet"), subject, str(tmp_path / "out")], tmp_path)

    # The jar came with --jars: decode found the class without adding it. (spark-submit relays
    # the Python driver's stderr to its own stdout.)
    assert "decoding on the JVM path: the decoder jar is on the session's classpath" in done.stdout
    app_id = executor_ran(cluster, before, decoder_jar)
    finished = cluster.completed_app(app_id)
    assert finished is not None and finished["name"] == "sqlregistry-submitted-job"
    rows = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [row["value"].asDict() for row in rows] == expected


def test_the_decode_command_runs_a_json_schema_decode_in_the_clusters_python_workers(
        spark, cluster, live_server, unique_subject, tmp_path):
    subject = unique_subject()
    serialize = JsonSerializer(RegistryClient(live_server), READING_V1, subject=subject)
    rows = [(f"k{n}".encode(), serialize(reading(n)), "readings", 0, n) for n in range(RECORDS)]
    spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long") \
        .coalesce(1).write.parquet(str(tmp_path / "dump.parquet"))
    before = cluster.app_dirs()
    done = run([sys.executable, "-m", "app.cli", "pipeline", "decode", "--registry", live_server,
                "--subject", subject, "--input", str(tmp_path / "dump.parquet"), "--output", str(tmp_path / "out"),
                "--master", cluster.url], tmp_path)

    assert "decoding on the Python path: the JVM decoder reads Avro only; JSON Schema" in done.stderr
    new = cluster.app_dirs() - before
    assert len(new) == 1
    (executor,) = next(iter(new)).iterdir()
    assert "Finished task" in (executor / "stderr").read_text(errors="replace")
    local = decode(spark.read.parquet(str(tmp_path / "dump.parquet")), "value", RegistryClient(live_server),
                   subject=subject)  # the same decode in this process's session
    got = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [row.asDict(recursive=True) for row in got] == \
        [row.asDict(recursive=True) for row in local.orderBy("offset").collect()]
    assert [row["value"]["name"] for row in got] == [f"r-{n}" for n in range(RECORDS)]
