"""The pipeline's commands for people who do not write Spark code: a topic dump in, Parquet or a table out.

    python -m app.pipeline decode --registry URL --input DUMP --subject S (--output DIR | --table NAME)
        [--warehouse DIR] [--partition-by COL]
        [--reader latest|N|latest-seen] [--column value] [--on-error fail|route] [--master local[*]]
        [--framing confluent|single-object] [--engine auto|jvm|python] [--message NAME]
        [--rule-config KEY=VALUE ...] [--debug]
    python -m app.pipeline encode --registry URL (--input PARQUET | --table NAME) --subject S --output DIR
        [--schema FILE] [--schema-type AVRO|JSON|PROTOBUF] [--message NAME]
        [--writer auto-register|lookup|latest|N] [--key COL] [--columns A,B] [--rule-config KEY=VALUE ...]
        [--warehouse DIR] [--engine auto|jvm|python] [--master local[*]] [--debug]
    python -m app.pipeline sample --registry URL --output FILE [--subject S] [--records N]

`sample` writes a small topic dump to try `decode` on. Each decode run appends one Parquet part set under DIR; when the subject evolved between runs, the
new columns appear in the new files only, and readers see all runs with Parquet schema merge
(`spark.read.option("mergeSchema", "true").parquet(DIR)`), so earlier output stays readable.
`--master spark://...` runs the same job on a cluster; the executors only need this package.

`--table NAME` writes into a catalog table instead (`app.pipeline.tables`): created from the
reader schema on the first run, given the columns a later compatible version adds, refused
(exit 1, one line naming the column, nothing written) for a version it cannot take. The session
the command starts has Hive support on; `--warehouse DIR` puts Spark's warehouse and an embedded
Derby metastore in DIR, and without it Spark's configuration (hive-site.xml, spark-defaults.conf)
names the metastore, a fleet's external one. `encode` is decode's reverse: a Parquet file or a
table in, Parquet with `key` and the framed `value` out, the writer chosen as the client's
strategies choose it.

The subject (and the reader version asked for) is looked up before Spark starts, so a mistyped
`--subject` fails in seconds, naming it. With a local master the Spark it starts listens on
127.0.0.1 only (driver and UI), as `sqlregistry serve` does, unless SPARK_LOCAL_IP,
spark.driver.host or spark.driver.bindAddress says otherwise; a remote master's executors must
reach the driver, so Spark binds as it would.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from app.client import RegisteredSchema, RegistryClient, Schema
    from app.client.framing import Framing


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
    target = decode.add_mutually_exclusive_group(required=True)
    target.add_argument("--output", help="Parquet folder; each run appends")
    target.add_argument("--table", help="catalog table ([database.]name) created, evolved and appended to")
    decode.add_argument("--partition-by", help="with --table: the column the new table is partitioned by")
    _warehouse_argument(decode)
    decode.add_argument("--reader", type=_reader, default="latest", help="latest, a version number or latest-seen")
    decode.add_argument("--column", default="value", help="the framed binary column (default: value)")
    decode.add_argument("--on-error", choices=("fail", "route"), default="fail")
    decode.add_argument("--framing", choices=("confluent", "single-object"), default="confluent",
                        help="Confluent wire format (default) or Avro single-object encoding")
    decode.add_argument("--engine", choices=("auto", "jvm", "python"), default="auto",
                        help="decoder: the JVM one when it can be built and loaded (auto, the default), or force one")
    decode.add_argument("--message", help="Protobuf: the message (full name) records are read as "
                                          "(default: the reader file's first)")
    rule_config_argument(decode)
    decode.add_argument("--master", default="local[*]")
    decode.add_argument("--debug", action="store_true", help="on failure, print Spark's whole trace")
    encode = commands.add_parser("encode", help="encode a DataFrame's rows to framed records in Parquet")
    encode.add_argument("--registry", default=os.environ.get("REGISTRY_URL", "http://127.0.0.1:8081"),
                        help="registry URL(s), comma-separated (default: $REGISTRY_URL)")
    source = encode.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", help="Parquet file or folder of rows")
    source.add_argument("--table", help="catalog table of rows")
    encode.add_argument("--subject", required=True)
    encode.add_argument("--output", required=True, help="Parquet folder of key and value columns; each run appends")
    encode.add_argument("--schema", help="file of the schema to write with: .avsc (Avro), .json (JSON Schema) or "
                                         ".proto (Protobuf) (default: derived from the columns' types)")
    encode.add_argument("--schema-type", choices=SCHEMA_TYPES, type=str.upper,
                        help="the format of --schema, or of the schema derived from the columns (default: from "
                             "the --schema file's extension, else AVRO)")
    encode.add_argument("--message", help="Protobuf: the message (full name) rows are written as (default: the "
                                          "file's first)")
    encode.add_argument("--writer", type=_reader, default="auto-register",
                        help="auto-register (the schema, the default), lookup (the schema must be registered), "
                             "latest or a version number of the subject")
    encode.add_argument("--key", help="the column carried as the records' key (default: key, when there is one)")
    encode.add_argument("--columns", help="comma-separated columns making the record (default: all but the key)")
    encode.add_argument("--record-name", default="Record", help="the derived schema's record name")
    encode.add_argument("--namespace", help="the derived schema's namespace")
    encode.add_argument("--engine", choices=("auto", "jvm", "python"), default="auto",
                        help="encoder: the JVM one when it can be built and loaded (auto, the default), or force one")
    rule_config_argument(encode)
    _warehouse_argument(encode)
    encode.add_argument("--master", default="local[*]")
    encode.add_argument("--debug", action="store_true", help="on failure, print Spark's whole trace")
    sample = commands.add_parser("sample", help="write a small Parquet topic dump of framed Avro records to try")
    sample.add_argument("--registry", default=os.environ.get("REGISTRY_URL", "http://127.0.0.1:8081"),
                        help="registry URL (default: $REGISTRY_URL); the sample schema is registered there")
    sample.add_argument("--subject", default="payments-sample-value")
    sample.add_argument("--output", required=True, help="the Parquet file to write")
    sample.add_argument("--records", type=int, default=1000)
    sample.add_argument("--debug", action="store_true", help="on failure, print the whole trace")
    args = parser.parse_args(argv)
    if args.command == "decode" and args.partition_by and not args.table:
        parser.error("--partition-by needs --table")
    if args.command == "encode" and args.schema and args.writer not in WRITERS_OF_THE_SCHEMA:
        parser.error(f"--schema is written with --writer {' or '.join(WRITERS_OF_THE_SCHEMA)}, not {args.writer}")
    if args.command == "encode" and not isinstance(args.writer, int) and args.writer not in WRITERS:
        parser.error(f"--writer must be {', '.join(WRITERS)} or a version number, not {args.writer!r}")
    if args.command == "encode" and args.schema and not args.schema_type:
        args.schema_type = SCHEMA_EXTENSIONS.get(Path(args.schema).suffix.lower())
        if args.schema_type is None:
            parser.error(f"--schema {args.schema}: give --schema-type, or name the file .avsc, .json or .proto")
    return args


WRITERS_OF_THE_SCHEMA = ("auto-register", "lookup")
WRITERS = (*WRITERS_OF_THE_SCHEMA, "latest")
SCHEMA_TYPES = ("AVRO", "JSON", "PROTOBUF")
SCHEMA_EXTENSIONS = {".avsc": "AVRO", ".json": "JSON", ".proto": "PROTOBUF"}


class _RuleConfigItem(argparse.Action):
    """One `--rule-config KEY=VALUE` into `args.rule_config`. A malformed item is refused
    without echoing it: it may be a secret."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        key, sep, value = str(values).partition("=")
        if not sep or not key.strip():
            raise argparse.ArgumentError(self, "expected KEY=VALUE (the item given has no key or no '=')")
        items = dict(getattr(namespace, self.dest) or {})
        items[key.strip()] = value
        setattr(namespace, self.dest, items)


