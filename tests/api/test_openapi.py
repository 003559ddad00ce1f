"""`GET /openapi.json`: one document of every route the server has, valid
OpenAPI 3.1.0, every operation typed, every error status in Confluent's error shape.

The route coverage test is what keeps the document the single source of truth: it walks
Flask's URL map against the document both ways.
"""
from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from openapi_spec_validator import validate

from app.api.negotiation import PLAIN_JSON, REGISTRY_JSON, V1_JSON
from app.server.factory import create_app
from app.settings import Settings

JSON_TYPES = {V1_JSON, REGISTRY_JSON, PLAIN_JSON}
_RULE_ARGUMENT = re.compile(r"<(?:[^:<>]+:)?([^<>]+?)_?>")


@pytest.fixture(scope="module")
def app() -> Flask:
    """No request touches the database: SQLite in memory is enough."""
    return create_app(Settings(database_url="sqlite://"))


@pytest.fixture(scope="module")
def document(app: Flask) -> dict[str, Any]:
    reply = app.test_client().get("/openapi.json")
    assert reply.status_code == 200
    return json.loads(reply.data)


def routed_operations(app: Flask) -> set[tuple[str, str]]:
    """(method, OpenAPI path) of every rule: `<subject:subject>` is `{subject}`, `<segment:id_>` is `{id}`.
    The web UI's pages under /ui answer HTML forms to browsers: they are not operations of the
    JSON API the document describes (the UI leaves every REST path unchanged)."""
    out = set()
    for rule in app.url_map.iter_rules():
        if rule.rule == "/ui" or rule.rule.startswith("/ui/"):
            continue
        path = _RULE_ARGUMENT.sub(lambda m: "{" + m.group(1) + "}", rule.rule)
        out.update((method, path) for method in rule.methods - {"HEAD", "OPTIONS"})
    return out


def documented_operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, item in document["paths"].items() for method in item}


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, item in document["paths"].items() for method, op in item.items()]


def test_every_route_is_documented_and_every_documented_route_exists(app: Flask, document: dict[str, Any]) -> None:
    routed, documented = routed_operations(app), documented_operations(document)
    assert routed - documented == set(), "routes missing from the document"
    assert documented - routed == set(), "documented operations without a route"


def test_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_every_operation_has_a_unique_id_typed_parameters_and_replies(document: dict[str, Any]) -> None:
    parameters = document["components"]["parameters"]
    ids = [op["operationId"] for _, _, op in operations(document)]
    assert len(ids) == len(set(ids))
    for method, path, op in operations(document):
        declared = [parameters[p["$ref"].rsplit("/", 1)[1]] for p in op.get("parameters", [])]
        assert all("type" in p["schema"] for p in declared), (method, path)
        in_path = {p["name"] for p in declared if p["in"] == "path"}
        assert in_path == set(re.findall(r"{(\w+)}", path)), (method, path)
        success = op["responses"].get("200") or op["responses"].get("207") or op["responses"]["204"]
        assert "description" in success
        if ("200" in op["responses"] or "207" in op["responses"]) and path not in ("/metrics",):
            assert set(success["content"]) <= JSON_TYPES, (method, path)
        # Undeletes and a KEK's test read no body, as Confluent's do.
        if method in ("POST", "PUT") and not op["operationId"].startswith(("undelete", "testKek")):
            assert set(op["requestBody"]["content"]) == JSON_TYPES, (method, path)
            assert op["requestBody"]["content"][V1_JSON]["schema"]["$ref"].startswith("#/components/schemas/")
    assert parameters["version"]["schema"]["type"] == "string"
    assert parameters["id"]["schema"] == {"type": "integer", "format": "int32"}


def test_every_error_status_is_an_error_message_in_every_media_type(document: dict[str, Any]) -> None:
    assert document["components"]["schemas"]["ErrorMessage"] == {
        "type": "object",
        "description": "Every failure's body, exactly these two keys (Confluent's ErrorMessage).",
        "required": ["error_code", "message"],
        "additionalProperties": False,
        "properties": {
            "error_code": {"type": "integer", "description": "The HTTP status or a Confluent code such as 40401"},
            "message": {"type": "string"},
        },
    }
    api_paths = (
        "/subjects", "/schemas", "/config", "/mode", "/compatibility", "/contexts", "/v1", "/audit", "/dek-registry",
        "/associations",
    )
    for method, path, op in operations(document):
        errors = {status: reply for status, reply in op["responses"].items() if int(status) >= 400}
        assert "413" in errors, (method, path)
        if path.startswith(api_paths):
            assert {"400", "401", "403", "406"} <= set(errors), (method, path)
            assert set(next(iter(errors.values()))["content"]) == JSON_TYPES
        if method in ("POST", "PUT"):
            assert {"415", "422"} <= set(errors), (method, path)
        for status, reply in errors.items():
            if path == "/health/ready" and status == "503":
                continue
            for media in reply["content"].values():
                assert media["schema"] == {"$ref": "#/components/schemas/ErrorMessage"}, (method, path, status)


def test_security_schemes_and_the_open_operations(document: dict[str, Any]) -> None:
    assert document["components"]["securitySchemes"] == {
        "basicAuth": {"type": "http", "scheme": "basic", "description": "A user of the auth file"},
        "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                       "description": "A token from the identity provider the auth file names"},
        "mutualTLS": {"type": "mutualTLS", "description": "A client certificate (gunicorn verifies it)"},
    }
    assert document["security"] == [{"basicAuth": []}, {"bearerAuth": []}, {"mutualTLS": []}]
    open_operations = {(method, path) for method, path, op in operations(document) if op.get("security") == []}
    assert open_operations == {("GET", "/"), ("GET", "/health/live"), ("GET", "/health/ready"),
                               ("GET", "/metrics"), ("GET", "/openapi.json")}


def test_the_document_is_served_as_the_same_bytes_whatever_accept_says(app: Flask) -> None:
    client = app.test_client()
    first = client.get("/openapi.json")
    again = client.get("/openapi.json", headers={"Accept": V1_JSON})
    assert first.content_type == again.content_type == "application/json"
    assert first.data == again.data


def test_the_document_describes_the_replies_the_server_gives(app: Flask, document: dict[str, Any]) -> None:
    """A few real replies validated against their documented schema (Schemathesis does the rest)."""
    from jsonschema import Draft202012Validator

    client = app.test_client()
    components = {"components": document["components"]}

    def check(method: str, url: str, path: str, body: Any = None) -> None:
        reply = client.open(url, method=method, json=body)
        declared = document["paths"][path][method.lower()]["responses"][str(reply.status_code)]
        schema = declared["content"][reply.content_type]["schema"]
        Draft202012Validator({**schema, **components}).validate(json.loads(reply.data))

    check("POST", "/subjects/s/versions", "/subjects/{subject}/versions", {"schema": '"string"'})
    check("GET", "/subjects/s/versions/latest", "/subjects/{subject}/versions/{version}")
    check("GET", "/schemas/ids/1", "/schemas/ids/{id}")
    check("GET", "/schemas/ids/nope", "/schemas/ids/{id}")
    check("GET", "/config", "/config")
    check("PUT", "/mode", "/mode", {"mode": "NOPE"})
    check("POST", "/compatibility/subjects/s/versions/1", "/compatibility/subjects/{subject}/versions/{version}",
          {"schema": '"int"'})
    check("GET", "/health/live", "/health/live")
