"""Schema fingerprints as the Avro specification defines them: CRC-64-AVRO, MD5 and SHA-256
of the schema's Parsing Canonical Form (UTF-8).

A fingerprint is kept as bytes in the order Java's `SchemaNormalization.parsingFingerprint`
returns them: the CRC-64-AVRO value little-endian (the order the single-object encoding puts
after `C3 01`), the digests as they come. Its hex form, lower case, is what
`GET /schemas/fingerprints/{hex}?algorithm=` takes, so a reader can look up the 8 bytes it
finds in a message without reordering them.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from app.fingerprinting.canonical import parsing_canonical_form

CRC64 = "crc64"
MD5 = "md5"
SHA256 = "sha256"
DIGEST_SIZES = {CRC64: 8, MD5: 16, SHA256: 32}

# The Avro specification's EMPTY: the fingerprint of no bytes, and the polynomial's seed.
CRC64_EMPTY = 0xC15D213AA4D7A795


def _crc64_table() -> tuple[int, ...]:
    table = []
    for index in range(256):
        value = index
        for _ in range(8):
            value = (value >> 1) ^ (CRC64_EMPTY & -(value & 1))
        table.append(value)
    return tuple(table)


_TABLE = _crc64_table()


def crc64_avro(data: bytes) -> int:
    """The spec's 64-bit Rabin fingerprint, as an unsigned integer."""
    value = CRC64_EMPTY
    for byte in data:
        value = (value >> 8) ^ _TABLE[(value ^ byte) & 0xFF]
    return value


class FingerprintError(ValueError):
    """An unknown algorithm, or hex that is not a fingerprint of the algorithm."""


def _unknown(algorithm: str) -> FingerprintError:
    return FingerprintError(f"unknown fingerprint algorithm {algorithm!r}; use one of {sorted(DIGEST_SIZES)}")


@dataclass(frozen=True)
class Fingerprint:
    algorithm: str
    digest: bytes

    def __post_init__(self) -> None:
        size = DIGEST_SIZES.get(self.algorithm)
        if size is None:
            raise _unknown(self.algorithm)
        if len(self.digest) != size:
            raise FingerprintError(f"a {self.algorithm} fingerprint has {size} bytes, not {len(self.digest)}")

    @property
    def hex(self) -> str:
        return self.digest.hex()

    @property
    def signed(self) -> int:
        """CRC-64-AVRO as Java's signed `long` (what the Avro test data lists)."""
        return int.from_bytes(self.digest, "little", signed=True)

    @classmethod
    def from_hex(cls, algorithm: str, text: str) -> Fingerprint:
        size = DIGEST_SIZES.get(algorithm)
        if size is None:
            raise _unknown(algorithm)
        if len(text) != 2 * size:
            raise FingerprintError(f"a {algorithm} fingerprint is {2 * size} hex digits, got {len(text)}")
        try:
            return cls(algorithm, bytes.fromhex(text))
        except ValueError:
            raise FingerprintError(f"not hexadecimal: {text!r}") from None


def fingerprint_of_form(canonical_form: str, algorithm: str = CRC64) -> Fingerprint:
    data = canonical_form.encode("utf-8")
    if algorithm == CRC64:
        return Fingerprint(CRC64, crc64_avro(data).to_bytes(8, "little"))
    if algorithm in (MD5, SHA256):
        return Fingerprint(algorithm, hashlib.new(algorithm, data).digest())
    raise _unknown(algorithm)


def schema_fingerprint(schema_text: str, referenced: Sequence[str] = (), algorithm: str = CRC64) -> Fingerprint:
    """The fingerprint of an Avro schema given as text, with its references' texts."""
    return fingerprint_of_form(parsing_canonical_form(schema_text, referenced), algorithm)
