"""A small cache of recent parses, keyed by content."""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping

from app.formats.base import ParsedSchema


class RecentParses:
    """The last parses by content. A client re-registering or looking up the same schema
    (serializers do, once per process and subject) sends the same text each time, and a
    compile-print-compile round costs milliseconds for a large file. Parsed schemas are
    immutable, so sharing them is safe."""

    def __init__(self, capacity: int = 128) -> None:
        self._entries: OrderedDict[bytes, ParsedSchema] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    @staticmethod
    def key(text: str, dependencies: Mapping[str, str], strict: bool) -> bytes:
        digest = hashlib.sha256(b"strict" if strict else b"stored")
        for part in (text, *(x for item in sorted(dependencies.items()) for x in item)):
            encoded = part.encode("utf-8", "surrogatepass")
            digest.update(len(encoded).to_bytes(8, "big") + encoded)
        return digest.digest()

    def get(self, key: bytes) -> ParsedSchema | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: bytes, parsed: ParsedSchema) -> ParsedSchema:
        with self._lock:
            self._entries[key] = parsed
            if len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return parsed
