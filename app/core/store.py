"""What the core needs from storage: the `Storage` and `Store` protocols and their row records.

The core owns this interface and `app/storage` implements it (with SQL), so the registry's
rules never see a query, a connection or SQLAlchemy, and storage sees nothing of the rules:
it imports only these records, `app.core.records` and `app.core.errors`.

A `Store` is bound to one connection; `Storage.read()` hands out one in autocommit for
reads, `Storage.write()` one inside a transaction. Every method returns named records, never
bare rows, and answers "nothing" (None, [], False) for names that cannot be stored at all.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

# The DEK registry's records, named here too: storage takes the core's records from this module.
from app.core.associations.records import AssociationStore
from app.core.dek.records import Dek, DekKey, DekStore, Kek
from app.core.exporters.records import ExporterStore
from app.core.records import StoredSchema, SchemaReference


class SubjectRow(NamedTuple):
    """A subject, or (with an empty name) a context's or the global settings row."""

    id: int
    context: str
    name: str
    config: dict[str, Any] | None
    mode: str | None


class SettingsRead(NamedTuple):
    """The settings rows at some keys and the policy documents at others, read together:
    registration needs both, and one statement is a round trip less on every new version."""

    rows: dict[tuple[str, str], SubjectRow]
    policies: dict[tuple[str, str], dict[str, Any]]


class LockedSubject(NamedTuple):
    """A subject row locked for this transaction; `created` when the lock created it (so it
    has no versions, and registration need not look for any)."""

    row: SubjectRow
    created: bool


class VersionRow(NamedTuple):
    """One version of a subject: `schema_pk` is the stored content's key, `hash` its identity."""

    version: int
    schema_pk: int
    schema_id: int
    hash: str
    deleted: bool
    created_at: int


class SubjectVersionRow(NamedTuple):
    """A subject looked up with one of its versions; either may be missing."""

    subject: SubjectRow | None
    version: VersionRow | None


class SubjectHead(NamedTuple):
    """What registration needs of a subject's history without reading all of it: the highest
    version number ever used (0 when none) and the newest live version."""

    last_version: int
    latest_live: VersionRow | None


class HolderRow(NamedTuple):
    """A subject-version holding a schema."""

    context: str
    subject: str
    version: int
    deleted: bool
    created_at: int
    schema_pk: int
    schema_id: int


class HintedHolders(NamedTuple):
    """Every holder of an id, and the own config of the subject a `?subject=` hint names
    (known only when the id has holders, the only case that needs it)."""

    holders: list[HolderRow]
    hint_config: dict[str, Any] | None


class SubjectName(NamedTuple):
    context: str
    name: str


class ReferrerRow(NamedTuple):
    """A subject-version whose schema references a given subject-version (`ref_version`)."""

    schema_context: str
    schema_id: int
    subject_id: int
    deleted: bool
    ref_version: int


class SchemaKeyRow(NamedTuple):
    """A stored schema's storage key and its public id inside its context."""

    pk: int
    context: str
    id: int


class SubjectSummary(NamedTuple):
    context: str
    name: str
    live_versions: int
    all_versions: int


class ScopedVersion(NamedTuple):
    """A version with the subject it belongs to (IMPORT's clean-up over a whole scope)."""

    subject_id: int
    context: str
    subject: str
    version: VersionRow


class ResolvedReference(NamedTuple):
    """A reference as stored (its real version number), with the context and plain subject
    name it points at: what `referencedby` and the delete guards query."""

    reference: SchemaReference
    context: str
    subject: str


class NewSchema(NamedTuple):
    """Content to store under an imported id, or (`id=None`) the context's next id."""

    context: str
    id: int | None
    hash: str
    schema_type: str
    text: str
    references: Sequence[ResolvedReference]
    metadata: dict[str, Any] | None
    rule_set: dict[str, Any] | None
    fingerprints: dict[str, str] | None = None  # algorithm -> hex digest, from the format
    index: Sequence[IndexedName] = ()  # its field and type names, for search (app.core.outline_index)


