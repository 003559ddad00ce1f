"""Avro as a pipeline format: the shapes of `app.pipeline.types`, the decoder of
`app.pipeline.workers` (fastavro with a plan per writer/reader pair), and the JVM decoder.

With rules (`rule_decoder`), `app.client`'s `AvroDeserializer` reads each record; the record it
returns (migrated, decrypted) is written once more with the reader schema and read back through
the same plan as any record of the reader's (unions, uuids, times as Spark wants them), so a
migration whose record does not fit the reader is that record's error, not the batch's.
"""
from __future__ import annotations

from io import BytesIO
from typing import Any

from fastavro import schemaless_reader, schemaless_writer

from app.client import AvroDeserializer, RegistryClient, Schema, SerializationError
from app.client.avro import parse_avro
from app.client.framing import Framing
from app.client.records import AVRO
from app.pipeline.formats.format import RecordDecoder
from app.pipeline.formats.writer_cache import kept_in_worker
from app.pipeline.rule_decoder import RuleRecordDecoder, rule_reader
from app.pipeline.rule_plan import DecodeRules
from app.pipeline.types import SparkShape, avro_to_spark
from app.pipeline.values import plan
from app.pipeline.workers import worker_decoder


class ReaderShape:
    """A record of the reader schema, as the client returns it, in the reader's Spark shape."""

    def __init__(self, client: RegistryClient, reader: Schema) -> None:
        self.parsed = parse_avro(client, reader)
        found = plan(self.parsed, None)
        self.tagged, self.convert = found.writer, found.convert

    def __call__(self, record: Any) -> Any:
        out = BytesIO()
        try:
            schemaless_writer(out, self.parsed, record)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise SerializationError(f"the record after its rules does not fit the reader schema: {exc}") from exc
        out.seek(0)
        value = schemaless_reader(out, self.tagged, None)
        return value if self.convert is None else self.convert(value)


class AvroFormat:
    name = "Avro"
    schema_format = None
    jvm = True

    def spark_shape(self, registry: RegistryClient, reader: Schema, message: str | None) -> SparkShape:
        return avro_to_spark(reader.text)

    def decoder(self, registry: RegistryClient, reader: Schema, framing: Framing,
                message: str | None) -> RecordDecoder:
        return worker_decoder(registry, reader.text, framing)

    def rule_decoder(self, registry: RegistryClient, reader: Schema, framing: Framing, message: str | None,
                     rules: DecodeRules) -> RecordDecoder:
        key = (AVRO, "rules", reader.text, rules.subject, rules.reader_version, rules.config_key,
               type(framing).__name__)
        return kept_in_worker(registry, key, lambda client: RuleRecordDecoder(
            AvroDeserializer(client, reader=rule_reader(reader, rules), subject=rules.subject, framing=framing,
                             rule_config=rules.config),
            ReaderShape(client, reader)))


AVRO_FORMAT = AvroFormat()
