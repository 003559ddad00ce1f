"""RegistryService: the registry's rules, independent of HTTP and of schema formats.

Every public method takes plain values (subject strings as they arrived in the path or
query, already percent-decoded; `None` for absent parameters) and returns records from
`app.core.records` or plain lists/dicts. Errors are `RegistryError`s.

Reads run on one connection with as few queries as the answer needs (the subject-version
read path is one query); schema content and parsed schemas come from in-process caches.
Writes are one transaction each.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from app.core.errors import (
    ContextNotEmpty,
    ReferenceExists,
    SchemaNotFound,
    SchemaVersionNotSoftDeleted,
    SchemaVersionSoftDeleted,
    SubjectNotFound,
    SubjectNotSoftDeleted,
    SubjectSoftDeleted,
    VersionNotFound,
)
from app.core.identity import hash_from_guid
from app.core.metadata import RULE_KINDS
from app.core.records import CompatibilityReport, SchemaById, SubjectVersion
from app.core.registration import Registrar
from app.core.resolver import SchemaResolver
from app.core.subject_settings import SubjectSettings
from app.core.subjects import (
    alias_of,
    alias_target,
    check_writable,
    in_other_contexts,
    page,
    parse_version,
    resolve_alias,
    subject_version,
)
from app.core.tags import SchemaTagger, TagRequest
from app.core.types import (
    DEFAULT_CONTEXT,
    WILDCARD_CONTEXT,
    QualifiedSubject,
    SchemaRequest,
)
from app.formats.base import SchemaFormat
from app.settings import Settings
from app.storage.repository import HolderRow, Repository, Store, SubjectRow, VersionRow

SCHEMAS_MAX_LIMIT = 1000


class ListedSchema(NamedTuple):
    """An item of `GET /schemas`: the subject-version, and with `aliases=true` the subjects
    aliasing its subject (empty otherwise, and then left out of the reply as Confluent does)."""

    version: SubjectVersion
    aliases: tuple[str, ...]


class RegistryService:
    def __init__(self, repository: Repository, formats: Mapping[str, SchemaFormat], settings: Settings):
        self.repo = repository
        # The service's own mapping (not the module-level registry), shared with the resolver,
        # so one service's formats can be swapped or instrumented without touching another's.
        self.formats: dict[str, SchemaFormat] = dict(formats)
        self.settings = settings
        self.resolver = SchemaResolver(self.formats, settings.schema_cache_size, settings.max_schema_bytes)
        self.registrar = Registrar(repository, self.resolver, settings)
        self.tagger = SchemaTagger(self.resolver, self.registrar)
        self.subject_settings = SubjectSettings(repository, settings)

    # ---------------------------------------------------------------- schemas by id
    def schema_by_id(
        self, schema_id: int, subject: str | None = None, fmt: str | None = None, fetch_max_id: bool = False
    ) -> SchemaById:
        """GET /schemas/ids/{id}: 40403 when no subject-version (soft-deleted ones count) holds it."""
        with self.repo.read() as store:
            holders, _ = self._holders(store, schema_id, subject)
            if not holders:
                raise SchemaNotFound.for_id(schema_id)
            first = holders[0]
            holder = self._holder_version(store, first, fmt)
            max_id = store.max_id(holder.schema.context) if fetch_max_id else None
            return SchemaById(holder.schema, holder.text, holder, max_id)

    def schema_by_guid(self, guid: str, fmt: str | None = None) -> SchemaById:
        digest = hash_from_guid(guid)
        with self.repo.read() as store:
            rows = store.schemas_by_hash(digest) if digest else []
            if not rows:
                raise SchemaNotFound.for_id(guid)
            stored = self.resolver.content(store, rows[0][0])
            return SchemaById(stored, self.resolver.text(store, stored, fmt), None)

    def ids_for_guid(self, guid: str) -> list[tuple[str, int]]:
        """GET /schemas/guids/{guid}/ids: [(context, id)], sorted; [] if unknown."""
        digest = hash_from_guid(guid)
        if digest is None:
            return []
        with self.repo.read() as store:
            return sorted((ctx, schema_id) for _, ctx, schema_id in store.schemas_by_hash(digest))

    def schema_types(self) -> list[str]:
        return list(self.formats)

    def subjects_for_id(
        self, schema_id: int, subject: str | None = None, deleted: bool = False, offset: int = 0, limit: int = -1
    ) -> list[str]:
        pairs = self.versions_for_id(schema_id, subject, deleted, 0, -1)
        names = sorted({name for name, _ in pairs})
        return page(names, offset, limit)

    def versions_for_id(
        self, schema_id: int, subject: str | None = None, deleted: bool = False, offset: int = 0, limit: int = -1
    ) -> list[tuple[str, int]]:
        with self.repo.read() as store:
            holders, considered = self._holders(store, schema_id, subject)
        if not holders:
            raise SchemaNotFound.generic()
        context = holders[0].context
        pairs = sorted(
            (QualifiedSubject(h.context, h.subject).qualified(), h.version)
            for h in considered
            if h.context == context and (deleted or not h.deleted)
        )
        return page(pairs, offset, limit)

    def list_schemas(
        self,
        subject_prefix: str = "",
        deleted: bool = False,
        latest_only: bool = False,
        offset: int = 0,
        limit: int = -1,
        rule_type: str | None = None,
        aliases: bool = False,
    ) -> list[ListedSchema]:
        """GET /schemas; `rule_type` keeps the versions whose rule set has a rule of that type
        (applied after `latest_only`, as Confluent's post-filter is).

        With `aliases`, as Confluent 7.7+ does: each item names the subjects in the prefix's
        scope whose own config `alias` points at its subject, and an alias target outside the
        prefix is listed too (its versions under the same filters), since asking for a
        prefix with aliases means asking for what those aliases stand for."""
        context, prefix = _prefix_scope(subject_prefix or "")
        with self.repo.read() as store:
            holders = store.all_holders(context, prefix, deleted)
            aliased: dict[tuple[str, str], list[str]] = {}
            if aliases:
                aliased = _aliases_by_target(store.configured_subjects(context, prefix))
                listed = {(h.context, h.subject) for h in holders}
                outside = store.holders_of_subjects([t for t in aliased if t not in listed], deleted)
                holders = [*holders, *outside]
            rows = sorted(holders, key=lambda h: (QualifiedSubject(h.context, h.subject).qualified(), h.version))
            if latest_only:
                newest: dict[tuple[str, str], HolderRow] = {}
                for h in rows:
                    newest[(h.context, h.subject)] = h
                rows = [h for h in rows if newest[(h.context, h.subject)] is h]
            if rule_type:
                contents = self.resolver.contents(store, [h.schema_pk for h in rows])
                rows = [h for h, c in zip(rows, contents) if _has_rule_type(c.rule_set, rule_type)]
            chosen = page(rows, offset, limit, SCHEMAS_MAX_LIMIT)
            self.resolver.contents(store, [h.schema_pk for h in chosen])  # warm the cache in one query
            return [
                ListedSchema(self._holder_version(store, h, None), tuple(aliased.get((h.context, h.subject), ())))
                for h in chosen
            ]

    # ---------------------------------------------------------------- subjects
    def list_subjects(
        self, subject_prefix: str | None = None, deleted: bool = False, deleted_only: bool = False,
        offset: int = 0, limit: int = -1,
    ) -> list[str]:
        # Absent means every context (`:*:`); a plain prefix, even an empty one, the default context.
        context, prefix = _prefix_scope(":*:" if subject_prefix is None else subject_prefix)
        with self.repo.read() as store:
            summaries = store.subject_summaries(context, prefix)
        if deleted_only:
            keep = [(c, n) for c, n, live, total in summaries if live == 0 and total > 0]
        elif deleted:
            keep = [(c, n) for c, n, _, total in summaries if total > 0]
        else:
            keep = [(c, n) for c, n, live, _ in summaries if live > 0]
        return page(sorted(QualifiedSubject(c, n).qualified() for c, n in keep), offset, limit)

    def list_versions(
        self, subject: str, deleted: bool = False, deleted_only: bool = False, deleted_as_negative: bool = False,
        offset: int = 0, limit: int = -1,
    ) -> list[int]:
        with self.repo.read() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
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

    def get_version(self, subject: str, version: str, deleted: bool = False, fmt: str | None = None) -> SubjectVersion:
        """`version` is the raw path segment ("latest", "-1", "3"); 42202 when malformed.
        `latest` is the newest live version whatever `deleted` says."""
        number = parse_version(version)
        qs = QualifiedSubject.parse(subject)
        with self.repo.read() as store:
            row, found = store.subject_version(qs.context, qs.name, number)
            target = alias_of(qs, row)
            if target is not None:
                qs = target
                row, found = store.subject_version(qs.context, qs.name, number)
            if found is None or (found.deleted and not deleted):
                elsewhere = in_other_contexts(store, qs, number, deleted)
                if elsewhere is None:
                    raise self._version_missing(store, qs, row, number, deleted)
                qs, found = elsewhere
            return subject_version(self.resolver, store, qs, found, fmt)

    def register(
        self, subject: str, request: SchemaRequest, normalize: bool = False, force: bool = False,
        fmt: str | None = None,
    ) -> SubjectVersion:
        return self.registrar.register(subject, request, normalize, force, fmt)

    def modify_tags(self, subject: str, version: str, request: TagRequest) -> SubjectVersion:
        """POST /subjects/{s}/versions/{v}/tags: a new version derived from `version` (app.core.tags)."""
        return self.tagger.modify_tags(subject, version, request)

    def lookup(
        self, subject: str, request: SchemaRequest, normalize: bool = False, deleted: bool = False,
        fmt: str | None = None,
    ) -> SubjectVersion:
        return self.registrar.lookup(subject, request, normalize, deleted, fmt)

    def latest_with_metadata(
        self, subject: str, pairs: dict[str, str], deleted: bool = False, fmt: str | None = None
    ) -> SubjectVersion:
        """The newest version (soft-deleted ones only with `deleted`) whose metadata
        properties hold every pair; with no pairs, the newest that has any metadata."""
        with self.repo.read() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
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

    def delete_subject(self, subject: str, permanent: bool = False) -> list[int]:
        """Checks in the reference's order: 40401, 40404, 42205, 42206, 40405 (§5.4)."""
        with self.repo.write() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
            versions = store.versions(row.id) if row else []
            if row is None or not versions:
                raise SubjectNotFound.for_subject(qs.qualified())
            store.lock_subject(qs.context, qs.name)
            live = [v.version for v in versions if not v.deleted]
            if not live and not permanent:
                raise SubjectSoftDeleted.for_subject(qs.qualified())
            check_writable(store, qs)
            referrers = [
                r for r in store.referrers(qs.context, qs.name, [v.version for v in versions])
                if r.subject_id != row.id and (permanent or not r.deleted)
            ]
            if referrers:
                raise ReferenceExists.for_version(qs.qualified(), min(r.ref_version for r in referrers))
            if permanent and live:
                raise SubjectNotSoftDeleted.for_subject(qs.qualified())
            if not permanent:
                store.soft_delete(row.id, live)
                return live
            store.hard_delete(row.id, [v.version for v in versions], [v.schema_pk for v in versions])
            store.clear_subject(row.id)
            return [v.version for v in versions]

    def delete_version(self, subject: str, version: str, permanent: bool = False) -> int:
        """Checks in the reference's order: 42202, 40406, 40401/40402, 42205, 42206, 40407."""
        number = parse_version(version)
        with self.repo.write() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
            versions = store.versions(row.id) if row else []
            if number is None:
                live = [v for v in versions if not v.deleted]
                target = live[-1] if live else None
            else:
                target = next((v for v in versions if v.version == number), None)
            if target is not None and target.deleted and not permanent:
                raise SchemaVersionSoftDeleted.for_version(qs.qualified(), target.version)
            if row is None or not versions:
                raise SubjectNotFound.for_subject(qs.qualified())
            if target is None:
                raise VersionNotFound.for_version(-1 if number is None else number)
            store.lock_subject(qs.context, qs.name)
            check_writable(store, qs)
            referrers = [r for r in store.referrers(qs.context, qs.name, [target.version]) if permanent or not r.deleted]
            if referrers:
                raise ReferenceExists.for_version(qs.qualified(), target.version)
            if permanent and not target.deleted:
                raise SchemaVersionNotSoftDeleted.for_version(qs.qualified(), target.version)
            if permanent:
                store.hard_delete(row.id, [target.version], [target.schema_pk])
                if len(versions) == 1:
                    store.clear_subject(row.id)
            else:
                store.soft_delete(row.id, [target.version])
            return target.version

    def referenced_by(
        self, subject: str, version: str, deleted: bool = False, offset: int = 0, limit: int = -1
    ) -> list[int]:
        """Ids of schemas referencing the subject-version (which may itself be soft-deleted);
        soft-deleted referrers only with `deleted`. Sorted by (context, id)."""
        number = parse_version(version)
        with self.repo.read() as store:
            qs, _ = resolve_alias(store, QualifiedSubject.parse(subject))
            row, found = store.subject_version(qs.context, qs.name, number)
            if found is None:
                raise self._version_missing(store, qs, row, number, True)
            referrers = store.referrers(qs.context, qs.name, [found.version])
        ids = sorted({(r.schema_context, r.schema_id) for r in referrers if deleted or not r.deleted})
        return page([schema_id for _, schema_id in ids], offset, limit, SCHEMAS_MAX_LIMIT)

    # ---------------------------------------------------------------- compatibility
    def check_compatibility(
        self, subject: str, version: str | None, request: SchemaRequest, normalize: bool = False,
        verbose: bool = False,
    ) -> CompatibilityReport:
        """`version=None` runs registration's check against the live history (POST .../versions)."""
        return self.registrar.check(subject, version, request, normalize, verbose)

    # ---------------------------------------------------------------- config and mode
    # Config documents use the PUT keys (`compatibility`, `normalize`, `alias`, ...).
    # `subject=None` addresses the global (default-context) config.
    def get_config(self, subject: str | None, default_to_global: bool = False) -> dict[str, Any]:
        return self.subject_settings.get_config(subject, default_to_global)

    def update_config(self, subject: str | None, changes: dict[str, Any]) -> dict[str, Any]:
        """Merge: absent keys keep stored values, explicit None clears. Returns the stored result."""
        return self.subject_settings.update_config(subject, changes)

    def delete_config(self, subject: str | None) -> dict[str, Any]:
        return self.subject_settings.delete_config(subject)

    def get_mode(self, subject: str | None, default_to_global: bool = False) -> str:
        return self.subject_settings.get_mode(subject, default_to_global)

    def update_mode(self, subject: str | None, mode: str | None, force: bool = False) -> str | None:
        """`mode=None` removes the stored mode. Returns the mode as stored (None if removed)."""
        return self.subject_settings.update_mode(subject, mode, force)

    def delete_mode(self, subject: str | None, recursive: bool = False) -> str:
        return self.subject_settings.delete_mode(subject, recursive)

    # ---------------------------------------------------------------- contexts
    def list_contexts(self, context_prefix: str = "", offset: int = 0, limit: int = -1) -> list[str]:
        with self.repo.read() as store:
            names = sorted(set(store.contexts()) - {DEFAULT_CONTEXT})
        wanted = (context_prefix or "").strip()
        everything = [DEFAULT_CONTEXT, *names]
        if wanted:
            dotted = wanted if wanted.startswith(".") else "." + wanted
            everything = [c for c in everything if c.startswith(dotted)]
        return page(everything, offset, limit)

    def delete_context(self, context: str) -> None:
        name = QualifiedSubject.parse(context if context.startswith(":") else f":{context}:").context
        with self.repo.write() as store:
            if store.context_in_use(name):
                raise ContextNotEmpty.for_context(name)
            store.delete_context(name)

    def cluster_id(self) -> str:
        return self.settings.cluster_id

    # ---------------------------------------------------------------- helpers
    def _holders(
        self, store: Store, schema_id: int, hint: str | None
    ) -> tuple[list[HolderRow], list[HolderRow]]:
        """Subject-versions holding an id, best first, following the reference's search
        order for the `subject` hint (§3.2): a plain hint also finds the same subject name in
        other contexts, which is what lets a deserializer read a context's schema.

        Also returns every holder read to decide, which includes all holders of the chosen
        context, so `/schemas/ids/{id}/versions` needs no second query."""
        def best(rows: list[HolderRow]) -> list[HolderRow]:
            return sorted(rows, key=lambda h: (h.deleted, h.context, h.subject, h.version))

        if not hint:
            rows = store.holders_of_id(schema_id, DEFAULT_CONTEXT)
            return best(rows), rows
        qs = QualifiedSubject.parse(hint)
        if qs.name and qs.context != WILDCARD_CONTEXT:
            # A hint naming a subject with its own `alias` stands for the alias target (§1.5).
            rows, config = store.holders_with_hint(schema_id, qs.context, qs.name)
            target = alias_target(qs, config)
            if target is not None:
                qs, hint = target, target.qualified()
        else:
            rows = store.holders_of_id(schema_id)
        if hint.startswith(":"):
            in_scope = rows if qs.context == WILDCARD_CONTEXT else [h for h in rows if h.context == qs.context]
            return best([h for h in in_scope if not qs.name or h.subject == qs.name]), rows
        for choice in (
            [h for h in rows if h.context == DEFAULT_CONTEXT and h.subject == hint],
            [h for h in rows if h.context != DEFAULT_CONTEXT and h.subject == hint],
            [h for h in rows if h.context == DEFAULT_CONTEXT],
        ):
            if choice:
                return best(choice), rows
        return [], rows

    def _holder_version(self, store: Store, h: HolderRow, fmt: str | None) -> SubjectVersion:
        return subject_version(
            self.resolver, store, QualifiedSubject(h.context, h.subject),
            VersionRow(h.version, h.schema_pk, h.schema_id, "", h.deleted, h.created_at), fmt,
        )

    def _version_missing(
        self, store: Store, qs: QualifiedSubject, row: SubjectRow | None, number: int | None, deleted: bool
    ) -> Exception:
        versions = store.versions(row.id) if row else []
        if not any(deleted or not v.deleted for v in versions):
            return SubjectNotFound.for_subject(qs.qualified())
        return VersionNotFound.for_version(-1 if number is None else number)


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


def _prefix_scope(prefix: str) -> tuple[str | None, str]:
    """(context, or None for every context; name prefix) for a `subjectPrefix` value."""
    if prefix.startswith(":") and prefix.count(":") >= 2:
        qs = QualifiedSubject.parse(prefix)
        return (None if qs.context == WILDCARD_CONTEXT else qs.context), qs.name
    return DEFAULT_CONTEXT, prefix
