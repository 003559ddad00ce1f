"""KMS drivers: how the server wraps and unwraps the DEKs of `shared` KEKs.

A driver serves one `kmsType` and turns a KEK into an AEAD (Tink's contract: `encrypt` and
`decrypt` with associated data, which the clients leave empty for DEKs). The server only
needs one for shared KEKs; the clients bring their own for the others. Drivers are picked
from the settings in `drivers_from` (the one place that knows which exist), so adding a
cloud KMS is a module beside local_kms.py and a line there.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Protocol

from app.core.dek.errors import InvalidKey
from app.core.dek.records import Kek
from app.settings import Settings


class Aead(Protocol):
    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes: ...
    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes: ...


class KmsDriver(Protocol):
    kms_type: str

    def aead(self, kek: Kek) -> Aead: ...


class KmsError(Exception):
    """A driver's refusal (a wrong secret, a key it cannot reach), said in words for 50070."""


class KmsDrivers:
    """The drivers this server has, by `kmsType`."""

    def __init__(self, drivers: Mapping[str, KmsDriver]):
        self._drivers = dict(drivers)

    def supports(self, kms_type: str) -> bool:
        return kms_type in self._drivers

    def aead(self, kek: Kek) -> Aead:
        driver = self._drivers.get(kek.kms_type)
        if driver is None:
            known = ", ".join(sorted(self._drivers)) or "none"
            # The server's KMS setup changed under a shared key: the request names a key this
            # server cannot use, which is the client's to hear (not a 500).
            raise InvalidKey(f"kmsType: this server has no KMS driver for '{kek.kms_type}' "
                             f"of key '{kek.name}' (configured: {known})")
        return driver.aead(kek)


def drivers_from(settings: Settings) -> KmsDrivers:
    """The local key file driver when a secret is configured (REGISTRY_KMS_LOCAL_SECRET or
    REGISTRY_KMS_LOCAL_SECRET_FILE); nothing else yet."""
    from app.core.dek.local_kms import LOCAL_KMS_TYPE, LocalKms

    secret = settings.kms_local_secret
    if not secret and settings.kms_local_secret_file:
        try:
            with open(os.path.expanduser(settings.kms_local_secret_file), encoding="utf-8") as file:
                secret = file.read().strip()
        except OSError as exc:
            raise ValueError(f"REGISTRY_KMS_LOCAL_SECRET_FILE: {exc.strerror}: {exc.filename}") from None
        if not secret:
            raise ValueError(f"REGISTRY_KMS_LOCAL_SECRET_FILE: {settings.kms_local_secret_file} is empty")
    return KmsDrivers({LOCAL_KMS_TYPE: LocalKms(secret)} if secret else {})
