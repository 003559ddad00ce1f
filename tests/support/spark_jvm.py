"""How every Spark JVM the tests start is launched: the JIT's first tier, no UI, and a
class-data-sharing (CDS) archive of the classes a Spark driver loads.

A test's JVM lives seconds to minutes over little data, so start-up is most of its cost, and the
suite starts many: the run's session, each `sqlregistry pipeline` command a test runs as a
process, the standalone cluster's daemons, executors and drivers. Measured on one
`sqlregistry pipeline decode` of 1,000 records on local[2]:

- the optimizing JIT's threads were most of a JVM's CPU (a small local[2] job: 29 CPU-s with
  them, 16 without): `-XX:TieredStopAtLevel=1`;
- a Spark driver loads about 17,600 classes; read from a CDS archive instead of the jars they
  cost about half as much (15 CPU-s and 14 s for the command without the archive, 8.5 CPU-s
  and 7 s with it).

The archive is made once per installed Java and PySpark install (`build`: one small Spark job lists the
classes it loads, then `java -Xshare:dump` writes them), under `~/.cache/sqlregistry/spark-cds`,
and `scripts/test` makes it before the run. Java maps it only when the class path is the one it
was made with, and refuses any class path holding a non-empty directory, which is where Spark
puts `SPARK_CONF_DIR`: so the tests' settings do not come from a `spark-defaults.conf` but from
the environment (`SPARK_SUBMIT_OPTS` for drivers, `SPARK_DAEMON_JAVA_OPTS` for the standalone
daemons, `PYSPARK_SUBMIT_ARGS` for what a PySpark session passes to its executors), and
`SPARK_CONF_DIR` names an empty folder. Without the archive (no Java, or `build` not run) the
same settings apply, without `-XX:SharedArchiveFile`: nothing else changes.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# The JIT's first tier only, in every Spark JVM of a test.
FIRST_TIER = "-XX:TieredStopAtLevel=1"
# What every application a test starts sets: no web UI (nobody looks, and its server costs
# start-up time).
APPLICATION_CONF = {"spark.ui.enabled": "false"}


@dataclass(frozen=True)
class SparkJvm:
    """Where a run's Spark JVMs find their (empty) configuration folder and, if made, the archive."""

    conf_dir: Path
    archive: Path | None

    @property
    def java_options(self) -> str:
        if self.archive is None:
            return FIRST_TIER
        # -Xshare:auto: a JVM whose class path differs (an executor of another layout) runs
        # without the archive instead of failing; -Xlog:cds=off keeps that silent.
        return f"{FIRST_TIER} -XX:SharedArchiveFile={self.archive} -Xshare:auto -Xlog:cds=off"

    def submit_conf(self) -> dict[str, str]:
        """`--conf`s for a spark-submit a test runs itself (PySpark sessions get them from the
        environment)."""
        return {**APPLICATION_CONF, "spark.executor.extraJavaOptions": self.java_options}

    def environment(self) -> dict[str, str]:
        """What the tests' processes inherit, so that every Spark JVM they start uses the above."""
        # PySpark splits PYSPARK_SUBMIT_ARGS as a shell would.
        conf = " ".join(f"--conf {shlex.quote(f'{key}={value}')}" for key, value in self.submit_conf().items())
        return {"SPARK_CONF_DIR": str(self.conf_dir), "SPARK_SUBMIT_OPTS": self.java_options,
                "SPARK_DAEMON_JAVA_OPTS": self.java_options, "PYSPARK_SUBMIT_ARGS": f"{conf} pyspark-shell"}


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sqlregistry" / "spark-cds"


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def _pyspark_jars() -> Path | None:
    """PySpark's jars, found without importing it (the run's first process need not)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "jars"


def _folder() -> Path | None:
    """This Java's and this PySpark's folder in the cache (None without either)."""
    java, jars = _java(), _pyspark_jars()
    if java is None or jars is None:
        return None
    # The archive holds the class path it was made with (each jar's path): another
    # environment's PySpark, even the same version, needs its own.
    key = hashlib.sha256()
    key.update(str(jars.resolve()).encode())
    key.update(os.path.realpath(java).encode())
    key.update(str(os.stat(os.path.realpath(java)).st_mtime_ns).encode())
    for jar in sorted(jars.glob("*.jar")):
        key.update(f"{jar.name}:{jar.stat().st_size}".encode())
    return _cache_root() / key.hexdigest()[:16]


def current() -> SparkJvm:
    """The settings for this run: the archive if `build` made it for this Java and PySpark."""
    folder = _folder()
    if folder is None:
        conf_dir = Path(tempfile.gettempdir()) / "sqlregistry-spark-conf"
        conf_dir.mkdir(exist_ok=True)
        return SparkJvm(conf_dir, None)
    conf_dir = folder / "conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    archive = folder / "spark.jsa"
    return SparkJvm(conf_dir, archive if archive.exists() else None)


# The job whose loaded classes go into the archive: a session with Hive support (the table
# tests' and `--table`'s metastore), Parquet both ways, SQL, a shuffle, a table, an Arrow UDF,
# and Avro's Java library (the pipeline's decoder uses it).
_LISTING_JOB = """
import sys
from pyspark.sql import SparkSession, functions as F
out = sys.argv[1]
spark = SparkSession.builder.master("local[1]").config("spark.driver.host", "127.0.0.1") \\
    .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.warehouse.dir", out + "/w") \\
    .config("spark.hadoop.javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={out}/m;create=true") \\
    .enableHiveSupport().getOrCreate()
