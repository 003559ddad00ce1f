"""`decode`: a binary column of registry-framed records (Avro, JSON Schema, Protobuf) -> a struct column.

The reader's schema type picks the format (`app.pipeline.formats`: one module per format for
its Spark types and its decoder); framing, the reader modes, planning, routing of bad records
and the engine choice below are shared. Two paths give the same values for Avro (`engine=`,
chosen by `app.pipeline.engine`): the JVM path (`app.pipeline.jvm_decode`, a Java UDF over
Apache Avro's Java library, about 3x faster per record) when its jar can be built and loaded,
and this module's Python path, the fallback and the only path of JSON Schema and Protobuf. The
Python path runs in Spark's Python workers over Arrow
batches (`mapInArrow`): each batch's binary column is read once into Python bytes, decoded by
the format's decoder with writers found through `app.client` (one decoder per worker, see
`app.pipeline.workers`) and built back into one Arrow struct array. `framing=` picks
Confluent's wire format (the default) or Avro's single-object encoding (`SINGLE_OBJECT`,
writers found by fingerprint; Avro only). Every other column passes through untouched, so the Kafka
source's shape (`key, value, topic, partition, offset, timestamp`) and Parquet topic dumps work
alike, batch or streaming.

Reader modes (seed 004: a sink sees versions interleaved during a rolling upgrade and must
project them onto one schema):

- `"latest"`: the subject's latest version when `decode` is called (the job start).
- a version number: that version.
- `"latest-seen"`: the newest version of the subject among the writer ids present in the data
  (batch only: it scans the column's headers once), so output never has columns the data
  never had and grows monotonically from run to run.
- `"writer"`: no projection; `decode_by_writer` returns one DataFrame per writer schema id.

Bad records (wrong magic byte, unknown id, truncated or corrupt payload): `on_error="fail"`
stops the job with the reason and the record's topic/partition/offset when the input has
them; `on_error="route"` puts the reason in an `<output>_error` column and a null struct, so
every input row still comes out exactly once. A null value (a Kafka tombstone) decodes to null.
A registry that cannot be reached fails the job in both modes: that is no record's fault.

Data-contract rules (`rule_config=`: the client's rule configuration, e.g. a local KMS
`secret`): the driver decides once, before Spark work starts, whether records must pass through
rules (`app.pipeline.rule_plan`) and logs it beside the engine choice. Without rules the decode
is exactly the one above. With field-level ENCRYPT rules only, it is that decode followed by
the encrypted columns decrypted: on the JVM when the decode runs there and the driver can plan
it (`app.pipeline.jvm_decrypt`), else in Python workers (`app.pipeline.field_decryption`); with any
other rule (CEL, JSONata migrations, ENCRYPT_PAYLOAD), every record goes through an
`app.client` deserializer in the Python workers (`app.pipeline.rule_decoder`). A rule that
refuses a record is that record's fault (routed or stopping the job, naming the rule); a KMS
or registry that cannot be reached fails the job in both modes.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.types import to_arrow_type

from app.client import CONFLUENT, ConfluentFraming, RegistryClient, Schema, SchemaNotFound, SingleObjectFraming
from app.client.errors import RegistryRequestError
from app.client.framing import Framing, id_framing_only
from app.pipeline.engine import LOG, choose_engine
from app.pipeline.field_decryption import decrypt_fields
from app.pipeline.formats import format_of, jvm_refusal
from app.pipeline.formats.format import RecordDecoder
from app.pipeline.jvm_decode import jvm_decode_with_schema
from app.pipeline.jvm_decrypt import jvm_clear, plan_jvm_decryption
from app.pipeline.rule_plan import NO_RULES, DecodeRules, RulePath, plan_rules

ON_ERROR = ("fail", "route")
POSITION_COLUMNS = ("topic", "partition", "offset")
# Distinct headers the driver resolves for the JVM path's plan (`planned_headers`); real data
# holds one per writer schema, so this many means damaged or hostile data.
MAX_PLANNED_HEADERS = 10_000


class BadRecord(RuntimeError):
    """A record that cannot be decoded, with where it came from; fails the Spark job."""


def reader_schema(registry: RegistryClient, subject: str, reader: str | int) -> Schema:
    """The reader schema for `"latest"` or a version number, read once on the driver, in the
    rendering its format reads (Protobuf: serialized descriptors)."""
    return _reader_version(registry, subject, reader)[1]


def _reader_version(registry: RegistryClient, subject: str, reader: str | int) -> tuple[int | None, Schema]:
    """`reader_schema` with the version number it is (what migrations run up or down to)."""
    if reader == "latest" or isinstance(reader, int):
        stored = registry.get_version(subject, reader)
        rendering = format_of(stored.schema.schema_type).schema_format
        if rendering is None:
            return stored.version, stored.schema
        # `latest` again by its number: the rendering must be of the version just read.
        return stored.version, registry.get_version(subject, stored.version or reader, format=rendering).schema
    raise ValueError(f"reader must be 'latest', a version number, 'latest-seen' or 'writer', not {reader!r}")


def schema_by_id(registry: RegistryClient, schema_id: int, subject: str | None = None) -> Schema:
    """The schema behind an id, in the rendering its format reads."""
    stored = registry.get_schema(schema_id, subject)
    rendering = format_of(stored.schema_type).schema_format
    return stored if rendering is None else registry.get_schema(schema_id, subject, format=rendering)


def _marker(framing: Framing) -> bytes:
    """The bytes every header of this framing starts with."""
    if isinstance(framing, ConfluentFraming):
        return bytes((framing.magic,))
    if isinstance(framing, SingleObjectFraming):
        return framing.marker
    raise ValueError(f"unknown framing {framing!r}")


def _distinct_headers(df: DataFrame, column: str, framing: Framing) -> DataFrame:
    marker = _marker(framing)
    value = F.col(column)
    framed = (F.length(value) >= framing.header_size) & \
        (F.hex(F.substring(value, 1, len(marker))) == F.lit(marker.hex().upper()))
    return df.where(framed).select(F.substring(value, 1, framing.header_size).alias("h")).distinct()


def writer_headers(df: DataFrame, column: str, framing: Framing = CONFLUENT) -> list[bytes]:
    """The distinct well-formed headers of `column` (one pass over the data)."""
    return sorted(bytes(row["h"]) for row in _distinct_headers(df, column, framing).collect())


def planned_headers(df: DataFrame, column: str, framing: Framing) -> list[bytes] | None:
    """The headers the JVM path's plan names, or None past MAX_PLANNED_HEADERS of them. Data
    that is mostly not registry-framed (or made to look framed) can hold a header per record:
    the driver would collect them all and ask the registry about each before the job starts.
    Past the cap the executors look writers up instead, once per header per JVM, as on a stream."""
    rows = _distinct_headers(df, column, framing).limit(MAX_PLANNED_HEADERS + 1).collect()
    if len(rows) > MAX_PLANNED_HEADERS:
        LOG.info("more than %d distinct headers in %s: the executors look their writers up in the registry",
                 MAX_PLANNED_HEADERS, column)
        return None
    return sorted(bytes(row["h"]) for row in rows)


def writer_schema_ids(df: DataFrame, column: str, registry: RegistryClient | None = None,
                      framing: Framing = CONFLUENT) -> dict[int, list[bytes]]:
    """Each writer schema id present in `column`, with the headers that name it (one pass over
    the data)."""
    return _ids_of_headers(writer_headers(df, column, framing), registry, framing)


def _ids_of_headers(headers: list[bytes], registry: RegistryClient | None,
                    framing: Framing) -> dict[int, list[bytes]]:
    """Each writer schema id `headers` name, with the headers that name it. Confluent headers
    carry the id; single-object headers carry a fingerprint, which the registry turns into an id
    (a fingerprint it does not know names no writer: decode with `on_error="route"` to see
    those records)."""
    found: dict[int, list[bytes]] = {}
    for header in headers:
        key = framing.writer_key(header)
        if isinstance(key, int):
            schema_id = key
        else:
            if registry is None:
                raise ValueError("single-object headers name fingerprints: give the registry to find their ids")
            try:
                schema_id = registry.get_schema_by_fingerprint(key).schema_id
            except SchemaNotFound:
                continue
        found.setdefault(schema_id, []).append(header)
    return found


def writer_ids(df: DataFrame, column: str, framing: Framing = CONFLUENT,
               registry: RegistryClient | None = None) -> list[int]:
    """The distinct writer schema ids of `column` (one pass over the data)."""
    return sorted(writer_schema_ids(df, column, registry, framing))


def latest_seen_schema(headers: list[bytes], column: str, registry: RegistryClient, subject: str,
                       framing: Framing = CONFLUENT) -> Schema:
    """The schema of the newest version of `subject` that wrote any record with one of
    `headers` (the distinct headers of `column`)."""
    return _latest_seen(headers, column, registry, subject, framing)[1]


def _latest_seen(headers: list[bytes], column: str, registry: RegistryClient, subject: str,
                 framing: Framing) -> tuple[int, Schema]:
    best: tuple[int, Schema] | None = None
    for schema_id in sorted(_ids_of_headers(headers, registry, framing)):
        for found in registry.get_versions_for_id(schema_id):
            if found.subject == subject and (best is None or found.version > best[0]):
                best = (found.version, schema_by_id(registry, schema_id, subject))
    if best is None:
        raise ValueError(f"no record of column {column!r} was written with a version of subject {subject!r}")
    return best


def decode(
    df: DataFrame,
    column: str,
    registry: RegistryClient,
    *,
    subject: str | None = None,
    reader: str | int = "latest",
    output: str | None = None,
    on_error: str = "fail",
    framing: Framing = CONFLUENT,
    engine: str = "auto",
    message: str | None = None,
    rule_config: Mapping[str, str] | None = None,
) -> DataFrame:
    """`df` with `output` (default: `column` itself, replaced) holding the decoded struct;
    `engine` picks the JVM or the Python decoder (see `app.pipeline.engine`). The subject's
    schema type picks the format (`app.pipeline.formats`); `message` names the Protobuf
    message (full name) records are read as, by default the reader file's first.
    `rule_config`: the rule configuration of the subject's data-contract rules (as the
    client's deserializers take it: a local KMS `secret`, AWS credentials)."""
    if reader == "writer":
        raise ValueError("reader='writer' gives one DataFrame per writer schema: use decode_by_writer")
    if subject is None:
        raise ValueError(f"reader={reader!r} needs the subject whose versions it names")
    headers = None
    if reader == "latest-seen":
        if df.isStreaming:
            raise ValueError("reader='latest-seen' scans the data first, which a streaming DataFrame cannot do; "
                             "use 'latest' or a version number")
        headers = writer_headers(df, column, framing)
        version, schema = _latest_seen(headers, column, registry, subject, framing)
    else:
        version, schema = _reader_version(registry, subject, reader)
    rules = plan_rules(registry, subject, schema, version, rule_config)
    return _decode(df, column, registry, schema, rules, output=output, on_error=on_error, framing=framing,
                   engine=engine, headers=headers, message=message)


