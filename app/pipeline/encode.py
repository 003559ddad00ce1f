"""`encode`: DataFrame rows -> a binary column of Confluent-framed records (Avro, JSON Schema,
Protobuf), the Kafka sink's `value`.

The writer schema is one of: derived from the DataFrame's StructType in the format asked for
(`schema_type`; the mapping is each format's, `app.pipeline.formats.*_encoder`), a schema the
caller gives (a team's `.avsc`, `.json` or `.proto`, with its enums, docs and options), or a
version already registered. The first two are registered under the subject on the driver before
any task runs, so an incompatible change fails the job with the registry's reasons and nothing
is written. The workers then write with `app.client`'s serializer of the format pinned to that
version (`AvroSerializer`, `JsonSerializer`, `ProtobufSerializer`: the Protobuf frame carries
the message indexes of `message`), so the bytes are exactly what any other producer of the
same schema id writes; the pinned version costs one registry request per worker, never per
batch. The serializers run the version's WRITE rules (conditions, field encryption) with
`rule_config`; a row a rule refuses stops the job with one line naming the rule and the row.
When the JVM path can run (`engine=`, as for `decode`), a Java UDF writes Avro by fastavro's
rules instead (`app.pipeline.jvm_encode`); it runs no rules, so a writer with WRITE rules, and
the other two formats, are written on the Python path, and the engine choice logs why.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from app.client import RegisteredSchema, RegistryClient, Schema, SerializationError
from app.client.records import AVRO
from app.client.rules.execution import config_digest
from app.client.rules.plans import WritePlan
from app.pipeline.decode import BadRecord
from app.pipeline.engine import choose_engine
from app.pipeline.formats import encoder_of
from app.pipeline.formats.encoding import batch_rows
from app.pipeline.formats.writer_cache import kept_in_worker
from app.pipeline.jvm_encode import jvm_encode


def jvm_encode_refusal(writer: Schema) -> str | None:
    """Why the JVM encoder cannot write with `writer` (None: it can), as the engine choice logs it."""
    form = encoder_of(writer.schema_type)
    if not form.jvm:
        return f"the JVM encoder writes Avro only; {form.name} encodes in Spark's Python workers"
    if WritePlan.needed(writer):
        return "the writer schema has WRITE rules, which only the Python path's serializer runs"
    return None


def encode(
    df: DataFrame,
    registry: RegistryClient,
    *,
    subject: str,
    columns: Sequence[str] | None = None,
    keep: Sequence[str] = (),
    output: str = "value",
    version: int | None = None,
    schema: str | Schema | None = None,
    schema_type: str = AVRO,
    message: str | None = None,
    record_name: str = "Record",
    namespace: str | None = None,
    engine: str = "auto",
    rule_config: Mapping[str, str] | None = None,
) -> DataFrame:
    """A DataFrame of `keep` columns plus `output`, the framed record of `columns` (default: every
    column not kept). With `version`, write with that registered version of `subject` (of any
    format); with `schema` (a `Schema`, or text of `schema_type`), register it and write with
    it; else derive a `schema_type` schema (AVRO, JSON or PROTOBUF) from the columns' types,
    named `record_name` in `namespace`, and register it. Registration is where compatibility is
    checked: an `IncompatibleSchema` carrying the registry's reasons is raised here, before any
    task. `message` names the Protobuf message written (full name; default the file's first).
    `rule_config` goes to the serializers' rule executors (a local KMS `secret`, ...). `engine`
    picks the JVM or the Python writer, as for `decode` (`app.pipeline.engine`)."""
    names = list(columns) if columns is not None else [c for c in df.columns if c not in keep]
    record_type = T.StructType([df.schema[name] for name in names])
    if version is None:
        version = register_writer(registry, subject, record_type, schema, schema_type, record_name, namespace,
                                  message)
    elif schema is not None:
        raise ValueError("give a schema or a registered version to write with, not both")
    # The version's own schema (with its rule set), as the workers' PinnedVersion serializers write with.
    writer = registry.get_version(subject, version)
    encoder_of(writer.schema.schema_type).check_columns(registry, subject, writer.schema, version, names, message)
    choice = choose_engine(df.sparkSession, engine, work="encoding", python_only=jvm_encode_refusal(writer.schema))
    if choice.jvm:
        return jvm_encode(df, registry, writer, names, keep, output)
    out_schema = T.StructType([df.schema[name] for name in keep] + [T.StructField(output, T.BinaryType(), False)])
    job = _BatchEncoder(registry, subject, writer, record_type, message, dict(rule_config or {}), list(keep), output)
    return df.select(*dict.fromkeys([*keep, *names])).mapInArrow(job, out_schema)


def register_writer(registry: RegistryClient, subject: str, record_type: T.StructType, schema: str | Schema | None,
                    schema_type: str = AVRO, record_name: str = "Record", namespace: str | None = None,
                    message: str | None = None) -> int:
    """Registers `schema` (or the `schema_type` schema derived from `record_type`) under
    `subject` and returns its version, once the columns of `record_type` are known to fit it
    (as far as the format can tell before registering); raises the registry's
    `IncompatibleSchema` for a change the subject's compatibility refuses."""
    if schema is None:
        schema = encoder_of(schema_type).derive(record_type, record_name, namespace)
    elif isinstance(schema, str):
        schema = Schema(schema, schema_type)
    encoder_of(schema.schema_type).check_columns(registry, subject, schema, None, record_type.names, message)
    registered = registry.register(subject, schema)
    registered = registry.lookup(subject, registered.schema) if registered.version is None else registered
    if registered.version is None:
        raise ValueError(f"the registry named no version of {subject} for schema id {registered.schema_id}")
    return registered.version


class _BatchEncoder:
    """The function `mapInArrow` ships to the workers (picklable: settings only)."""

    def __init__(self, registry: RegistryClient, subject: str, writer: RegisteredSchema, record_type: T.StructType,
                 message: str | None, rule_config: dict[str, str], keep: list[str], output: str) -> None:
        assert writer.version is not None  # encode() refused a version-less answer
        self.registry, self.subject, self.version, self.schema_id = registry, subject, writer.version, writer.schema_id
        self.schema_type, self.record_type, self.message = writer.schema.schema_type, record_type, message
        self.rule_config, self.keep, self.output = rule_config, keep, output

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        form = encoder_of(self.schema_type)
        # The schema id too: a subject deleted and registered again reuses its version numbers.
        key = ("encode", self.schema_type, self.subject, self.version, self.schema_id, self.record_type.json(),
               self.message, config_digest(self.rule_config))
        write = kept_in_worker(self.registry, key, lambda client: form.row_writer(
            client, self.subject, self.version, self.record_type, self.message, self.rule_config))
        names = self.record_type.names
        for batch in batches:
            encoded = []
            for row, record in enumerate(batch_rows(batch, names, form.timestamp_micros)):
                try:
                    encoded.append(write(record))
                except SerializationError as exc:  # a rule that refused it, a record its schema forbids
                    raise BadRecord(f"cannot encode {self._where(batch, row)}: {exc}") from exc
            arrays = [batch.column(name) for name in self.keep] + [pa.array(encoded, type=pa.binary())]
            yield pa.RecordBatch.from_arrays(arrays, names=[*self.keep, self.output])

    def _where(self, batch: pa.RecordBatch, row: int) -> str:
        """The row, by its kept columns (a key) when there are any."""
        if not self.keep:
            return f"row {row} of its batch"
        return "the row with " + ", ".join(f"{name}={batch.column(name)[row].as_py()!r}" for name in self.keep)
