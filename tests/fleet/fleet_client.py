"""A JSON-over-HTTP client for the fleet tests: one keep-alive session per thread, retries
left to the caller (the tests decide what a retry may do)."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

import requests

V1_JSON = "application/vnd.schemaregistry.v1+json"
_local = threading.local()


@dataclass
class Reply:
    status: int
    body: Any
    seconds: float

    @property
    def error_code(self) -> int | None:
        return self.body.get("error_code") if isinstance(self.body, dict) else None


def call(base: str, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Reply:
    session = getattr(_local, "session", None)
    if session is None:
        session = _local.session = requests.Session()
    started = time.monotonic()
    try:
        response = session.request(method, base + path, data=None if body is None else json.dumps(body),
                                    headers={"Content-Type": V1_JSON}, timeout=timeout)
        try:
            payload = response.json()
        except ValueError:
            payload = response.text
    except requests.RequestException:
        # No (complete) answer: refused, reset, or cut off mid-body by an instance that died
        # after nginx had passed its headers on (nginx cannot retry once it has answered).
        _local.session = None
        return Reply(0, None, time.monotonic() - started)
    return Reply(response.status_code, payload, time.monotonic() - started)


def record(name: str, *extra: str) -> str:
    """An Avro record; each extra optional field keeps every two of them BACKWARD-compatible."""
    fields = [{"name": "id", "type": "long"}] + [{"name": f, "type": ["null", "string"], "default": None} for f in extra]
    return json.dumps({"type": "record", "name": name, "fields": fields})


def retried(base: str, method: str, path: str, body: Any = None, attempts: int = 20) -> Reply:
    """A request retried as a client library retries (no answer, 502/503/504, 5xx store
    errors) until it gets an answer that is not a failure of the server side."""
    reply = Reply(0, None, 0.0)
    for _ in range(attempts):
        reply = call(base, method, path, body)
        if 200 <= reply.status < 500:
            return reply
        time.sleep(0.1)
    return reply


def register(base: str, subject: str, schema: str, attempts: int = 20) -> Reply:
    """Register with retries: registering the same schema again is idempotent."""
    return retried(base, "POST", f"/subjects/{subject}/versions", {"schema": schema}, attempts)


def metric(base: str, prefix: str) -> float:
    """The sum of an instance's /metrics samples whose line starts with `prefix`."""
    text = requests.get(base + "/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))
