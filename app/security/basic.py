"""HTTP Basic authentication against the auth file's `[[users]]`.

scrypt is deliberately expensive (tens of milliseconds and 16+ MiB per check), so two things
keep it off the hot path and out of an attacker's hands:
* a per-worker cache of verified credentials for `cache_seconds`, keyed by an HMAC of name
  and password (the header's `base64(name:password)` as sent, so a hit decodes nothing)
  under a key that lives only in this process: the cache holds no password; a steady client
  costs one scrypt per worker per interval, and each of its requests one HMAC and one
  dictionary lookup;
* failure counts per address and user name, shared by the host's workers (failures.py):
  past `max_failures_per_minute`, failures are answered without hashing until the minute is
  over, so a password guesser cannot turn the registry's CPU against it. A cached (hence
  correct) credential still gets in.
Threads presenting the same credential at once share one verification.
A new `BasicAuthenticator` (empty cache) is built for every loaded file; the failure counts
outlive reloads.
"""
from __future__ import annotations

import binascii
import hashlib
import os
import threading
import time
from collections import Counter
from collections.abc import Callable

from app.core.access import Principal
from app.security.errors import Unauthenticated
from app.security.failures import FailureLimiter
from app.security.passwords import ScryptHash, decoy_hash, parse_hash
from app.security.records import AuthFile

CACHE_CAPACITY = 10_000


def user_principal(file: AuthFile, name: str, method: str) -> Principal:
    """`user:N` plus the groups of the `[[users]]` entry named N, if there is one."""
    user = file.users_by_name.get(name)
    groups = frozenset(f"group:{group}" for group in user.groups) if user is not None else frozenset()
    return Principal(f"user:{name}", groups, method)


def decode_credentials(encoded: str) -> tuple[bytes, bytes]:
    """`base64(name:password)` → (name, password), split at the first colon; the name must
    be UTF-8 (it is compared with the file's names), the password stays bytes."""
    try:
        raw = binascii.a2b_base64(encoded.strip(), strict_mode=True)
    except (binascii.Error, ValueError):
        raise Unauthenticated("malformed Basic credentials (not base64)") from None
    name, colon, password = raw.partition(b":")
    if not colon:
        raise Unauthenticated("malformed Basic credentials (no colon)")
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        raise Unauthenticated("malformed Basic credentials (name is not UTF-8)") from None
    return name, password


class CredentialCache:
    """Verified credentials by HMAC, each until its expiry; at most CACHE_CAPACITY entries."""

    def __init__(self, seconds: int, clock: Callable[[], float] = time.monotonic, key: bytes | None = None) -> None:
        """`key`: the HMAC key (at most 64 bytes); a fresh random one unless a test sets it."""
        self._seconds = seconds
        self._clock = clock
        # HMAC-SHA256 from its two keyed SHA-256 states (RFC 2104), computed once: a digest
        # is then two state copies, under half of what the hmac module costs per call.
        key = (key if key is not None else os.urandom(32)).ljust(64, b"\0")
        self._inner = hashlib.sha256(bytes(byte ^ 0x36 for byte in key))
        self._outer = hashlib.sha256(bytes(byte ^ 0x5C for byte in key))
        self._entries: dict[bytes, tuple[float, Principal]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def digest(self, encoded: str) -> bytes:
        """HMAC-SHA256 of the credentials as the header carried them (`base64(name:password)`);
        UTF-8 with surrogates passed, so that no two strings share a key."""
        inner = self._inner.copy()
        inner.update(encoded.encode("utf-8", "surrogatepass"))
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def cached(self, encoded: str) -> Principal | None:
        """The principal verified for these credentials, unless expired: the hot path of
        every Basic request, so `digest` is inlined."""
        inner = self._inner.copy()
        inner.update(encoded.encode("utf-8", "surrogatepass"))
        outer = self._outer.copy()
        outer.update(inner.digest())
        entry = self._entries.get(outer.digest())
        if entry is None or entry[0] <= self._clock():
            return None  # an expired entry is replaced (or swept) by the verification that follows
        return entry[1]

    def put(self, digest: bytes, principal: Principal) -> None:
        if self._seconds <= 0:
            return
        now = self._clock()
        with self._lock:
            entries = self._entries
            if len(entries) >= CACHE_CAPACITY and digest not in entries:
                for key in [key for key, (expires, _) in entries.items() if expires <= now]:
                    del entries[key]
                while len(entries) >= CACHE_CAPACITY:
                    del entries[next(iter(entries))]  # the oldest insertion
            entries[digest] = (now + self._seconds, principal)


class BasicAuthenticator:
    """Basic credentials checked against one loaded auth file."""

    def __init__(self, file: AuthFile, limiter: FailureLimiter) -> None:
        self._hashes: dict[bytes, ScryptHash] = {
            user.name.encode("utf-8"): parse_hash(user.password) for user in file.users if user.password is not None
        }
        self._principals = {
            name: user_principal(file, name.decode("utf-8"), "basic") for name in self._hashes
        }
        # The decoy costs what most of this file's users cost.
        common = Counter(stored.parameters for stored in self._hashes.values()).most_common(1)
        self._decoy = decoy_hash(common[0][0]) if common else decoy_hash()
        self._limit = file.authentication.max_failures_per_minute
        self._limiter = limiter
        self.cache = CredentialCache(file.authentication.cache_seconds)
        self._flights: dict[bytes, _Flight] = {}
        self._flights_lock = threading.Lock()

    def authenticate(self, encoded: str, address: str) -> Principal:
        principal = self.cache.cached(encoded)
        if principal is not None:
            return principal
        name, password = decode_credentials(encoded)
        digest = self.cache.digest(encoded)
        shown = name.decode("utf-8")[:100]
        if self._limiter.blocked(address, name.decode("utf-8"), self._limit):
            raise Unauthenticated(f"Basic login for {shown!r} not checked: too many failures from {address}")
        with self._flights_lock:
            flight = self._flights.get(digest)
            leader = flight is None
            if leader:
                flight = self._flights[digest] = _Flight()
        if not leader:
            return flight.outcome()
        principal, error = None, None
        try:
            principal = self._verify(name, password, shown, address)
            self.cache.put(digest, principal)
            return principal
        except Unauthenticated as exc:
            error = exc
            raise
        finally:
            flight.land(principal, error)
            with self._flights_lock:
                del self._flights[digest]

    def _verify(self, name: bytes, password: bytes, shown: str, address: str) -> Principal:
        stored = self._hashes.get(name)
        if stored is None:
            self._decoy.matches(password)
            self._limiter.record(address, name.decode("utf-8"))
            raise Unauthenticated(f"Basic login for unknown user {shown!r} (or one without a password)")
        if not stored.matches(password):
            self._limiter.record(address, name.decode("utf-8"))
            raise Unauthenticated(f"wrong password for user {shown!r}")
        return self._principals[name]


class _Flight:
    """One verification in progress: the threads of a worker that present the same
    credential at the same moment (a client's connection pool after a restart or a cache
    expiry) wait for its outcome instead of each paying for scrypt."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._principal: Principal | None = None
        self._error: Unauthenticated | None = None

    def land(self, principal: Principal | None, error: Unauthenticated | None) -> None:
        self._principal, self._error = principal, error
        self._done.set()

    def outcome(self) -> Principal:
        if not self._done.wait(timeout=30):
            raise Unauthenticated("Basic verification of the same credential by another thread did not finish")
        if self._principal is None:
            raise Unauthenticated(self._error.reason if self._error else "verification failed")
        return self._principal
