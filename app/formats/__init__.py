"""The formats the registry speaks, keyed by Confluent's `schemaType` value."""
from __future__ import annotations

from typing import Mapping

from app.core.errors import InvalidSchema
from app.formats.avro import AvroFormat
from app.formats.base import Incompatibility, ParsedSchema, SchemaFormat

FORMATS: Mapping[str, SchemaFormat] = {
    "AVRO": AvroFormat(),
}


def format_for(schema_type: str) -> SchemaFormat:
    """Look up a format by its exact (case-sensitive) type name, as Confluent does."""
    try:
        return FORMATS[schema_type]
    except KeyError:
        raise InvalidSchema(f"Invalid schema type {schema_type}") from None


__all__ = ["FORMATS", "format_for", "Incompatibility", "ParsedSchema", "SchemaFormat"]
