"""In-process caches for what never changes once stored: schema content and parsed schemas.

Keys are storage row keys that are never reused, so an entry can never go stale; a hard
delete merely leaves an entry nobody asks for until it is evicted.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class LruCache(Generic[K, T]):
    def __init__(self, max_size: int):
        self._max = max(1, max_size)
        self._data: OrderedDict[K, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> T | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: T) -> T:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self._max:
                self._data.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._data)
