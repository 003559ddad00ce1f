"""A Protobuf registration runs protoc once, on both databases: the parse before the
subject's lock, the registration under it and a policy's element walk share the one compile."""
from __future__ import annotations

import pytest
from support.protoc_calls import CountingProtoc, counting_protoc

from api_client import Api

# Laid out unlike the canonical text, documented as the policy below asks.
SENT = ('syntax="proto3"; package shop;\n// An order.\nmessage Order{\n  // Key\n  int64 order_id=1;\n'
        '  // Amount\n  int64 cents = 2;}\n')
POLICY = {"sets": {"docs": {"rules": [
    {"rule": "doc-required", "params": {"on": ["record", "field"]}},
    {"rule": "name-pattern", "params": {"field": "snake_case"}},
    {"rule": "forbidden-changes", "params": {"changes": ["FIELD_REMOVED"], "against": "latest"}},
]}}, "default": ["docs"]}


@pytest.fixture
def protoc(monkeypatch: pytest.MonkeyPatch) -> CountingProtoc:
    return counting_protoc(monkeypatch)


@pytest.fixture
def sent(request: pytest.FixtureRequest) -> str:
    """SENT, distinct per test: the format keeps recent parses for the whole process."""
    return f"// {request.node.name}\n{SENT}"


def test_a_registration_compiles_its_schema_once(api: Api, protoc: CountingProtoc, sent: str) -> None:
    registered = api.registered("orders-value", sent, schemaType="PROTOBUF")
    assert protoc.calls == {"run_main": 1}
    stored = api.get(f"/schemas/ids/{registered['id']}").json["schema"]
    assert stored.startswith('syntax = "proto3";\npackage shop;\n\nmessage Order {\n  int64 order_id = 1;')


def test_a_registration_checked_by_a_policy_compiles_its_schema_once(
    api: Api, protoc: CountingProtoc, sent: str
) -> None:
    assert api.put("/policies", POLICY).status == 200
    api.registered("orders-value", sent, schemaType="PROTOBUF")
    assert protoc.calls == {"run_main": 1}
    refused = api.register("orders-value", sent.replace("int64 order_id", "int64 OrderId"), schemaType="PROTOBUF")
    assert refused.json["error_code"] == 42201 and '6:3] field "OrderId"' in refused.json["message"]
