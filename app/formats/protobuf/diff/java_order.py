"""The order in which Java's `HashSet` hands back names and numbers.

Confluent walks the messages and enums of one nesting level, and the values of an enum, by
iterating a `HashSet` built from the original side's `HashMap` keys and then the update's.
That order decides the order of the entries in a verbose reply, so it is reproduced here
rather than replaced by a sorted one. What it rests on (OpenJDK 19 and later; Confluent's
current images run Temurin 21):

* a key's bucket is `(h ^ (h >>> 16)) & (n - 1)` for a table of `n` slots (a power of two),
  with `h` the 32-bit `String.hashCode` (UTF-16 units, `31 * h + unit`) or the int itself;
* a table grows (doubles) once it holds more than three quarters of `n` keys, and growing
  keeps the keys of each bucket in insertion order, as new keys go to a bucket's tail;
* so iteration is the keys ordered by final bucket, ties in insertion order;
* `new HashMap<>()` starts at 16 slots; `new HashSet<>(c)` at the power of two at or above
  `ceil(max(|c|, 12) / 0.75)` (JDK 17 sized it from `|c| / 0.75 + 1`, which differs only
  when the original side has 12, 24, 48, ... names).

Buckets turned into trees (eight keys in one bucket of a table of 64 or more) iterate
differently; names that collide that much do not occur in real schemas.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from math import ceil
from typing import TypeVar

Key = TypeVar("Key", str, int)

_MASK = 0xFFFFFFFF
_DEFAULT_SLOTS = 16


@lru_cache(maxsize=4096)
def _string_hash(text: str) -> int:
    h = 0
    encoded = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(encoded), 2):
        h = (31 * h + (encoded[i] | encoded[i + 1] << 8)) & _MASK
    return h


def _hash(key: str | int) -> int:
    return _string_hash(key) if isinstance(key, str) else key & _MASK


def _slots_at_least(capacity: int) -> int:
    slots = 1
    while slots < capacity:
        slots *= 2
    return slots


def _final_slots(start: int, count: int) -> int:
    slots = start
    while count > int(slots * 0.75):
        slots *= 2
    return slots


def _iterate(keys: Sequence[Key], start_slots: int) -> list[Key]:
    slots = _final_slots(start_slots, len(keys))
    mask = slots - 1

    def bucket(key: Key) -> int:
        h = _hash(key)
        return (h ^ (h >> 16)) & mask

    return sorted(keys, key=bucket)  # stable: insertion order within a bucket


def _unique(keys: Iterable[Key]) -> list[Key]:
    return list(dict.fromkeys(keys))


def hash_map_keys(keys: Iterable[Key]) -> list[Key]:
    """The keys of a `new HashMap<>()` filled in `keys` order, in its iteration order."""
    return _iterate(_unique(keys), _DEFAULT_SLOTS)


def union_order(original: Iterable[Key], update: Iterable[Key]) -> list[Key]:
    """Iteration order of `new HashSet<>(originalMap.keySet())` after `addAll(updateMap.keySet())`,
    both maps being `new HashMap<>()` filled in the given orders."""
    first = hash_map_keys(original)
    if not first:
        return hash_map_keys(update)
    start = _slots_at_least(ceil(max(len(first), 12) / 0.75))
    return _iterate(_unique([*first, *hash_map_keys(update)]), start)
