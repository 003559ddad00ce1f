"""How a serialized record says which schema wrote it: one small class per wire framing.

Both framings put a fixed-size header before the encoded payload, so a deserializer can key
its decoders on `data[:header_size]` (one slice, one dict read per record) and ask the
framing to read the header only the first time it sees one.

- `ConfluentFraming`: magic byte 0, then the schema id as 4 bytes big-endian. The header
  confluent-kafka writes, so the bytes are identical for the same id and record.
- `SingleObjectFraming`: Avro's single-object encoding, `C3 01` then the writer schema's
  CRC-64-AVRO fingerprint, 8 bytes little-endian. It needs no registry id at all; a reader
  finds the schema through `SchemaSource.get_schema_by_fingerprint`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Union

from app.client.errors import SerializationError
from app.fingerprinting.fingerprint import CRC64, Fingerprint
from app.client.records import Schema
from app.client.resolver import SchemaSource

WriterKey = Union[int, Fingerprint]


class WriterIdentity(Protocol):
    """What a framing may need to know about the writer schema to write its header."""

    schema_id: int

    def fingerprint(self, algorithm: str) -> Fingerprint: ...


class Framing(Protocol):
    header_size: int

    def header(self, writer: WriterIdentity) -> bytes:
        """The bytes that go before every payload written with `writer`."""

    def writer_key(self, header: bytes) -> WriterKey:
        """What the header names (an id or a fingerprint); raises `SerializationError` for
        bytes that are not this framing."""

    def find_writer(
        self, key: WriterKey, source: SchemaSource, subject: str | None, format: str | None = None
    ) -> Schema:
        """The writer schema the key names, in the rendering `format` names (None: as stored)."""


class ConfluentFraming:
    header_size = 5
    magic = 0

    def header(self, writer: WriterIdentity) -> bytes:
        if not 0 <= writer.schema_id < 2**32:
            raise SerializationError(f"schema id {writer.schema_id} does not fit the 4-byte wire format")
        return bytes((self.magic,)) + writer.schema_id.to_bytes(4, "big")

    def writer_key(self, header: bytes) -> int:
        if len(header) < self.header_size:
            raise SerializationError(f"{len(header)} bytes are too short for a Confluent-framed record")
        if header[0] != self.magic:
            raise SerializationError(f"unknown magic byte {header[0]:#04x}; Confluent framing starts with 0x00")
        return int.from_bytes(header[1:5], "big")

    def find_writer(
        self, key: WriterKey, source: SchemaSource, subject: str | None, format: str | None = None
    ) -> Schema:
        assert isinstance(key, int)
        return source.get_schema(key, subject, format=format)

    def __repr__(self) -> str:
        return "ConfluentFraming()"


class SingleObjectFraming:
    header_size = 10
    marker = b"\xc3\x01"

    def header(self, writer: WriterIdentity) -> bytes:
        return self.marker + writer.fingerprint(CRC64).digest

    def writer_key(self, header: bytes) -> Fingerprint:
        if len(header) < self.header_size:
            raise SerializationError(f"{len(header)} bytes are too short for an Avro single-object record")
        if header[:2] != self.marker:
            raise SerializationError(f"unknown marker {header[:2].hex()}; Avro single-object encoding starts with c301")
        return Fingerprint(CRC64, bytes(header[2:10]))

    def find_writer(
        self, key: WriterKey, source: SchemaSource, subject: str | None, format: str | None = None
    ) -> Schema:
        assert isinstance(key, Fingerprint)
        return source.get_schema_by_fingerprint(key).schema  # Avro only: one rendering

    def __repr__(self) -> str:
        return "SingleObjectFraming()"


@dataclass(frozen=True)
class IdOnlyWriter:
    """The writer as a framing sees it for formats named by registry id only (JSON Schema,
    Protobuf): the single-object encoding's fingerprint is an Avro notion."""

    schema_id: int

    def fingerprint(self, algorithm: str) -> Fingerprint:
        raise SerializationError("the single-object encoding names Avro schemas; use Confluent framing")


def id_framing_only(framing: Framing) -> Framing:
    """`framing`, unless it is the single-object encoding, which only Avro records can use."""
    if isinstance(framing, SingleObjectFraming):
        raise ValueError("the single-object encoding names Avro schemas by fingerprint; use Confluent framing")
    return framing


CONFLUENT = ConfluentFraming()
SINGLE_OBJECT = SingleObjectFraming()
