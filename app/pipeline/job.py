"""The decode job for people who do not write Spark code: a topic dump in, Parquet out.

    python -m app.pipeline decode --registry URL --input DUMP --subject S --output DIR
        [--reader latest|N|latest-seen] [--column value] [--on-error fail|route] [--master local[*]]
        [--framing confluent|single-object] [--engine auto|jvm|python] [--message NAME] [--debug]
    python -m app.pipeline sample --registry URL --output FILE [--subject S] [--records N]

`sample` writes a small topic dump to try `decode` on. Each decode run appends one Parquet part set under DIR; when the subject evolved between runs, the
new columns appear in the new files only, and readers see all runs with Parquet schema merge
(`spark.read.option("mergeSchema", "true").parquet(DIR)`), so earlier output stays readable.
`--master spark://...` runs the same job on a cluster; the executors only need this package.

The subject (and the reader version asked for) is looked up before Spark starts, so a mistyped
`--subject` fails in seconds, naming it. With a local master the Spark it starts listens on
127.0.0.1 only (driver and UI), as `sqlregistry serve` does, unless SPARK_LOCAL_IP,
spark.driver.host or spark.driver.bindAddress says otherwise; a remote master's executors must
reach the driver, so Spark binds as it would.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.client import RegistryClient


def _reader(text: str) -> str | int:
    return int(text) if text.isdigit() else text


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m app.pipeline", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    decode = commands.add_parser("decode", help="decode a topic dump's framed records to Parquet")
    decode.add_argument("--registry", default=os.environ.get("REGISTRY_URL", "http://127.0.0.1:8081"),
                        help="registry URL(s), comma-separated (default: $REGISTRY_URL)")
    decode.add_argument("--input", required=True, help="Parquet topic dump (file or folder)")
    decode.add_argument("--subject", required=True)
    decode.add_argument("--output", required=True, help="Parquet folder; each run appends")
    decode.add_argument("--reader", type=_reader, default="latest", help="latest, a version number or latest-seen")
    decode.add_argument("--column", default="value", help="the framed binary column (default: value)")
    decode.add_argument("--on-error", choices=("fail", "route"), default="fail")
    decode.add_argument("--framing", choices=("confluent", "single-object"), default="confluent",
                        help="Confluent wire format (default) or Avro single-object encoding")
    decode.add_argument("--engine", choices=("auto", "jvm", "python"), default="auto",
                        help="decoder: the JVM one when it can be built and loaded (auto, the default), or force one")
    decode.add_argument("--message", help="Protobuf: the message (full name) records are read as "
                                          "(default: the reader file's first)")
    decode.add_argument("--master", default="local[*]")
    decode.add_argument("--debug", action="store_true", help="on failure, print Spark's whole trace")
    sample = commands.add_parser("sample", help="write a small Parquet topic dump of framed Avro records to try")
    sample.add_argument("--registry", default=os.environ.get("REGISTRY_URL", "http://127.0.0.1:8081"),
                        help="registry URL (default: $REGISTRY_URL); the sample schema is registered there")
    sample.add_argument("--subject", default="payments-sample-value")
    sample.add_argument("--output", required=True, help="the Parquet file to write")
    sample.add_argument("--records", type=int, default=1000)
    sample.add_argument("--debug", action="store_true", help="on failure, print the whole trace")
    return parser.parse_args(argv)


def _stage(message: str, started: float) -> None:
    if sys.stderr.isatty() or os.environ.get("REGISTRY_PIPELINE_PROGRESS"):
        print(f"[{time.monotonic() - started:7.1f}s] {message}", file=sys.stderr, flush=True)


LOOPBACK = "127.0.0.1"


def loopback_environment(master: str, environ: Mapping[str, str]) -> dict[str, str]:
    """What the job adds to its environment before Spark starts: for a local master,
    SPARK_LOCAL_IP=127.0.0.1 unless it is set. It is Spark's default for the driver's address,
    its bind address and its UI's, so all listen on loopback only, and a spark.driver.host or
    spark.driver.bindAddress the user configured still wins. A remote master's executors must
    reach the driver: nothing is added."""
    if not master.startswith("local") or environ.get("SPARK_LOCAL_IP"):
        return {}
    return {"SPARK_LOCAL_IP": LOOPBACK}


def _require_extra() -> None:
    """The extra's packages are looked for (found, not imported: importing Spark takes a second)
    before the registry is asked, so that a machine without them hears what to install first."""
    for name in ("pyspark", "pyarrow", "pandas", "jsonschema_rs"):
        if importlib.util.find_spec(name) is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def check_subject(registry: RegistryClient, subject: str, reader: str | int) -> str:
    """The reader's schema type (AVRO, JSON, PROTOBUF: which format decodes); raises the
    registry's 40401 (or 40402 for a reader version it lacks) before Spark starts."""
    return registry.get_version(subject, reader if isinstance(reader, int) else "latest").schema.schema_type


