"""References that lead back to a version already on the way (`A -> B -> A`) are refused with
42201 naming the cycle, wherever the resolver meets them: a registration whose references
reach one, and a subject whose latest version sits on one (its next version is checked
against it). A `$ref` to the document itself stays what it is in JSON Schema: a recursive
schema, valid.

The API refuses a reference to a version that does not exist yet, so a stored cycle comes from
elsewhere (rows an importer or an older version wrote); here it is written straight through
the storage layer: a chain `s1 -> s0`, ..., `s0 v2 -> s(n-1)`, then `s1`'s reference moved
from `s0` version 1 to version 2, on both databases.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select, update

from app.core.errors import InvalidSchema
from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.settings import Settings
from app.storage.models import Schema, SchemaReferenceRow
from app.wiring import build_registry

STRING = json.dumps({"type": "string"})


def pointing_at(subject: str) -> SchemaRequest:
    return SchemaRequest(schema=json.dumps({"$ref": f"{subject}.json"}), schema_type="JSON",
                         references=[{"name": f"{subject}.json", "subject": subject, "version": -1}])


def write_cycle(database_url: str, length: int) -> None:
    registry = build_registry(Settings(database_url=database_url))
    try:
        registry.register("s0", SchemaRequest(schema=STRING, schema_type="JSON"))
        for i in range(1, length):
            registry.register(f"s{i}", pointing_at(f"s{i - 1}"))
        registry.register("s0", pointing_at(f"s{length - 1}"))  # s0 version 2
        with registry.storage.write() as store:
            pk = store.conn.execute(
                select(SchemaReferenceRow.schema_pk).where(SchemaReferenceRow.ref_subject == "s0")
            ).scalar_one()
            store.conn.execute(update(SchemaReferenceRow.__table__).where(
                SchemaReferenceRow.schema_pk == pk).values(ref_version=2))
            store.conn.execute(update(Schema.__table__).where(Schema.pk == pk).values(
                references_doc=[{"name": "s0.json", "subject": "s0", "version": 2}]))
    finally:
        registry.storage.close()


@pytest.fixture
def cyclic(database_url: str, request: pytest.FixtureRequest) -> Iterator[RegistryService]:
    write_cycle(database_url, request.param)
    registry = build_registry(Settings(database_url=database_url))  # caches start empty
    yield registry
    registry.storage.close()


def expected(length: int) -> str:
    names = ["s0.json", *(f"s{i}.json" for i in range(length - 1, 0, -1)), "s0.json"]
    return "circular reference: " + " -> ".join(names)


@pytest.mark.parametrize("cyclic", [2, 3, 5], indirect=True, ids=["A-B-A", "3 subjects", "5 subjects"])
def test_a_registration_whose_references_reach_a_cycle_is_refused_naming_it(cyclic: RegistryService) -> None:
    length = len(cyclic.list_subjects())
    before = cyclic.list_versions("s0")
    with pytest.raises(InvalidSchema) as refused:
        cyclic.register("new", pointing_at("s0"))
    assert refused.value.error_code == 42201
    assert refused.value.message == f"Invalid schema of type JSON, details: {expected(length)}"
    assert cyclic.list_versions("s0") == before
    assert "new" not in cyclic.list_subjects()


@pytest.mark.parametrize("cyclic", [2], indirect=True, ids=["A-B-A"])
def test_a_subject_whose_latest_version_is_on_a_cycle_refuses_with_42201_not_a_crash(cyclic: RegistryService) -> None:
    with pytest.raises(InvalidSchema, match="circular reference: s1.json -> s0.json -> s1.json"):
        cyclic.register("s0", SchemaRequest(schema=json.dumps({"type": "integer"}), schema_type="JSON"))


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
        registry.register("left", pointing_at("base"))
        registry.register("right", pointing_at("base"))
        both = SchemaRequest(
            schema=json.dumps({"allOf": [{"$ref": "left.json"}, {"$ref": "right.json"}]}), schema_type="JSON",
            references=[{"name": "left.json", "subject": "left", "version": 1},
                        {"name": "right.json", "subject": "right", "version": 1}])
        assert registry.register("top", both).version == 1
    finally:
        registry.storage.close()