df = spark.range(200).withColumn("s", F.concat(F.lit("v"), F.col("id").cast("string")))
df.write.parquet(out + "/p")
df.write.saveAsTable("listing")
spark.sql("ALTER TABLE listing ADD COLUMNS (extra STRING COMMENT 'c')")
spark.table("listing").count()
back = spark.read.parquet(out + "/p")
back.groupBy((F.col("id") % 3).alias("k")).agg(F.count("*"), F.max("s")).collect()
back.withColumn("b", F.col("s").cast("binary")).withColumn("t", F.struct("id", "s")).selectExpr(
    "t.id", "length(b)", "named_struct('a', s)").collect()
@F.arrow_udf("string")
def upper(values):
    import pyarrow.compute as pc
    return pc.utf8_upper(values)
back.select(upper("s")).collect()
spark._jvm.org.apache.avro.Schema.Parser().parse('{"type": "record", "name": "R", "fields": []}')
spark.stop()
"""


def build() -> Path | None:
    """Make this Java's and PySpark's archive if it is missing; its path (None without Java or
    PySpark). Takes about half a minute once."""
    folder = _folder()
    if folder is None:
        return None
    archive = folder / "spark.jsa"
    if archive.exists():
        return archive
    jvm = current()
    with tempfile.TemporaryDirectory(prefix="sqlregistry-cds-") as scratch:
        classes = Path(scratch) / "classes.lst"
        env = {**os.environ, **SparkJvm(jvm.conf_dir, None).environment(), "SPARK_LOCAL_IP": "127.0.0.1",
               "PYSPARK_PYTHON": sys.executable}
        env["SPARK_SUBMIT_OPTS"] = f"{FIRST_TIER} -XX:DumpLoadedClassList={classes}"
        listing = subprocess.run([sys.executable, "-c", _LISTING_JOB, scratch], env=env, cwd=scratch,
                                 capture_output=True, timeout=300)
        if listing.returncode != 0 or not classes.exists():
            raise RuntimeError(f"the class-listing Spark job failed:\n{listing.stderr.decode(errors='replace')[-3000:]}")
        partial = folder / f"spark.jsa.{os.getpid()}"
        dump = subprocess.run([_java() or "java", "-Xshare:dump", f"-XX:SharedClassListFile={classes}",
                               f"-XX:SharedArchiveFile={partial}", "-cp", _class_path(jvm.conf_dir),
                               "--add-modules=jdk.incubator.vector", "-Xlog:cds=error"],
                              capture_output=True, timeout=300)
        if dump.returncode != 0 or not partial.exists():
            partial.unlink(missing_ok=True)
            raise RuntimeError(f"java -Xshare:dump failed:\n{dump.stdout.decode(errors='replace')[-3000:]}")
        os.replace(partial, archive)  # whole or not at all: a JVM never maps a half-written archive
    return archive


def _class_path(conf_dir: Path) -> str:
    """The class path Spark's launcher gives a driver (`bin/spark-class`): the configuration
    folder, SLF4J's API first, then every jar of PySpark's."""
    jars = _pyspark_jars()
    assert jars is not None
    slf4j = sorted(jars.glob("slf4j-api-*.jar"))
    return ":".join([f"{conf_dir}/", *(str(jar) for jar in slf4j), f"{jars}/*"])


if __name__ == "__main__":
    try:
        made = build()
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
        print(f"no class-data-sharing archive for the tests' Spark JVMs: {exc}", file=sys.stderr)
        sys.exit(1)
    print(made or "no Java or PySpark: no class-data-sharing archive")