class IndexedName(NamedTuple):
    """One field or named type of a stored schema, as the search index keeps it. `kind` is
    `app.formats.base.FIELD_NODE` or `TYPE_NODE`; `name` is matched case-insensitively;
    `type_label` and `doc` are what a hit shows (the doc cut to a snippet)."""

    kind: str
    path: str
    name: str
    type_label: str
    doc: str | None

    @property
    def match_key(self) -> str:
        """What a search compares its term with (`search_key`)."""
        return search_key(self.name)


class NewVersion(NamedTuple):
    """A registration's writes, handed to storage in one call so that it can send them as
    one statement: version `version` of subject `subject_id`, of stored content (`existing`)
    or of new content (`schema`), with the change's audit entry (None with the trail off;
    its `schema_id` None stands for the id the new content gets). `unless_held` (new content
    without an imported id): if the context already holds content with this identity, write
    nothing and answer that content, which the caller registers instead."""

    subject_id: int
    version: int
    existing: SchemaKeyRow | None
    schema: NewSchema | None
    audit: AuditEntry | None
    unless_held: bool = False


class AddedVersion(NamedTuple):
    """What `Store.add_version` did: the content's key and id, the version's time, and
    whether anything was written (False: `key` is content the context already held)."""

    key: SchemaKeyRow
    created_at: int
    written: bool


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


def search_key(text: str) -> str:
    """A name or search term as the index compares them: lower-cased, at most 200 characters
    (lower-casing may lengthen a text; the index column holds 200)."""
    return text.lower()[:200]


class LevelFilter(NamedTuple):
    """Subjects whose effective compatibility level is `level`: those with an own config
    whose level (or, without one, the server default `default_level`) is it, and those without an
    own config in one of `inheriting_contexts` (contexts whose own settings resolve to it;
    the core resolves them, storage only applies the result)."""

    level: str
    default_level: str
    inheriting_contexts: tuple[str, ...]


class SubjectQuery(NamedTuple):
    """A page of the subject browser. `q` is a case-insensitive substring of the name;
    `context` None means every context; `own_config` keeps subjects with a config of their
    own (a level, or any other config key), `own_settings` those with a config or a mode of
    their own; `deleted` also lists subjects whose versions are all soft-deleted; `sort` is
    "name" (context, then name) or "updated" (newest registration first)."""

    q: str = ""
    context: str | None = None
    schema_type: str | None = None
    level: LevelFilter | None = None
    own_config: bool = False
    own_settings: bool = False
    deleted: bool = False
    sort: str = "name"
    offset: int = 0
    limit: int = 50


class SubjectListing(NamedTuple):
    """One subject of the browser's list. The latest version is the newest live one (the
    newest soft-deleted one for a subject listed with `deleted` that has no live version);
    `versions` counts the live versions (all of them for such a subject); `updated_at` is
    the newest registration's time in ms. `config`/`mode` are the subject's own settings."""

    subject_id: int
    context: str
    name: str
    schema_type: str
    latest_version: int
    latest_id: int
    versions: int
    deleted: bool
    config: dict[str, Any] | None
    mode: str | None
    updated_at: int


class SubjectPage(NamedTuple):
    total: int
    items: list[SubjectListing]


class IndexHit(NamedTuple):
    """A field or type found by name in a subject-version's schema."""

    context: str
    subject: str
    version: int
    schema_id: int
    deleted: bool
    kind: str
    path: str
    name: str
    type_label: str
    doc: str | None


class IndexPage(NamedTuple):
    total: int
    items: list[IndexHit]


class IndexQuery(NamedTuple):
    """Index hits whose name equals or starts with `prefix` (already lower-cased), exact
    matches first; `kind` FIELD_NODE or TYPE_NODE; `all_versions` searches every live
    version instead of each subject's latest live one."""

    prefix: str
    kind: str
    context: str | None = None
    all_versions: bool = False
    offset: int = 0
    limit: int = 50


