"""`GET /v1/metadata/deployment` (Confluent 8.1+)."""
from __future__ import annotations

from api_client import Api


def test_deployment_reports_no_attributes_like_an_unconfigured_open_source_server(api: Api) -> None:
    reply = api.get("/v1/metadata/deployment")
    assert (reply.status, reply.json) == (200, {"attributes": []})
    assert reply.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"
