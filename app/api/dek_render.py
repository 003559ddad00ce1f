"""The DEK registry's reply shapes, as Confluent's `Kek` and `Dek` entities: null fields are
left out, `false` and `0` kept. `keyMaterial` appears only for a shared KEK's DEK."""
from __future__ import annotations

from typing import Any

from app.api.render import non_null
from app.core.dek.records import DekReply, Kek


def kek_entity(kek: Kek) -> dict[str, Any]:
    return non_null({
        "name": kek.name, "kmsType": kek.kms_type, "kmsKeyId": kek.kms_key_id, "kmsProps": dict(kek.kms_props),
        "doc": kek.doc, "shared": kek.shared, "ts": kek.ts, "deleted": kek.deleted,
    })


def dek_entity(reply: DekReply) -> dict[str, Any]:
    dek = reply.dek
    return non_null({
        "kekName": dek.key.kek_name, "subject": dek.key.subject, "version": dek.version,
        "algorithm": dek.key.algorithm.value, "encryptedKeyMaterial": dek.encrypted_key_material,
        "keyMaterial": reply.key_material, "ts": dek.ts, "deleted": dek.deleted,
    })