# ------------------------------------------------------------------ the audit trail (app/core/audit.py)
USER_AGENT_CHARS = 200
FORWARDED_FOR_CHARS = 512
PATH_CHARS = 2048
PRINCIPAL_CHARS = 255
CONTEXT_CHARS = 255
SUBJECT_CHARS = 1024


@dataclass(frozen=True)
class Origin:
    """Where a request came from, as the API layer saw it (all optional: a change made by a
    script through the core has no request). `forwarded_for` is set only when the peer is a
    trusted proxy; the texts are cut to their column's size here, once."""

    remote_addr: str | None = None
    forwarded_for: str | None = None
    user_agent: str | None = None
    method: str | None = None
    path: str | None = None
    # What the route answers when the change commits (200; 204 for a context delete): the
    # status a committed change's row records. None outside HTTP.
    success_status: int | None = None

    def __post_init__(self) -> None:
        for name, size in (("user_agent", USER_AGENT_CHARS), ("forwarded_for", FORWARDED_FOR_CHARS),
                           ("path", PATH_CHARS)):
            value = getattr(self, name)
            if value is not None and len(value) > size:
                object.__setattr__(self, name, value[:size])


NO_ORIGIN = Origin()


@dataclass(frozen=True)
class AuditEntry:
    """One row of the trail before the database gives it an id and a time. `subject` is the
    qualified subject name (None for global, context and context-wide operations)."""

    action: str
    principal: str
    auth_method: str
    origin: Origin
    context: str | None = None
    subject: str | None = None
    version: int | None = None
    schema_id: int | None = None
    outcome: str = "success"
    status: int | None = None
    error_code: int | None = None
    detail: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        """Names are cut to their column's size, as `Origin`'s texts are: a refused request
        may name a subject of any length (the registry stores none longer than its columns,
        but the trail records what was attempted), and one row must not cost kilobytes or,
        on PostgreSQL, fail its insert."""
        for name, size in (("principal", PRINCIPAL_CHARS), ("context", CONTEXT_CHARS), ("subject", SUBJECT_CHARS)):
            value = getattr(self, name)
            if value is not None and len(value) > size:
                object.__setattr__(self, name, value[:size])


@dataclass(frozen=True)
class AuditRow:
    """A stored entry: `ts` is UTC epoch milliseconds."""

    id: int
    ts: int
    entry: AuditEntry


DEFAULT_AUDIT_LIMIT = 100


@dataclass(frozen=True)
class AuditQuery:
    """The filters of `GET /audit` and `sqlregistry audit list`; times are epoch ms,
    `until` inclusive. Rows come newest first."""

    subject: str | None = None
    principal: str | None = None
    action: str | None = None
    outcome: str | None = None
    since: int | None = None
    until: int | None = None
    offset: int = 0
    limit: int = DEFAULT_AUDIT_LIMIT


class AuditLog(Protocol):
    """What storage offers the trail outside the registry's own write transactions."""

    def append_audit(self, entry: AuditEntry) -> None:
        """Store one entry in a transaction of its own (refused attempts)."""
        ...

    def audit_events(self, query: AuditQuery) -> list[AuditRow]: ...

    def prune_audit(self, before_ms: int, most: int | None = None) -> int:
        """Delete the entries older than `before_ms`, at most `most` of them (None: all);
        how many went."""
        ...


