"""`GET /schemas` with Confluent 8.x's association filters, on both databases: `resourceType`,
`associationType` and `lifecycle` (repeatable; `NONE` for subjects without any association)
keep the matching subjects' schemas, each with an `associations` array; offset and limit
apply after the filters; without them the reply is the plain listing."""
from __future__ import annotations

import json

from api_client import Api

NS = "lkc-1"


def record(name: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "f", "type": "string"}]})


def associate(api: Api, topic: str, resource_id: str, *associations: dict) -> None:
    reply = api.post("/associations", {"resourceName": topic, "resourceNamespace": NS, "resourceId": resource_id,
                                       "associations": list(associations)})
    assert reply.status == 200, reply


def setup(api: Api) -> None:
    """`orders-key` WEAK (key of orders), `items-value` STRONG (value of items), `plain` none."""
    for subject in ("orders-key", "plain"):
        api.registered(subject, record(subject.replace("-", "_")))
    associate(api, "orders", "id-1", {"subject": "orders-key", "associationType": "key"})
    associate(api, "items", "id-2", {"associationType": "value", "schema": {"schema": record("I")}})


def listed(api: Api, **params) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every context's schemas (the STRONG subject is in the namespace's context)."""
    reply = api.get("/schemas", subjectPrefix=":*:", **params)
    assert reply.status == 200, reply
    return [(s["subject"], [(a["associationType"], a["lifecycle"]) for a in s.get("associations", [])])
            for s in reply.json]


def test_lifecycle_filters_keep_matching_subjects_with_their_associations(api: Api) -> None:
    setup(api)
    strong = f":.{NS}:items-value"
    assert listed(api, lifecycle="WEAK") == [("orders-key", [("key", "WEAK")])]
    assert listed(api, lifecycle="STRONG") == [(strong, [("value", "STRONG")])]
    assert listed(api, lifecycle="NONE") == [("plain", [])]
    assert listed(api, lifecycle=["NONE", "STRONG"]) == [(strong, [("value", "STRONG")]), ("plain", [])]


def test_type_filters_and_paging_after_filtering(api: Api) -> None:
    setup(api)
    assert listed(api, associationType="key") == [("orders-key", [("key", "WEAK")])]
    assert [s for s, _ in listed(api, resourceType="topic")] == [f":.{NS}:items-value", "orders-key"]
    assert listed(api, resourceType="topic", offset=1, limit=1) == listed(api, resourceType="topic")[1:2]
    plain = api.get("/schemas", subjectPrefix=":*:").json
    assert len(plain) == 3 and all("associations" not in s for s in plain)
    bad = api.get("/schemas", lifecycle="SOFT")
    assert (bad.status, bad.error_code) == (422, 42212)
