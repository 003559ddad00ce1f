"""The core runs on any store that implements `app.core.store.protocol`: the same script of
registrations, reads, checks, settings changes and deletes gives the same answers on the
in-memory store (tests/support/memory_store.py) as on SQL storage."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from support.memory_store import MemoryStorage

from app.core.errors import RegistryError
from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.formats import FORMATS
from app.settings import Settings


def record(name: str, *fields: tuple[str, str]) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [
        {"name": f, "type": t, "default": "" if t == "string" else 0} for f, t in fields]})


def outcome(step: Callable[[], Any]) -> Any:
    """A step's answer as plain data, or the error code it raised."""
    try:
        value = step()
    except RegistryError as exc:
        return ("error", exc.error_code)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return _plain(value)


def _plain(value: Any) -> Any:
    if hasattr(value, "schema") and hasattr(value, "version") and hasattr(value, "subject"):
        return (value.subject, value.version, value.schema.id, value.text, value.deleted)
    if hasattr(value, "is_compatible"):
        return (value.is_compatible, tuple(value.messages))
    if hasattr(value, "holder"):
        return (value.schema.id, value.text, value.holder.subject if value.holder else None)
    return value


def script(s: RegistryService) -> list[Callable[[], Any]]:
    v1 = SchemaRequest(schema=record("Order", ("id", "long")))
    v2 = SchemaRequest(schema=record("Order", ("id", "long"), ("note", "string")))
    bad = SchemaRequest(schema=record("Order", ("id", "string")))
    return [
        lambda: s.register("orders", v1),
        lambda: s.register("orders", v1),  # same schema: same version
        lambda: s.register("orders", v2),
        lambda: s.register("orders", bad),  # 409
        lambda: s.register("copies", v2),  # same content, other subject: same id
        lambda: s.register(":.team:orders", v1),  # a context counts its own ids
        lambda: s.list_subjects(),
        lambda: s.list_versions("orders"),
        lambda: s.get_version("orders", "latest"),
        lambda: s.schema_by_id(2, subject="copies"),
        lambda: s.subjects_for_id(2),
        lambda: s.lookup("copies", v2),
        lambda: s.lookup("orders", bad),  # 40403
        lambda: s.check_compatibility("orders", None, bad, verbose=True),
        lambda: s.update_config("orders", {"compatibility": "NONE"}),
        lambda: s.register("orders", bad),
        lambda: s.get_config("orders"),
        lambda: s.delete_version("orders", "1"),
        lambda: s.list_versions("orders", deleted=True),
        lambda: s.get_version("orders", "1"),  # 40402
        lambda: s.delete_version("orders", "1", permanent=True),
        lambda: s.delete_subject("copies"),
        lambda: s.delete_subject("copies", permanent=True),
        lambda: s.list_subjects(deleted=True),
        lambda: s.update_mode("fresh", "IMPORT"),
        lambda: s.register("fresh", SchemaRequest(schema=record("Imp", ("a", "long")), id=50, version=3)),
        lambda: s.update_mode("fresh", "READWRITE"),
        lambda: s.register("fresh", SchemaRequest(schema=record("Imp", ("a", "long"), ("b", "long")))),
        lambda: s.list_contexts(),
        lambda: s.get_version("orders", "latest", fmt="resolved"),
    ]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_same_script_gives_the_same_answers_in_memory_and_on_sql(service: RegistryService) -> None:
    memory = RegistryService(MemoryStorage(), FORMATS, Settings())
    in_memory = [outcome(step) for step in script(memory)]
    on_sql = [outcome(step) for step in script(service)]
    assert in_memory == on_sql
    assert ("error", 40901) in in_memory and ("error", 40403) in in_memory  # the script does reach errors


def test_hot_reads_are_served_from_the_read_cache_until_a_commit() -> None:
    storage = MemoryStorage()
    memory = RegistryService(storage, FORMATS, Settings())
    memory.register("s", SchemaRequest(schema=record("A", ("a", "long"))))
    first = memory.get_version("s", "1")
    assert memory.get_version("s", "1") is first
    memory.delete_version("s", "1")
    assert outcome(lambda: memory.get_version("s", "1")) == ("error", 40401)  # no live version left
