"""The Avro format's own refusal, before it becomes the registry-facing `SchemaParseError`."""
from __future__ import annotations


class InvalidAvro(Exception):
    """A schema Java would refuse; the text is Java's message for the same problem.

    `AvroFormat` adds Confluent's "Invalid schema of type AVRO, details: " in front, as
    Confluent wraps Java's message, and raises it as `app.formats.base.SchemaParseError`.
    """
