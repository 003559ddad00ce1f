"""Thread-safe memo caches with single flight.

Many threads that miss the same key at once make one registry request between them, not one
each: the first computes under a per-key lock while the others wait for its answer. That is
what keeps "one remote lookup per active schema version" true under a thread pool. A failed
computation caches nothing, so the next caller tries again.

Hits take no lock (a dict read is atomic in CPython), which keeps the serializers' hot path
free of contention. The locks are replaced in a forked child (see `reset_locks`): a lock held
by another thread at fork time would otherwise stay held forever there.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_MISSING: Any = object()


class OnceCache(Generic[K, V]):
    """Values computed at most once per key and kept until `discard`: for facts that never
    change, such as the schema behind an id."""

    def __init__(self) -> None:
        self._values: dict[K, V] = {}
        self._guard = threading.Lock()
        self._key_locks: dict[K, threading.Lock] = {}

    def get(self, key: K, compute: Callable[[], V], fresh: Callable[[V], bool] | None = None) -> V:
        """The value for `key`, computed if absent or if `fresh` says it is stale."""
        value = self._values.get(key, _MISSING)
        if value is not _MISSING and (fresh is None or fresh(value)):
            return value
        with self._guard:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        try:
            with key_lock:
                value = self._values.get(key, _MISSING)
                if value is not _MISSING and (fresh is None or fresh(value)):
                    return value
                value = compute()
                self._values[key] = value
                return value
        finally:
            with self._guard:
                if self._key_locks.get(key) is key_lock:
                    del self._key_locks[key]

    def peek(self, key: K) -> V | None:
        return self._values.get(key)

    def put(self, key: K, value: V) -> None:
        self._values[key] = value

    def discard(self, matches: Callable[[K], bool]) -> None:
        with self._guard:
            for key in [key for key in self._values if matches(key)]:
                self._values.pop(key, None)

    def reset_locks(self) -> None:
        self._guard = threading.Lock()
        self._key_locks = {}

    def __len__(self) -> int:
        return len(self._values)


@dataclass(frozen=True)
class _Timed(Generic[V]):
    value: V
    expires_at: float


class TtlCache(Generic[K, V]):
    """Values that may change on the server (latest version, config), kept `ttl` seconds.
    `ttl` 0 turns caching off."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self._clock = clock
        self._entries: OnceCache[K, _Timed[V]] = OnceCache()

    def get(self, key: K, compute: Callable[[], V]) -> V:
        return self._entries.get(
            key, lambda: _Timed(compute(), self._clock() + self.ttl), lambda entry: self._clock() < entry.expires_at
        ).value

    def discard(self, matches: Callable[[K], bool]) -> None:
        self._entries.discard(matches)

    def reset_locks(self) -> None:
        self._entries.reset_locks()
