"""The DEK registry's records and what it needs from storage (`DekStore`, part of the
core's `Store`).

A KEK is addressed by its context and name; a DEK by its KEK, its subject (qualified, in the
KEK's context), its algorithm and its version. Deletes are soft first (`deleted`), as for
subjects; `ts` is when the row was last written, in epoch milliseconds, which is what the
clients compare with `encrypt.dek.expiry.days` to decide on a new version.
"""
from __future__ import annotations

import base64
import binascii
import enum
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from app.core.dek.errors import InvalidKey
from app.core.storable_text import problem


class Algorithm(str, enum.Enum):
    AES128_GCM = "AES128_GCM"
    AES256_GCM = "AES256_GCM"
    AES256_SIV = "AES256_SIV"


DEFAULT_ALGORITHM = Algorithm.AES256_GCM
MIN_VERSION = 1
NAME_MAX_LENGTH = 64  # Confluent's limit on KEK names
SUBJECT_MAX_LENGTH = 1024  # the subjects table's column
CONTEXT_MAX_LENGTH = 255  # the contexts table's column
KMS_TYPE_MAX_LENGTH = 255
# Bounds on what Confluent leaves unbounded, generous for what real KMSs use: an AWS key ARN
# or alias is at most 2,048 characters, a GCP or Azure key name a few hundred; kmsProps hold
# a KMS's connection settings (a service account's JSON key is about 2.4 KB).
KMS_KEY_ID_MAX_LENGTH = 2048
KMS_PROPS_MAX_COUNT = 64
KMS_PROP_KEY_MAX_LENGTH = 255
KMS_PROP_VALUE_MAX_LENGTH = 16_384
DOC_MAX_LENGTH = 16_384
# Base64 of a wrapped DEK: AWS KMS ciphertext blobs are at most 6,144 bytes (8,192 in base64),
# an RSA-4096 wrap (Azure) 512 bytes, Tink and GCP envelopes under 200; twice AWS's bound.
ENCRYPTED_KEY_MATERIAL_MAX_LENGTH = 16_384


@dataclass(frozen=True)
class Kek:
    context: str
    name: str
    kms_type: str
    kms_key_id: str
    kms_props: Mapping[str, str] = field(default_factory=dict)
    doc: str | None = None
    shared: bool = False
    ts: int = 0
    deleted: bool = False

    def equivalent(self, other: Kek) -> bool:
        """Same key apart from when it was written and whether it is deleted: creating a
        deleted KEK again with the same fields undeletes it (Confluent's rule)."""
        return (self.kms_type, self.kms_key_id, dict(self.kms_props), self.doc, self.shared) == (
            other.kms_type, other.kms_key_id, dict(other.kms_props), other.doc, other.shared)


@dataclass(frozen=True)
class DekKey:
    """Which DEK: all its versions share this."""

    context: str
    kek_name: str
    subject: str
    algorithm: Algorithm


@dataclass(frozen=True)
class Dek:
    key: DekKey
    version: int
    encrypted_key_material: str
    ts: int = 0
    deleted: bool = False


@dataclass(frozen=True)
class DekReply:
    """A DEK as answered: with the unwrapped `key_material` (base64) for a shared KEK."""

    dek: Dek
    key_material: str | None = None


@dataclass(frozen=True)
class KekRequest:
    """`POST /keks`'s body after its JSON types were checked; None: absent."""

    name: str | None
    kms_type: str | None
    kms_key_id: str | None
    kms_props: Mapping[str, str] | None = None
    doc: str | None = None
    shared: bool = False
    deleted: bool = False


@dataclass(frozen=True)
class KekChanges:
    """`PUT /keks/{name}`: only these may change; None keeps the stored value."""

    kms_props: Mapping[str, str] | None = None
    doc: str | None = None
    shared: bool | None = None


@dataclass(frozen=True)
class DekRequest:
    """`POST /keks/{name}/deks`'s body; no `encryptedKeyMaterial` asks a shared KEK for a new key."""

    subject: str | None
    version: int | None = None
    algorithm: str | None = None
    encrypted_key_material: str | None = None
    deleted: bool = False


class DekStore(Protocol):
    def kek(self, context: str, name: str) -> Kek | None: ...
    def kek_names(self, context: str, deleted: bool) -> list[str]: ...
    def kek_names_holding(self, context: str, subject_prefixes: list[str], deleted: bool) -> list[str]:
        """The KEKs of `context` with a DEK whose stored (qualified) subject starts with one of
        `subject_prefixes`; deleted DEKs count only when `deleted`."""
        ...
    def put_kek(self, kek: Kek) -> Kek:
        """Insert or replace the KEK; the stored record (its `ts` set) is returned."""
        ...
    def remove_kek(self, context: str, name: str) -> None: ...
    def dek_subjects(self, context: str, kek_name: str, deleted: bool) -> list[str]: ...
    def deks(self, key: DekKey, deleted: bool) -> list[Dek]:
        """The versions of `key`, oldest first."""
        ...
    def count_deks(self, context: str, kek_name: str, deleted: bool) -> int: ...
    def material_elsewhere(self, material: str, key: DekKey, version: int) -> bool:
        """Whether any DEK other than version `version` of `key` holds exactly `material`."""
        ...
    def put_dek(self, dek: Dek) -> Dek:
        """Insert or replace that version; the stored record (its `ts` set) is returned."""
        ...
    def remove_deks(self, key: DekKey, versions: list[int]) -> None: ...


def check_kek_name(name: str | None) -> str:
    """Confluent's rule: a letter or `_`, then letters, digits, `_` or `-`; 64 at most."""
    if not name or len(name) > NAME_MAX_LENGTH or not (name[0].isalpha() or name[0] == "_"):
        raise InvalidKey("name")
    if not all(c.isalnum() or c in "_-" for c in name[1:]):
        raise InvalidKey("name")
    return name


def check_dek_subject(subject: str | None) -> str:
    """Non-empty, no control characters (Java's ISO control range), storable."""
    if not subject or len(subject) > SUBJECT_MAX_LENGTH or any(unicodedata.category(c) == "Cc" for c in subject):
        raise InvalidKey("subject")
    check_text(subject, "subject")
    return subject


def check_encrypted_key_material(text: str | None) -> bytes | None:
    """The wrapped key bytes, from standard base64 (what every Confluent client sends) of at
    most ENCRYPTED_KEY_MATERIAL_MAX_LENGTH characters; None when none was sent."""
    if text is None:
        return None
    if len(text) > ENCRYPTED_KEY_MATERIAL_MAX_LENGTH:
        raise InvalidKey(f"encryptedKeyMaterial: longer than {ENCRYPTED_KEY_MATERIAL_MAX_LENGTH} characters")
    try:
        wrapped = base64.b64decode(text.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error):
        raise InvalidKey("encryptedKeyMaterial: not base64") from None
    if not wrapped:
        raise InvalidKey("encryptedKeyMaterial")
    return wrapped


def check_text(value: str | None, field: str, max_length: int | None = None) -> str | None:
    """A field that can be stored as it came (`storable_text.problem`, the project's one test:
    no NUL, no lone surrogate), within its column; `?context=` reaches here unchecked."""
    if value is None:
        return None
    if (max_length is not None and len(value) > max_length) or problem(value) is not None:
        raise InvalidKey(field)
    return value


def algorithm_of(text: str | None) -> Algorithm:
    """The `algorithm` parameter or field; absent means AES256_GCM."""
    if text is None:
        return DEFAULT_ALGORITHM
    try:
        return Algorithm(text)
    except ValueError:
        raise InvalidKey("algorithm") from None
