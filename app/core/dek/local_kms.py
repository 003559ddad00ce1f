"""The `local-kms` driver: a KEK derived from a secret the operator keeps in a setting or a
file; a test and development driver, not a key management service.

It agrees with confluent-kafka's own local KMS driver byte for byte, so a client configured
with the same secret (`secret` in the rule's or client's config, or `LOCAL_SECRET`) unwraps
what the server wrapped and the other way round: the key is the first 16 bytes of
HKDF-SHA256 over the secret's UTF-8 bytes (no salt, no info), used as Tink's raw AES-128-GCM
(a 12-byte random nonce, then the ciphertext and its 16-byte tag). Every KEK of this type
shares the one secret, as in the client; `kmsKeyId` only names it. So every local-kms KEK
unwraps every other's DEKs: grants on KEK names keep callers apart only as far as the
server refuses to unwrap one DEK's material under another KEK (service.py), and anyone with
the secret unwraps them all.
"""
from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from app.core.dek.kms import KmsError
from app.core.dek.records import Kek

LOCAL_KMS_TYPE = "local-kms"
_NONCE_BYTES = 12


class _LocalAead:
    def __init__(self, key: bytes):
        self._cipher = AESGCM(key)

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        nonce = os.urandom(_NONCE_BYTES)
        return nonce + self._cipher.encrypt(nonce, plaintext, associated_data)

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes:
        if len(ciphertext) <= _NONCE_BYTES:
            raise KmsError("ciphertext too short")
        try:
            return self._cipher.decrypt(ciphertext[:_NONCE_BYTES], ciphertext[_NONCE_BYTES:], associated_data)
        except InvalidTag:
            raise KmsError("decryption failed (a different secret wrapped this key?)") from None


class LocalKms:
    kms_type = LOCAL_KMS_TYPE

    def __init__(self, secret: str):
        key = HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=None).derive(secret.encode("utf-8"))
        self._aead = _LocalAead(key)

    def aead(self, kek: Kek) -> _LocalAead:
        return self._aead
