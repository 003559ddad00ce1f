"""Schema ids stay inside Java's int: every Confluent client reads them as a 32-bit signed int."""
from __future__ import annotations

import json

from app.core.types import SchemaRequest

MAX_ID = 2**31 - 1
CT = "application/vnd.schemaregistry.v1+json"


def record(name: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "f", "type": "string"}]})


def test_after_importing_the_largest_id_the_next_registration_is_refused_clearly(client) -> None:
    assert client.put("/mode", json={"mode": "IMPORT"}, content_type=CT).status_code == 200
    imported = client.post("/subjects/s/versions", json={"schema": record("A"), "id": MAX_ID, "version": 1},
                           content_type=CT)
    assert imported.get_json()["id"] == MAX_ID
    assert client.put("/mode", json={"mode": "READWRITE"}, content_type=CT).status_code == 200

    refused = client.post("/subjects/t/versions", json={"schema": record("B")}, content_type=CT)
    body = refused.get_json()
    assert refused.status_code == 500 and body["error_code"] == 50001
    assert "2147483647" in body["message"]
    assert client.get("/subjects").get_json() == ["s"]
    assert client.get(f"/schemas/ids/{MAX_ID}").status_code == 200


def test_import_refuses_ids_outside_the_java_int_range(client) -> None:
    client.put("/mode", json={"mode": "IMPORT"}, content_type=CT)
    for bad in (MAX_ID + 1, 2**40):
        reply = client.post("/subjects/s/versions", json={"schema": record("A"), "id": bad, "version": 1},
                            content_type=CT)
        assert 400 <= reply.status_code < 500, reply.get_json()
        assert reply.get_json()["error_code"] in (422, 42201, 42202, 40001, 400)
    assert client.get("/subjects").get_json() == []


def test_a_registration_that_runs_out_of_ids_writes_nothing(service) -> None:
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
