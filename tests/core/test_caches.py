"""The in-process caches: bounded by estimated bytes, least recently used first out, and the
hot-read cache trusts an entry only while storage's change token is the one it was read under."""
from __future__ import annotations

from typing import Any

from app.core.cache import ENTRY_OVERHEAD, LruCache
from app.core.reads.read_cache import ReadCache


def test_entries_are_evicted_by_their_estimated_bytes_not_their_count() -> None:
    cache: LruCache[str, str] = LruCache(3 * (100 + ENTRY_OVERHEAD), len)
    for key in "abc":
        cache.put(key, "x" * 100)
    assert len(cache) == 3
    cache.put("big", "x" * 250)  # weighs as much as the two oldest together
    assert cache.get("a") is None and cache.get("b") is None and cache.get("c") is not None
    assert cache.size_bytes <= 3 * (100 + ENTRY_OVERHEAD)


def test_a_read_entry_is_kept_over_older_unread_ones() -> None:
    cache: LruCache[str, str] = LruCache(2 * (10 + ENTRY_OVERHEAD), len)
    cache.put("a", "x" * 10)
    cache.put("b", "x" * 10)
    cache.get("a")
    cache.put("c", "x" * 10)
    assert cache.get("a") is not None and cache.get("b") is None


def test_an_entry_larger_than_the_budget_is_still_kept_alone() -> None:
    cache: LruCache[str, str] = LruCache(10, len)
    cache.put("huge", "x" * 1000)
    assert cache.get("huge") is not None and len(cache) == 1


class Token:
    def __init__(self) -> None:
        self.value: Any = 1

    def change_token(self) -> Any:
        return self.value


def test_the_hot_read_cache_reuses_a_reply_until_the_token_changes() -> None:
    storage, loads = Token(), []

    def load() -> object:
        loads.append(1)
        return object()

    cache = ReadCache(storage, 1 << 20)  # type: ignore[arg-type]
    first = cache.get("k", load, lambda _: 10)
    assert cache.get("k", load, lambda _: 10) is first and len(loads) == 1
    storage.value = 2
    assert cache.get("k", load, lambda _: 10) is not first and len(loads) == 2


def test_an_unknown_token_or_a_disabled_cache_always_loads() -> None:
    storage, loads = Token(), []
    storage.value = None
    unknown = ReadCache(storage, 1 << 20)  # type: ignore[arg-type]
    off = ReadCache(Token(), 1 << 20, enabled=False)  # type: ignore[arg-type]
    for cache in (unknown, off, unknown, off):
        cache.get("k", lambda: loads.append(1), lambda _: 1)
    assert len(loads) == 4
