"""The `local-kms` driver: a KEK derived from a secret, for development and tests.

The secret comes from the serde's rule configuration (`secret`), else the KEK's `kmsProps`,
else the `LOCAL_SECRET` environment variable. The key is derived as Confluent's local KMS
derives it (HKDF-SHA256 of the secret, no salt and no info, 16 bytes), used as Tink's
AES128-GCM without an output prefix, so DEKs wrapped here unwrap in Confluent's clients.
"""
from __future__ import annotations

import hashlib
import os
from typing import Any, Mapping

from hkdf import hkdf_expand, hkdf_extract
from tink import aead
from tink.core import Registry
from tink.proto import aes_gcm_pb2, tink_pb2

from app.client.errors import RulesUnavailable

aead.register()


class LocalKmsDriver:
    kms_type = "local-kms"

    def aead(self, key_id: str, config: Mapping[str, str]) -> Any:
        secret = config.get("secret") or os.environ.get("LOCAL_SECRET")
        if not secret:
            raise RulesUnavailable("the local KMS has no secret: set `secret` in the rule configuration, in the "
                                   "KEK's kmsProps, or the LOCAL_SECRET environment variable")
        key = hkdf_expand(hkdf_extract(None, secret.encode("utf-8"), hash=hashlib.sha256), length=16,
                          hash=hashlib.sha256)
        template = aead.aead_key_templates.AES128_GCM_RAW
        key_data = tink_pb2.KeyData(type_url=template.type_url,
                                    value=aes_gcm_pb2.AesGcmKey(version=0, key_value=key).SerializeToString(),
                                    key_material_type=tink_pb2.KeyData.SYMMETRIC)
        return Registry().primitive(key_data, aead.Aead)
