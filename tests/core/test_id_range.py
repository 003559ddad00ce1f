"""Schema ids stay inside Java's int: every Confluent client reads them as a 32-bit signed int."""
from __future__ import annotations

import json

from app.core.types import SchemaRequest
from app.wiring import build_registry

MAX_ID = 2**31 - 1
CT = "application/vnd.schemaregistry.v1+json"


def record(name: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "f", "type": "string"}]})


def test_an_import_of_the_largest_id_is_refused_and_later_registrations_still_get_ids(client) -> None:
    """An imported id moves the allocator past it: the top of the range is out of an import's
    reach (REGISTRY_MAX_IMPORTED_ID), so nobody's later registration finds no id left."""
    assert client.put("/mode", json={"mode": "IMPORT"}, content_type=CT).status_code == 200
    refused = client.post("/subjects/s/versions", json={"schema": record("A"), "id": MAX_ID, "version": 1},
                          content_type=CT)
    assert refused.status_code == 422 and refused.get_json()["error_code"] == 42201
    assert "2147483647" in refused.get_json()["message"]
    assert client.put("/mode", json={"mode": "READWRITE"}, content_type=CT).status_code == 200

    fresh = client.post("/subjects/t/versions", json={"schema": record("B")}, content_type=CT)
    assert fresh.status_code == 200 and fresh.get_json()["id"] == 1
    assert client.get("/subjects").get_json() == ["t"]


def test_import_refuses_ids_outside_the_java_int_range(client) -> None:
    client.put("/mode", json={"mode": "IMPORT"}, content_type=CT)
    for bad in (MAX_ID + 1, 2**40):
        reply = client.post("/subjects/s/versions", json={"schema": record("A"), "id": bad, "version": 1},
                            content_type=CT)
        assert 400 <= reply.status_code < 500, reply.get_json()
        assert reply.get_json()["error_code"] in (422, 42201, 42202, 40001, 400)
    assert client.get("/subjects").get_json() == []


def test_a_registration_that_runs_out_of_ids_writes_nothing(settings) -> None:
    """Reachable only where an operator let imports reach the top (REGISTRY_MAX_IMPORTED_ID)."""
    service = build_registry(settings.with_overrides(max_imported_id=MAX_ID))
    service.update_mode(None, "IMPORT")
    service.register("s", SchemaRequest(schema=record("A"), id=MAX_ID, version=1))
    service.update_mode(None, "READWRITE")
    try:
        service.register("t", SchemaRequest(schema=record("B")))
    except Exception as exc:  # noqa: BLE001 - the type is pinned below
        assert type(exc).__name__ == "IdsExhausted"
    else:
        raise AssertionError("a registration past the largest id must fail")
    assert service.list_subjects() == ["s"]
    service.storage.close()