def decode_by_writer(
    df: DataFrame, column: str, registry: RegistryClient, *, output: str | None = None, on_error: str = "fail",
    framing: Framing = CONFLUENT, engine: str = "auto", message: str | None = None,
    rule_config: Mapping[str, str] | None = None,
) -> dict[int, DataFrame]:
    """One DataFrame per writer schema id present in `df`, each record in its own writer's shape
    (Protobuf: as `message`, by default the writer file's first message).
    Records whose header names no known writer (bad magic, too short, unknown fingerprint) are
    in none of them: decode the whole input with `on_error="route"` to see those."""
    frames: dict[int, DataFrame] = {}
    header = F.hex(F.substring(F.col(column), 1, framing.header_size))
    for schema_id, headers in writer_schema_ids(df, column, registry, framing).items():
        part = df.where(header.isin([h.hex().upper() for h in headers]))
        writer = schema_by_id(registry, schema_id)
        rules = NO_RULES
        if writer.rule_set is not None:
            # Its rules run under the subject that holds it, as the client's deserializer runs them.
            found = registry.get_versions_for_id(schema_id)
            if found:
                rules = plan_rules(registry, found[0].subject, writer, found[0].version, rule_config)
        frames[schema_id] = _decode(part, column, registry, writer, rules, output=output, on_error=on_error,
                                    framing=framing, engine=engine, headers=headers, message=message)
    return frames


