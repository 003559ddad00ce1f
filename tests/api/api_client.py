"""A small client for the registry's HTTP API, on top of Flask's test client.

Tests call `api.register(...)`, `api.versions(...)` and so on and get `Reply` objects back,
so each test reads as the HTTP exchange it pins rather than as request plumbing.
"""
from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from flask.testing import FlaskClient

V1_JSON = "application/vnd.schemaregistry.v1+json"


def enc(subject: str) -> str:
    """Percent-encode a subject the way the Python client does (`safe=''`)."""
    return quote(subject, safe="")


class Reply:
    """Status, parsed JSON body (None when not JSON) and headers of one response."""

    def __init__(self, response: Any) -> None:
        self.status = response.status_code
        self.raw = response.get_data(as_text=True)
        self.headers = response.headers
        try:
            self.json = json.loads(self.raw) if self.raw else None
        except ValueError:
            self.json = None

    @property
    def error_code(self) -> int | None:
        return self.json.get("error_code") if isinstance(self.json, dict) else None

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.raw[:300]}>"


class Api:
    """Thin helpers over the Flask test client; every call returns a `Reply`."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def call(self, method: str, path: str, body: Any = None, *, params: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None, raw: str | bytes | None = None) -> Reply:
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        all_headers = {"Content-Type": V1_JSON} if data is not None else {}
        all_headers.update(headers or {})
        response = self.client.open(path, method=method, data=data, query_string=params, headers=all_headers)
        return Reply(response)

    def get(self, path: str, **params: Any) -> Reply:
        return self.call("GET", path, params=params)

    def delete(self, path: str, **params: Any) -> Reply:
        return self.call("DELETE", path, params=params)

    def post(self, path: str, body: Any, **params: Any) -> Reply:
        return self.call("POST", path, body, params=params)

    def put(self, path: str, body: Any, **params: Any) -> Reply:
        return self.call("PUT", path, body, params=params)

    # -- the calls most tests need ---------------------------------------------------------
    def register(self, subject: str, schema: str | None, **fields: Any) -> Reply:
        """POST /subjects/{s}/versions; `params` in fields become the query string."""
        params = fields.pop("params", None) or {}
        body = {"schema": schema, **fields} if schema is not None else fields
        return self.call("POST", f"/subjects/{enc(subject)}/versions", body, params=params)

    def registered(self, subject: str, schema: str | None, **fields: Any) -> dict[str, Any]:
        """Register and insist on success; returns the reply body."""
        reply = self.register(subject, schema, **fields)
        assert reply.status == 200, reply
        return reply.json

    def versions(self, subject: str, **params: Any) -> Reply:
        return self.get(f"/subjects/{enc(subject)}/versions", **params)

    def version(self, subject: str, version: Any, **params: Any) -> Reply:
        return self.get(f"/subjects/{enc(subject)}/versions/{version}", **params)

    def delete_version(self, subject: str, version: Any, **params: Any) -> Reply:
        return self.delete(f"/subjects/{enc(subject)}/versions/{version}", **params)

    def delete_subject(self, subject: str, **params: Any) -> Reply:
        return self.delete(f"/subjects/{enc(subject)}", **params)

    def set_mode(self, mode: str, subject: str | None = None, **params: Any) -> Reply:
        reply = self.put("/mode" + (f"/{enc(subject)}" if subject else ""), {"mode": mode}, **params)
        assert reply.status == 200, reply
        return reply

    def set_config(self, subject: str | None = None, **body: Any) -> Reply:
        reply = self.put("/config" + (f"/{enc(subject)}" if subject else ""), body)
        assert reply.status == 200, reply
        return reply

    def snapshot(self) -> dict[str, Any]:
        """Everything a failed request must leave untouched, read through the API itself."""
        subjects = self.get("/subjects", deleted="true").json
        state: dict[str, Any] = {
            "subjects": subjects,
            "schemas": self.get("/schemas", deleted="true", subjectPrefix=":*:").json,
            "contexts": self.get("/contexts").json,
            "config": self.get("/config").json,
            "mode": self.get("/mode").json,
        }
        for subject in subjects or []:
            state[f"versions {subject}"] = self.versions(subject, deleted="true").json
            state[f"config {subject}"] = self.get(f"/config/{enc(subject)}").json
            state[f"mode {subject}"] = self.get(f"/mode/{enc(subject)}").json
        return state
