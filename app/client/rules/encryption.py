"""ENCRYPT (fields selected by tags) and ENCRYPT_PAYLOAD (the whole encoded payload) rules:
client-side encryption with DEKs kept in the registry's DEK API, byte-compatible with
Confluent's clients.

The rule's parameters (or the schema's metadata properties) name the KEK
(`encrypt.kek.name`), its KMS (`encrypt.kms.type`, `encrypt.kms.key.id`, used to create the
KEK on first write), the DEK algorithm (`encrypt.dek.algorithm`: AES256_GCM by default,
AES256_SIV deterministic, AES128_GCM) and `encrypt.dek.expiry.days` (0: one DEK version for
good). A DEK per subject is made on the first write: Tink generates the key, the KEK's KMS
wraps it (unless the KEK is shared, when the registry makes it), the registry keeps it.

Ciphertext is Tink's output without a prefix (AES-GCM: IV, ciphertext, tag; AES-SIV: SIV,
ciphertext). With expiry days the DEK version leads it (a zero byte and the version as four
big-endian bytes), so a reader finds the version to fetch. A string field holds the base64
of the ciphertext, a bytes field the ciphertext itself; other types cannot be encrypted.

Primitives are kept per process by key material: a Spark worker unwraps each DEK once.
"""
from __future__ import annotations

import base64
import binascii
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from tink import TinkError, aead, daead
from tink.core import Registry
from tink.proto import aes_gcm_pb2, aes_siv_pb2, tink_pb2

from app.client.errors import RegistryClientError
from app.client.rules.context import READ, WRITE, FieldContext, FieldType, RuleContext
from app.client.rules.dek_client import LATEST, Dek, DekRegistry, Kek
from app.client.rules.executors import FieldRuleExecutor, RuleError
from app.client.rules.kms import kek_aead, merged_config

aead.register()
daead.register()

KEK_NAME = "encrypt.kek.name"
KMS_TYPE = "encrypt.kms.type"
KMS_KEY_ID = "encrypt.kms.key.id"
DEK_ALGORITHM = "encrypt.dek.algorithm"
DEK_EXPIRY_DAYS = "encrypt.dek.expiry.days"
_DAY_MS = 24 * 60 * 60 * 1000
_NO_AAD = b""
GCM_ALGORITHMS = ("AES128_GCM", "AES256_GCM")
# Why READ refuses a value: fixed texts (never Tink's own, which carries a thread's address and
# a library's source path), so that every reader words one fault alike (the pipeline's JVM too).
NOT_BASE64 = "the field is not base64 ciphertext"
NO_VERSION = "the ciphertext is too short to carry a DEK version"
UNDECRYPTABLE = "decryption failed: the ciphertext is damaged or was not made with this DEK"
NOT_UTF8 = "the decrypted value of a string field is not UTF-8 text"


def _siv_template() -> tink_pb2.KeyTemplate:
    """Tink has no raw AES256-SIV template; this one is (two 256-bit keys, no prefix)."""
    return tink_pb2.KeyTemplate(type_url=daead.deterministic_aead_key_templates.AES256_SIV.type_url,
                                output_prefix_type=tink_pb2.RAW,
                                value=aes_siv_pb2.AesSivKeyFormat(key_size=64).SerializeToString())


_TEMPLATES = {
    "AES128_GCM": aead.aead_key_templates.AES128_GCM_RAW,
    "AES256_GCM": aead.aead_key_templates.AES256_GCM_RAW,
    "AES256_SIV": _siv_template(),
}
_PRIMITIVES: dict[tuple[str, bytes], Any] = {}
# Unwrapped DEKs by wrapped key material, KEK and configuration digest: a process asks its KMS
# once per DEK (a Spark worker once per worker and key), never per record.
_UNWRAPPED: dict[tuple[bytes, str, str, str], bytes] = {}
_DEK_REGISTRIES: weakref.WeakKeyDictionary[Any, DekRegistry] = weakref.WeakKeyDictionary()


def _now_ms() -> int:
    return int(time.time() * 1000)


def _context_of(subject: str) -> str | None:
    """The context of a qualified subject (`:.ctx:name` -> `.ctx`); None for the default."""
    if subject.startswith(":."):
        rest = subject[2:]
        cut = rest.find(":")
        context = subject[1:cut + 2] if cut >= 0 else subject[1:]
        return None if context == "." else context
    return None


@dataclass(frozen=True)
class GcmKeys:
    """What it takes to decrypt a rule's AES-GCM field values elsewhere (the pipeline's JVM):
    the raw AES key of each DEK version a reader would use, and whether the ciphertext leads
    with the version (`encrypt.dek.expiry.days` set). Secret: never in a repr."""

    algorithm: str
    versioned: bool
    keys: Mapping[int, bytes] = field(repr=False)


