"""Reads that start from a schema rather than a subject: by id, by GUID, and the `GET /schemas`
listing. Which subject-version stands for an id follows the reference's search order, and
the caller sees only the holders it may read (an id held only by subjects it may not read
is, to that caller, unknown).
"""
from __future__ import annotations

from typing import Any, NamedTuple

from app.core.access import Guard
from app.core.associations.records import Association, SchemaAssociationFilter
from app.core.errors import InvalidFingerprint, SchemaNotFound
from app.core.registration.identity import hash_from_guid
from app.core.metadata import RULE_KINDS
from app.core.records import SchemaById, StoredSchema, SubjectVersion
from app.core.resolver import SchemaResolver
from app.core.store.protocol import Storage, Store
from app.core.store.rows import HolderRow, SubjectRow, VersionRow
from app.core.subjects import alias_of, alias_target, page, subject_version
from app.core.types import DEFAULT_CONTEXT, WILDCARD_CONTEXT, QualifiedSubject

SCHEMAS_MAX_LIMIT = 1000


class ListedSchema(NamedTuple):
    """An item of `GET /schemas`: the subject-version, and with `aliases=true` the subjects
    aliasing its subject (empty otherwise, and then left out of the reply as Confluent does);
    with association filters, the subject's associations they chose."""

    version: SubjectVersion
    aliases: tuple[str, ...]
    associations: tuple[Association, ...] = ()


class SubjectVersionRef(NamedTuple):
    subject: str
    version: int


class ContextId(NamedTuple):
    context: str
    id: int


class _Holders(NamedTuple):
    """The holders that stand for an id, best first, and every holder read to decide (all
    holders of the chosen context among them, so `/versions` needs no second query)."""

    best: list[HolderRow]
    considered: list[HolderRow]


