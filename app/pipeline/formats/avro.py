"""Avro as a pipeline format: the shapes of `app.pipeline.types`, the decoder of
`app.pipeline.workers` (fastavro with a plan per writer/reader pair), and the JVM decoder."""
from __future__ import annotations

from app.client import RegistryClient, Schema
from app.client.framing import Framing
from app.pipeline.formats.format import RecordDecoder
from app.pipeline.types import SparkShape, avro_to_spark
from app.pipeline.workers import worker_decoder


class AvroFormat:
    name = "Avro"
    schema_format = None
    jvm = True

    def spark_shape(self, registry: RegistryClient, reader: Schema, message: str | None) -> SparkShape:
        return avro_to_spark(reader.text)

    def decoder(self, registry: RegistryClient, reader: Schema, framing: Framing,
                message: str | None) -> RecordDecoder:
        return worker_decoder(registry, reader.text, framing)


AVRO_FORMAT = AvroFormat()