class _Cipher:
    """Tink's primitive for one DEK, made once per process and key."""

    def __init__(self, algorithm: str) -> None:
        if algorithm not in _TEMPLATES:
            raise RuleError(f"unknown DEK algorithm {algorithm!r} (AES128_GCM, AES256_GCM, AES256_SIV)")
        self.algorithm = algorithm
        self.template = _TEMPLATES[algorithm]

    def new_key(self) -> bytes:
        return bytes(Registry().new_key_data(self.template).value)

    def primitive(self, key: bytes) -> Any:
        found = _PRIMITIVES.get((self.algorithm, key))
        if found is None:
            data = tink_pb2.KeyData(type_url=self.template.type_url, value=key,
                                    key_material_type=tink_pb2.KeyData.SYMMETRIC)
            kind = daead.DeterministicAead if self.algorithm == "AES256_SIV" else aead.Aead
            found = _PRIMITIVES.setdefault((self.algorithm, key), Registry().primitive(data, kind))
        return found

    def encrypt(self, key: bytes, plaintext: bytes) -> bytes:
        primitive = self.primitive(key)
        if self.algorithm == "AES256_SIV":
            return bytes(primitive.encrypt_deterministically(plaintext, _NO_AAD))
        return bytes(primitive.encrypt(plaintext, _NO_AAD))

    def decrypt(self, key: bytes, ciphertext: bytes) -> bytes:
        primitive = self.primitive(key)
        if self.algorithm == "AES256_SIV":
            return bytes(primitive.decrypt_deterministically(ciphertext, _NO_AAD))
        return bytes(primitive.decrypt(ciphertext, _NO_AAD))


