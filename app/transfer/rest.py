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
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import urllib3

from app.client.errors import RegistryClientError, RegistryRequestError, RegistryServerError
from app.client.transport import RetryPolicy, Transport, basic_auth_header
from app.transfer.errors import TransferError

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
    """The REST calls a transfer makes; 4xx answers the caller expects come back as None."""

    def __init__(self, where: Endpoint, pool_size: int = 16, timeout: float = 30.0) -> None:
        self.where = where
        super().__init__([where.url], timeout=timeout, policy=RetryPolicy(retries=3, backoff=0.2),
                         pool_size=pool_size)
        self._headers = dict(HEADERS)
        if where.authorization:
            self._headers["Authorization"] = where.authorization
        self.requests = 0

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
            raise TransferError(f"{self.where.url}: {exc}") from None

    # ------------------------------------------------------------------ reads
    def server_version(self) -> str | None:
        body = self.call("GET", "/v1/metadata/version", missing=frozenset({404, 40401, 401, 403}))
        return body.get("version") if isinstance(body, dict) else None

    def contexts(self) -> list[str] | None:
        """None when the registry has no contexts endpoint (only the default context)."""
        body = self.call("GET", "/contexts", missing=frozenset({404, 405}))
        return None if body is None else [str(c) for c in body]

    def subjects(self, deleted: bool = True) -> list[str]:
        return list(self.call("GET", "/subjects", {"deleted": deleted}))

    def versions(self, subject: str, deleted: bool) -> list[int]:
        body = self.call("GET", f"/subjects/{subject_path(subject)}/versions", {"deleted": deleted},
                         missing=frozenset({40401}))
        return sorted(int(v) for v in body or ())

    def version(self, subject: str, version: int) -> dict[str, Any] | None:
        """The version of exactly this subject: a registry with contexts answers a plain name
        it lacks from another context (`:.ctx:name`), which must count as absent here."""
        body = self.call("GET", f"/subjects/{subject_path(subject)}/versions/{version}", {"deleted": True},
                         missing=frozenset({40401, 40402}))
        return body if body is None or body.get("subject", subject) == subject else None

    def schema_by_id(self, schema_id: int, context: str, max_id: bool = False) -> dict[str, Any] | None:
        query: dict[str, Any] = {"fetchMaxId": True} if max_id else {}
        if context != ".":
            query["subject"] = f":{context}:"
        return self.call("GET", f"/schemas/ids/{schema_id}", query, missing=frozenset({40403, 404}))

    def schema_types(self) -> list[str]:
        body = self.call("GET", "/schemas/types", missing=frozenset({404}))
        return ["AVRO"] if body is None else [str(t) for t in body]

    def config(self, scope: str | None) -> dict[str, Any] | None:
        """The stored config of a subject or `:.ctx:` (None: nothing stored), or the global one."""
        path = "/config" if scope is None else f"/config/{subject_path(scope)}"
        return self.call("GET", path, missing=frozenset({40408, 40401, 404}))

    def mode(self, scope: str | None) -> str | None:
        path = "/mode" if scope is None else f"/mode/{subject_path(scope)}"
        body = self.call("GET", path, missing=frozenset({40409, 40401, 404}))
        return None if body is None else body.get("mode")

    def lookup(self, subject: str, body: dict[str, Any]) -> dict[str, Any] | None:
        found = self.call("POST", f"/subjects/{subject_path(subject)}", {"deleted": True}, body=body,
                          missing=frozenset({40401, 40403, 42201, 404}))
        return found if found is None or found.get("subject", subject) == subject else None

    # ------------------------------------------------------------------ writes
    def register(self, subject: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.call("POST", f"/subjects/{subject_path(subject)}/versions", body=body)

    def delete_version(self, subject: str, version: int, permanent: bool = False) -> None:
        self.call("DELETE", f"/subjects/{subject_path(subject)}/versions/{version}", {"permanent": permanent})

    def put_config(self, scope: str | None, config: dict[str, Any]) -> None:
        path = "/config" if scope is None else f"/config/{subject_path(scope)}"
        self.call("PUT", path, body=config)

    def put_mode(self, scope: str | None, mode: str, force: bool = True) -> None:
        path = "/mode" if scope is None else f"/mode/{subject_path(scope)}"
        self.call("PUT", path, {"force": force}, body={"mode": mode})

    def delete_mode(self, scope: str) -> None:
        self.call("DELETE", f"/mode/{subject_path(scope)}", missing=frozenset({40401, 40409}))
