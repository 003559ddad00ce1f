"""The formats the registry speaks, keyed by Confluent's `schemaType` value."""
from __future__ import annotations

from collections.abc import Mapping

from app.formats.avro import AvroFormat
from app.formats.base import Incompatibility, ParsedSchema, SchemaFormat, SchemaParseError
from app.formats.protobuf import ProtobufFormat

FORMATS: Mapping[str, SchemaFormat] = {
    "AVRO": AvroFormat(),
    "PROTOBUF": ProtobufFormat(),
}


__all__ = ["FORMATS", "Incompatibility", "ParsedSchema", "SchemaFormat", "SchemaParseError"]