def decode_with_schema(
    df: DataFrame,
    column: str,
    registry: RegistryClient,
    reader: str | Schema,
    *,
    output: str | None = None,
    on_error: str = "fail",
    framing: Framing = CONFLUENT,
    engine: str = "auto",
    headers: list[bytes] | None = None,
    message: str | None = None,
    subject: str | None = None,
    rule_config: Mapping[str, str] | None = None,
) -> DataFrame:
    """Decode `column` projected onto `reader` (Avro schema text, or a `Schema` of any format,
    Protobuf's in its serialized rendering). `headers`: the distinct headers of `column` when
    the caller has read them already (`writer_headers`), so that the JVM path plans from them
    instead of reading the data once more. `subject`: the subject whose rules (and versions,
    for migrations to the reader's) records pass through, with `rule_config`; a reader schema
    with READ rules needs it."""
    schema = reader if isinstance(reader, Schema) else Schema(reader)
    version = None
    if subject is not None:
        try:
            version = registry.lookup(subject, schema, deleted=True).version
        except RegistryRequestError:
            version = None  # not one of the subject's versions: its rules run, no migration
    rules = plan_rules(registry, subject, schema, version, rule_config)
    return _decode(df, column, registry, schema, rules, output=output, on_error=on_error, framing=framing,
                   engine=engine, headers=headers, message=message)


