"""Which data-contract rules a `decode` runs, decided once on the driver before any Spark work.

A job runs rules when its records must pass through them as `app.client`'s deserializers run
them: the reader schema has READ domain rules (or, when it has no rule set, a version of the
subject has: the client then runs the writer's), a version has READ encoding rules
(`ENCRYPT_PAYLOAD`), or a version carries migration rules that records of another version would
go through on their way to the reader's. The subject's versions are what the driver can see
ahead for a batch and a stream alike, so those are looked at (cached by the client: one request
per version).

Three paths follow (`RulePath`), each logged with its reason beside the engine choice:

- `NONE`: no rule runs; the decode is exactly today's (the JVM path for Avro).
- `FIELDS`: the only READ rules are field-level `ENCRYPT` rules over string or bytes fields
  reached through records alone, and nothing migrates. The records decode as today (the
  encrypted fields come out as stored: base64 text for strings, bytes for bytes) and then only
  those field columns are decrypted, on the JVM for AES-GCM DEKs (`app.pipeline.jvm_decrypt`),
  else a batch at a time in the Python workers (`app.pipeline.field_decryption`).
- `RECORDS`: anything else (CEL, JSONata, migrations, ENCRYPT_PAYLOAD, other formats): every
  record goes through a client deserializer kept by each Python worker
  (`app.pipeline.rule_decoder`).

A rule type whose library is missing (`sqlregistry[rules]`) fails here, on the driver, with the
client's one line naming the extra.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping

from app.client import RegistryClient, Schema
from app.client.records import AVRO, Rule
from app.client.rules.context import DOWNGRADE, READ, TRANSFORM, UPGRADE, RuleContext
from app.client.rules.execution import DOMAIN, ENCODING, MIGRATION, config_digest, has_rules, rule_applies
from app.client.rules.executors import DEFAULT_EXECUTORS
from app.client.rules.kms import kms_driver

ENCRYPT = "ENCRYPT"
KMS_TYPE = "encrypt.kms.type"


class RulePath(str, Enum):
    NONE = "none"
    FIELDS = "fields"
    RECORDS = "records"


@dataclass(frozen=True)
class EncryptedField:
    """A string or bytes field of the reader's record an ENCRYPT rule selects: `path` is the
    field names from the top record down (nested records), `full_name` what tag patterns match."""

    path: tuple[str, ...]
    full_name: str
    binary: bool
    inline_tags: frozenset[str]
    rule: str  # the name of the ENCRYPT rule that selects it


@dataclass(frozen=True)
class DecodeRules:
    """What a decode runs beyond the bytes, and why (as logged). `config` is the rule
    configuration (a local KMS secret, credentials): never in a repr."""

    path: RulePath
    reason: str
    subject: str | None = None
    reader_version: int | None = None
    fields: tuple[EncryptedField, ...] = ()
    config: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def config_key(self) -> str:
        """What worker caches key the configuration by: its digest, never the secrets."""
        return config_digest(self.config)


NO_RULES = DecodeRules(RulePath.NONE, "no rules")


def _applicable(schema: Schema | None, phase: str, mode: str) -> list[Rule]:
    if not has_rules(schema, phase, mode):
        return []
    assert schema is not None and schema.rule_set is not None
    if schema.rule_set.enable_at not in (None, "ALL", "CLIENT"):
        return []
    rules = {DOMAIN: schema.rule_set.domain_rules, ENCODING: schema.rule_set.encoding_rules,
             MIGRATION: schema.rule_set.migration_rules}[phase]
    return [rule for rule in rules if not rule.disabled and rule_applies(rule, mode)]


def _names(rules: list[Rule]) -> str:
    return ", ".join(f"{rule.name!r} ({rule.type})" for rule in rules)


def _check_libraries(rules: list[Rule]) -> None:
    """Imports each rule type's library (and an ENCRYPT rule's KMS driver) on the driver, so a
    missing `sqlregistry[rules]` is one line before Spark starts, not a failure per record."""
    for rule in rules:
        if rule.type:
            DEFAULT_EXECUTORS.executor(rule.type)
        kms_type = rule.param(KMS_TYPE)
        if rule.type == ENCRYPT and kms_type:
            kms_driver(kms_type)


def plan_rules(registry: RegistryClient, subject: str | None, reader: Schema, reader_version: int | None,
               rule_config: Mapping[str, str] | None = None) -> DecodeRules:
    """The rules a decode of `subject`'s records read as `reader` (version `reader_version`,
    None when it is not one of the subject's) runs."""
    config = dict(rule_config or {})
    reader_rules = _applicable(reader, DOMAIN, READ)
    if subject is None:
        if reader_rules:
            raise ValueError(f"the reader schema has READ rules ({_names(reader_rules)}), which run under a "
                             "subject: give subject=")
        return NO_RULES
    versions = {number: registry.get_version(subject, number).schema for number in registry.get_versions(subject)}
    reasons: list[str] = []
    domain = reader_rules
    if reader_rules:
        reasons.append(f"the reader's READ rules {_names(reader_rules)}")
    elif reader.rule_set is None:
        for number, schema in sorted(versions.items()):
            found = _applicable(schema, DOMAIN, READ)
            if found:
                domain = domain + found
                reasons.append(f"version {number}'s READ rules {_names(found)} (the reader has no rule set)")
    encoding: list[Rule] = []
    for number, schema in sorted(versions.items()):
        found = _applicable(schema, ENCODING, READ)
        if found:
            encoding += found
            reasons.append(f"version {number}'s READ encoding rules {_names(found)}")
    migrations: list[Rule] = []
    if reader_version is not None and versions:
        first = min(versions)
        for number, schema in sorted(versions.items()):
            upgrade = _applicable(schema, MIGRATION, UPGRADE) if first < number <= reader_version else []
            downgrade = _applicable(schema, MIGRATION, DOWNGRADE) if number > reader_version else []
            if upgrade or downgrade:
                migrations += upgrade + downgrade
                reasons.append(f"version {number}'s migration rules {_names(upgrade + downgrade)}")
    if not reasons:
        return DecodeRules(RulePath.NONE, "no READ or migration rules in the reader or the subject's versions",
                           subject, reader_version, config=config)
    _check_libraries(domain + encoding + migrations)
    reason = "; ".join(reasons)
    if not encoding and not migrations and domain is reader_rules:
        fields = encrypted_fields(reader, reader_rules, subject, reader_version)
        if fields is not None:
            if not fields:
                return DecodeRules(RulePath.NONE, f"{reason} select no string or bytes field", subject,
                                   reader_version, config=config)
            return DecodeRules(RulePath.FIELDS, reason, subject, reader_version, fields, config)
    return DecodeRules(RulePath.RECORDS, reason, subject, reader_version, config=config)


