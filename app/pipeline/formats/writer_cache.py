"""Writers found by header in a Python worker, for the formats decoded there record by record
(JSON Schema, Protobuf): each header is read and its writer fetched and compiled once per
worker; a header the registry does not know is asked about again only after a while, so a
topic of bad records is not a request storm. Decoders live as long as the worker (see
`app.pipeline.workers`), so this cache does too.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from app.client import RegistryClient, Schema, SchemaNotFound
from app.client.framing import Framing, WriterKey
from app.pipeline.workers import UNKNOWN_WRITER_TTL, client_key, worker_client

Compiled = TypeVar("Compiled")
Kept = TypeVar("Kept")

_LOCK = threading.Lock()
_KEPT: dict[Hashable, object] = {}


class WriterCache(Generic[Compiled]):
    """`get(data)`: the compiled writer of a record, by its header."""

    def __init__(self, client: RegistryClient, framing: Framing, schema_format: str | None,
                 compile: Callable[[Schema, WriterKey], Compiled]) -> None:
        self.client, self.framing, self.schema_format, self.compile = client, framing, schema_format, compile
        self.header_size = framing.header_size
        self._compiled: dict[bytes, Compiled] = {}
        self._unknown: dict[bytes, tuple[float, Exception]] = {}

    def get(self, data: bytes) -> Compiled:
        """Raises `SerializationError` (not this framing, a writer that cannot be compiled) or
        `SchemaNotFound`, both the record's fault."""
        found = self._compiled.get(data[: self.header_size])
        return found if found is not None else self._slow(bytes(data[: self.header_size]))

    def _slow(self, header: bytes) -> Compiled:
        failed = self._unknown.get(header)
        if failed is not None and time.monotonic() < failed[0]:
            raise failed[1]
        key = self.framing.writer_key(header)
        try:
            writer = self.framing.find_writer(key, self.client, None, self.schema_format)
        except SchemaNotFound as exc:
            self._unknown[header] = (time.monotonic() + UNKNOWN_WRITER_TTL, exc)
            raise
        return self._compiled.setdefault(header, self.compile(writer, key))


def kept_in_worker(client: RegistryClient, key: Hashable, make: Callable[[RegistryClient], Kept]) -> Kept:
    """This worker's decoder or row writer for `key` (a format's reader or writer and options)
    and `client`'s registry, made once with the worker's long-lived client and kept across
    tasks: compiling a schema per task would repeat for every partition."""
    full = (client_key(client), key)
    with _LOCK:
        found = _KEPT.get(full)
    if found is not None:
        return found  # type: ignore[return-value]
    made = make(worker_client(client))
    with _LOCK:
        return _KEPT.setdefault(full, made)  # type: ignore[return-value]
