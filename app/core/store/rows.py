"""The rows the store port hands the core: subjects and their settings rows, versions,
stored contents and their holders, references, and a registration's writes. Plain named
records, never a database's rows."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from app.core.records import SchemaReference
from app.core.store.audit import AuditEntry
from app.core.store.browse import IndexedName


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
