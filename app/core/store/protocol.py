"""What the core needs from storage, by role: each protocol is one part of the store, shaped
like the mixin of `app/storage` that implements it, so a service names the role it needs;
`Store` is all of them on one connection, `Storage` hands out stores.

The core owns this interface and `app/storage` implements it (with SQL), so the registry's
rules never see a query, a connection or SQLAlchemy, and storage sees nothing of the rules:
it imports only the store port's records, `app.core.records` and `app.core.errors`.

A `Store` is bound to one connection; `Storage.read()` hands out one in autocommit for
reads, `Storage.write()` one inside a transaction. Every method returns named records, never
bare rows, and answers "nothing" (None, [], False) for names that cannot be stored at all.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, Protocol

from app.core.associations.records import AssociationStore
from app.core.dek.records import DekStore
from app.core.exporters.records import ExporterStore
from app.core.records import StoredSchema
from app.core.store.audit import AuditEntry, AuditLog
from app.core.store.browse import IndexHit, IndexPage, IndexQuery, SubjectListing, SubjectPage, SubjectQuery
from app.core.store.rows import (
    AddedVersion,
    HintedHolders,
    HolderRow,
    LockedSubject,
    NewSchema,
    NewVersion,
    ReferrerRow,
    ScopedVersion,
    SchemaKeyRow,
    SettingsRead,
    SubjectHead,
    SubjectName,
    SubjectRow,
    SubjectSummary,
    SubjectVersionRow,
    VersionRow,
)


class SubjectStore(Protocol):
    """Subjects, their settings rows and their versions (app/storage/repository.py's own)."""

    def subject(self, context: str, name: str) -> SubjectRow | None: ...
    def settings_rows(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SubjectRow]: ...
    def lock_subject(
        self, context: str, name: str, *, expected: bool = False, identity: str | None = None
    ) -> LockedSubject: ...
    def set_subject_settings(self, context: str, name: str, **values: Any) -> None: ...
    def drop_subject_if_unused(self, subject_id: int) -> None: ...
    def clear_subject(self, subject_id: int) -> None: ...
    def subject_modes(self, context: str | None) -> list[SubjectRow]: ...

    def versions(self, subject_id: int) -> list[VersionRow]: ...
    def live_versions(self, subject_id: int) -> list[VersionRow]: ...
    def subject_head(self, subject_id: int) -> SubjectHead: ...
    def versions_with_text(self, subject_id: int, text: str) -> list[VersionRow]: ...
    def versions_of_schema(self, subject_id: int, schema_pk: int) -> list[VersionRow]: ...
    def has_version(self, subject_id: int, version: int) -> bool: ...
    def subject_version(self, context: str, name: str, version: int | None) -> SubjectVersionRow: ...
    def soft_delete(self, subject_id: int, versions: list[int]) -> None: ...
    def hard_delete(self, subject_id: int, versions: list[int], schema_pks: Iterable[int]) -> None: ...
    def versions_in_scope(self, context: str | None, name: str | None) -> list[ScopedVersion]: ...


class SchemaStore(Protocol):
    """Stored contents, their ids and holders, and the references between them
    (app/storage/repository.py's own)."""

    def holders_of_id(self, schema_id: int, context: str | None = None) -> list[HolderRow]: ...
    def holders_with_hint(self, schema_id: int, context: str, name: str) -> HintedHolders: ...
    def schemas_by_hash(self, digest: str, context: str | None = None) -> list[SchemaKeyRow]: ...
    def schema_pk_for_id(self, context: str, schema_id: int) -> int | None: ...
    def schemas_by_fingerprint(self, algorithm: str, digest: str) -> list[SchemaKeyRow]: ...
    def max_id(self, context: str) -> int | None: ...
    def load_schemas(self, pks: Iterable[int]) -> dict[int, StoredSchema]: ...
    def referrers(self, context: str, subject: str, versions: Iterable[int]) -> list[ReferrerRow]: ...
    def referring_subjects(self, context: str, subject: str) -> list[SubjectName]:
        """Subjects with a live version whose schema references any version of the subject."""
        ...


class VersionWriter(Protocol):
    """A registration's writes: contents, ids and versions (app/storage/version_writes.py)."""

    def lock_hash(self, digest: str) -> None: ...
    def move_id_allocation_past(self, context: str, schema_id: int) -> None: ...
    def insert_schema(self, schema: NewSchema) -> SchemaKeyRow: ...
    def insert_version(self, subject_id: int, version: int, schema_pk: int) -> int: ...
    def add_version(self, new: NewVersion) -> AddedVersion:
        """A registration's writes (`NewVersion`); the stepwise calls, or fewer statements."""
        ...


class ListingStore(Protocol):
    """Subjects and holders listed by context and prefix, and the contexts themselves
    (app/storage/listings.py)."""

    def subject_summaries(self, context: str | None, prefix: str) -> list[SubjectSummary]: ...
    def all_holders(self, context: str | None, prefix: str, include_deleted: bool) -> list[HolderRow]: ...
    def holders_of_subjects(
        self, subjects: Sequence[tuple[str, str]], include_deleted: bool
    ) -> list[HolderRow]: ...
    def configured_subjects(self, context: str | None, prefix: str) -> list[SubjectRow]: ...
    def subjects_named(self, name: str) -> list[SubjectRow]: ...

    def contexts(self) -> list[str]: ...
    def ensure_context(self, context: str) -> None: ...
    def context_in_use(self, context: str) -> bool: ...
    def delete_context(self, context: str) -> None: ...


class BrowseStore(Protocol):
    """The browser and the search index: a fixed number of statements per call, whatever the
    page size (app/storage/browse.py)."""

    def browse_subjects(self, query: SubjectQuery) -> SubjectPage: ...
    def browse_subject_names(self, query: SubjectQuery) -> list[tuple[str, str]]: ...
    def browse_subjects_named(self, names: Sequence[tuple[str, str]], query: SubjectQuery) -> list[SubjectListing]: ...
    def search_index(self, query: IndexQuery) -> IndexPage: ...
    def search_index_all(self, query: IndexQuery) -> list[IndexHit]: ...
    def subject_counts(self) -> dict[str, int]: ...


class PolicyStore(Protocol):
    """Policy documents (app/core/policies.py): the global one at ("", ""), selections at
    settings keys (app/storage/policies.py)."""

    def policy_documents(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]: ...
    def settings_and_policies(
        self, keys: Iterable[tuple[str, str]], policy_keys: Iterable[tuple[str, str]]
    ) -> SettingsRead: ...
    def set_policy_document(self, context: str, name: str, document: dict[str, Any] | None) -> None: ...
    def policy_selections(self) -> list[tuple[str, str, dict[str, Any]]]: ...


class TrailWriter(Protocol):
    """A change's audit row, written by the change's own transaction."""

    def insert_audit(self, entry: AuditEntry) -> None: ...


class Store(SubjectStore, SchemaStore, VersionWriter, ListingStore, BrowseStore, PolicyStore, TrailWriter,
            DekStore, ExporterStore, AssociationStore, Protocol):
    """Queries and writes on one connection (inside one transaction for writes): every role."""


def add_version_stepwise(store: Store, new: NewVersion) -> AddedVersion:
    """`Store.add_version` through the store's single-purpose calls, one statement each: what
    a store does when it cannot send the writes as one statement (SQLite)."""
    key = new.existing
    if key is None:
        schema = new.schema
        if schema is None:
            raise TypeError("add_version needs existing or new content")
        if new.unless_held:
            held = store.schemas_by_hash(schema.hash, schema.context)
            if held:
                return AddedVersion(held[0], 0, False)
        key = store.insert_schema(schema)
    created_at = store.insert_version(new.subject_id, new.version, key.pk)
    if new.audit is not None:
        store.insert_audit(new.audit if new.audit.schema_id is not None else replace(new.audit, schema_id=key.id))
    return AddedVersion(key, created_at, True)


class Storage(AuditLog, Protocol):
    """Hands out stores (and keeps the audit trail's reads and refused attempts).
    `write()` is one transaction; when a concurrent writer wins a race
    it raises `app.core.errors.WriteConflict` and the caller retries the whole transaction."""

    def read(self) -> AbstractContextManager[Store]: ...
    def write(self) -> AbstractContextManager[Store]: ...

    def change_token(self) -> Hashable | None:
        """A value that changes whenever a write commits (anywhere, as far as storage can
        tell); None when it cannot tell, and then nothing may be served from a cache."""
        ...
