"""A request's documents (metadata, rule set, references) and the merge that decides
which metadata and rule set a new version stores: shared by registration, lookup and the
compatibility endpoints, which must agree on it."""
from __future__ import annotations

from typing import Any, NamedTuple

from app.core.metadata import (
    has_version_property,
    merge_metadata,
    merge_rule_sets,
    normalize_metadata,
    normalize_rule_set,
    stamp_version,
)
from app.core.records import StoredSchema
from app.core.resolver import request_references
from app.core.types import SchemaReference, SchemaRequest


class RequestDocuments(NamedTuple):
    """A request's metadata, rule set and references after shape validation."""

    metadata: dict[str, Any] | None
    rule_set: dict[str, Any] | None
    references: list[SchemaReference]


class MergedDocuments(NamedTuple):
    metadata: dict[str, Any] | None
    rule_set: dict[str, Any] | None


def request_documents(request: SchemaRequest) -> RequestDocuments:
    return RequestDocuments(
        normalize_metadata(request.metadata),
        normalize_rule_set(request.rule_set),
        request_references(request.references),
    )


def merged_documents(
    metadata: dict[str, Any] | None,
    rule_set: dict[str, Any] | None,
    latest: StoredSchema | None,
    config: dict[str, Any],
    requested_version: int | None,
    new_version: int | None,
) -> MergedDocuments:
    """The config's default ⊕ (request's, else the latest live version's) ⊕ its override, later
    terms winning; then `confluent:version` is stamped when asked for or already present."""
    specific_md = metadata if metadata is not None else (latest.metadata if latest else None)
    specific_rs = rule_set if rule_set is not None else (latest.rule_set if latest else None)
    md = merge_metadata(merge_metadata(normalize_metadata(config.get("defaultMetadata")), specific_md),
                        normalize_metadata(config.get("overrideMetadata")))
    rs = merge_rule_sets(merge_rule_sets(normalize_rule_set(config.get("defaultRuleSet")), specific_rs),
                         normalize_rule_set(config.get("overrideRuleSet")))
    if new_version is not None and (
        (requested_version is not None and requested_version != 0) or has_version_property(md)
    ):
        md = stamp_version(md, new_version)
    return MergedDocuments(md, rs)


def metadata_property(metadata: dict[str, Any] | None, key: str) -> str | None:
    return ((metadata or {}).get("properties") or {}).get(key)
