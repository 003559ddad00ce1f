"""In-process caches for what never changes once stored: schema content, parsed schemas and
rendered texts.

Keys are storage row keys that are never reused, so an entry can never go stale; a hard
delete merely leaves an entry nobody asks for until it is evicted. Each cache is bounded by
an estimate of the bytes its entries hold, not by their count: schemas range from a few
bytes to a megabyte, so a count bound either wastes memory or blows a worker's budget.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")

# What a small entry costs beyond its payload: the dict slot, the key, the record objects.
ENTRY_OVERHEAD = 400


class CacheStats(Protocol):
    """Told about every lookup, so an operator can see whether a cache budget is too small
    (metrics count them; the core itself never reads the counts)."""

    def hit(self) -> None: ...
    def miss(self) -> None: ...


class NoStats:
    """The default: lookups are not counted."""

    def hit(self) -> None:
        return None

    def miss(self) -> None:
        return None


NO_STATS = NoStats()
CacheStatsFactory = Callable[[str], CacheStats]


def no_cache_stats(name: str) -> CacheStats:
    """The default factory: one shared no-op for every named cache."""
    return NO_STATS


class LruCache(Generic[K, T]):
    """Least recently used entries go first once the estimated total passes `max_bytes`.
    `weigh` estimates one entry's bytes (its payload; the fixed overhead is added here)."""

    def __init__(self, max_bytes: int, weigh: Callable[[T], int], stats: CacheStats = NO_STATS):
        self._max = max(1, max_bytes)
        self._weigh = weigh
        self._stats = stats
        self._data: OrderedDict[K, tuple[T, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> T | None:
        # A plain dict read is atomic under the GIL; recency is refreshed only when the
        # lock is free, so hot readers never queue behind each other.
        entry = self._data.get(key)
        if entry is None:
            self._stats.miss()
            return None
        self._stats.hit()
        if self._lock.acquire(blocking=False):
            try:
                if key in self._data:
                    self._data.move_to_end(key)
            finally:
                self._lock.release()
        return entry[0]

    def put(self, key: K, value: T) -> T:
        size = self._weigh(value) + ENTRY_OVERHEAD
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._data[key] = (value, size)
            self._bytes += size
            while self._bytes > self._max and len(self._data) > 1:
                _, (_, freed) = self._data.popitem(last=False)
                self._bytes -= freed
        return value

    def discard(self, key: K) -> None:
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._data)
