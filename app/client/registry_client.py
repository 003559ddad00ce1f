"""`RegistryClient`: the registry's REST calls, with the caches that make serializers cheap.

What is cached, and for how long, follows what can change on the server:

- forever: id -> schema, (subject, schema) -> registered id and version (register and lookup
  answers), (subject, numbered version) -> schema, fingerprint -> schema. A schema read in
  another rendering (`format="serialized"`, the base64 `FileDescriptorProto` Protobuf readers
  build descriptors from) is cached under that format too. Ids are never
  reused and a stored schema never changes, so these need no expiry. Deleting a subject or
  version through this client drops that subject's entries, since re-registering it after a
  delete must reach the server again.
- `cache_ttl` seconds (default 30): the latest version of a subject and configs, which other
  clients may change at any time. 0 turns this off.

Concurrent misses on one key make one request (see `app.client.cache`), so a thread pool of
serializers warming up on five schemas costs five requests, not five per thread.

Thread safety: one client may be shared by every thread of a process. Fork safety: the
HTTP pool is replaced in a forked child (Spark's Python workers fork) and the caches' locks
are renewed; the cached values, all immutable, are kept. A client can also be pickled: the
copy has the same URLs and settings and empty caches.
"""
from __future__ import annotations

import os
import weakref
from typing import Any, Mapping, Sequence
from urllib.parse import quote, urlsplit

from app.client.cache import OnceCache, TtlCache
from app.fingerprinting.fingerprint import Fingerprint
from app.client.records import (
    CompatibilityResult,
    Config,
    RegisteredSchema,
    Schema,
    SubjectVersion,
)
from app.client.transport import MAX_REPLY_BYTES, RetryPolicy, Transport

_LIVE: weakref.WeakSet[RegistryClient] = weakref.WeakSet()
LATEST = "latest"


def _segment(text: str) -> str:
    """A path segment, `/` included, percent-encoded as the registry expects."""
    return quote(text, safe="")


def _as_schema(schema: Schema | str) -> Schema:
    return Schema(schema) if isinstance(schema, str) else schema


def _default_context(subject: str | None) -> bool:
    """Whether ids found under `subject` are ids of the default context (an unqualified id
    lookup means the default context, so only those may fill the id cache's plain entries)."""
    return subject is None or not subject.startswith(":.")


