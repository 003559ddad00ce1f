"""The Avro format: Java Avro's parser, writer and compatibility rules, as Confluent uses them.

`format` holds the `SchemaFormat` the registry uses; the modules beside it are its parts
(JSON text, parsed model, parser, canonical and normalized writers, compatibility, tags, and
the nesting bounds that keep every walk within Python's stack).
"""
from __future__ import annotations

from app.formats.avro.format import AvroFormat

__all__ = ["AvroFormat"]
