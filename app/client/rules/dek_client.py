"""The registry's DEK API (`/dek-registry/v1`), as the ENCRYPT executor needs it, over the
client's own transport, with the per-process caches that let a Spark worker fetch a DEK once.

KEKs and DEKs are cached by the registry's URLs and the credentials asking (a digest of the
Authorization header, so a caller with fewer grants never reads what another fetched). A
numbered DEK never changes and is kept; the latest DEK (version -1, asked for when DEKs
rotate) is dropped when a new version is made. Replies are checked for their shape: a DEK
without base64 key material, or with a version that is not a positive number, is refused.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import quote

from app.client.errors import RegistryRequestError
from app.client.rules.executors import RuleError

ROOT = "/dek-registry/v1"
LATEST = -1
# The most DEK versions `dek_versions` reads; a longer list is refused (real subjects rotate
# yearly or so, so this many means a damaged or hostile reply).
MAX_DEK_VERSIONS = 1000


@dataclass(frozen=True)
class Kek:
    name: str
    kms_type: str
    kms_key_id: str
    kms_props: Mapping[str, str]
    shared: bool


@dataclass(frozen=True)
class Dek:
    kek_name: str
    subject: str
    version: int
    algorithm: str
    encrypted_key_material: bytes | None
    key_material: bytes | None
    ts: int


_KEKS: dict[tuple[str, ...], Kek] = {}
_DEKS: dict[tuple[Any, ...], Dek] = {}


def _segment(value: str) -> str:
    return quote(value, safe="")


def _b64(value: Any, what: str) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 65536:
        raise RuleError(f"the registry's {what} is not base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise RuleError(f"the registry's {what} is not base64 text") from None


def _kek(body: Any) -> Kek:
    if not isinstance(body, dict) or not all(isinstance(body.get(k), str) for k in ("name", "kmsType", "kmsKeyId")):
        raise RuleError("the registry's KEK reply lacks name, kmsType or kmsKeyId")
    props = body.get("kmsProps")
    return Kek(body["name"], body["kmsType"], body["kmsKeyId"],
               {str(k): str(v) for k, v in props.items()} if isinstance(props, dict) else {},
               body.get("shared") is True)


def _dek(body: Any) -> Dek:
    if not isinstance(body, dict) or not isinstance(body.get("version"), int) or body["version"] < 1:
        raise RuleError("the registry's DEK reply has no positive version")
    ts = body.get("ts")
    return Dek(str(body.get("kekName", "")), str(body.get("subject", "")), body["version"],
               str(body.get("algorithm", "AES256_GCM")), _b64(body.get("encryptedKeyMaterial"), "encryptedKeyMaterial"),
               _b64(body.get("keyMaterial"), "keyMaterial"), ts if isinstance(ts, int) else 0)


class DekRegistry:
    """The DEK API of the registry a `RegistryClient` talks to (its transport: URLs, retries,
    credentials)."""

    def __init__(self, client: Any) -> None:
        transport = client.transport
        self._transport = transport
        auth = transport.authorization or ""
        self._scope = (*transport.urls, hashlib.sha256(auth.encode()).hexdigest())

    def get_kek(self, name: str, context: str | None) -> Kek | None:
        key = (*self._scope, context or "", name)
        found = _KEKS.get(key)
        if found is None:
            try:
                body = self._transport.request("GET", f"{ROOT}/keks/{_segment(name)}",
                                               query={"deleted": "false", "context": context})
            except RegistryRequestError as exc:
                if exc.http_status == 404:
                    return None
                raise
            found = _KEKS.setdefault(key, _kek(body))
        return found

    def create_kek(self, name: str, kms_type: str, kms_key_id: str, context: str | None) -> Kek | None:
        """The KEK made, or None when another client made it first (409)."""
        try:
            body = self._transport.request("POST", f"{ROOT}/keks", query={"context": context},
                                           body={"name": name, "kmsType": kms_type, "kmsKeyId": kms_key_id,
                                                 "shared": False})
        except RegistryRequestError as exc:
            if exc.http_status == 409:
                return None
            raise
        kek = _kek(body)
        _KEKS[(*self._scope, context or "", name)] = kek
        return kek

    def get_dek(self, kek: str, subject: str, version: int, algorithm: str, deleted: bool) -> Dek | None:
        key = (*self._scope, kek, subject, version, algorithm, deleted)
        found = _DEKS.get(key)
        if found is None:
            try:
                body = self._transport.request(
                    "GET", f"{ROOT}/keks/{_segment(kek)}/deks/{_segment(subject)}/versions/{version}",
                    query={"algorithm": algorithm, "deleted": "true" if deleted else "false"})
            except RegistryRequestError as exc:
                if exc.http_status == 404:
                    return None
                raise
            dek = _dek(body)
            if dek.encrypted_key_material is None and dek.key_material is None:
                return None
            found = _DEKS.setdefault(key, dek)
        return found

    def dek_versions(self, kek: str, subject: str, algorithm: str) -> list[int]:
        """The versions of `subject`'s DEK under `kek` (deleted ones too, as a reader may meet
        them), oldest first; an empty list when there are none."""
        try:
            body = self._transport.request(
                "GET", f"{ROOT}/keks/{_segment(kek)}/deks/{_segment(subject)}/versions",
                query={"algorithm": algorithm, "deleted": "true", "limit": str(MAX_DEK_VERSIONS + 1)})
        except RegistryRequestError as exc:
            if exc.http_status == 404:
                return []
            raise
        if not isinstance(body, list) or not all(type(item) is int and item > 0 for item in body):
            raise RuleError("the registry's DEK version list is not a list of positive numbers")
        if len(body) > MAX_DEK_VERSIONS:
            raise RuleError(f"the registry lists more than {MAX_DEK_VERSIONS} DEK versions")
        return sorted(set(body))

    def create_dek(self, kek: str, subject: str, version: int, algorithm: str,
                   encrypted_key_material: bytes | None) -> Dek | None:
        """The DEK made, or None when another client made that version first (409)."""
        body: dict[str, Any] = {"subject": subject, "version": version, "algorithm": algorithm}
        if encrypted_key_material is not None:
            body["encryptedKeyMaterial"] = base64.b64encode(encrypted_key_material).decode("ascii")
        try:
            reply = self._transport.request("POST", f"{ROOT}/keks/{_segment(kek)}/deks/{_segment(subject)}",
                                            body=body)
        except RegistryRequestError as exc:
            if exc.http_status == 409:
                return None
            raise
        dek = _dek(reply)
        for deleted in (False, True):
            _DEKS.pop((*self._scope, kek, subject, LATEST, algorithm, deleted), None)
        _DEKS[(*self._scope, kek, subject, dek.version, algorithm, False)] = dek
        return dek