class _Encryptor:
    """One rule's encryption on one record: its KEK, algorithm and DEK versions."""

    def __init__(self, ctx: RuleContext, clock: Callable[[], int]) -> None:
        if ctx.registry is None or not hasattr(ctx.registry, "transport"):
            raise RuleError("ENCRYPT rules need a RegistryClient (the DEK API) as the serde's source")
        name = ctx.parameter(KEK_NAME)
        if not name:
            raise RuleError(f"the rule has no {KEK_NAME}")
        expiry = ctx.parameter(DEK_EXPIRY_DAYS) or "0"
        try:
            self.expiry_days = int(expiry)
        except ValueError:
            raise RuleError(f"{DEK_EXPIRY_DAYS} is not a number: {expiry!r}") from None
        if self.expiry_days < 0:
            raise RuleError(f"{DEK_EXPIRY_DAYS} is negative")
        self.ctx = ctx
        self.clock = clock
        self.kek_name = name
        self.cipher = _Cipher(ctx.parameter(DEK_ALGORITHM) or "AES256_GCM")
        registry = _DEK_REGISTRIES.get(ctx.registry)
        if registry is None:
            registry = _DEK_REGISTRIES.setdefault(ctx.registry, DekRegistry(ctx.registry))
        self.registry = registry
        self._kek: Kek | None = None

    # ------------------------------------------------------------------ keys
    def kek(self) -> Kek:
        if self._kek is None:
            self._kek = self._find_kek()
        return self._kek

    def _find_kek(self) -> Kek:
        ctx = self.ctx
        kms_type, kms_key_id = ctx.parameter(KMS_TYPE), ctx.parameter(KMS_KEY_ID)
        context = _context_of(ctx.subject)
        kek = self.registry.get_kek(self.kek_name, context)
        if kek is None:
            if ctx.mode == READ:
                raise RuleError(f"no KEK {self.kek_name!r} in the registry")
            if not kms_type or not kms_key_id:
                raise RuleError(f"no KEK {self.kek_name!r} in the registry, and the rule names no "
                                f"{KMS_TYPE} and {KMS_KEY_ID} to create it with")
            kek = self.registry.create_kek(self.kek_name, kms_type, kms_key_id, context) \
                or self.registry.get_kek(self.kek_name, context)
            if kek is None:
                raise RuleError(f"KEK {self.kek_name!r} could not be created")
        if kms_type and kek.kms_type != kms_type:
            raise RuleError(f"KEK {self.kek_name!r} is in {kek.kms_type}, the rule says {kms_type}")
        if kms_key_id and kek.kms_key_id != kms_key_id:
            raise RuleError(f"KEK {self.kek_name!r} has kms key id {kek.kms_key_id}, the rule says {kms_key_id}")
        return kek

    def _digest(self, kek: Kek) -> str:
        return f"{self.ctx.config_digest}:{sorted(kek.kms_props.items())!r}" if kek.kms_props \
            else self.ctx.config_digest

    def _kms(self, kek: Kek) -> Any:
        return kek_aead(kek.kms_type, kek.kms_key_id, merged_config(self.ctx.config, kek.kms_props),
                        self._digest(kek))

    def _unwrap(self, kek: Kek, wrapped: bytes) -> bytes:
        key = (wrapped, kek.kms_type, kek.kms_key_id, self._digest(kek))
        found = _UNWRAPPED.get(key)
        if found is None:
            found = _UNWRAPPED.setdefault(key, self._kms(kek).decrypt(wrapped, _NO_AAD))
        return found

    def dek(self, version: int | None) -> tuple[Dek, bytes]:
        """The DEK (made if writing and missing or expired) and its key material."""
        kek = self.kek()
        reading = self.ctx.mode == READ
        wanted = version or 1
        dek = self.registry.get_dek(kek.name, self.ctx.subject, wanted, self.cipher.algorithm, reading)
        expired = (not reading and self.expiry_days > 0 and dek is not None
                   and (self.clock() - dek.ts) / _DAY_MS > self.expiry_days)
        if dek is None or expired:
            if reading:
                raise RuleError(no_dek(kek.name, self.ctx.subject, wanted))
            wrapped = None if kek.shared else self._kms(kek).encrypt(self.cipher.new_key(), _NO_AAD)
            new_version = dek.version + 1 if dek is not None and expired else 1
            made = self.registry.create_dek(kek.name, self.ctx.subject, new_version, self.cipher.algorithm, wrapped) \
                or self.registry.get_dek(kek.name, self.ctx.subject, wanted, self.cipher.algorithm, False)
            if made is None:
                raise RuleError(f"no DEK for KEK {kek.name!r} and subject {self.ctx.subject} could be made")
            dek = made
        if dek.key_material is not None:
            return dek, dek.key_material
        assert dek.encrypted_key_material is not None
        return dek, self._unwrap(kek, dek.encrypted_key_material)

    def gcm_keys(self) -> GcmKeys:
        """The raw AES keys `transform` would decrypt with on READ: DEK version 1 alone when
        DEKs do not rotate (as `dek(None)`), else every version the DEK API lists."""
        algorithm = self.cipher.algorithm
        if algorithm not in GCM_ALGORITHMS:
            raise RuleError(f"{algorithm} is not an AES-GCM DEK algorithm")
        versioned = self.expiry_days > 0
        versions = self.registry.dek_versions(self.kek().name, self.ctx.subject, algorithm) if versioned else [1]
        keys = {version: bytes(aes_gcm_pb2.AesGcmKey.FromString(self.dek(version)[1]).key_value)
                for version in versions}
        return GcmKeys(algorithm, versioned, keys)

    # ------------------------------------------------------------------ values
    def transform(self, field_type: FieldType, value: Any) -> Any:
        if value is None:
            return None
        rotating = self.expiry_days > 0
        if self.ctx.mode == WRITE:
            plaintext = _as_bytes(field_type, value)
            if plaintext is None:
                raise RuleError(f"a {field_type.value} field cannot be encrypted (only STRING and BYTES)")
            dek, key = self.dek(LATEST if rotating else None)
            ciphertext = self.cipher.encrypt(key, plaintext)
            if rotating:
                ciphertext = b"\x00" + dek.version.to_bytes(4, "big") + ciphertext
            return base64.b64encode(ciphertext).decode("ascii") if field_type == FieldType.STRING else ciphertext
        if self.ctx.mode == READ:
            if field_type == FieldType.STRING:
                try:
                    ciphertext = base64.b64decode(value, validate=True)
                except (binascii.Error, ValueError, TypeError):
                    raise RuleError(NOT_BASE64) from None
            else:
                found = _as_bytes(field_type, value)
                if found is None:
                    return value
                ciphertext = found
            version = None
            if rotating:
                if len(ciphertext) < 5:
                    raise RuleError(NO_VERSION)
                version, ciphertext = int.from_bytes(ciphertext[1:5], "big"), ciphertext[5:]
            _, key = self.dek(version)
            try:
                plaintext = self.cipher.decrypt(key, ciphertext)
            except TinkError:
                raise RuleError(UNDECRYPTABLE) from None
            if field_type != FieldType.STRING:
                return plaintext
            try:
                return plaintext.decode("utf-8")
            except UnicodeDecodeError:
                raise RuleError(NOT_UTF8) from None
        raise RuleError(f"ENCRYPT rules run on WRITE and READ, not {self.ctx.mode}")

    def decrypt_all(self, field_type: FieldType, values: list[Any]) -> tuple[list[Any], set[int]]:
        """`transform` on READ over many values at once, each DEK version's primitive found
        once: the values in clear, and the rows that did not decrypt, left as they were, for
        the caller to run again one by one (where `transform` words the reason and the rule's
        onFailure action decides). Ciphertext is authenticated, so a value `transform` would
        refuse never decrypts here either."""
        primitives: dict[int | None, Any] = {}
        rotating, text = self.expiry_days > 0, field_type == FieldType.STRING
        siv = self.cipher.algorithm == "AES256_SIV"
        unbase64 = binascii.a2b_base64
        out: list[Any] = []
        failed: set[int] = set()
        for row, value in enumerate(values):
            if value is None:
                out.append(None)
                continue
            try:
                # strict_mode: the text `b64decode(validate=True)` takes in `transform`, no other
                ciphertext = unbase64(value, strict_mode=True) if text else bytes(value)
                version = None
                if rotating:
                    version, ciphertext = int.from_bytes(ciphertext[1:5], "big"), ciphertext[5:]
                primitive = primitives.get(version)
                if primitive is None:
                    primitive = primitives[version] = self.cipher.primitive(self.dek(version)[1])
                plaintext = primitive.decrypt_deterministically(ciphertext, _NO_AAD) if siv \
                    else primitive.decrypt(ciphertext, _NO_AAD)
                out.append(plaintext.decode("utf-8") if text else bytes(plaintext))
            except Exception:  # noqa: BLE001 - judged again by `transform`, value by value
                failed.add(row)
                out.append(value)
        return out, failed


