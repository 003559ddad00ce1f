"""Deriving a new version from an existing one with its inline tags, metadata or rule set edited.

This is `POST /subjects/{s}/versions/{v}/tags` (Confluent 7.5+, data contracts). The facts it
keeps to, from Confluent's `SubjectVersionsResource#modifyTags` and
`AbstractSchemaRegistry#modifySchemaTags`:

* Checks come in this order: the subject name (42208; reserved names and control characters,
  the register-only rules do not apply), the version segment (42202), the base version `{v}`
  (it must be live: 40401 when the subject has no live version, 40402 otherwise; `latest` is
  the newest live one), then the rule sets (`ruleSet` together with `rulesToMerge` or
  `rulesToRemove` is 42210, and so is a rule set that fails validation), then the tag edit
  itself (an entity the schema does not have is 42201), and only then registration.
* The tag edit is format knowledge (`SchemaTagEditor`); the edited text keeps the base
  version's schema type and references.
* Metadata: the request's, replacing the base version's as a whole, or else the base
  version's own (the version named by `{v}`, not the latest). `confluent:version` is always
  set, to the new version's number whether or not `newVersion` was given; the config's
  default/override metadata then apply as for any registration.
* Rule set: a `ruleSet` replaces it. `rulesToMerge` / `rulesToRemove` edit the rule set of
  version `newVersion - 1` (the latest live one when `newVersion` is absent or 0), which is
  not necessarily `{v}`'s: a merged rule replaces the same-named rule of its kind, new ones
  are appended, then every rule named in `rulesToRemove` is dropped from every kind. With none
  of the three, the new version inherits the latest live version's rule set, as any
  registration without one does.
* The result is registered like any other schema, except that the early lookup is skipped:
  the subject's mode must be READWRITE (42205 otherwise, even when the result already exists),
  compatibility is checked against the live versions (409), an identical schema keeps its id,
  and `newVersion`, when given, must be latest + 1 (42201). Without `newVersion` a result that
  equals a live version (apart from `confluent:version`) answers that version and creates
  nothing. The reply is registration's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.core.access import OPEN, Guard
from app.core.audit import NO_AUDIT, Audit
from app.core.errors import (
    InvalidRuleSet,
    InvalidSchema,
    OperationNotPermitted,
    SubjectNotFound,
    VersionNotFound,
)
from app.core.metadata import (
    merge_rule_sets,
    normalize_metadata,
    normalize_rule_set,
    stamp_version,
)
from app.core.records import StoredSchema, SubjectVersion
from app.core.registration.registrar import Registrar
from app.core.resolver import SchemaResolver, format_refusals
from app.core.subjects import (
    in_other_contexts,
    live_version,
    parse_version,
    subject_mode,
    validate_subject,
)
from app.core.types import Mode, QualifiedSubject, SchemaRequest
from app.formats.base import EntityTags, SchemaTagEditor, supports
from app.core.store.protocol import Store
from app.core.store.rows import VersionRow


@dataclass(frozen=True)
class TagRequest:
    """A TagSchemaRequest body after JSON-level validation; `None` means absent."""

    new_version: int | None = None
    tags_to_add: tuple[EntityTags, ...] = ()
    tags_to_remove: tuple[EntityTags, ...] = ()
    metadata: dict[str, Any] | None = None
    rule_set: dict[str, Any] | None = None
    rules_to_merge: dict[str, Any] | None = None
    rules_to_remove: tuple[str, ...] | None = None

    @property
    def edits_rules(self) -> bool:
        return self.rules_to_merge is not None or self.rules_to_remove is not None


class SchemaTagger:
    """The tags flow. Everything that depends on the subject's versions (the base version,
    the mode, the rule set `rulesToMerge` starts from) is read inside registration's write
    transaction, under the subject's lock, through `Registrar.register_derived`'s `prepare`: a
    registration that lands while the request is in flight is either fully before it (and
    seen) or fully after it."""

    def __init__(self, resolver: SchemaResolver, registrar: Registrar):
        self.resolver = resolver
        self.registrar = registrar

    def modify_tags(
        self, subject: str, version: str, request: TagRequest, guard: Guard = OPEN, audit: Audit = NO_AUDIT
    ) -> SubjectVersion:
        qs = QualifiedSubject.parse(subject)
        validate_subject(qs, subject, registering=False)
        number = parse_version(version)

        def derive(store: Store, target: QualifiedSubject, versions: list[VersionRow]) -> SchemaRequest:
            return self._derived_request(store, target, versions, number, request, guard)

        return self.registrar.register_derived(
            subject, derive, guard=guard, audit=replace(audit, detail={"tagsOnVersion": version}),
        )

    def _derived_request(
        self, store: Store, target: QualifiedSubject, versions: list[VersionRow], number: int | None,
        request: TagRequest, guard: Guard,
    ) -> SchemaRequest:
        """The version to register, in Confluent's order of checks: base version, rule sets,
        tag edit, mode. `target` is the subject after its alias, `versions` all of its versions."""
        base = self.resolver.content(store, base_version(store, target, versions, number, guard).schema_pk)
        if request.edits_rules and request.rule_set is not None:
            raise InvalidRuleSet("ruleSet should be omitted if specifying rulesToMerge or rulesToRemove")
        rules_to_merge = normalize_rule_set(request.rules_to_merge)
        rule_set = normalize_rule_set(request.rule_set)
        metadata = normalize_metadata(request.metadata)
        text = self._tagged_text(store, base, request)
        _check_read_write(store, target)
        if request.edits_rules:
            rule_set = edited_rule_set(
                self._previous_rule_set(store, versions, request.new_version), rules_to_merge, request.rules_to_remove
            )
        return SchemaRequest(
            schema=text,
            schema_type=base.schema_type,
            references=[ref.to_json() for ref in base.references],
            metadata=stamp_version(metadata if metadata is not None else base.metadata, request.new_version or 0),
            rule_set=rule_set,
            version=request.new_version,
        )

    def _tagged_text(self, store: Store, base: StoredSchema, request: TagRequest) -> str:
        if not request.tags_to_add and not request.tags_to_remove:
            return base.schema
        fmt = self.resolver.format(base.schema_type)
        if not supports(fmt, SchemaTagEditor):
            raise InvalidSchema(f"Schema tags cannot be edited in schemas of type {base.schema_type}")
        parsed = self.resolver.parsed(store, base)
        with format_refusals():
            return fmt.modify_tags(parsed, request.tags_to_add, request.tags_to_remove).canonical

    def _previous_rule_set(
        self, store: Store, versions: list[VersionRow], new_version: int | None
    ) -> dict[str, Any] | None:
        """The rule set `rulesToMerge`/`rulesToRemove` start from: live version
        `new_version - 1`, or the latest live version when `new_version` is absent or 0."""
        live = [v for v in versions if not v.deleted]
        if not new_version:
            chosen = live[-1] if live else None
        else:
            chosen = next((v for v in live if v.version == new_version - 1), None)
        return self.resolver.content(store, chosen.schema_pk).rule_set if chosen else None


def base_version(
    store: Store, target: QualifiedSubject, versions: list[VersionRow], number: int | None, guard: Guard = OPEN
) -> VersionRow:
    """The live version `{v}` names, found as `GET /subjects/{s}/versions/{v}` finds it: in
    the subject (after its alias), else for a default-context subject under the same name in
    the other contexts, in context order. 40401 when the subject has no live version,
    40402 otherwise."""
    found = live_version(versions, number)
    if found is not None:
        return found
    elsewhere = in_other_contexts(store, target, number, deleted=False, guard=guard)
    if elsewhere is not None:
        return elsewhere[1]
    if all(v.deleted for v in versions):
        raise SubjectNotFound.for_subject(target.qualified())
    raise VersionNotFound.for_version(-1 if number is None else number)


def _check_read_write(store: Store, qs: QualifiedSubject) -> None:
    """Registration's mode rule for a request without an id, checked before registration
    runs because its early lookup would otherwise answer an unchanged edit in any mode."""
    mode = subject_mode(store, qs)
    if mode.read_only:
        raise OperationNotPermitted.read_only(qs.qualified(), qs.context_qualifier)
    if mode is not Mode.READWRITE:
        raise OperationNotPermitted.not_read_write(qs.qualified(), qs.context_qualifier)


def edited_rule_set(
    previous: dict[str, Any] | None, to_merge: dict[str, Any] | None, to_remove: tuple[str, ...] | None
) -> dict[str, Any] | None:
    """`previous` with `to_merge` merged in (same-named rules of a kind replaced, new ones
    appended) and the rules named in `to_remove` dropped from every kind. Nothing to start
    from and nothing to merge stays None, so the registration inherits as usual."""
    merged = merge_rule_sets(previous, to_merge)
    if merged is None or to_remove is None:
        return merged
    names = set(to_remove)
    out: dict[str, Any] = {}
    for key, value in merged.items():
        if isinstance(value, list):
            kept = [rule for rule in value if rule.get("name") not in names]
            if kept:
                out[key] = kept
        else:
            out[key] = value
    return out