class Store(DekStore, ExporterStore, AssociationStore, Protocol):
    """Queries and writes on one connection (inside one transaction for writes)."""

    # subjects and their settings rows
    def subject(self, context: str, name: str) -> SubjectRow | None: ...
    def settings_rows(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SubjectRow]: ...
    def lock_subject(
        self, context: str, name: str, *, expected: bool = False, identity: str | None = None
    ) -> LockedSubject: ...
    def set_subject_settings(self, context: str, name: str, **values: Any) -> None: ...
    def drop_subject_if_unused(self, subject_id: int) -> None: ...
    def clear_subject(self, subject_id: int) -> None: ...
    def subject_modes(self, context: str | None) -> list[SubjectRow]: ...
    def subjects_named(self, name: str) -> list[SubjectRow]: ...
    def configured_subjects(self, context: str | None, prefix: str) -> list[SubjectRow]: ...
    def subject_summaries(self, context: str | None, prefix: str) -> list[SubjectSummary]: ...

    # versions
    def versions(self, subject_id: int) -> list[VersionRow]: ...
    def live_versions(self, subject_id: int) -> list[VersionRow]: ...
    def subject_head(self, subject_id: int) -> SubjectHead: ...
    def versions_with_text(self, subject_id: int, text: str) -> list[VersionRow]: ...
    def versions_of_schema(self, subject_id: int, schema_pk: int) -> list[VersionRow]: ...
    def has_version(self, subject_id: int, version: int) -> bool: ...
    def subject_version(self, context: str, name: str, version: int | None) -> SubjectVersionRow: ...
    def insert_version(self, subject_id: int, version: int, schema_pk: int) -> int: ...
    def soft_delete(self, subject_id: int, versions: list[int]) -> None: ...
    def hard_delete(self, subject_id: int, versions: list[int], schema_pks: Iterable[int]) -> None: ...
    def versions_in_scope(self, context: str | None, name: str | None) -> list[ScopedVersion]: ...

    # schemas and their holders
    def holders_of_id(self, schema_id: int, context: str | None = None) -> list[HolderRow]: ...
    def holders_with_hint(self, schema_id: int, context: str, name: str) -> HintedHolders: ...
    def all_holders(self, context: str | None, prefix: str, include_deleted: bool) -> list[HolderRow]: ...
    def holders_of_subjects(
        self, subjects: Sequence[tuple[str, str]], include_deleted: bool
    ) -> list[HolderRow]: ...
    def schemas_by_hash(self, digest: str, context: str | None = None) -> list[SchemaKeyRow]: ...
    def schema_pk_for_id(self, context: str, schema_id: int) -> int | None: ...
    def schemas_by_fingerprint(self, algorithm: str, digest: str) -> list[SchemaKeyRow]: ...
    def max_id(self, context: str) -> int | None: ...
    def load_schemas(self, pks: Iterable[int]) -> dict[int, StoredSchema]: ...
    def lock_hash(self, digest: str) -> None: ...
    def move_id_allocation_past(self, context: str, schema_id: int) -> None: ...
    def insert_schema(self, schema: NewSchema) -> SchemaKeyRow: ...
    def add_version(self, new: NewVersion) -> AddedVersion:
        """A registration's writes (`NewVersion`); the stepwise calls above, or fewer statements."""
        ...
    def referrers(self, context: str, subject: str, versions: Iterable[int]) -> list[ReferrerRow]: ...
    def referring_subjects(self, context: str, subject: str) -> list[SubjectName]: ...

    # the browser: a fixed number of statements per call, whatever the page size
    def browse_subjects(self, query: SubjectQuery) -> SubjectPage: ...
    def browse_subject_names(self, query: SubjectQuery) -> list[tuple[str, str]]: ...
    def browse_subjects_named(self, names: Sequence[tuple[str, str]], query: SubjectQuery) -> list[SubjectListing]: ...
    def search_index(self, query: IndexQuery) -> IndexPage: ...
    def search_index_all(self, query: IndexQuery) -> list[IndexHit]: ...
    def subject_counts(self) -> dict[str, int]: ...

    # contexts
    def contexts(self) -> list[str]: ...
    def ensure_context(self, context: str) -> None: ...
    def context_in_use(self, context: str) -> bool: ...
    def delete_context(self, context: str) -> None: ...

    # the audit trail: a change's row, written by the change's own transaction
    def insert_audit(self, entry: AuditEntry) -> None: ...

    # policy documents (app/core/policies.py): the global one at ("", ""), selections at settings keys
    def policy_documents(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]: ...
    def settings_and_policies(
        self, keys: Iterable[tuple[str, str]], policy_keys: Iterable[tuple[str, str]]
    ) -> SettingsRead: ...
    def set_policy_document(self, context: str, name: str, document: dict[str, Any] | None) -> None: ...
    def policy_selections(self) -> list[tuple[str, str, dict[str, Any]]]: ...


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