def _decode(df: DataFrame, column: str, registry: RegistryClient, schema: Schema, rules: DecodeRules, *,
            output: str | None, on_error: str, framing: Framing, engine: str, headers: list[bytes] | None,
            message: str | None) -> DataFrame:
    """The engine and the rules path chosen (both logged), the decode they make."""
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    python_only = jvm_refusal(schema.schema_type)
    if python_only is not None:
        id_framing_only(framing)  # fingerprints name Avro schemas only
    if rules.path is RulePath.RECORDS:
        python_only = f"every record passes through app.client's rules ({rules.reason})"
    position = [name for name in POSITION_COLUMNS if name in df.columns]
    on_jvm = choose_engine(df.sparkSession, engine, streaming=df.isStreaming, python_only=python_only).jvm
    if on_jvm:
        if df.isStreaming or (headers is not None and len(headers) > MAX_PLANNED_HEADERS):
            headers = None  # read ahead they cannot be (a stream), or too many to plan: executors fetch writers
        elif headers is None:
            headers = planned_headers(df, column, framing)
        decoded = jvm_decode_with_schema(
            df, column, registry, schema.text, headers=headers, marker=_marker(framing),
            output=output or column, on_error=on_error, framing=framing, position=position)
    else:
        job, out_schema = batch_decoder(df.schema, column, registry, schema, output=output, on_error=on_error,
                                        framing=framing, message=message, rules=rules)
        decoded = df.mapInArrow(job, out_schema)
    if rules.path is not RulePath.FIELDS:
        return decoded
    names = ", ".join(found.full_name for found in rules.fields)
    decryption = plan_jvm_decryption(registry, schema, rules, streaming=df.isStreaming) if on_jvm else None
    if decryption is None or decryption.plan is None:
        why = f" ({decryption.reason})" if decryption is not None else ""
        LOG.info("then decrypting %s in Spark's Python workers%s: %s", names, why, rules.reason)
        return decrypt_fields(decoded, registry, schema, rules, column=column, output=output or column,
                              on_error=on_error, position=position)
    LOG.info("then decrypting %s on the JVM (%s): %s", names, decryption.reason, rules.reason)
    return decrypt_fields(decoded, registry, schema, rules, column=column, output=output or column,
                          on_error=on_error, position=position,
                          jvm_clear=partial(jvm_clear, df.sparkSession, decryption, rules.fields))


