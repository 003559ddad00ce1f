"""HTTP to one or several registry URLs: keep-alive, retries with backoff, failover.

Built on urllib3's `PoolManager`, which is documented thread-safe and keeps connections
alive per host. Retries are ours, not urllib3's, because they span URLs: a failed attempt
(connection refused or reset, timeout, or a 5xx answer) moves on to the next URL at once;
only when every URL has failed in a round does the transport sleep (exponential backoff
with jitter) before the next round. A 4xx answer is the request's own fault and is returned
to the caller at once. The URL that answered last is tried first next time, so a dead first
URL costs one failed connect, not one per request.

Fork safety: pooled sockets must not be shared by a parent and its forked child (Spark's
Python workers fork), or their replies interleave. Every live transport is reset in the
child through `os.register_at_fork`: new pool, new lock, old sockets left to the parent.
"""
from __future__ import annotations

import base64
import json
import os
import random
import time
import weakref
from dataclasses import dataclass
from typing import Any, Mapping, Sequence
from urllib.parse import urlencode

import urllib3
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError, ProtocolError, ReadTimeoutError, SSLError
from urllib3.exceptions import HTTPError as Urllib3Error

from app.client.errors import RegistryUnavailable, error_for

ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json"
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
USER_AGENT = "sqlregistry-client/0.1"

_LIVE: weakref.WeakSet[Transport] = weakref.WeakSet()


@dataclass(frozen=True)
class RetryPolicy:
    """`retries` extra rounds over all URLs after the first; the sleep before round n is
    drawn from [d/2, d] with d = min(backoff_max, backoff * 2**n)."""

    retries: int = 3
    backoff: float = 0.1
    backoff_max: float = 2.0

    def delay(self, round_index: int) -> float:
        ceiling = min(self.backoff_max, self.backoff * (2 ** round_index))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any


def basic_auth_header(auth: str | tuple[str, str]) -> str:
    """`auth` as ("user", "password") or "user:password" (the `REGISTRY_AUTH` form)."""
    if isinstance(auth, str):
        user, sep, password = auth.partition(":")
        if not sep:
            raise ValueError("credentials must look like user:password")
    else:
        user, password = auth
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return f"Basic {token}"


# The most a reply may hold: far above any registry answer (a schema's text is capped well below
# it), and a peer that sends more (a wrong URL, a hostile host) costs no more memory than this.
MAX_REPLY_BYTES = 64 * 1024 * 1024


class ReplyTooLarge(Exception):
    """A reply longer than the transport reads; that URL has failed, as a refused connection has."""


