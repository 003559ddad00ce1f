"""KMS drivers: how a KEK's `kmsType` and `kmsKeyId` become an AEAD that wraps and unwraps DEKs.

A driver is a plain object with a `kms_type` (`local-kms`, `aws-kms`, ...) and
`aead(key_id, config)`; `register_kms_driver` adds one (a KMS of one's own, or a built-in
replaced). The built-ins are made on first use: `local-kms` (`app.client.rules.local_kms`)
and `aws-kms` (`app.client.rules.aws_kms`, boto3). A KMS type without a driver is a
`RulesUnavailable` naming it.

`config` is the serde's rule configuration with the KEK's `kmsProps` under it (the
serializer's own settings win, so two serializers in one process may use different
secrets); AEADs are cached per process by driver, key and configuration.
"""
from __future__ import annotations

import importlib
from typing import Any, Mapping, Protocol

from app.client.errors import RulesUnavailable
from app.client.rules.executors import EXTRA


class Aead(Protocol):
    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes: ...

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes: ...


class KmsDriver(Protocol):
    kms_type: str

    def aead(self, key_id: str, config: Mapping[str, str]) -> Aead:
        """The AEAD of the KMS key `key_id`, reached with `config` (secrets, credentials)."""


_BUILT_IN = {
    "local-kms": ("app.client.rules.local_kms", "LocalKmsDriver"),
    "aws-kms": ("app.client.rules.aws_kms", "AwsKmsDriver"),
}
_DRIVERS: dict[str, KmsDriver] = {}
_AEADS: dict[tuple[str, str, str], Aead] = {}


def register_kms_driver(driver: KmsDriver) -> None:
    """Adds `driver` for its `kms_type`, replacing any driver of that type."""
    _DRIVERS[driver.kms_type] = driver
    for key in [key for key in _AEADS if key[0] == driver.kms_type]:
        _AEADS.pop(key, None)


def kms_driver(kms_type: str) -> KmsDriver:
    found = _DRIVERS.get(kms_type)
    if found is None:
        if kms_type not in _BUILT_IN:
            raise RulesUnavailable(f"no KMS driver for kms type {kms_type!r}: register one with "
                                   f"app.client.rules.kms.register_kms_driver")
        module, name = _BUILT_IN[kms_type]
        try:
            found = getattr(importlib.import_module(module), name)()
        except ImportError as exc:
            raise RulesUnavailable(f"the {kms_type} driver needs {exc.name}, which is not installed: {EXTRA}") \
                from None
        found = _DRIVERS.setdefault(kms_type, found)
    return found


def kek_aead(kms_type: str, key_id: str, config: Mapping[str, str], digest: str) -> Aead:
    """The cached AEAD for a KEK; `digest` stands for the configuration in the cache's key
    (the serde's rule configuration's digest and the KEK's properties)."""
    key = (kms_type, key_id, digest)
    found = _AEADS.get(key)
    if found is None:
        found = _AEADS.setdefault(key, kms_driver(kms_type).aead(key_id, config))
    return found


def merged_config(rule_config: Mapping[str, str], kms_props: Mapping[str, Any] | None) -> dict[str, str]:
    """The KEK's `kmsProps` under the serde's rule configuration: the serde's settings win."""
    merged = {str(k): str(v) for k, v in (kms_props or {}).items()}
    merged.update(rule_config)
    return merged
