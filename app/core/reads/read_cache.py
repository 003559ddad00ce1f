"""Replies to the hottest reads (`GET /schemas/ids/{id}`, `GET /subjects/{s}/versions/{v}`),
reused while storage reports that nothing was committed since they were read.

A reply depends on more than immutable content (which holder stands for an id, whether a
version is soft-deleted, which version is `latest`), so it is kept together with the
storage's change token read before it was computed: any commit in between changes the
token, and the next request reads the database again. When storage cannot vouch for its
token (None) every request reads the database.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, NamedTuple, TypeVar

from app.core.cache import NO_STATS, CacheStats, LruCache
from app.core.store.protocol import Storage

T = TypeVar("T")


class _Entry(NamedTuple):
    token: Any
    value: Any
    weight: int


class ReadCache:
    def __init__(self, storage: Storage, max_bytes: int, enabled: bool = True, stats: CacheStats = NO_STATS):
        self._storage = storage
        self._enabled = enabled
        # A reply kept under an old token is a miss, so this counts here, not in the LruCache.
        self._stats = stats
        self._entries: LruCache[Hashable, _Entry] = LruCache(max_bytes, lambda e: e.weight)

    def get(self, key: Hashable, load: Callable[[], T], weigh: Callable[[T], int]) -> T:
        token = self._storage.change_token() if self._enabled else None
        if token is None:
            self._stats.miss()
            return load()
        hit = self._entries.get(key)
        if hit is not None and hit.token == token:
            self._stats.hit()
            return hit.value  # type: ignore[no-any-return]
        self._stats.miss()
        value = load()
        self._entries.put(key, _Entry(token, value, weigh(value)))
        return value

    def peek(self, key: Hashable) -> Any | None:
        """The value `get` would serve without loading anything, or None. Only a hit is
        counted: after a None the caller goes on to `get`, which counts the miss."""
        token = self._storage.change_token() if self._enabled else None
        hit = self._entries.get(key) if token is not None else None
        if hit is None or hit.token != token:
            return None
        self._stats.hit()
        return hit.value
