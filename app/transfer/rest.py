"""One registry over REST, as the source or the target of a transfer.

Built on app.client's `Transport` (keep-alive pool, three retries with backoff on connection
errors and 5xx) with what a transfer needs on top: credentials from the URL's userinfo or
from REGISTRY_FROM_AUTH / REGISTRY_TO_AUTH (Basic or bearer), TLS files, the headers that make
Confluent Cloud show its 8.x fields, and subjects percent-encoded with nothing left safe (a
subject may hold `/`, spaces, `%` or any Unicode). Credentials are taken out of the URL at
once, so no message, dump header or error can carry them.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, Mapping
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import urllib3

from app.client.errors import RegistryClientError, RegistryRequestError, RegistryServerError
from app.client.transport import Reply, RetryPolicy, Transport, basic_auth_header, decoded
from app.transfer.errors import TransferError
from app.transfer.replies import DEFAULT_MAX_REPLY_BYTES, a_list, an_object, read_bounded, schema_reply

HEADERS = {
    "Accept": "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json",
    "Confluent-Accept-Unknown-Properties": "true",
    "User-Agent": "sqlregistry-transfer/1",
}


@dataclass(frozen=True)
class Endpoint:
    """Where a registry is and how to reach it; `url` never holds credentials."""

    url: str
    authorization: str | None = None
    ca: str | None = None
    cert: str | None = None
    key: str | None = None


def endpoint(raw_url: str, side: str, ca: str | None = None, cert: str | None = None,
             key: str | None = None) -> Endpoint:
    """The endpoint for `--from`/`--to`; `side` ("FROM"/"TO") names the auth variable."""
    parts = urlsplit(raw_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TransferError(f"--{side.lower()} must be an http:// or https:// URL, got {_redact(raw_url)!r}")
    authorization = None
    if parts.username is not None:
        authorization = basic_auth_header((unquote(parts.username), unquote(parts.password or "")))
    variable = f"REGISTRY_{side}_AUTH"
    configured = os.environ.get(variable)
    if configured:
        kind, _, secret = configured.partition(":")
        if kind == "basic" and ":" in secret:
            authorization = basic_auth_header(secret)
        elif kind == "bearer" and secret:
            authorization = f"Bearer {secret}"
        else:
            raise TransferError(f"{variable} must be basic:USER:PASSWORD or bearer:TOKEN")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    clean = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    if (cert is None) != (key is None) and key is not None:
        raise TransferError(f"--{side.lower()}-key needs --{side.lower()}-cert")
    return Endpoint(clean, authorization, ca, cert, key)


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.username is None:
        return url
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, ""))


def subject_path(subject: str) -> str:
    return quote(subject, safe="")


class RestRegistry(Transport):
    """The REST calls a transfer makes; 4xx answers the caller expects come back as None.

    Every reply is read up to `max_reply_bytes` and checked for the shape its call expects
    (app/transfer/replies.py); `side` names the registry in those messages ("the target's
    reply to GET /subjects ..."). `fence`, when given, is called before every write and
    raises to stop it (the exporters' lease, app/server/runners/exporters.py)."""

    def __init__(self, where: Endpoint, pool_size: int = 16, timeout: float = 30.0, *, side: str = "registry",
                 max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES, fence: Callable[[], None] | None = None) -> None:
        self.where = where
        super().__init__([where.url], timeout=timeout, policy=RetryPolicy(retries=3, backoff=0.2),
                         pool_size=pool_size)
        self._headers = dict(HEADERS)
        if where.authorization:
            self._headers["Authorization"] = where.authorization
        self.requests = 0
        self.side = side
        self.max_reply_bytes = max_reply_bytes
        self.fence = fence

    def _send(self, method: str, url: str, headers: Mapping[str, str], payload: bytes | None) -> Reply:
        """One attempt, its reply read up to the byte limit, within three timeouts in all
        (each read also within one: a reply that trickles cannot hold a transfer forever)."""
        deadline = time.monotonic() + 3 * self.timeout
        response = self._pool.request(method, url, body=payload, headers=headers, redirect=False,
                                      preload_content=False)
        try:
            data = read_bounded(response, self.max_reply_bytes, deadline, self._what(method, url))
        finally:
            response.release_conn()
        return decoded(response.status, data)

    def _what(self, method: str, url: str) -> str:
        path = url[len(self.where.url):] if url.startswith(self.where.url) else url
        return f"the {self.side}'s reply to {method} {path.partition('?')[0]}"

    def _write(self, method: str, path: str, query: Mapping[str, Any] | None = None, body: Any = None,
               missing: frozenset[int] = frozenset()) -> Any:
        if self.fence is not None:
            self.fence()
        return self.call(method, path, query, body=body, missing=missing)

    def _new_pool(self) -> urllib3.PoolManager:
        tls: dict[str, Any] = {}
        if self.where.ca:
            tls["ca_certs"] = self.where.ca
        if self.where.cert:
            tls["cert_file"], tls["key_file"] = self.where.cert, self.where.key
        return urllib3.PoolManager(num_pools=4, maxsize=self.pool_size, block=False, retries=False,
                                   timeout=urllib3.Timeout(connect=self.timeout, read=self.timeout), **tls)

    def call(self, method: str, path: str, query: Mapping[str, Any] | None = None, body: Any = None,
             missing: frozenset[int] = frozenset()) -> Any:
        """The decoded answer; None for a 404/422 whose error_code is in `missing`;
        TransferError (naming the request, never the credentials) for anything else."""
        self.requests += 1
        try:
            return self.request(method, path, query=query, body=body)
        except RegistryRequestError as exc:
            if exc.error_code in missing or exc.http_status in missing:
                return None
            raise TransferError(f"{method} {self.where.url}{path}: {exc}") from None
        except RegistryServerError as exc:
            raise TransferError(f"{method} {self.where.url}{path}: {exc} (after {self.policy.retries} retries)") from None
        except RegistryClientError as exc:  # unreachable: the message names the request already
            raise TransferError(str(exc)) from None

    # ------------------------------------------------------------------ reads
    def server_version(self) -> str | None:
        body = self.call("GET", "/v1/metadata/version", missing=frozenset({404, 40401, 401, 403}))
        return body.get("version") if isinstance(body, dict) else None

    def contexts(self) -> list[str] | None:
        """None when the registry has no contexts endpoint (only the default context)."""
        body = self.call("GET", "/contexts", missing=frozenset({404, 405}))
        return None if body is None else a_list(body, self._what("GET", "/contexts"))

    def subjects(self, deleted: bool = True) -> list[str]:
        return a_list(self.call("GET", "/subjects", {"deleted": deleted}), self._what("GET", "/subjects"))

    def versions(self, subject: str, deleted: bool) -> list[int]:
        path = f"/subjects/{subject_path(subject)}/versions"
        body = self.call("GET", path, {"deleted": deleted}, missing=frozenset({40401}))
        return sorted(a_list(body, self._what("GET", path), int)) if body is not None else []

    def version(self, subject: str, version: int) -> dict[str, Any] | None:
        """The version of exactly this subject: a registry with contexts answers a plain name
        it lacks from another context (`:.ctx:name`), which must count as absent here."""
        path = f"/subjects/{subject_path(subject)}/versions/{version}"
        body = self.call("GET", path, {"deleted": True}, missing=frozenset({40401, 40402}))
        if body is None:
            return None
        body = schema_reply(body, self._what("GET", path), with_id=True)
        return body if body.get("subject", subject) == subject else None

    def schema_by_id(self, schema_id: int, context: str, max_id: bool = False) -> dict[str, Any] | None:
        query: dict[str, Any] = {"fetchMaxId": True} if max_id else {}
        if context != ".":
            query["subject"] = f":{context}:"
        path = f"/schemas/ids/{schema_id}"
        body = self.call("GET", path, query, missing=frozenset({40403, 404}))
        return None if body is None else schema_reply(body, self._what("GET", path), with_id=False)

    def schema_types(self) -> list[str]:
        body = self.call("GET", "/schemas/types", missing=frozenset({404}))
        return ["AVRO"] if body is None else a_list(body, self._what("GET", "/schemas/types"))

    def config(self, scope: str | None) -> dict[str, Any] | None:
        """The stored config of a subject or `:.ctx:` (None: nothing stored), or the global one."""
        path = "/config" if scope is None else f"/config/{subject_path(scope)}"
        body = self.call("GET", path, missing=frozenset({40408, 40401, 404}))
        return None if body is None else an_object(body, self._what("GET", path))

    def mode(self, scope: str | None) -> str | None:
        path = "/mode" if scope is None else f"/mode/{subject_path(scope)}"
        body = self.call("GET", path, missing=frozenset({40409, 40401, 404}))
        return None if body is None else an_object(body, self._what("GET", path), {"mode": str})["mode"]

    def lookup(self, subject: str, body: dict[str, Any]) -> dict[str, Any] | None:
        path = f"/subjects/{subject_path(subject)}"
        found = self.call("POST", path, {"deleted": True}, body=body, missing=frozenset({40401, 40403, 42201, 404}))
        if found is None:
            return None
        found = an_object(found, self._what("POST", path), {"id": int, "version": int}, {"subject": str})
        return found if found.get("subject", subject) == subject else None

    # ------------------------------------------------------------------ writes
    def register(self, subject: str, body: dict[str, Any]) -> dict[str, Any]:
        path = f"/subjects/{subject_path(subject)}/versions"
        return an_object(self._write("POST", path, body=body), self._what("POST", path), {"id": int})

    def delete_version(self, subject: str, version: int, permanent: bool = False) -> None:
        self._write("DELETE", f"/subjects/{subject_path(subject)}/versions/{version}", {"permanent": permanent})

    def put_config(self, scope: str | None, config: dict[str, Any]) -> None:
        path = "/config" if scope is None else f"/config/{subject_path(scope)}"
        self._write("PUT", path, body=config)

    def put_mode(self, scope: str | None, mode: str, force: bool = True) -> None:
        path = "/mode" if scope is None else f"/mode/{subject_path(scope)}"
        self._write("PUT", path, {"force": force}, body={"mode": mode})

    def delete_mode(self, scope: str) -> None:
        self._write("DELETE", f"/mode/{subject_path(scope)}", missing=frozenset({40401, 40409}))