class Transport:
    """Sends one logical request, trying URLs and rounds until a non-5xx answer arrives."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        auth: str | tuple[str, str] | None = None,
        bearer_token: str | None = None,
        timeout: float = 10.0,
        policy: RetryPolicy = RetryPolicy(),
        pool_size: int = 16,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        if not urls:
            raise ValueError("at least one registry URL is needed")
        self.urls = tuple(url.rstrip("/") for url in urls)
        self.timeout = timeout
        self.policy = policy
        self.pool_size = pool_size
        self.max_reply_bytes = max_reply_bytes
        self._headers = {"Accept": ACCEPT, "User-Agent": USER_AGENT}
        if auth is not None and bearer_token is not None:
            raise ValueError("give Basic credentials or a bearer token, not both")
        if auth is not None:
            self._headers["Authorization"] = basic_auth_header(auth)
        elif bearer_token is not None:
            self._headers["Authorization"] = f"Bearer {bearer_token}"
        self._preferred = 0
        self._pool = self._new_pool()
        _LIVE.add(self)

    @property
    def authorization(self) -> str | None:
        """The Authorization header every request carries, for another process (the pipeline's
        JVM executors) that must ask the registry as this client does."""
        return self._headers.get("Authorization")

    def _new_pool(self) -> urllib3.PoolManager:
        # block=False: a burst of threads beyond pool_size opens extra connections rather than queueing.
        return urllib3.PoolManager(num_pools=max(4, len(self.urls)), maxsize=self.pool_size, block=False,
                                   retries=False, timeout=urllib3.Timeout(connect=self.timeout, read=self.timeout))

    def after_fork_in_child(self) -> None:
        self._pool = self._new_pool()

    def close(self) -> None:
        self._pool.clear()

    def request(
        self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None
    ) -> Any:
        """The decoded JSON answer of the first URL that gives a non-5xx reply; raises the
        typed error for a 4xx, `RegistryServerError` for a lasting 5xx and
        `RegistryUnavailable` when nothing answered."""
        encoded = urlencode(_query_text(query)) if query else ""
        target = f"{path}?{encoded}" if encoded else path
        headers = self._headers
        payload = None
        if body is not None:
            headers = {**headers, "Content-Type": CONTENT_TYPE}
            payload = json.dumps(body).encode("utf-8")
        last_failure: Exception | None = None
        for round_index in range(self.policy.retries + 1):
            if round_index:
                time.sleep(self.policy.delay(round_index - 1))
            start = self._preferred
            for offset in range(len(self.urls)):
                index = (start + offset) % len(self.urls)
                try:
                    reply = self._send(method, self.urls[index] + target, headers, payload)
                except (Urllib3Error, OSError, ReplyTooLarge) as exc:
                    last_failure = RegistryUnavailable(f"{method} {self.urls[index]}{path}: {_describe(exc)}")
                    continue
                if reply.status >= 500:
                    last_failure = error_for(reply.status, reply.body, _text(reply.body))
                    continue
                self._preferred = index
                if reply.status >= 400:
                    raise error_for(reply.status, reply.body, _text(reply.body))
                return reply.body
        assert last_failure is not None
        raise last_failure

    def _send(self, method: str, url: str, headers: Mapping[str, str], payload: bytes | None) -> Reply:
        response = self._pool.request(method, url, body=payload, headers=headers, redirect=False,
                                      preload_content=False)
        try:
            data = response.read(self.max_reply_bytes + 1)
            if len(data) > self.max_reply_bytes:
                response.close()  # the rest stays unread: this connection is not reused
                raise ReplyTooLarge(f"a reply of more than {self.max_reply_bytes} bytes")
        finally:
            response.release_conn()
        return decoded(response.status, data)


def decoded(status: int, data: bytes) -> Reply:
    """A reply's body as JSON, as text when it is not JSON, None when empty."""
    if not data:
        return Reply(status, None)
    try:
        return Reply(status, json.loads(data))
    except ValueError:
        return Reply(status, data.decode("utf-8", "replace"))


def _query_text(query: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Booleans as `true`/`false`; None drops the parameter; lists repeat it."""
    pairs: list[tuple[str, str]] = []
    for key, value in query.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            if item is None:
                continue
            pairs.append((key, ("true" if item else "false") if isinstance(item, bool) else str(item)))
    return pairs


def _text(body: Any) -> str:
    return body if isinstance(body, str) else json.dumps(body) if body is not None else ""


def _describe(exc: Exception) -> str:
    """A failed attempt in words (an exporter's status shows it): what went wrong, and the
    system's own reason where there is one, never an exception's class name."""
    for kind, sentence in _FAILURES:
        if isinstance(exc, kind):
            reason = _system_reason(exc)
            return f"{sentence} ({reason})" if reason else sentence
    return _system_reason(exc) or str(exc)


def _system_reason(exc: BaseException) -> str:
    """The operating system's words for what ended a connection (`Connection refused`),
    found on the exception or on the one it was raised from."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.strerror:
            return seen.strerror
        seen = seen.__cause__ or seen.__context__
    return ""


_FAILURES: tuple[tuple[type[Exception], str], ...] = (
    (NewConnectionError, "cannot connect"),
    (ConnectTimeoutError, "no connection within the timeout"),
    (ReadTimeoutError, "no reply within the timeout"),
    (SSLError, "the TLS handshake failed"),
    (ProtocolError, "the connection broke off"),
)


def _reset_after_fork() -> None:
    for transport in list(_LIVE):
        transport.after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)