def run_decode(args: argparse.Namespace) -> int:
    started = time.monotonic()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from app.client import CONFLUENT, SINGLE_OBJECT, RegistryClient

    _require_extra()
    registry = RegistryClient(args.registry)
    _stage(f"looking up {args.subject} in {args.registry}", started)
    schema_type = check_subject(registry, args.subject, args.reader)

    from pyspark.sql import SparkSession

    from app.pipeline.formats import jvm_refusal

    from app.pipeline.decode import decode
    from app.pipeline.engine import choose_engine
    from app.pipeline.jvm_plans import remove_plans

    # A session already running in this process (a notebook, a test) is used and left running.
    spark = SparkSession.getActiveSession()
    owned = spark is None
    if spark is None:
        _stage(f"starting Spark ({args.master})", started)
        builder = SparkSession.builder.master(args.master).appName("sqlregistry-pipeline-decode") \
            .config("spark.sql.session.timeZone", "UTC")
        os.environ.update(loopback_environment(args.master, os.environ))  # read by the JVM it launches
        jar = None if jvm_refusal(schema_type) else _decoder_jar(args.engine)
        if jar is not None:
            # As spark-submit --jars: the driver and every executor, local or on a cluster, get it.
            builder = builder.config("spark.jars", jar)
        spark = builder.getOrCreate()
    try:
        choice = choose_engine(spark, args.engine, python_only=jvm_refusal(schema_type))
        print(f"sqlregistry pipeline: {choice}", file=sys.stderr, flush=True)
        _stage(f"reading {args.input}", started)
        source = spark.read.parquet(args.input)
        _stage(f"resolving reader {args.reader!r} of {args.subject}", started)
        framing = SINGLE_OBJECT if args.framing == "single-object" else CONFLUENT
        decoded = decode(source, args.column, registry, subject=args.subject, reader=args.reader,
                         on_error=args.on_error, framing=framing, engine=choice.engine, message=args.message)
        _stage(f"decoding to {args.output}", started)
        decoded.write.mode("append").parquet(args.output)
        _stage("done", started)
    finally:
        if owned:
            application = spark.sparkContext.applicationId
            spark.stop()
            remove_plans(application)  # the JVM path's plan files go with the application
    return 0


def _decoder_jar(engine: str) -> str | None:
    """The JVM decoder's jar for a session this job starts; None when it cannot be built (the
    engine choice then says why) or the Python path is asked for."""
    if engine == "python":
        return None
    from app.pipeline.jvm import JvmUnavailable, jar_path

    try:
        return str(jar_path())
    except JvmUnavailable:
        return None


def run_sample(args: argparse.Namespace) -> int:
    from app.pipeline.sample import write_sample

    schema_id = write_sample(args.registry, args.subject, args.output, args.records)
    print(f"wrote {args.records} records of {args.subject} (schema id {schema_id}) to {args.output}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """A failure is one line on stderr naming its cause (Spark's trace with `--debug`): a bad
    record's own message sits under hundreds of lines of Java frames otherwise."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run_sample(args) if args.command == "sample" else run_decode(args)
    except ModuleNotFoundError as exc:
        from app.pipeline import EXTRA_NEEDED, _MISSING

        if args.debug or (exc.name or "").split(".")[0] not in _MISSING:
            raise
        return _fail(f"{EXTRA_NEEDED} (missing: {exc.name})")
    except Exception as exc:
        if args.debug:
            raise
        return _fail(f"{failure_cause(exc)} (--debug shows the whole trace)")


def failure_cause(exc: BaseException) -> str:
    """The line that says what went wrong: a bad record as the JVM path raises it, a Python
    worker's exception as Spark relays it (the last `Name: message` line of the worker's
    traceback, which is the decoder's own message), else the exception's first line."""
    text = str(exc)
    # The JVM path fails a bad record with Spark's raise_error: its message is the record's.
    raised = _RAISED.search(text)
    if raised:
        return f"BadRecord: {raised.group(1).strip()}"
    worker_lines = [line.strip() for line in text.splitlines() if _PYTHON_ERROR.match(line.strip())]
    if worker_lines:
        return worker_lines[-1]
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


_RAISED = re.compile(r"\[USER_RAISED_EXCEPTION\] (cannot decode .*?)(?: SQLSTATE: \w+)?$", re.MULTILINE)
# "app.pipeline.decode.BadRecord: cannot decode ...", "ValueError: ...", as a Python traceback ends
_PYTHON_ERROR = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Record|Exit): \S")


def _fail(message: str) -> int:
    print(f"sqlregistry pipeline: error: {message}", file=sys.stderr)
    return 1
