"""References that lead back to a version already on the way (`A -> B -> A`) are refused with
42201 naming the cycle, wherever the resolver meets them: a registration whose references
reach one, and a subject whose latest version sits on one (its next version is checked
against it). A `$ref` to the document itself stays what it is in JSON Schema: a recursive
schema, valid.

The API refuses a reference to a version that does not exist yet and stores "latest" (-1) as
the version it found, so a stored cycle comes from elsewhere (rows an older version or another
tool wrote); here it is written straight through the storage layer: a chain `s1 -> s0`, ...,
`s0 v2 -> s(n-1)`, then `s1`'s reference moved from `s0` version 1 to version 2, in each
format (JSON `$ref`, an Avro named type, a Protobuf import), on both databases.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import select, update

from app.core.errors import InvalidSchema
from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.settings import Settings
from app.storage.models import Schema, SchemaReferenceRow
from app.wiring import build_registry

STRING = json.dumps({"type": "string"})


@dataclass(frozen=True)
class Kind:
    """How one format spells the chain: `text(i, target)` is subject s{i}'s schema pointing at
    the type of subject `target` (None: a first version pointing nowhere), named `name(target)`."""

    schema_type: str
    name: Callable[[int], str]
    text: Callable[[int, int | None], str]


def _json_text(i: int, target: int | None) -> str:
    return STRING if target is None else json.dumps({"$ref": f"s{target}.json"})


def _avro_text(i: int, target: int | None) -> str:
    fields = [] if target is None else [{"name": "f", "type": f"S{target}"}]
    return json.dumps({"type": "record", "name": f"S{i}" if i or target is None else "T0", "fields": fields})


def _protobuf_text(i: int, target: int | None) -> str:
    package = f"s{i}" if i or target is None else "t0"  # s0's next version: its own names
    if target is None:
        return f'syntax = "proto3";\npackage {package};\nmessage M {{ string x = 1; }}\n'
    return (f'syntax = "proto3";\npackage {package};\nimport "s{target}.proto";\n'
            f"message M {{ s{target}.M x = 1; }}\n")


KINDS = {
    "JSON": Kind("JSON", lambda i: f"s{i}.json", _json_text),
    "AVRO": Kind("AVRO", lambda i: f"S{i}", _avro_text),
    "PROTOBUF": Kind("PROTOBUF", lambda i: f"s{i}.proto", _protobuf_text),
}


def pointing_at(kind: Kind, i: int, target: int) -> SchemaRequest:
    return SchemaRequest(schema=kind.text(i, target), schema_type=kind.schema_type,
                         references=[{"name": kind.name(target), "subject": f"s{target}", "version": -1}])


def write_cycle(database_url: str, kind: Kind, length: int) -> None:
    registry = build_registry(Settings(database_url=database_url))
    try:
        registry.update_config(None, {"compatibility": "NONE"})  # s0's second version is another type
        registry.register("s0", SchemaRequest(schema=kind.text(0, None), schema_type=kind.schema_type))
        for i in range(1, length):
            registry.register(f"s{i}", pointing_at(kind, i, i - 1))
        registry.register("s0", pointing_at(kind, 0, length - 1))  # s0 version 2
        with registry.storage.write() as store:
            pk = store.conn.execute(
                select(SchemaReferenceRow.schema_pk).where(SchemaReferenceRow.ref_subject == "s0")
            ).scalar_one()
            store.conn.execute(update(SchemaReferenceRow.__table__).where(
                SchemaReferenceRow.schema_pk == pk).values(ref_version=2))
            store.conn.execute(update(Schema.__table__).where(Schema.pk == pk).values(
                references_doc=[{"name": kind.name(0), "subject": "s0", "version": 2}]))
    finally:
        registry.storage.close()


@pytest.fixture
def cyclic(database_url: str, request: pytest.FixtureRequest) -> Iterator[tuple[RegistryService, Kind, int]]:
    schema_type, length = request.param
    kind = KINDS[schema_type]
    write_cycle(database_url, kind, length)
    registry = build_registry(Settings(database_url=database_url))  # caches start empty
    yield registry, kind, length
    registry.storage.close()


def expected(kind: Kind, length: int) -> str:
    names = [kind.name(0), *(kind.name(i) for i in range(length - 1, 0, -1)), kind.name(0)]
    return "circular reference: " + " -> ".join(names)


@pytest.mark.parametrize("cyclic", [("JSON", 2), ("JSON", 3), ("JSON", 5), ("AVRO", 2), ("PROTOBUF", 3)],
                         indirect=True, ids=["json-A-B-A", "json-3", "json-5", "avro-A-B-A", "protobuf-3"])
def test_a_registration_whose_references_reach_a_cycle_is_refused_naming_it(
    cyclic: tuple[RegistryService, Kind, int],
) -> None:
    registry, kind, length = cyclic
    before = registry.list_versions("s0")
    with pytest.raises(InvalidSchema) as refused:
        registry.register("new", pointing_at(kind, 9, 0))
    assert refused.value.error_code == 42201
    assert refused.value.message == f"Invalid schema of type {kind.schema_type}, details: {expected(kind, length)}"
    assert registry.list_versions("s0") == before
    assert "new" not in registry.list_subjects()


@pytest.mark.parametrize("cyclic", [("JSON", 2)], indirect=True, ids=["json-A-B-A"])
def test_a_subject_whose_latest_version_is_on_a_cycle_refuses_with_42201_not_a_crash(
    cyclic: tuple[RegistryService, Kind, int],
) -> None:
    registry, _, _ = cyclic
    registry.update_config(None, {"compatibility": "BACKWARD"})  # the next version is checked against s0's latest
    with pytest.raises(InvalidSchema, match="circular reference: s1.json -> s0.json -> s1.json"):
        registry.register("s0", SchemaRequest(schema=json.dumps({"type": "integer"}), schema_type="JSON"))


def test_a_schema_whose_ref_points_into_itself_stays_valid(database_url: str) -> None:
    """JSON Schema's recursion (`$ref` to `#` or to a `$defs` entry) is no reference cycle."""
    registry = build_registry(Settings(database_url=database_url))
    try:
        node = {"type": "object", "properties": {"next": {"$ref": "#"}, "tree": {"$ref": "#/$defs/T"}},
                "$defs": {"T": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}
        first = registry.register("tree", SchemaRequest(schema=json.dumps(node), schema_type="JSON"))
        node["title"] = "a tree"
        second = registry.register("tree", SchemaRequest(schema=json.dumps(node), schema_type="JSON"))
        assert (first.version, second.version) == (1, 2)
    finally:
        registry.storage.close()


def test_a_version_shared_by_many_paths_is_no_cycle(database_url: str) -> None:
    """A diamond (two references to versions that both reference one) is resolved, once."""
    registry = build_registry(Settings(database_url=database_url))
    try:
        registry.register("base", SchemaRequest(schema=STRING, schema_type="JSON"))
        for side in ("left", "right"):
            registry.register(side, SchemaRequest(schema=json.dumps({"$ref": "base.json"}), schema_type="JSON",
                                                  references=[{"name": "base.json", "subject": "base", "version": 1}]))
        both = SchemaRequest(
            schema=json.dumps({"allOf": [{"$ref": "left.json"}, {"$ref": "right.json"}]}), schema_type="JSON",
            references=[{"name": "left.json", "subject": "left", "version": 1},
                        {"name": "right.json", "subject": "right", "version": 1}])
        assert registry.register("top", both).version == 1
    finally:
        registry.storage.close()
