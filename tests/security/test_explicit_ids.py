"""Explicit schema ids (IMPORT mode) are a context-wide act: an id is taken from every
subject of its context and moves the context's allocator, so only a caller administering
the whole context (an admin grant on `*` there, or a global one) may set one, and no import
may push the allocator to the end of the id range. Both databases: ids come from storage."""
from __future__ import annotations

import json

from support.guarded import GuardedRegistry

TOP = 2**31 - 1


def record(name: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "f", "type": "string"}]})


def importing(guarded: GuardedRegistry, caller: str, subject: str, schema_id: int, name: str = "A"):
    """`subject` put in IMPORT mode (by its own administrator) and a registration with `schema_id`."""
    who = guarded.as_(caller)
    assert who.call("PUT", f"/mode/{subject}", {"mode": "IMPORT"}).status == 200
    return who.call("POST", f"/subjects/{subject}/versions", {"schema": record(name), "id": schema_id, "version": 1})


def test_a_subject_scoped_admin_may_not_register_an_explicit_id(guarded: GuardedRegistry) -> None:
    for schema_id in (TOP, 7):
        reply = importing(guarded, "owner", "payments.orders", schema_id)
        assert reply.status == 403 and reply.json["error_code"] == 40301, reply
        assert "explicit schema id" in reply.json["message"]
    ops = guarded.as_("ops")
    assert ops.get("/subjects").json == []
    assert ops.get("/schemas/ids/7").status == 404


def test_an_admin_of_every_subject_of_the_context_may_register_an_explicit_id(guarded: GuardedRegistry) -> None:
    reply = importing(guarded, "everywhere", "payments.orders", 7)
    assert reply.status == 200 and reply.json["id"] == 7, reply
    staged = importing(guarded, "everywhere", ":.staging:payments.orders", 9)
    assert staged.status == 200 and staged.json["id"] == 9, staged


def test_no_import_can_leave_the_registry_without_ids(guarded: GuardedRegistry, settings) -> None:
    """The top of the range is refused even to the server's administrator; the highest id an
    import may set is accepted, and later registrations still get ids above it."""
    highest = settings.max_imported_id
    refused = importing(guarded, "ops", "imported", TOP)
    assert refused.status == 422 and refused.json["error_code"] == 42201, refused
    assert "REGISTRY_MAX_IMPORTED_ID" in refused.json["message"]

    accepted = guarded.as_("ops").call("POST", "/subjects/imported/versions",
                                       {"schema": record("B"), "id": highest, "version": 1})
    assert accepted.status == 200 and accepted.json["id"] == highest, accepted
    ops = guarded.as_("ops")
    assert ops.call("PUT", "/mode/imported", {"mode": "READWRITE"}).status == 200
    for name in ("C", "D"):
        fresh = ops.call("POST", f"/subjects/later-{name}/versions", {"schema": record(name)})
        assert fresh.status == 200 and highest < fresh.json["id"] <= TOP, fresh
    staged = ops.call("POST", "/subjects/:.staging:later/versions", {"schema": record("E")})
    assert staged.status == 200 and staged.json["id"] == 1, staged
