"""What each Python worker keeps between tasks: one `RegistryClient` per registry and one
deserializer per (registry, reader, framing).

Spark reuses its Python workers across tasks (`spark.python.worker.reuse`, on by default), so
module-level state lives as long as the worker: a schema id costs one registry request per
worker, and each (writer, reader) pair is compiled once per worker, never per batch. A client
arrives pickled with every task, with empty caches; keeping the first one seen for its URLs is
what makes its caches outlive the task.
"""
from __future__ import annotations

import threading
from typing import Any

from app.client import AvroDeserializer, RegistryClient
from app.client.framing import Framing

_LOCK = threading.Lock()
_CLIENTS: dict[tuple[Any, ...], RegistryClient] = {}
_DESERIALIZERS: dict[tuple[Any, ...], AvroDeserializer] = {}


def _client_key(client: RegistryClient) -> tuple[Any, ...]:
    # The pickled form's arguments are the client's whole configuration (URLs, auth, timeouts).
    return tuple(repr(part) for part in client.__reduce__()[1])


def worker_client(client: RegistryClient) -> RegistryClient:
    """This worker's long-lived client configured like `client`."""
    key = _client_key(client)
    with _LOCK:
        return _CLIENTS.setdefault(key, client)


def worker_deserializer(client: RegistryClient, reader_text: str | None, framing: Framing) -> AvroDeserializer:
    """This worker's deserializer for records read as `reader_text` (None: as written)."""
    key = (_client_key(client), reader_text, type(framing).__name__)
    with _LOCK:
        found = _DESERIALIZERS.get(key)
    if found is not None:
        return found
    shared = worker_client(client)
    made = AvroDeserializer(shared, reader=reader_text, framing=framing)
    with _LOCK:
        return _DESERIALIZERS.setdefault(key, made)
