"""What `decode` asks of a schema format: the Spark shape of a reader schema, and a decoder
that each Python worker keeps for turning framed bytes into Arrow-ready values.

Framing (magic byte and id, and Protobuf's message indexes), planning (which reader, which
headers), routing of bad records and the engine choice are `app.pipeline.decode`'s and shared
by every format; a format module only knows its own schemas and payloads.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from app.client import RegistryClient, Schema
from app.client.framing import Framing
from app.pipeline.types import SparkShape

if TYPE_CHECKING:
    from app.pipeline.rule_plan import DecodeRules

# Told about each record a decoder cannot read: its row in the batch and why.
BadRecordHook = Callable[[int, Exception], None]


class UnsupportedSchemaType(ValueError):
    """A reader schema that has no Spark type (a recursive type), naming where it is."""


class RecordDecoder(Protocol):
    def decode_all(self, values: list[bytes | None], bad: BadRecordHook) -> list[Any]:
        """One batch's values decoded in the reader's shape (None stays None); a record that
        cannot be read is None and `bad` is told. A registry that cannot be reached raises:
        that is no record's fault."""


class PipelineFormat(Protocol):
    name: str  # what log lines and errors call it: "Avro", "JSON Schema", "Protobuf"
    schema_format: str | None  # the rendering schemas are fetched in (Protobuf: `serialized`)
    jvm: bool  # whether the JVM decoder reads it

    def spark_shape(self, registry: RegistryClient, reader: Schema, message: str | None) -> SparkShape:
        """The Spark type of the reader schema (`message`: Protobuf's message of the file)."""

    def decoder(self, registry: RegistryClient, reader: Schema, framing: Framing,
                message: str | None) -> RecordDecoder:
        """This Python worker's decoder for records read as `reader` (kept between tasks)."""

    def rule_decoder(self, registry: RegistryClient, reader: Schema, framing: Framing, message: str | None,
                     rules: DecodeRules) -> RecordDecoder:
        """This Python worker's decoder for records that pass through `rules` on their way to
        `reader`: `app.client`'s deserializer of the format (kept between tasks), then the
        reader's Spark shape (`app.pipeline.rule_decoder`)."""
