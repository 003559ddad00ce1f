"""The identity of a schema: Confluent's MD5 over canonical text, references, metadata and
rule set. Equal identity inside a context means the same schema id; the digest,
laid out as a UUID, is the schema's GUID. Following the reference recipe byte for byte keeps
GUIDs portable between registries.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from app.core.metadata import RULE_KINDS
from app.core.types import SchemaReference


def identity_hash(
    canonical: str,
    references: Iterable[SchemaReference],
    metadata: dict[str, Any] | None,
    rule_set: dict[str, Any] | None,
) -> str:
    md5 = hashlib.md5(canonical.encode("utf-8"))
    for ref in references:
        md5.update(ref.name.encode("utf-8"))
        md5.update(ref.subject.encode("utf-8"))
        md5.update(int(ref.version).to_bytes(4, "big", signed=True))
    if metadata is not None:
        md5.update(b"\x01")
        _update_metadata(md5, metadata)
    if rule_set is not None:
        md5.update(b"\x01")
        _update_rule_set(md5, rule_set)
    return md5.hexdigest()


def _s(md5: Any, value: object) -> None:
    if value is not None:
        md5.update(str(value).encode("utf-8"))


def _update_metadata(md5: Any, metadata: dict[str, Any]) -> None:
    tags = metadata.get("tags") or {}
    for key in sorted(tags):
        _s(md5, key)
        for value in sorted(tags[key]):
            _s(md5, value)
    properties = metadata.get("properties") or {}
    for key in sorted(properties):
        _s(md5, key)
        _s(md5, properties[key])
    for name in sorted(metadata.get("sensitive") or ()):
        _s(md5, name)


def _update_rule_set(md5: Any, rule_set: dict[str, Any]) -> None:
    for kind in RULE_KINDS:
        for rule in rule_set.get(kind) or ():
            for key in ("name", "doc", "kind", "mode", "type"):
                _s(md5, rule.get(key))
            for tag in sorted(rule.get("tags") or ()):
                _s(md5, tag)
            params = rule.get("params") or {}
            for key in sorted(params):
                _s(md5, key)
                _s(md5, params[key])
            for key in ("expr", "onSuccess", "onFailure"):
                _s(md5, rule.get(key))
            if rule.get("disabled"):
                md5.update(b"\x01")
    _s(md5, rule_set.get("enableAt"))


def hash_from_guid(guid: str) -> str | None:
    """The hex digest behind a GUID, or None when the text is not a UUID."""
    compact = guid.strip().lower().replace("-", "")
    if len(compact) != 32 or len(guid.strip()) not in (32, 36):
        return None
    try:
        bytes.fromhex(compact)
    except ValueError:
        return None
    return compact
