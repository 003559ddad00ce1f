"""Metadata and rule sets: their shape, validation and the merge done at registration.

Both are documents the registry stores as given (after putting them in a canonical order)
and echoes back; they take part in a schema's identity, so their order must not depend on
how a client happened to write them.
"""
from __future__ import annotations

import re
from typing import Any

from app.core.errors import BadRequest, InvalidRuleSet

VERSION_PROPERTY = "confluent:version"
# The rule lists of a rule set, in the order Confluent hashes and merges them.
RULE_KINDS = ("migrationRules", "domainRules", "encodingRules")
_RULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,255}$")
_MIGRATION_MODES = {"UPGRADE", "DOWNGRADE", "UPDOWN"}
_DOMAIN_MODES = {"WRITE", "READ", "WRITEREAD"}
_KINDS = {"TRANSFORM", "CONDITION"}
_ENABLE_AT = {"ALL", "CLIENT", "GATEWAY", "SERVER", "NONE"}


# ---------------------------------------------------------------------------- metadata
def normalize_metadata(doc: Any) -> dict[str, Any] | None:
    """Sorted keys and value sets; a JSON shape error is a 400, as Jackson would give."""
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise BadRequest("metadata must be a JSON object")
    out: dict[str, Any] = {}
    tags = doc.get("tags")
    if tags is not None:
        if not isinstance(tags, dict) or not all(
            isinstance(v, list) and all(isinstance(t, str) for t in v) for v in tags.values()
        ):
            raise BadRequest("metadata.tags must map strings to lists of strings")
        out["tags"] = {k: sorted(set(tags[k])) for k in sorted(tags)}
    props = doc.get("properties")
    if props is not None:
        if not isinstance(props, dict) or not all(isinstance(v, str) for v in props.values()):
            raise BadRequest("metadata.properties must map strings to strings")
        out["properties"] = {k: props[k] for k in sorted(props)}
    sensitive = doc.get("sensitive")
    if sensitive is not None:
        if not isinstance(sensitive, list) or not all(isinstance(s, str) for s in sensitive):
            raise BadRequest("metadata.sensitive must be a list of strings")
        out["sensitive"] = sorted(set(sensitive))
    return out


def merge_metadata(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    """`new` wins key by key for properties and tags; sensitive names are united."""
    if old is None:
        return new
    if new is None:
        return old
    out: dict[str, Any] = {}
    for part in ("tags", "properties"):
        merged = {**(old.get(part) or {}), **(new.get(part) or {})}
        if merged or part in old or part in new:
            out[part] = {k: merged[k] for k in sorted(merged)}
    if "sensitive" in old or "sensitive" in new:
        out["sensitive"] = sorted(set(old.get("sensitive") or ()) | set(new.get("sensitive") or ()))
    return out


def without_version_property(metadata: dict[str, Any] | None) -> dict[str, Any]:
    """Metadata as compared by lookups: `confluent:version` ignored, absent == empty."""
    if not metadata:
        return {}
    props = {k: v for k, v in (metadata.get("properties") or {}).items() if k != VERSION_PROPERTY}
    out = {k: v for k, v in metadata.items() if k != "properties" and v}
    if props:
        out["properties"] = props
    return out


def stamp_version(metadata: dict[str, Any] | None, version: int) -> dict[str, Any]:
    props = dict((metadata or {}).get("properties") or {})
    props[VERSION_PROPERTY] = str(version)
    out = dict(metadata or {})
    out["properties"] = {k: props[k] for k in sorted(props)}
    return out


def has_version_property(metadata: dict[str, Any] | None) -> bool:
    return bool(metadata) and VERSION_PROPERTY in (metadata.get("properties") or {})  # type: ignore[union-attr]


# ---------------------------------------------------------------------------- rule sets
def normalize_rule_set(doc: Any) -> dict[str, Any] | None:
    """Fill rule defaults and validate (42210) so that an invalid rule set is never stored."""
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise BadRequest("ruleSet must be a JSON object")
    out: dict[str, Any] = {}
    seen: set[str] = set()
    for kind in RULE_KINDS:
        rules = doc.get(kind)
        if rules is None:
            continue
        if not isinstance(rules, list):
            raise BadRequest(f"ruleSet.{kind} must be a list")
        out[kind] = [_validate_rule(kind, rule, seen) for rule in rules]
    enable_at = doc.get("enableAt")
    if enable_at is not None:
        if enable_at not in _ENABLE_AT:
            raise BadRequest(f"Invalid ruleSet.enableAt {enable_at!r}")
        out["enableAt"] = enable_at
    return out


def _validate_rule(kind: str, rule: Any, seen: set[str]) -> dict[str, Any]:
    if not isinstance(rule, dict):
        raise BadRequest("a rule must be a JSON object")
    name = rule.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidRuleSet("Missing rule name")
    if name in seen:
        raise InvalidRuleSet(f"Found rule with duplicate name '{name}'")
    seen.add(name)
    if not _RULE_NAME.match(name):
        raise InvalidRuleSet(
            f"Rule name '{name}' must start with a letter or underscore and contain only letters, digits, "
            "underscores and dashes, at most 256 characters"
        )
    if not isinstance(rule.get("type"), str) or not rule["type"]:
        raise InvalidRuleSet(f"Missing rule type for rule '{name}'")
    out = dict(rule)
    out["kind"] = str(rule.get("kind") or "TRANSFORM").upper()
    out["mode"] = str(rule.get("mode") or "WRITEREAD").upper()
    if out["kind"] not in _KINDS:
        raise BadRequest(f"Invalid rule kind {rule.get('kind')!r}")
    allowed = _MIGRATION_MODES if kind == "migrationRules" else _DOMAIN_MODES
    if out["mode"] not in allowed:
        what = "Migration" if kind == "migrationRules" else "Domain"
        raise InvalidRuleSet(f"{what} rule '{name}' has invalid mode {out['mode']}")
    for action in ("onSuccess", "onFailure"):
        value = rule.get(action)
        if isinstance(value, str) and "," in value and out["mode"] not in ("WRITEREAD", "UPDOWN"):
            raise InvalidRuleSet(f"Multiple actions in {action} of rule '{name}' need mode WRITEREAD or UPDOWN")
    return out


def merge_rule_sets(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    """`new`'s rules replace same-named rules of `old`; the rest of `old` is kept, first."""
    if old is None:
        return new
    if new is None:
        return old
    out: dict[str, Any] = {}
    for kind in RULE_KINDS:
        old_rules, new_rules = old.get(kind) or [], new.get(kind) or []
        names = {r["name"] for r in new_rules}
        merged = [r for r in old_rules if r["name"] not in names] + list(new_rules)
        if merged:
            out[kind] = merged
    enable_at = new.get("enableAt") or old.get("enableAt")
    if enable_at:
        out["enableAt"] = enable_at
    return out