def encrypted_fields(reader: Schema, rules: list[Rule], subject: str, version: int | None
                     ) -> tuple[EncryptedField, ...] | None:
    """The fields `rules` decrypt, when they can be decrypted column by column after an
    ordinary decode: Avro, every rule an ENCRYPT transform with tags, each selected string or
    bytes field reached through records (or nullable records) only, and selected by one rule
    (so the order the rules run in does not matter), no rule with an onSuccess action.
    None when not (a field in an array, map or union of several types; a rule without tags;
    another rule type): the records path then runs them."""
    if reader.schema_type != AVRO or reader.references:
        return None
    if any(rule.type != ENCRYPT or rule.kind != TRANSFORM or not rule.tags
           or (rule.on_success or "NONE").upper() not in ("NONE", "NONE,NONE") for rule in rules):
        return None
    if len({rule.name for rule in rules}) < len(rules):
        return None
    contexts = [RuleContext(subject, version, READ, rule, index, tuple(rules), None, reader, {})
                for index, rule in enumerate(rules)]
    leaves: list[tuple[tuple[str, ...], str, str, frozenset[str], bool]] = []
    try:
        _collect(json.loads(reader.text), "", (), True, {}, set(), leaves)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    found: list[EncryptedField] = []
    for path, full_name, kind, inline, plain in leaves:
        selecting = [ctx for ctx in contexts
                     if not ctx.field_tags(full_name, inline).isdisjoint(ctx.rule.tags or ())]
        if not selecting or kind not in ("string", "bytes"):
            continue  # an ENCRYPT rule on READ leaves other types as they are
        if not plain or len(selecting) > 1:
            return None
        found.append(EncryptedField(path, full_name, kind == "bytes", inline, selecting[0].rule.name))
    return tuple(found)


def _collect(node: Any, namespace: str, path: tuple[str, ...], plain: bool, named: dict[str, Any],
             in_progress: set[str], leaves: list[tuple[tuple[str, ...], str, str, frozenset[str], bool]],
             full_name: str = "", inline: frozenset[str] = frozenset()) -> None:
    """Every leaf of the Avro type `node` with its field path, full name (as the client's Avro
    walker names it), primitive kind, inline tags, and whether only records and nullable unions
    lead to it (`plain`)."""
    if isinstance(node, list):
        members = [member for member in node if member != "null"]
        for member in members:
            _collect(member, namespace, path, plain and len(members) == 1, named, in_progress, leaves,
                     full_name, inline)
        return
    if isinstance(node, str):
        if node in named:
            node = named[node]
        elif f"{namespace}.{node}" in named:
            node = named[f"{namespace}.{node}"]
        else:
            if path:
                leaves.append((path, full_name, node, inline, plain))
            return
    kind = node["type"]
    if isinstance(kind, (list, dict)) or (isinstance(kind, str) and kind not in
                                          ("record", "error", "enum", "fixed", "array", "map")):
        _collect(kind, namespace, path, plain, named, in_progress, leaves, full_name, inline)
        return
    if kind == "array":
        _collect(node["items"], namespace, path, False, named, in_progress, leaves, full_name, inline)
        return
    if kind == "map":
        _collect(node["values"], namespace, path, False, named, in_progress, leaves, full_name, inline)
        return
    name = str(node["name"])
    own = node.get("namespace")
    space = name.rsplit(".", 1)[0] if "." in name else (own if isinstance(own, str) else namespace)
    full = name if "." in name or not space else f"{space}.{name}"
    named[full] = node
    named.setdefault(name, node)
    if kind in ("enum", "fixed"):
        if path:
            leaves.append((path, full_name, kind, inline, plain))
        return
    if full in in_progress:
        return
    in_progress.add(full)
    for item in node["fields"]:
        tags = item.get("confluent:tags")
        _collect(item["type"], space, (*path, str(item["name"])), plain, named, in_progress, leaves,
                 f"{full}.{item['name']}", frozenset(str(t) for t in tags) if isinstance(tags, list) else frozenset())
    in_progress.discard(full)