def batch_decoder(
    schema: T.StructType,
    column: str,
    registry: RegistryClient,
    reader: str | Schema,
    *,
    output: str | None = None,
    on_error: str = "fail",
    framing: Framing = CONFLUENT,
    message: str | None = None,
    rules: DecodeRules = NO_RULES,
) -> tuple[Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]], T.StructType]:
    """The function `mapInArrow` runs on each partition's Arrow batches, and the schema it
    yields, for input rows of `schema`. Public so that a profiler can run exactly what one
    Python worker runs, on batches read without Spark (`bench/pipeline_decode.py`). With
    `rules` on the records path, each record goes through `app.client`'s deserializer."""
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    output = output or column
    error_column = f"{output}_error"
    target = reader if isinstance(reader, Schema) else Schema(reader)
    shape = format_of(target.schema_type).spark_shape(registry, target, message)
    fields = [field for field in schema.fields if field.name != output]
    fields.append(T.StructField(output, shape.data_type, True))
    if on_error == "route":
        fields.append(T.StructField(error_column, T.StringType(), True))
    out_schema = T.StructType(fields)
    arrow_type = to_arrow_type(shape.data_type, timezone="UTC")
    names = [field.name for field in fields]
    position = [name for name in POSITION_COLUMNS if name in schema.names]
    job = _BatchDecoder(registry, target, message, framing, column, output, error_column, on_error,
                        arrow_type, names, position, rules)
    return job, out_schema


class _BatchDecoder:
    """The function `mapInArrow` ships to the workers (picklable: settings only)."""

    def __init__(self, registry: RegistryClient, reader: Schema, message: str | None, framing: Framing,
                 column: str, output: str, error_column: str, on_error: str, arrow_type: pa.DataType,
                 names: list[str], position: list[str], rules: DecodeRules) -> None:
        self.registry, self.reader, self.message, self.framing = registry, reader, message, framing
        self.column, self.output, self.error_column, self.on_error = column, output, error_column, on_error
        self.arrow_type, self.names, self.position, self.rules = arrow_type, names, position, rules

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        form = format_of(self.reader.schema_type)
        if self.rules.path is RulePath.RECORDS:
            decoder = form.rule_decoder(self.registry, self.reader, self.framing, self.message, self.rules)
        else:
            decoder = form.decoder(self.registry, self.reader, self.framing, self.message)
        for batch in batches:
            yield self._decode_batch(batch, decoder)

    def _decode_batch(self, batch: pa.RecordBatch, decoder: RecordDecoder) -> pa.RecordBatch:
        values = batch.column(self.column).to_pylist()
        errors: list[str | None] = [None] * len(values)

        def bad(row: int, exc: Exception) -> None:
            # A record's own fault. An unreachable registry is not: the decoder lets that
            # through, and it fails the job in either mode rather than marking every record bad.
            if self.on_error == "fail":
                raise BadRecord(f"cannot decode {self.column} {self._where(batch, row)}: {exc}") from exc
            errors[row] = f"{type(exc).__name__}: {exc}"

        decoded = decoder.decode_all(values, bad)
        try:
            struct = pa.array(decoded, type=self.arrow_type)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise BadRecord(f"decoded records do not fit the Spark type of the reader schema: {exc}") from exc
        columns = {name: batch.column(name) for name in batch.schema.names}
        columns[self.output] = struct
        if self.on_error == "route":
            columns[self.error_column] = pa.array(errors, type=pa.string())
        return pa.RecordBatch.from_arrays([columns[name] for name in self.names], names=self.names)

    def _where(self, batch: pa.RecordBatch, row: int) -> str:
        if not self.position:
            return f"(row {row} of its batch)"
        return "at " + ", ".join(f"{name}={batch.column(name)[row].as_py()}" for name in self.position)