def rule_config_argument(command: argparse.ArgumentParser) -> None:
    """`--rule-config KEY=VALUE` (repeatable) on a command: the data-contract rules'
    configuration as the client's serdes take it (`secret` for the local KMS, `access.key.id`,
    `secret.access.key`, `profile` for AWS), parsed into `args.rule_config: dict[str, str]`.
    The environment the client reads (LOCAL_SECRET, AWS_*) applies as well."""
    command.add_argument("--rule-config", action=_RuleConfigItem, default={}, metavar="KEY=VALUE",
                         help="rule configuration for data-contract rules, e.g. secret=... for the local KMS "
                              "(repeatable; LOCAL_SECRET and AWS_* from the environment apply too)")


def _warehouse_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument("--warehouse", help="folder of Spark's warehouse and an embedded Derby metastore "
                                             "(default: the metastore Spark's configuration names)")


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


@dataclass(frozen=True)
class JobSession:
    """The session a command runs in; `owned` when the command started it (and stops it)."""

    spark: SparkSession
    owned: bool


def start_session(args: argparse.Namespace, started: float, *, hive: bool, jvm: bool = True) -> JobSession:
    """A session already running in this process (a notebook, a test) is used and left running,
    its catalog as it is; else one is started, with Hive support when `hive` (a table is read or
    written) and the warehouse and Derby metastore in `--warehouse` when given."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is not None:
        if args.warehouse:
            raise ValueError(f"a Spark session already runs in this process (warehouse "
                             f"{spark.conf.get('spark.sql.warehouse.dir')}): --warehouse applies to a session the "
                             "command starts")
        return JobSession(spark, False)
    _stage(f"starting Spark ({args.master})", started)
    builder = SparkSession.builder.master(args.master).appName(f"sqlregistry-pipeline-{args.command}") \
        .config("spark.sql.session.timeZone", "UTC")
    os.environ.update(loopback_environment(args.master, os.environ))  # read by the JVM it launches
    jar = _decoder_jar(args.engine) if jvm else None  # the JVM path reads and writes Avro only
    if jar is not None:
        # As spark-submit --jars: the driver and every executor, local or on a cluster, get it.
        builder = builder.config("spark.jars", jar)
    if args.warehouse:
        for key, value in warehouse_settings(args.warehouse).items():
            builder = builder.config(key, value)
    if hive or args.warehouse:
        builder = builder.enableHiveSupport()
    return JobSession(builder.getOrCreate(), True)


def warehouse_settings(warehouse: str) -> dict[str, str]:
    """Spark's settings for a warehouse folder holding its own embedded Derby metastore (and
    Derby's log), so that every process started on the folder sees the same tables. Embedded
    Derby admits one process at a time: a second one started while the first runs cannot open
    the metastore and fails; jobs that run side by side need an external metastore."""
    folder = os.path.abspath(warehouse)
    os.makedirs(folder, exist_ok=True)
    return {
        "spark.sql.warehouse.dir": folder,
        "spark.hadoop.javax.jdo.option.ConnectionURL":
            f"jdbc:derby:;databaseName={os.path.join(folder, 'metastore_db')};create=true",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={folder}",
    }


def stop_session(session: JobSession) -> None:
    if session.owned:
        from app.pipeline.jvm_plans import remove_plans

        application = session.spark.sparkContext.applicationId
        session.spark.stop()
        remove_plans(application)  # the JVM path's plan files go with the application


def run_decode(args: argparse.Namespace) -> int:
    started = time.monotonic()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from app.client import CONFLUENT, SINGLE_OBJECT, RegistryClient

    _require_extra()
    registry = RegistryClient(args.registry)
    _stage(f"looking up {args.subject} in {args.registry}", started)
    schema_type = check_subject(registry, args.subject, args.reader)

    from app.pipeline.formats import jvm_refusal

    from app.pipeline.decode import decode
    from app.pipeline.engine import LOG

    session = start_session(args, started, hive=bool(args.table), jvm=not jvm_refusal(schema_type))
    spark = session.spark
    # The engine choice and the rules path are decided inside `decode` (they depend on the
    # reader and the subject's rules) and logged there: each of its lines goes to stderr.
    told, level = _TellChoices(), LOG.level
    LOG.addHandler(told)
    LOG.setLevel(logging.INFO)
    try:
        _stage(f"reading {args.input}", started)
        source = spark.read.parquet(args.input)
        _stage(f"resolving reader {args.reader!r} of {args.subject}", started)
        framing = SINGLE_OBJECT if args.framing == "single-object" else CONFLUENT
        # The table is made from the reader's docs too: its version is pinned so that both agree.
        reader = table_reader(source, args.column, registry, args.subject, args.reader, framing) \
            if args.table else None
        decoded = decode(source, args.column, registry, subject=args.subject,
                         reader=args.reader if reader is None else reader.version,
                         on_error=args.on_error, framing=framing, engine=args.engine,
                         message=args.message, rule_config=args.rule_config)
        if reader is None:
            _stage(f"decoding to {args.output}", started)
            decoded.write.mode("append").parquet(args.output)
        else:
            from app.pipeline.tables import write_table

            _stage(f"decoding into table {args.table}", started)
            written = write_table(decoded, reader.schema, args.table, args.partition_by, column=args.column,
                                  message=args.message)
            change = "created" if written.created else \
                f"added columns {', '.join(written.added)}" if written.added else "columns unchanged"
            print(f"appended to table {args.table} ({change}; reader version {reader.version})")
        _stage("done", started)
    finally:
        LOG.removeHandler(told)
        LOG.setLevel(level)
        stop_session(session)
    return 0


class _TellChoices(logging.Handler):
    """Prints the pipeline's INFO lines (which path decodes and why) on stderr, as the job's own."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)

    def emit(self, record: logging.LogRecord) -> None:
        print(f"sqlregistry pipeline: {record.getMessage()}", file=sys.stderr, flush=True)