class SchemaReads:
    def __init__(self, storage: Storage, resolver: SchemaResolver):
        self.storage = storage
        self.resolver = resolver

    def schema_by_id(
        self, schema_id: int, subject: str | None, fmt: str | None, fetch_max_id: bool, guard: Guard
    ) -> SchemaById:
        """GET /schemas/ids/{id}: 40403 when no subject-version (soft-deleted ones count) holds it."""
        with self.storage.read() as store:
            holders = self._holders(store, schema_id, subject, guard).best
            if not holders:
                raise SchemaNotFound.for_id(schema_id)
            holder = self._holder_version(store, holders[0], fmt)
            max_id = store.max_id(holder.schema.context) if fetch_max_id else None
            return SchemaById(holder.schema, holder.text, holder, max_id)

    def schema_by_guid(self, guid: str, fmt: str | None, guard: Guard) -> SchemaById:
        with self.storage.read() as store:
            rows = self._readable_by_guid(store, guid, guard)
            if not rows:
                raise SchemaNotFound.for_id(guid)
            stored = self.resolver.content(store, rows[0].pk)
            return SchemaById(stored, self.resolver.text(store, stored, fmt), None)

    def ids_for_guid(self, guid: str, guard: Guard) -> list[ContextId]:
        """GET /schemas/guids/{guid}/ids: sorted; [] if unknown."""
        with self.storage.read() as store:
            return sorted(ContextId(row.context, row.id) for row in self._readable_by_guid(store, guid, guard))

    def schema_by_fingerprint(self, digest: str, algorithm: str, guard: Guard) -> StoredSchema:
        """GET /schemas/fingerprints/{hex} (a sqlregistry extension): the smallest default-context
        id whose schema has this fingerprint; 42202 for a malformed one, 40403 for none."""
        algorithm = algorithm.lower()
        digits = self.resolver.fingerprint_digits()
        size = digits.get(algorithm)
        if size is None:
            raise InvalidFingerprint(f"Unknown fingerprint algorithm {algorithm}; use {', '.join(sorted(digits))}")
        digest = digest.lower()
        if len(digest) != size or any(c not in "0123456789abcdef" for c in digest):
            raise InvalidFingerprint(f"A {algorithm} fingerprint is {size} hexadecimal digits")
        with self.storage.read() as store:
            rows = store.schemas_by_fingerprint(algorithm, digest)
            if not guard.unrestricted:
                rows = [r for r in rows if readable_holders(store.holders_of_id(r.id, r.context), guard)]
            if not rows:
                raise SchemaNotFound.generic()
            return self.resolver.content(store, rows[0].pk)

    def versions_for_id(
        self, schema_id: int, subject: str | None, deleted: bool, offset: int, limit: int, guard: Guard
    ) -> list[SubjectVersionRef]:
        with self.storage.read() as store:
            holders, considered = self._holders(store, schema_id, subject, guard)
        if not holders:
            raise SchemaNotFound.generic()
        context = holders[0].context
        pairs = sorted(
            SubjectVersionRef(QualifiedSubject(h.context, h.subject).qualified(), h.version)
            for h in considered
            if h.context == context and (deleted or not h.deleted)
        )
        return page(pairs, offset, limit)

    def list_schemas(
        self, subject_prefix: str, deleted: bool, latest_only: bool, offset: int, limit: int,
        rule_type: str | None, aliases: bool, guard: Guard, associated: SchemaAssociationFilter | None = None,
    ) -> list[ListedSchema]:
        """GET /schemas; `rule_type` keeps the versions whose rule set has a rule of that type
        (applied after `latest_only`, as Confluent's post-filter is).

        With `aliases`, as Confluent 7.7+ does: each item names the subjects in the prefix's
        scope whose own config `alias` points at its subject, and an alias target outside the
        prefix is listed too (its versions under the same filters), since asking for a
        prefix with aliases means asking for what those aliases stand for."""
        context, prefix = prefix_scope(subject_prefix or "")
        with self.storage.read() as store:
            holders = store.all_holders(context, prefix, deleted)
            aliased: dict[tuple[str, str], list[str]] = {}
            if aliases:
                aliased = _aliases_by_target(store.configured_subjects(context, prefix))
                listed = {(h.context, h.subject) for h in holders}
                outside = store.holders_of_subjects([t for t in aliased if t not in listed], deleted)
                holders = [*holders, *outside]
            rows = readable_holders(sorted(holders, key=_listing_order), guard)
            if latest_only:
                newest: dict[tuple[str, str], HolderRow] = {}
                for h in rows:
                    newest[(h.context, h.subject)] = h
                rows = [h for h in rows if newest[(h.context, h.subject)] is h]
            if rule_type:
                contents = self.resolver.contents(store, [h.schema_pk for h in rows])
                rows = [h for h, c in zip(rows, contents) if _has_rule_type(c.rule_set, rule_type)]
            attached: dict[tuple[str, str], tuple[Association, ...]] = {}
            if associated is not None and associated.active:
                rows, attached = _associated(store, rows, associated)
            chosen = page(rows, offset, limit, SCHEMAS_MAX_LIMIT)
            self.resolver.contents(store, [h.schema_pk for h in chosen])  # warm the cache in one query
            return [
                ListedSchema(
                    self._holder_version(store, h, None),
                    tuple(_visible(aliased.get((h.context, h.subject), []), guard)),
                    attached.get((h.context, h.subject), ()),
                )
                for h in chosen
            ]

    # ---------------------------------------------------------------- helpers
    def _readable_by_guid(self, store: Store, guid: str, guard: Guard) -> list[Any]:
        """Stored schemas with this GUID whose id some subject the caller may read holds."""
        digest = hash_from_guid(guid)
        rows = store.schemas_by_hash(digest) if digest else []
        if guard.unrestricted:
            return rows
        return [r for r in rows if readable_holders(store.holders_of_id(r.id, r.context), guard)]

    def _holders(self, store: Store, schema_id: int, hint: str | None, guard: Guard) -> _Holders:
        """Subject-versions holding an id, best first, following the reference's search
        order for the `subject` hint: a plain hint also finds the same subject name in
        other contexts, which is what lets a deserializer read a context's schema."""
        def best(rows: list[HolderRow]) -> list[HolderRow]:
            return sorted(rows, key=lambda h: (h.deleted, h.context, h.subject, h.version))

        if not hint:
            rows = readable_holders(store.holders_of_id(schema_id, DEFAULT_CONTEXT), guard)
            return _Holders(best(rows), rows)
        qs = QualifiedSubject.parse(hint)
        if qs.name and qs.context != WILDCARD_CONTEXT:
            # A hint naming a subject with its own `alias` stands for the alias target (Confluent's rewrite).
            found = store.holders_with_hint(schema_id, qs.context, qs.name)
            rows = found.holders
            target = alias_target(qs, found.hint_config)
            if target is not None:
                qs, hint = target, target.qualified()
        else:
            rows = store.holders_of_id(schema_id)
        rows = readable_holders(rows, guard)
        if hint.startswith(":"):
            in_scope = rows if qs.context == WILDCARD_CONTEXT else [h for h in rows if h.context == qs.context]
            return _Holders(best([h for h in in_scope if not qs.name or h.subject == qs.name]), rows)
        for choice in (
            [h for h in rows if h.context == DEFAULT_CONTEXT and h.subject == hint],
            [h for h in rows if h.context != DEFAULT_CONTEXT and h.subject == hint],
            [h for h in rows if h.context == DEFAULT_CONTEXT],
        ):
            if choice:
                return _Holders(best(choice), rows)
        return _Holders([], rows)

    def _holder_version(self, store: Store, h: HolderRow, fmt: str | None) -> SubjectVersion:
        return subject_version(
            self.resolver, store, QualifiedSubject(h.context, h.subject),
            VersionRow(h.version, h.schema_pk, h.schema_id, "", h.deleted, h.created_at), fmt,
        )


