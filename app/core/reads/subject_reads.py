"""Reads that start from a subject: the subject and version listings, one version (by number,
`latest` or `-1`), the newest version with given metadata, and the ids referencing a version.
A subject is read after its alias, and the caller must be allowed to read the subject the
alias leads to; a version a context does not hold may be found in another one, as in
Confluent's registry (`in_other_contexts`).
"""
from __future__ import annotations

from app.core.access import Action, Guard
from app.core.errors import SchemaNotFound, SubjectNotFound, VersionNotFound
from app.core.reads.schema_reads import SCHEMAS_MAX_LIMIT, prefix_scope, readable_holders
from app.core.records import SubjectVersion
from app.core.resolver import SchemaResolver
from app.core.store.protocol import Storage, Store
from app.core.store.rows import SubjectRow
from app.core.subjects import alias_of, in_other_contexts, page, parse_version, resolve_alias, subject_version
from app.core.types import QualifiedSubject


class SubjectReads:
    def __init__(self, storage: Storage, resolver: SchemaResolver):
        self.storage = storage
        self.resolver = resolver

    def list_subjects(
        self, subject_prefix: str | None, deleted: bool, deleted_only: bool, offset: int, limit: int, guard: Guard,
    ) -> list[str]:
        # Absent means every context (`:*:`); a plain prefix, even an empty one, the default context.
        context, prefix = prefix_scope(":*:" if subject_prefix is None else subject_prefix)
        with self.storage.read() as store:
            summaries = store.subject_summaries(context, prefix)
        if deleted_only:
            keep = [s for s in summaries if s.live_versions == 0 and s.all_versions > 0]
        elif deleted:
            keep = [s for s in summaries if s.all_versions > 0]
        else:
            keep = [s for s in summaries if s.live_versions > 0]
        names = sorted(QualifiedSubject(s.context, s.name).qualified() for s in keep)
        return page(guard.filter(names), offset, limit)

    def list_versions(
        self, subject: str, deleted: bool, deleted_only: bool, deleted_as_negative: bool, offset: int, limit: int,
        guard: Guard,
    ) -> list[int]:
        with self.storage.read() as store:
            qs, row = _resolved(store, subject, guard)
            versions = store.versions(row.id) if row else []
        if deleted_only:
            numbers = [v.version for v in versions if v.deleted]
        elif deleted_as_negative:
            numbers = [-v.version if v.deleted else v.version for v in versions]
        elif deleted:
            numbers = [v.version for v in versions]
        else:
            numbers = [v.version for v in versions if not v.deleted]
        if not numbers:
            raise SubjectNotFound.for_subject(qs.qualified())
        return page(sorted(numbers, key=abs), offset, limit)

    def get_version(self, subject: str, version: str, deleted: bool, fmt: str | None, guard: Guard) -> SubjectVersion:
        number = parse_version(version)
        qs = QualifiedSubject.parse(subject)
        with self.storage.read() as store:
            row, found = store.subject_version(qs.context, qs.name, number)
            target = alias_of(qs, row)
            if target is not None:
                qs = target
                row, found = store.subject_version(qs.context, qs.name, number)
            if found is None or (found.deleted and not deleted):
                elsewhere = in_other_contexts(store, qs, number, deleted, guard)
                if elsewhere is None:
                    guard.check(Action.READ, qs.qualified())
                    raise _version_missing(store, qs, row, number, deleted)
                qs, found = elsewhere
            guard.check(Action.READ, qs.qualified())
            return subject_version(self.resolver, store, qs, found, fmt)

    def latest_with_metadata(
        self, subject: str, pairs: dict[str, str], deleted: bool, fmt: str | None, guard: Guard,
    ) -> SubjectVersion:
        """The newest version (soft-deleted ones only with `deleted`) whose metadata
        properties hold every pair; with no pairs, the newest that has any metadata."""
        with self.storage.read() as store:
            qs, row = _resolved(store, subject, guard)
            in_scope = [v for v in (store.versions(row.id) if row else []) if deleted or not v.deleted]
            if not in_scope:
                raise SubjectNotFound.for_subject(qs.qualified())
            newest_first = list(reversed(in_scope))
            for v, stored in zip(newest_first, self.resolver.contents(store, [v.schema_pk for v in newest_first])):
                metadata = stored.metadata
                props = (metadata or {}).get("properties") or {}
                if (pairs and all(props.get(k) == val for k, val in pairs.items())) or (not pairs and metadata):
                    return subject_version(self.resolver, store, qs, v, fmt)
        raise SchemaNotFound.generic()

    def referenced_by(
        self, subject: str, version: str, deleted: bool, offset: int, limit: int, guard: Guard,
    ) -> list[int]:
        """Ids of schemas referencing the subject-version (which may itself be soft-deleted);
        soft-deleted referrers only with `deleted`. Sorted by (context, id). A restricted
        caller sees the ids it could fetch: those with a holder it may read."""
        number = parse_version(version)
        with self.storage.read() as store:
            qs, _ = _resolved(store, subject, guard)
            row, found = store.subject_version(qs.context, qs.name, number)
            if found is None:
                raise _version_missing(store, qs, row, number, True)
            referrers = store.referrers(qs.context, qs.name, [found.version])
            ids = sorted({(r.schema_context, r.schema_id) for r in referrers if deleted or not r.deleted})
            if not guard.unrestricted:
                ids = [(ctx, i) for ctx, i in ids if readable_holders(store.holders_of_id(i, ctx), guard)]
        return page([schema_id for _, schema_id in ids], offset, limit, SCHEMAS_MAX_LIMIT)


def _resolved(store: Store, subject: str, guard: Guard) -> tuple[QualifiedSubject, SubjectRow | None]:
    """The subject after its alias, which is the one the caller must be allowed to read."""
    qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
    guard.check(Action.READ, qs.qualified())
    return qs, row


def _version_missing(
    store: Store, qs: QualifiedSubject, row: SubjectRow | None, number: int | None, deleted: bool
) -> Exception:
    versions = store.versions(row.id) if row else []
    if not any(deleted or not v.deleted for v in versions):
        return SubjectNotFound.for_subject(qs.qualified())
    return VersionNotFound.for_version(-1 if number is None else number)
