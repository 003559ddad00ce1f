"""What each Python worker keeps between tasks: one `RegistryClient` per registry and one
`WorkerDecoder` per (registry, reader, framing).

Spark reuses its Python workers across tasks (`spark.python.worker.reuse`, on by default), so
module-level state lives as long as the worker: a schema id (or fingerprint) costs one
registry request per worker, and each (writer, reader) pair is compiled once per worker, never
per batch. A client arrives pickled with every task, with empty caches; keeping the first one
seen for its URLs is what makes its caches outlive the task.

The decoder is the pipeline's own rather than `app.client`'s `AvroDeserializer`: it finds and
parses writers through the same `app.client` pieces (framing, registry client, `parse_avro`),
but decodes with a `DecodePlan` per pair, which general unions need (see `values`).
"""
from __future__ import annotations

import threading
import time
from io import BytesIO
from typing import Any

from fastavro import schemaless_reader

from app.client import RegistryClient, Schema, SchemaNotFound, SerializationError
from app.client.avro import parse_avro
from app.client.framing import Framing
from app.pipeline.values import DecodePlan, plan

# A header whose writer the registry does not know is asked about again after this long, not
# for every record that carries it (a topic of bad records must not become a request storm).
UNKNOWN_WRITER_TTL = 60.0

_LOCK = threading.Lock()
_CLIENTS: dict[tuple[Any, ...], RegistryClient] = {}
_DECODERS: dict[tuple[Any, ...], WorkerDecoder] = {}


def _client_key(client: RegistryClient) -> tuple[Any, ...]:
    # The pickled form's arguments are the client's whole configuration (URLs, auth, timeouts).
    return tuple(repr(part) for part in client.__reduce__()[1])


def worker_client(client: RegistryClient) -> RegistryClient:
    """This worker's long-lived client configured like `client`."""
    key = _client_key(client)
    with _LOCK:
        return _CLIENTS.setdefault(key, client)


class WorkerDecoder:
    """`decoder(data) -> value`: framed bytes to the Arrow-ready value of the reader's shape."""

    def __init__(self, client: RegistryClient, reader_text: str | None, framing: Framing) -> None:
        self.client = client
        self.framing = framing
        self.header_size = framing.header_size
        self.reader = parse_avro(client, Schema(reader_text)) if reader_text is not None else None
        self._plans: dict[bytes, DecodePlan] = {}
        self._unknown: dict[bytes, tuple[float, Exception]] = {}

    def plan_for(self, data: bytes) -> DecodePlan:
        """The slow path, once per distinct header: read it, find and compile the writer."""
        header = bytes(data[: self.header_size])
        failed = self._unknown.get(header)
        if failed is not None and time.monotonic() < failed[0]:
            raise failed[1]
        try:
            key = self.framing.writer_key(header)
            writer = self.framing.find_writer(key, self.client, None)
        except SchemaNotFound as exc:
            self._unknown[header] = (time.monotonic() + UNKNOWN_WRITER_TTL, exc)
            raise
        parsed = parse_avro(self.client, writer)
        reader = None if self.reader is None or self.reader == parsed else self.reader
        try:
            found = plan(parsed, reader)
        except (ValueError, KeyError) as exc:
            raise SerializationError(f"cannot read writer {key} as the reader schema: {exc}") from exc
        return self._plans.setdefault(header, found)

    def __call__(self, data: bytes) -> Any:
        found = self._plans.get(data[: self.header_size])
        if found is None:
            found = self.plan_for(data)
        stream = BytesIO(data)
        stream.seek(self.header_size)
        try:
            value = schemaless_reader(stream, found.writer, found.reader)
        except Exception as exc:  # fastavro raises EOFError, ValueError, IndexError... on corrupt data
            raise SerializationError(f"cannot decode {len(data)} bytes: {type(exc).__name__}: {exc}") from exc
        return value if found.convert is None else found.convert(value)


def worker_decoder(client: RegistryClient, reader_text: str | None, framing: Framing) -> WorkerDecoder:
    """This worker's decoder for records read as `reader_text` (None: as written)."""
    key = (_client_key(client), reader_text, type(framing).__name__)
    with _LOCK:
        found = _DECODERS.get(key)
    if found is not None:
        return found
    made = WorkerDecoder(worker_client(client), reader_text, framing)
    with _LOCK:
        return _DECODERS.setdefault(key, made)
