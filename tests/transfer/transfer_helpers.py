"""What the transfer tests share: the CLI in a child process, the source history the issue
lists, and a REST snapshot of everything a registry shows (so two can be compared)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any
from urllib.parse import quote

import requests

from support.commands import GENEROUS_SECONDS, run_command
from support.live import REPO_ROOT

JSON = {"Content-Type": "application/vnd.schemaregistry.v1+json"}


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = GENEROUS_SECONDS
) -> subprocess.CompletedProcess[str]:
    """`sqlregistry ARGS` in a child process, as an operator runs it (stderr is a pipe)."""
    return run_command(
        [sys.executable, "-m", "app.cli", *args], cwd=REPO_ROOT, capture_output=True, text=True,
        env={**os.environ, **(env or {})}, timeout=timeout,
    )


def seg(subject: str) -> str:
    return quote(subject, safe="")


class Rest:
    """Plain HTTP to one registry; every call asserts success unless `ok` says otherwise."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = requests.Session()

    def call(self, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200,), **params: Any) -> Any:
        reply = self.http.request(method, self.url + path, params=params or None,
                                  data=None if body is None else json.dumps(body), headers=JSON, timeout=30)
        assert reply.status_code in ok, f"{method} {path}: {reply.status_code} {reply.text}"
        return reply.json() if reply.content else None

    def register(self, subject: str, schema: str, **fields: Any) -> dict[str, Any]:
        return self.call("POST", f"/subjects/{seg(subject)}/versions", {"schema": schema, **fields})

    def delete_version(self, subject: str, version: int, permanent: bool = False) -> None:
        self.call("DELETE", f"/subjects/{seg(subject)}/versions/{version}", permanent=str(permanent).lower())

    def config(self, scope: str | None, **config: Any) -> None:
        self.call("PUT", "/config" if scope is None else f"/config/{seg(scope)}", config)

    def mode(self, scope: str | None, mode: str) -> None:
        self.call("PUT", "/mode" if scope is None else f"/mode/{seg(scope)}", {"mode": mode}, force="true")


def record(name: str, *fields: tuple[str, str]) -> str:
    return json.dumps({"type": "record", "name": name, "namespace": "com.acme",
                       "fields": [{"name": n, "type": t} for n, t in fields]})


ODD_SUBJECT = "team/a b/ünïcødé-value"


def build_history(url: str) -> dict[str, Any]:
    """A source history with the cases a transfer must keep (shared ids, version gaps, soft deletes,
    references, metadata, three formats, a second context) on the registry at `url`; returns facts
    the tests check."""
    r = Rest(url)
    r.config(None, compatibility="NONE")
    shared = record("Order", ("id", "string"))
    first = r.register("orders-value", shared)
    copy = r.register("orders-copy", shared)
    assert first["id"] == copy["id"]
    r.register("orders-value", record("Order", ("id", "string"), ("qty", "int")))
    # Gaps: version 2 hard-deleted.
    for n in range(3):
        r.register("gaps", record("Gap", *[(f"f{i}", "int") for i in range(n + 1)]))
    r.delete_version("gaps", 2)
    r.delete_version("gaps", 2, permanent=True)
    # Soft-deleted versions, and a fully soft-deleted subject that keeps its config.
    r.register("soft", record("Soft", ("a", "int")))
    r.register("soft", record("Soft", ("a", "int"), ("b", "int")))
    r.delete_version("soft", 1)
    r.register("retired", record("Retired", ("a", "long")))
    r.config("retired", compatibility="FULL")
    r.call("DELETE", f"/subjects/{seg('retired')}")
    # References two deep.
    r.register("money", record("Money", ("cents", "long")))
    r.register("price", record("Price", ("amount", "com.acme.Money")),
               references=[{"name": "com.acme.Money", "subject": "money", "version": 1}])
    r.register("order-line", record("Line", ("price", "com.acme.Price")),
               references=[{"name": "com.acme.Price", "subject": "price", "version": 1}])
    # Metadata and a rule set.
    r.register("governed", record("Governed", ("a", "int")),
               metadata={"properties": {"owner": "team-a"}},
               ruleSet={"domainRules": [{"name": "positive", "kind": "CONDITION", "mode": "WRITE",
                                         "type": "CEL", "expr": "message.a > 0"}]})
    # Three formats; odd subject names; a second context.
    r.register("json-value", json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}}),
               schemaType="JSON")
    r.register("proto-value", 'syntax = "proto3";\npackage acme;\nmessage Ping { int32 n = 1; }\n',
               schemaType="PROTOBUF")
    r.register(ODD_SUBJECT, record("Odd", ("x", "string")))
    r.config(":.staging:", compatibility="NONE", normalize=True)
    r.register(":.staging:orders-value", record("Order", ("id", "string")))
    r.register(":.staging:orders-value", record("Order", ("id", "string"), ("note", "string")))
    # The highest id of the default context, hard-deleted.
    last = r.register("last", record("Last", ("z", "int")))
    r.call("DELETE", f"/subjects/{seg('last')}")
    r.call("DELETE", f"/subjects/{seg('last')}", permanent="true")
    # Configs and modes at every level (set last: READONLY would stop the writes above).
    r.config(None, compatibility="FORWARD")
    r.config("orders-value", compatibility="FULL")
    r.config(ODD_SUBJECT, compatibility="BACKWARD_TRANSITIVE")
    r.mode(":.staging:", "READONLY")
    r.mode("money", "READONLY")
    return {"max_id": last["id"]}


def snapshot(url: str) -> dict[str, Any]:
    """Everything a REST client sees, minus the store times (`ts`)."""
    r = Rest(url)
    contexts = r.call("GET", "/contexts")
    out: dict[str, Any] = {"contexts": contexts, "config": r.call("GET", "/config"), "mode": r.call("GET", "/mode")}
    for context in contexts:
        if context != ".":
            scope = seg(f":{context}:")
            out[f"config {context}"] = r.call("GET", f"/config/{scope}", ok=(200, 404))
            out[f"mode {context}"] = r.call("GET", f"/mode/{scope}", ok=(200, 404))
    subjects = r.call("GET", "/subjects", deleted="true")
    out["subjects"] = subjects
    out["live subjects"] = r.call("GET", "/subjects")
    for subject in subjects:
        s = seg(subject)
        every = r.call("GET", f"/subjects/{s}/versions", deleted="true")
        entry: dict[str, Any] = {"all": every, "live": r.call("GET", f"/subjects/{s}/versions", ok=(200, 404))}
        for v in every:
            body = r.call("GET", f"/subjects/{s}/versions/{v}", deleted="true")
            body.pop("ts", None)
            entry[v] = body
        entry["config"] = r.call("GET", f"/config/{s}", ok=(200, 404))
        entry["mode"] = r.call("GET", f"/mode/{s}", ok=(200, 404))
        out[subject] = entry
    return out
