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
from collections.abc import Callable
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


def client_key(client: RegistryClient) -> tuple[Any, ...]:
    # The pickled form's arguments are the client's whole configuration (URLs, auth, timeouts).
    return tuple(repr(part) for part in client.__reduce__()[1])


def worker_client(client: RegistryClient) -> RegistryClient:
    """This worker's long-lived client configured like `client`."""
    key = client_key(client)
    with _LOCK:
        return _CLIENTS.setdefault(key, client)


class WorkerDecoder:
    """Framed bytes to Arrow-ready values of the reader's shape, a batch at a time."""

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

    def decode_all(self, values: list[bytes | None], bad: Callable[[int, Exception], None]) -> list[Any]:
        """The values of one Arrow batch decoded (None stays None); a record that cannot be
        decoded is None and `bad(row, reason)` is told. The loop is the hot path of the whole
        pipeline, so everything it touches per record is a local."""
        decoded: list[Any] = [None] * len(values)
        plans_get, plan_for, size, read, stream_of = self._plans.get, self.plan_for, self.header_size, \
            schemaless_reader, BytesIO
        for row, data in enumerate(values):
            if data is None:
                continue
            found = plans_get(data[:size])
            if found is None:
                try:
                    found = plan_for(data)
                except (SerializationError, SchemaNotFound) as exc:
                    bad(row, exc)
                    continue
            stream = stream_of(data)
            stream.seek(size)
            try:
                value = read(stream, found.writer, found.reader)
                decoded[row] = value if found.convert is None else found.convert(value)
            except Exception as exc:  # fastavro raises EOFError, ValueError, IndexError... on corrupt data
                bad(row, SerializationError(f"cannot decode {len(data)} bytes: {type(exc).__name__}: {exc}"))
        return decoded


def worker_decoder(client: RegistryClient, reader_text: str | None, framing: Framing) -> WorkerDecoder:
    """This worker's decoder for records read as `reader_text` (None: as written)."""
    key = (client_key(client), reader_text, type(framing).__name__)
    with _LOCK:
        found = _DECODERS.get(key)
    if found is not None:
        return found
    made = WorkerDecoder(worker_client(client), reader_text, framing)
    with _LOCK:
        return _DECODERS.setdefault(key, made)