def table_reader(source: DataFrame, column: str, registry: RegistryClient, subject: str, reader: str | int,
                 framing: Framing) -> RegisteredSchema:
    """The subject version the table mode decodes to: `latest` or a number as asked, and for
    `latest-seen` the newest version of the subject that wrote any record of `column`."""
    if reader != "latest-seen":
        return registry.get_version(subject, reader)
    from app.pipeline.decode import writer_ids

    seen = [found.version for schema_id in writer_ids(source, column, framing, registry)
            for found in registry.get_versions_for_id(schema_id) if found.subject == subject]
    if not seen:
        raise ValueError(f"no record of column {column!r} was written with a version of subject {subject!r}")
    return registry.get_version(subject, max(seen))


def run_encode(args: argparse.Namespace) -> int:
    started = time.monotonic()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from app.client import RegistryClient, Schema

    _require_extra()
    registry = RegistryClient(args.registry)
    schema_type = args.schema_type or "AVRO"
    schema = Schema(Path(args.schema).read_text(encoding="utf-8"), schema_type) if args.schema else None
    if args.writer == "latest" or isinstance(args.writer, int):
        _stage(f"looking up {args.subject} in {args.registry}", started)
        schema_type = check_subject(registry, args.subject, args.writer)

    from app.pipeline.encode import encode, jvm_encode_refusal
    from app.pipeline.engine import choose_engine

    # The JVM encoder writes Avro only: a session for another format does without its jar.
    session = start_session(args, started, hive=bool(args.table), jvm=schema_type == "AVRO")
    spark = session.spark
    try:
        _stage(f"reading {args.input or args.table}", started)
        source = spark.table(args.table) if args.table else spark.read.parquet(args.input)
        key = args.key or ("key" if "key" in source.columns else None)
        columns = args.columns.split(",") if args.columns else [name for name in source.columns if name != key]
        version = writer_version(source, columns, registry, args, schema, schema_type)
        writer = registry.get_version(args.subject, version).schema
        choice = choose_engine(spark, args.engine, work="encoding", python_only=jvm_encode_refusal(writer))
        print(f"sqlregistry pipeline: {choice}", file=sys.stderr, flush=True)
        framed = encode(source, registry, subject=args.subject, columns=columns, keep=[key] if key else [],
                        version=version, message=args.message, engine=choice.engine, rule_config=args.rule_config)
        if key and key != "key":
            framed = framed.withColumnRenamed(key, "key")
        _stage(f"encoding to {args.output}", started)
        framed.write.mode("append").parquet(args.output)
        _stage("done", started)
    finally:
        stop_session(session)
    return 0


def writer_version(source: DataFrame, columns: list[str], registry: RegistryClient, args: argparse.Namespace,
                   schema: Schema | None, schema_type: str) -> int:
    """The registered version `--writer` names: auto-register registers the schema (or the one
    derived from the columns) and `lookup` finds it among the subject's versions, as the
    client's AutoRegister and LookupOnly do."""
    if isinstance(args.writer, int):
        return args.writer
    if args.writer == "latest":
        version = registry.get_version(args.subject, "latest").version
        assert version is not None  # a subject's version always has its number
        return version
    from pyspark.sql import types as T

    from app.pipeline.encode import register_writer
    from app.pipeline.formats import encoder_of

    record = T.StructType([source.schema[name] for name in columns])
    if args.writer == "auto-register":
        return register_writer(registry, args.subject, record, schema, schema_type, args.record_name, args.namespace,
                               args.message)
    if schema is None:
        schema = encoder_of(schema_type).derive(record, args.record_name, args.namespace)
    found = registry.lookup(args.subject, schema).version
    if found is None:
        raise ValueError(f"the registry named no version of {args.subject} for the schema")
    return found


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
        return {"sample": run_sample, "encode": run_encode}.get(args.command, run_decode)(args)
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
