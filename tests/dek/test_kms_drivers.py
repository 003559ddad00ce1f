"""The local KMS driver agrees with confluent-kafka's, the DEKs a shared KEK gets are keys the
clients' Tink primitives accept, and the secret comes from a setting or a file."""
from __future__ import annotations

from pathlib import Path

import pytest
from dek_support import client_aead
from tink import aead, daead
from tink.core import Registry
from tink.proto import aes_gcm_pb2, aes_siv_pb2, tink_pb2

from app.core.dek.key_material import new_key_material
from app.core.dek.kms import drivers_from
from app.core.dek.local_kms import LocalKms
from app.core.dek.records import Algorithm, Kek
from app.settings import Settings

KEK = Kek(".", "k", "local-kms", "id")


def test_the_local_kms_and_confluent_kafkas_unwrap_each_others_keys() -> None:
    ours, theirs = LocalKms("shh").aead(KEK), client_aead("shh")
    assert theirs.decrypt(ours.encrypt(b"dek bytes", b""), b"") == b"dek bytes"
    assert ours.decrypt(theirs.encrypt(b"more bytes", b""), b"") == b"more bytes"


@pytest.mark.parametrize("algorithm, type_url, primitive, message, size", [
    (Algorithm.AES128_GCM, "type.googleapis.com/google.crypto.tink.AesGcmKey", aead.Aead, aes_gcm_pb2.AesGcmKey, 16),
    (Algorithm.AES256_GCM, "type.googleapis.com/google.crypto.tink.AesGcmKey", aead.Aead, aes_gcm_pb2.AesGcmKey, 32),
    (Algorithm.AES256_SIV, "type.googleapis.com/google.crypto.tink.AesSivKey", daead.DeterministicAead,
     aes_siv_pb2.AesSivKey, 64),
])
def test_new_key_material_is_a_key_of_the_algorithms_size_that_tinks_primitive_accepts(
    algorithm: Algorithm, type_url: str, primitive, message, size: int,
) -> None:
    """Tink's AesGcmKey takes 16 or 32 bytes alike, so the size is read from the key itself:
    an AES256_GCM DEK with a 16-byte key would encrypt, with AES-128."""
    aead.register()
    daead.register()
    material = new_key_material(algorithm)
    parsed = message.FromString(material)
    assert parsed.version == 0 and len(parsed.key_value) == size
    key = tink_pb2.KeyData(type_url=type_url, value=material, key_material_type=tink_pb2.KeyData.SYMMETRIC)
    cipher = Registry().primitive(key, primitive)
    if primitive is aead.Aead:
        assert cipher.decrypt(cipher.encrypt(b"field", b""), b"") == b"field"
    else:
        assert cipher.decrypt_deterministically(cipher.encrypt_deterministically(b"field", b""), b"") == b"field"
    assert new_key_material(algorithm) != new_key_material(algorithm)


def test_the_secret_is_read_from_its_file_and_a_missing_file_stops_the_start(tmp_path: Path) -> None:
    secret_file = tmp_path / "kms-secret"
    secret_file.write_text("from-a-file\n")
    drivers = drivers_from(Settings(kms_local_secret_file=str(secret_file)))
    assert client_aead("from-a-file").decrypt(drivers.aead(KEK).encrypt(b"x", b""), b"") == b"x"
    assert not drivers_from(Settings()).supports("local-kms")
    with pytest.raises(ValueError, match="REGISTRY_KMS_LOCAL_SECRET_FILE"):
        drivers_from(Settings(kms_local_secret_file=str(tmp_path / "absent")))