class RegistryClient:
    """A client of one registry (or several URLs of one fleet, tried in turn).

    `urls`: one URL, a comma-separated string of them, or a sequence. `auth`:
    ("user", "password") or "user:password" for HTTP Basic; or `bearer_token`, sent as
    `Authorization: Bearer ...` (a token from the registry's identity provider). `timeout`: seconds per attempt for
    connecting and for each read. `retries`: extra rounds over all URLs after a connection
    failure, timeout or 5xx answer (never after a 4xx).
    """

    def __init__(
        self,
        urls: str | Sequence[str],
        auth: str | tuple[str, str] | None = None,
        timeout: float = 10.0,
        retries: int = 3,
        *,
        backoff: float = 0.1,
        backoff_max: float = 2.0,
        cache_ttl: float = 30.0,
        pool_size: int = 16,
        bearer_token: str | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        url_list = [url.strip() for url in urls.split(",")] if isinstance(urls, str) else list(urls)
        for url in url_list:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(f"a registry URL starts with http:// or https:// and names a host, got {url!r}")
        self._options: dict[str, Any] = dict(
            urls=url_list, auth=auth, timeout=timeout, retries=retries, backoff=backoff,
            backoff_max=backoff_max, cache_ttl=cache_ttl, pool_size=pool_size, bearer_token=bearer_token,
            max_reply_bytes=max_reply_bytes,
        )
        self.transport = Transport(url_list, auth=auth, bearer_token=bearer_token, timeout=timeout,
                                   pool_size=pool_size, policy=RetryPolicy(retries, backoff, backoff_max),
                                   max_reply_bytes=max_reply_bytes)
        self._schemas: OnceCache[tuple[int, str | None, str | None], Schema] = OnceCache()
        self._registered: OnceCache[tuple[str, Schema, bool], RegisteredSchema] = OnceCache()
        self._looked_up: OnceCache[tuple[str, Schema, bool], RegisteredSchema] = OnceCache()
        self._versions: OnceCache[tuple[str, int, str | None], RegisteredSchema] = OnceCache()
        self._fingerprints: OnceCache[Fingerprint, RegisteredSchema] = OnceCache()
        self._latest: TtlCache[str, RegisteredSchema] = TtlCache(cache_ttl)
        self._configs: TtlCache[tuple[str | None, bool], Config] = TtlCache(cache_ttl)
        _LIVE.add(self)

    @property
    def urls(self) -> tuple[str, ...]:
        return self.transport.urls

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles settings (credentials included), never connections or cached answers."""
        return (_rebuild, (dict(self._options),))

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> RegistryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, path: str, query: dict[str, Any] | None = None, body: Any = None) -> Any:
        return self.transport.request(method, path, query=query, body=body)

    def _after_fork_in_child(self) -> None:
        for cache in (self._schemas, self._registered, self._looked_up, self._versions, self._fingerprints,
                      self._latest, self._configs):
            cache.reset_locks()

    # ------------------------------------------------------------------ schemas by id / fingerprint
    def get_schema(self, schema_id: int, subject: str | None = None, *, format: str | None = None) -> Schema:
        """The schema behind a global id (cached forever). `subject` is a context hint;
        `format` asks for another rendering (Protobuf: `serialized`)."""
        return self._schemas.get((schema_id, subject, format), lambda: self._fetch_schema(schema_id, subject, format))

    def _fetch_schema(self, schema_id: int, subject: str | None, format: str | None) -> Schema:
        return Schema.from_json(self._call("GET", f"/schemas/ids/{int(schema_id)}",
                                           {"subject": subject, "format": format}))

    def get_schema_by_fingerprint(self, fingerprint: Fingerprint) -> RegisteredSchema:
        """The Avro schema whose Parsing Canonical Form has this fingerprint (an extension of
        sqlregistry, `GET /schemas/fingerprints/{hex}?algorithm=`), cached forever."""
        return self._fingerprints.get(fingerprint, lambda: self._fetch_by_fingerprint(fingerprint))

    def _fetch_by_fingerprint(self, fingerprint: Fingerprint) -> RegisteredSchema:
        body = self._call("GET", f"/schemas/fingerprints/{fingerprint.hex}", {"algorithm": fingerprint.algorithm})
        found = RegisteredSchema.from_json(body)
        self._schemas.put((found.schema_id, None, None), found.schema)
        return found

    def get_schema_types(self) -> list[str]:
        return list(self._call("GET", "/schemas/types"))

    def get_subjects_for_id(self, schema_id: int, *, deleted: bool = False) -> list[str]:
        return list(self._call("GET", f"/schemas/ids/{int(schema_id)}/subjects", {"deleted": deleted or None}))

    def get_versions_for_id(self, schema_id: int, *, deleted: bool = False) -> list[SubjectVersion]:
        body = self._call("GET", f"/schemas/ids/{int(schema_id)}/versions", {"deleted": deleted or None})
        return [SubjectVersion(item["subject"], int(item["version"])) for item in body]

    # ------------------------------------------------------------------ register and look up
    def register(self, subject: str, schema: Schema | str, *, normalize: bool = False) -> RegisteredSchema:
        """Register `schema` under `subject` (or find it already there); cached forever."""
        schema = _as_schema(schema)
        return self._registered.get((subject, schema, normalize), lambda: self._register(subject, schema, normalize))

    def _register(self, subject: str, schema: Schema, normalize: bool) -> RegisteredSchema:
        body = self._call("POST", f"/subjects/{_segment(subject)}/versions", {"normalize": normalize},
                          schema.request_body())
        # A 7.x reply is just {"id": N}: the schema we sent is the schema behind N (unless the
        # server normalized it, in which case the id's own text is fetched when needed).
        registered = RegisteredSchema.from_json(body, None if normalize else schema)
        registered = RegisteredSchema(registered.schema_id, registered.schema, registered.subject or subject,
                                      registered.version)
        self._remember(registered, subject)
        return registered

    def lookup(
        self, subject: str, schema: Schema | str, *, normalize: bool = False, deleted: bool = False
    ) -> RegisteredSchema:
        """The version of `subject` holding `schema`: 40401 if the subject is unknown, 40403 if
        the schema is not among its versions. Cached forever unless `deleted` is asked for."""
        schema = _as_schema(schema)
        if deleted:
            return self._lookup(subject, schema, normalize, True)
        key = (subject, schema, normalize)
        return self._looked_up.get(key, lambda: self._lookup(subject, schema, normalize, False))

    def _lookup(self, subject: str, schema: Schema, normalize: bool, deleted: bool) -> RegisteredSchema:
        body = self._call("POST", f"/subjects/{_segment(subject)}", {"normalize": normalize, "deleted": deleted},
                          schema.request_body())
        found = RegisteredSchema.from_json(body)
        self._remember(found, subject)
        return found

    def _remember(self, registered: RegisteredSchema, subject: str, format: str | None = None) -> None:
        if _default_context(subject) and registered.schema.text:
            self._schemas.put((registered.schema_id, None, format), registered.schema)

    # ------------------------------------------------------------------ subjects and versions
    def get_subjects(self, *, prefix: str | None = None, deleted: bool = False) -> list[str]:
        return list(self._call("GET", "/subjects", {"subjectPrefix": prefix, "deleted": deleted}))

    def get_versions(self, subject: str, *, deleted: bool = False) -> list[int]:
        return [int(v) for v in self._call("GET", f"/subjects/{_segment(subject)}/versions", {"deleted": deleted})]

    def get_version(
        self, subject: str, version: int | str, *, deleted: bool = False, format: str | None = None
    ) -> RegisteredSchema:
        """A numbered version (cached forever) or `latest` (cached `cache_ttl` seconds);
        `format` asks for another rendering of its schema (Protobuf: `serialized`)."""
        if str(version).strip().lower() in (LATEST, "-1"):
            if format is not None:
                return self._fetch_version(subject, LATEST, deleted, format)
            return self.get_latest_version(subject)
        try:
            number = int(version)
        except (TypeError, ValueError):  # not a version: let the registry say so (42202)
            return self._fetch_version(subject, _segment(str(version)), deleted, format)
        if deleted:
            return self._fetch_version(subject, number, True, format)
        return self._versions.get((subject, number, format),
                                  lambda: self._fetch_version(subject, number, False, format))

    def get_latest_with_metadata(
        self, subject: str, metadata: Mapping[str, str], *, deleted: bool = False, format: str | None = None
    ) -> RegisteredSchema:
        """The latest version of `subject` whose metadata properties hold every pair of
        `metadata` (`GET /subjects/{s}/metadata?key=k&value=v...`); not cached, since a newer
        matching version may be registered at any time."""
        keys = list(metadata)
        body = self._call("GET", f"/subjects/{_segment(subject)}/metadata", {
            "key": keys, "value": [metadata[key] for key in keys], "deleted": deleted or None, "format": format})
        found = RegisteredSchema.from_json(body)
        self._remember(found, subject, format)
        return found

    def get_latest_version(self, subject: str) -> RegisteredSchema:
        return self._latest.get(subject, lambda: self._fetch_version(subject, LATEST, False))

    def _fetch_version(
        self, subject: str, version: int | str, deleted: bool, format: str | None = None
    ) -> RegisteredSchema:
        body = self._call("GET", f"/subjects/{_segment(subject)}/versions/{version}",
                          {"deleted": deleted or None, "format": format})
        found = RegisteredSchema.from_json(body)
        self._remember(found, subject, format)
        return found

    def get_referenced_by(self, subject: str, version: int | str) -> list[int]:
        return [int(i) for i in self._call("GET", f"/subjects/{_segment(subject)}/versions/{version}/referencedby")]

    def delete_subject(self, subject: str, *, permanent: bool = False) -> list[int]:
        try:
            return [int(v) for v in self._call("DELETE", f"/subjects/{_segment(subject)}", {"permanent": permanent})]
        finally:
            self._forget_subject(subject)

    def delete_version(self, subject: str, version: int | str, *, permanent: bool = False) -> int:
        try:
            return int(self._call("DELETE", f"/subjects/{_segment(subject)}/versions/{version}",
                                  {"permanent": permanent}))
        finally:
            self._forget_subject(subject)

    def _forget_subject(self, subject: str) -> None:
        self._registered.discard(lambda key: key[0] == subject)
        self._looked_up.discard(lambda key: key[0] == subject)
        self._versions.discard(lambda key: key[0] == subject)
        self._latest.discard(lambda key: key == subject)

    # ------------------------------------------------------------------ compatibility
    def test_compatibility(
        self,
        subject: str,
        schema: Schema | str,
        version: int | str | None = None,
        *,
        normalize: bool = False,
        verbose: bool = False,
    ) -> CompatibilityResult:
        """Check `schema` as registration would (`version` None: against every version the
        subject's level names) or against one version (`latest` or a number)."""
        path = f"/compatibility/subjects/{_segment(subject)}/versions"
        if version is not None:
            path += f"/{version}"
        body = self._call("POST", path, {"normalize": normalize, "verbose": verbose}, _as_schema(schema).request_body())
        return CompatibilityResult(bool(body.get("is_compatible")), tuple(str(m) for m in body.get("messages") or ()))

    def check_policies(self, subject: str, schema: Schema | str) -> dict[str, Any]:
        """`POST /policies/{s}/check`: the subject's schema policies on `schema` (our extension);
        the reply as the registry gives it (`violations`, `checked`, `skipped`)."""
        body = self._call("POST", f"/policies/{_segment(subject)}/check", None, _as_schema(schema).request_body())
        return dict(body)

    # ------------------------------------------------------------------ config
    def get_config(self, subject: str | None = None, *, default_to_global: bool = False) -> Config:
        """A subject's own config (40408 if it has none, unless `default_to_global`), or the
        global one; cached `cache_ttl` seconds."""
        return self._configs.get((subject, default_to_global), lambda: Config.from_json(
            self._call("GET", self._config_path(subject), {"defaultToGlobal": default_to_global or None})))

    def get_compatibility_level(self, subject: str | None = None) -> str | None:
        """The level that governs `subject` (or the global level)."""
        return self.get_config(subject, default_to_global=True).compatibility_level

    def set_config(
        self, subject: str | None = None, *, compatibility: str | None = None, normalize: bool | None = None,
        **fields: Any,
    ) -> Config:
        """Set config fields (absent ones keep their stored value); `fields` takes any other
        key of Confluent's ConfigUpdateRequest as is (e.g. `alias`, `defaultMetadata`)."""
        body = dict(fields)
        if compatibility is not None:
            body["compatibility"] = compatibility
        if normalize is not None:
            body["normalize"] = normalize
        try:
            return Config.from_json(self._call("PUT", self._config_path(subject), body=body))
        finally:
            self._configs.discard(lambda key: True)

    def delete_config(self, subject: str | None = None) -> Config:
        try:
            return Config.from_json(self._call("DELETE", self._config_path(subject)))
        finally:
            self._configs.discard(lambda key: True)

    @staticmethod
    def _config_path(subject: str | None) -> str:
        return "/config" if subject is None else f"/config/{_segment(subject)}"

    # ------------------------------------------------------------------ mode and contexts
    def get_mode(self, subject: str | None = None, *, default_to_global: bool = False) -> str:
        path = "/mode" if subject is None else f"/mode/{_segment(subject)}"
        return str(self._call("GET", path, {"defaultToGlobal": default_to_global or None})["mode"])

    def set_mode(self, mode: str, subject: str | None = None, *, force: bool = False) -> str:
        path = "/mode" if subject is None else f"/mode/{_segment(subject)}"
        return str(self._call("PUT", path, {"force": force or None}, {"mode": mode})["mode"])

    def delete_mode(self, subject: str | None = None) -> str:
        path = "/mode" if subject is None else f"/mode/{_segment(subject)}"
        return str(self._call("DELETE", path)["mode"])

    def get_contexts(self) -> list[str]:
        return list(self._call("GET", "/contexts"))


def _rebuild(options: dict[str, Any]) -> RegistryClient:
    urls = options.pop("urls")
    return RegistryClient(urls, **options)


def _reset_after_fork() -> None:
    for client in list(_LIVE):
        client._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)

__all__ = ["RegistryClient", "LATEST"]
