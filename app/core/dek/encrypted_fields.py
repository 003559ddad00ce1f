"""What a schema's ENCRYPT rules encrypt, for the web UI's subject page: per rule, its KEK
and the fields whose tags it names. Read from the rule set, the fields' inline tags (the
format's `FieldTags`) and the metadata's `tags` (path patterns, shown as written); no key
is looked up and no key material is ever involved."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ENCRYPT = "ENCRYPT"
ENCRYPT_PAYLOAD = "ENCRYPT_PAYLOAD"
WHOLE_PAYLOAD = "(the whole payload)"


@dataclass(frozen=True)
class EncryptedField:
    path: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class EncryptionRule:
    name: str
    kek: str
    kms_type: str
    tags: tuple[str, ...]
    fields: tuple[EncryptedField, ...]
    disabled: bool = False


def encryption_rules(rule_set: Mapping[str, Any] | None, metadata: Mapping[str, Any] | None,
                     field_tags: Mapping[str, tuple[str, ...]]) -> list[EncryptionRule]:
    found = []
    rules = (rule_set or {}).get("domainRules") or []
    tagged = dict(field_tags)
    for path, tags in ((metadata or {}).get("tags") or {}).items():
        if isinstance(tags, list):
            tagged.setdefault(str(path), tuple(str(t) for t in tags))
    for rule in rules:
        if not isinstance(rule, Mapping) or rule.get("type") not in (ENCRYPT, ENCRYPT_PAYLOAD):
            continue
        params = rule.get("params") or {}
        tags = tuple(str(t) for t in rule.get("tags") or ())
        if rule.get("type") == ENCRYPT_PAYLOAD:
            fields: tuple[EncryptedField, ...] = (EncryptedField(WHOLE_PAYLOAD, ()),)
        else:
            fields = tuple(EncryptedField(path, own) for path, own in tagged.items() if set(own) & set(tags))
        found.append(EncryptionRule(
            name=str(rule.get("name") or ""), kek=str(params.get("encrypt.kek.name") or ""),
            kms_type=str(params.get("encrypt.kms.type") or ""), tags=tags, fields=fields,
            disabled=bool(rule.get("disabled")),
        ))
    return found
