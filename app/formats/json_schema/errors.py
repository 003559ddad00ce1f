"""The JSON Schema format's own refusal, before it becomes the registry-facing `SchemaParseError`."""
from __future__ import annotations


class InvalidJsonSchema(ValueError):
    """A schema the registry refuses; the text is the detail after Confluent's
    "Invalid schema of type JSON, details: ", which `JsonSchemaFormat` puts in front."""
