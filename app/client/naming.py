"""Subject name strategies: which subject a topic's keys or values are registered under.

Plain functions of (topic, field, record_name), as Confluent's serializers have them, so a
custom strategy is any function of the same shape. `field` is "key" or "value";
`record_name` is the fully qualified name of the record (Avro `namespace.name`), None for a
schema that is not a named type.

Protobuf imports are schemas of their own, registered before the file that imports them; a
reference subject strategy is a function of the import path (`shop/customer.proto`) alone.
"""
from __future__ import annotations

from typing import Callable, Literal

Field = Literal["key", "value"]
SubjectNameStrategy = Callable[[str, Field, "str | None"], str]
ReferenceSubjectNameStrategy = Callable[[str], str]


def topic_name(topic: str, field: Field, record_name: str | None) -> str:
    """`<topic>-key` / `<topic>-value`: one evolving schema per topic (the default)."""
    return f"{topic}-{field}"


def record_name(topic: str, field: Field, record_name: str | None) -> str:
    """The record's full name: one schema per record type, shared by every topic."""
    return _required(record_name, "record_name")


def topic_record_name(topic: str, field: Field, record_name: str | None) -> str:
    """`<topic>-<record full name>`: several record types per topic, each evolving alone."""
    return f"{topic}-{_required(record_name, 'topic_record_name')}"


def _required(name: str | None, strategy: str) -> str:
    if not name:
        raise ValueError(f"the {strategy} strategy needs a named record schema")
    return name


def import_path(path: str) -> str:
    """The import path itself, as Confluent's serializers name the subjects of Protobuf imports,
    so a file imported by many schemas is registered once and shared by all of them."""
    return path