def readable_holders(holders: list[HolderRow], guard: Guard) -> list[HolderRow]:
    if guard.unrestricted or not holders:
        return holders
    names = {QualifiedSubject(h.context, h.subject).qualified() for h in holders}
    allowed = set(guard.filter(sorted(names)))
    return [h for h in holders if QualifiedSubject(h.context, h.subject).qualified() in allowed]


def _visible(subjects: list[str], guard: Guard) -> list[str]:
    return subjects if guard.unrestricted or not subjects else guard.filter(subjects)


def _listing_order(h: HolderRow) -> tuple[str, int]:
    return QualifiedSubject(h.context, h.subject).qualified(), h.version


def _aliases_by_target(configured: list[SubjectRow]) -> dict[tuple[str, str], list[str]]:
    """(context, name) of each alias target -> the qualified names of the subjects aliasing
    it, sorted. Only a subject's own `alias` counts, qualified in that subject's context."""
    found: dict[tuple[str, str], list[str]] = {}
    for row in configured:
        qs = QualifiedSubject(row.context, row.name)
        target = alias_of(qs, row)
        if target is not None and target.name:
            found.setdefault((target.context, target.name), []).append(qs.qualified())
    return {key: sorted(names) for key, names in found.items()}


def _has_rule_type(rule_set: dict[str, Any] | None, rule_type: str) -> bool:
    return any(
        rule.get("type") == rule_type
        for kind in RULE_KINDS
        for rule in (rule_set or {}).get(kind) or ()
    )


def prefix_scope(prefix: str) -> tuple[str | None, str]:
    """(context, or None for every context; name prefix) for a `subjectPrefix` value."""
    if prefix.startswith(":") and prefix.count(":") >= 2:
        qs = QualifiedSubject.parse(prefix)
        return (None if qs.context == WILDCARD_CONTEXT else qs.context), qs.name
    return DEFAULT_CONTEXT, prefix


def _associated(
    store: Store, rows: list[HolderRow], associated: SchemaAssociationFilter,
) -> tuple[list[HolderRow], dict[tuple[str, str], tuple[Association, ...]]]:
    """The rows whose subject the association filters keep, with the associations chosen;
    every association read in one query, whatever the number of subjects."""
    by_subject: dict[tuple[str, str], list[Association]] = {}
    for a in store.associations_named(None, None):
        by_subject.setdefault((a.subject.context, a.subject.name), []).append(a)
    chosen: dict[tuple[str, str], tuple[Association, ...] | None] = {}
    kept = []
    for h in rows:
        key = (h.context, h.subject)
        if key not in chosen:
            chosen[key] = associated.select(by_subject.get(key, []))
        if chosen[key] is not None:
            kept.append(h)
    return kept, {k: v for k, v in chosen.items() if v}