def no_dek(kek: str, subject: str, version: int) -> str:
    """Why READ refuses a value whose DEK version the registry does not hold."""
    return f"no DEK for KEK {kek!r} and subject {subject} version {version}"


def _as_bytes(field_type: FieldType, value: Any) -> bytes | None:
    if field_type == FieldType.STRING and isinstance(value, str):
        return value.encode("utf-8")
    if field_type == FieldType.BYTES and isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return None


def _guarded(call: Callable[[], Any]) -> Any:
    """Registry and KMS failures as rule failures (the rule's onFailure action decides)."""
    try:
        return call()
    except RegistryClientError as exc:
        raise RuleError(f"the DEK registry answered: {exc}") from exc
    except TinkError as exc:
        raise RuleError(f"the KMS refused: {exc}") from exc


class FieldEncryptionExecutor(FieldRuleExecutor):
    """ENCRYPT: the fields a rule's tags select, encrypted on WRITE and decrypted on READ.
    `clock` (milliseconds) decides DEK expiry; tests pass their own."""

    type = "ENCRYPT"

    def __init__(self, clock: Callable[[], int] = _now_ms) -> None:
        self.clock = clock

    def field_transform(self, ctx: RuleContext) -> Any:
        encryptor = _guarded(lambda: _Encryptor(ctx, self.clock))

        def transform(ctx: RuleContext, field: FieldContext, value: Any) -> Any:
            return _guarded(lambda: encryptor.transform(field.field_type, value))

        return transform

    def decrypt_column(self, ctx: RuleContext, field_type: FieldType, values: list[Any]) -> tuple[list[Any], set[int]]:
        """READ over one field's values of many records at once (the pipeline decrypts a
        column per batch): the values in clear and the rows left as they were because they did
        not decrypt (see `_Encryptor.decrypt_all`)."""
        return _guarded(lambda: _Encryptor(ctx, self.clock)).decrypt_all(field_type, values)

    def gcm_keys(self, ctx: RuleContext) -> GcmKeys:
        """The keys of the rule of `ctx` on READ (see `_Encryptor.gcm_keys`), through this
        client's own KEK and DEK lookups and KMS unwrap, for a caller that decrypts the
        rule's AES-GCM values itself; a RuleError when they cannot be found."""
        encryptor = _guarded(lambda: _Encryptor(ctx, self.clock))
        return _guarded(encryptor.gcm_keys)


class PayloadEncryptionExecutor:
    """ENCRYPT_PAYLOAD: the whole encoded payload (an encoding rule), as bytes."""

    type = "ENCRYPT_PAYLOAD"

    def __init__(self, clock: Callable[[], int] = _now_ms) -> None:
        self.clock = clock

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        encryptor = _guarded(lambda: _Encryptor(ctx, self.clock))
        return _guarded(lambda: encryptor.transform(FieldType.BYTES, message))
