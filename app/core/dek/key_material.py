"""New DEKs for shared KEKs, in the form the clients decrypt fields with.

A DEK's key material is what Tink calls a key's serialized value: the `AesGcmKey` or
`AesSivKey` protocol buffer (version 0, which protobuf leaves out, and the key bytes), since
the clients rebuild the primitive from it with the algorithm's key type. Each message has
one bytes field, so it is written here directly: its tag, the length, the random key.
"""
from __future__ import annotations

import os

from app.core.dek.records import Algorithm

# (the key's size in bytes, the protobuf tag of its `key_value` field: field 3 of AesGcmKey,
# field 2 of AesSivKey, both length-delimited)
_LAYOUT = {
    Algorithm.AES128_GCM: (16, 0x1A),
    Algorithm.AES256_GCM: (32, 0x1A),
    Algorithm.AES256_SIV: (64, 0x12),
}


def new_key_material(algorithm: Algorithm) -> bytes:
    size, tag = _LAYOUT[algorithm]
    return bytes((tag, size)) + os.urandom(size)
