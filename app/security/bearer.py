"""Bearer tokens: a JWT from the operator's identity provider, checked against its published
keys (a JWKS) with PyJWT.

The keys come from the provider's JWKS URL or from a file. Either source keeps the last good
key set: a provider that is briefly unreachable, or a file caught half-written, does not lock
every bearer caller out. A token signed with a key id the set does not hold triggers one
re-fetch (at most one per `REFETCH_COOLDOWN_SECONDS` per worker, so a stream of made-up key
ids cannot turn the registry into a load generator against the provider): that is how a key
rotation at the provider takes effect without a restart.

A verified token is remembered by its SHA-256 until it expires, for at most
`TOKEN_CACHE_SECONDS`: a producer sends the same token with every request, and a signature
check costs far more than serving a cached schema.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import jwt
from jwt import PyJWK, PyJWKClient, PyJWKSet
from jwt.exceptions import PyJWKClientError, PyJWKError, PyJWKSetError, PyJWTError

from app.core.access import Principal
from app.security.errors import AuthFileError, Unauthenticated
from app.security.records import BearerSettings

log = logging.getLogger(__name__)

# How long a fetched JWKS is used before it is fetched again (a rotation that keeps the old
# key id for a while is picked up within this time even without an unknown key id).
JWKS_REFRESH_SECONDS = 300.0
# Minimum time between two fetches forced by unknown key ids.
REFETCH_COOLDOWN_SECONDS = 5.0
# A request thread waits this long at most for the provider.
FETCH_TIMEOUT_SECONDS = 5.0
# Before any key set was fetched, a failed fetch is not retried for this long: requests in
# between are refused at once instead of queueing behind a provider that does not answer.
UNREACHABLE_RETRY_SECONDS = 1.0
# A key file is looked at (stat) at most this often.
FILE_CHECK_SECONDS = 1.0
TOKEN_CACHE_SECONDS = 60.0
TOKEN_CACHE_ENTRIES = 10_000


Clock = Callable[[], float]


class _UrlKeys:
    """The provider's key set, fetched with PyJWT's client and kept here, so that every timing
    decision (refresh, cooldown, retry after a failure) reads one clock a test can drive.

    The last good set keeps serving while the provider cannot be reached or answers something
    that is not a key set; before any set was fetched, a failure is not retried for
    `UNREACHABLE_RETRY_SECONDS`, so requests are refused at once instead of queueing behind a
    provider that does not answer."""

    def __init__(self, url: str, cooldown: float, clock: Clock) -> None:
        self._fetcher = PyJWKClient(url, cache_jwk_set=False, timeout=FETCH_TIMEOUT_SECONDS)
        self._url = url
        self._cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: PyJWKSet | None = None
        self._fetched_at = 0.0
        self._retry_at = 0.0

    def key(self, kid: str | None) -> PyJWK:
        with self._lock:
            keys = self._signing_keys(refresh=False)
            found = _only_key(keys) if kid is None else _with_kid(keys, kid)
            if found is None and self._clock() - self._fetched_at >= self._cooldown:
                found = _with_kid(self._signing_keys(refresh=True), kid)
        if found is None:
            raise Unauthenticated(f"no signing key for kid {kid!r} in the JWKS", token_presented=True)
        return found

    def _signing_keys(self, refresh: bool) -> list[PyJWK]:
        now = self._clock()
        if self._keys is not None and not refresh and now - self._fetched_at < JWKS_REFRESH_SECONDS:
            return _usable(self._keys)
        if self._keys is None and now < self._retry_at:
            raise Unauthenticated("no keys: the JWKS could not be fetched moments ago", token_presented=True)
        try:
            fetched = self._fetcher.get_jwk_set(refresh=True)
            _usable(fetched)
        except (PyJWKClientError, PyJWKSetError, ValueError, Unauthenticated) as exc:
            # Unreachable, or an answer that is not a usable key set (a proxy's HTML error page,
            # an empty set): either way the provider's keys cannot be had right now.
            if self._keys is None:
                self._retry_at = now + UNREACHABLE_RETRY_SECONDS
                raise Unauthenticated(f"no keys: the JWKS cannot be fetched ({exc})", token_presented=True) from None
            log.warning("JWKS %s unusable, keeping the keys fetched before: %s", self._url, exc)
            self._fetched_at = now  # the next attempt waits a full interval
            return _usable(self._keys)
        self._keys, self._fetched_at = fetched, now
        return _usable(fetched)


class _FileKeys:
    """A JWKS file, read again when its modification time, size or inode changes (checked at
    most once a second), so an operator's atomic rename of a new file takes effect in every
    worker without a restart. A file that does not load at start-up makes the auth file
    invalid; a bad replacement later is logged and the previous keys stay."""

    def __init__(self, path: str, clock: Clock) -> None:
        self._path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._checked = clock()
        try:
            self._stamp = _stamp(path)
            self._keys = _read_key_file(path)
        except (OSError, ValueError) as exc:
            raise AuthFileError("[bearer]", f"jwks_file {path}: {exc}") from None

    def key(self, kid: str | None) -> PyJWK:
        self._maybe_reload()
        keys = [k for k in self._keys.keys if k.public_key_use in ("sig", None)]
        if kid is None:
            return _only_key(keys)
        for key in keys:
            if key.key_id == kid:
                return key
        raise Unauthenticated(f"no signing key for kid {kid!r} in {self._path}", token_presented=True)

    def _maybe_reload(self) -> None:
        now = self._clock()
        if now - self._checked < FILE_CHECK_SECONDS or not self._lock.acquire(blocking=False):
            return
        try:
            self._checked = now
            try:
                stamp = _stamp(self._path)
            except OSError as exc:
                log.warning("JWKS file %s not readable, keeping the previous keys: %s", self._path, exc)
                return
            if stamp == self._stamp:
                return
            self._stamp = stamp  # a bad replacement is reported once, not every second
            try:
                self._keys = _read_key_file(self._path)
            except (OSError, ValueError) as exc:
                log.warning("JWKS file %s not reloaded, keeping the previous keys: %s", self._path, exc)
                return
            log.info("JWKS file %s reloaded (%d keys)", self._path, len(self._keys.keys))
        finally:
            self._lock.release()


def _stamp(path: str) -> tuple[int, int, int]:
    info = os.stat(path)
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def _read_key_file(path: str) -> PyJWKSet:
    with open(path, "rb") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise ValueError("not a JWKS (a JSON object with \"keys\")")
    try:
        return PyJWKSet.from_dict(data)
    except (PyJWKError, PyJWKSetError) as exc:
        raise ValueError(str(exc)) from None


def _only_key(keys: list[PyJWK]) -> PyJWK:
    """A token without `kid` is accepted only when the set leaves no doubt which key it means."""
    if len(keys) != 1:
        raise Unauthenticated(f"token has no kid and the JWKS holds {len(keys)} signing keys", token_presented=True)
    return keys[0]


def _usable(keys: PyJWKSet) -> list[PyJWK]:
    """The set's signing keys that carry a key id, as PyJWT's client lists them; none at all
    makes the set unusable."""
    signing = [key for key in keys.keys if key.public_key_use in ("sig", None) and key.key_id]
    if not signing:
        raise PyJWKClientError("The JWKS endpoint did not contain any signing keys")
    return signing


def _with_kid(keys: list[PyJWK], kid: str | None) -> PyJWK | None:
    return next((key for key in keys if key.key_id == kid), None)


def claim_at(claims: Mapping[str, Any], path: str) -> Any:
    """The claim a dotted path names (`realm_access.roles`); a claim whose own name contains
    dots (`https://example.com/groups`) is found by that name first."""
    if path in claims:
        return claims[path]
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


class BearerVerifier:
    """Turns an `Authorization: Bearer` token into a principal, for one `[bearer]` section.

    One instance per loaded auth file and worker; `verify` is called from request threads
    concurrently."""

    def __init__(
        self, settings: BearerSettings, *, refetch_cooldown: float = REFETCH_COOLDOWN_SECONDS,
        clock: Clock = time.monotonic, wall_clock: Clock = time.time,
    ) -> None:
        """`clock` times refreshes, cooldowns and file checks; `wall_clock` is compared with
        tokens' `exp` for the verified-token cache. Tests pass their own to skip waiting."""
        self._settings = settings
        self._algorithms = list(settings.algorithms)
        self._wall_clock = wall_clock
        self._keys: _UrlKeys | _FileKeys
        if settings.jwks_url is not None:
            self._keys = _UrlKeys(settings.jwks_url, refetch_cooldown, clock)
        elif settings.jwks_file is not None:
            self._keys = _FileKeys(settings.jwks_file, clock)
        else:
            raise AuthFileError("[bearer]", "one of jwks_url and jwks_file is required")
        self._options: dict[str, Any] = {
            "require": ["exp"],
            "verify_aud": settings.audience is not None,
            "verify_iss": settings.issuer is not None,
        }
        self._verified: dict[bytes, tuple[float, Principal]] = {}

    def verify(self, token: str) -> Principal:
        digest = hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()
        now = self._wall_clock()
        hit = self._verified.get(digest)
        if hit is not None and hit[0] > now:
            return hit[1]
        claims = self._decode(token)
        principal = self._principal(claims)
        self._remember(digest, principal, min(float(claims["exp"]), now + TOKEN_CACHE_SECONDS), now)
        return principal

    def _decode(self, token: str) -> dict[str, Any]:
        try:
            header = jwt.get_unverified_header(token)
        except PyJWTError as exc:
            raise Unauthenticated(f"malformed token: {exc}", token_presented=True) from None
        algorithm = header.get("alg")
        if algorithm not in self._algorithms:
            raise Unauthenticated(f"token algorithm {algorithm!r} is not accepted", token_presented=True)
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise Unauthenticated("token kid is not a string", token_presented=True)
        key = self._keys.key(kid)
        try:
            return jwt.decode(
                token, key, algorithms=self._algorithms, options=self._options,  # type: ignore[arg-type]
                audience=self._settings.audience, issuer=self._settings.issuer,
                leeway=self._settings.leeway_seconds,
            )
        except PyJWTError as exc:
            raise Unauthenticated(f"token refused: {type(exc).__name__}: {exc}", token_presented=True) from None

    def _principal(self, claims: Mapping[str, Any]) -> Principal:
        name = claim_at(claims, self._settings.principal_claim)
        if not isinstance(name, str) or not name:
            raise Unauthenticated(f"token has no string claim {self._settings.principal_claim!r}",
                                  token_presented=True)
        groups: frozenset[str] = frozenset()
        if self._settings.groups_claim is not None:
            value = claim_at(claims, self._settings.groups_claim)
            if isinstance(value, str):
                value = [value]
            elif value is None:
                value = []
            if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                raise Unauthenticated(f"token claim {self._settings.groups_claim!r} is not a list of strings",
                                      token_presented=True)
            groups = frozenset(f"group:{item}" for item in value)
        return Principal(f"user:{name}", groups, "bearer")

    def _remember(self, digest: bytes, principal: Principal, until: float, now: float) -> None:
        if len(self._verified) >= TOKEN_CACHE_ENTRIES:
            self._verified = {k: v for k, v in self._verified.items() if v[0] > now}
            if len(self._verified) >= TOKEN_CACHE_ENTRIES:
                self._verified = {}
        self._verified[digest] = (until, principal)
