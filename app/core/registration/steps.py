"""The records registration's steps hand each other (app/core/registration/registrar.py): the
values of one call, the registration as it moves through the steps under the subject's lock,
what the lock-free pre-check read and decided, and what the transaction produced."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from app.core.access import OPEN, Action, Guard
from app.core.audit import NO_AUDIT, Audit
from app.core.records import StoredSchema
from app.core.resolver import Candidate
from app.core.store.browse import IndexedName
from app.core.store.protocol import Store
from app.core.store.rows import SettingsRead, SubjectHead, SubjectRow, VersionRow
from app.core.types import Mode, QualifiedSubject, SchemaRequest
from app.formats.base import ParsedSchema

if TYPE_CHECKING:
    from app.core.registration.verdict import Verdict


@dataclass(frozen=True)
class RegistrationCall:
    """What one call asks of registration besides the schema: carried on the registration
    through every step instead of threaded through each. `fmt` is the reply's `format=`;
    `guard` the caller's; `audit` records the stored version in the same transaction."""

    normalize: bool = False
    force: bool = False
    fmt: str | None = None
    guard: Guard = OPEN
    audit: Audit = NO_AUDIT

    @property
    def action(self) -> Action:
        """A forced registration skips the compatibility check: an administrator's call."""
        return Action.ADMIN if self.force else Action.WRITE


Prepare = Callable[[Store, QualifiedSubject, list[VersionRow]], SchemaRequest]
"""Builds the request to register from the subject (after its alias) and all its versions,
read under the subject's lock. It may raise any `RegistryError`; nothing is written then."""


@dataclass
class Registration:
    """One registration as it moves through the steps, under the subject's lock.

    `metadata`/`rule_set` are the documents to store (the config's defaults, then the request's,
    else the latest live version's, then the config's overrides), `sent_metadata` the request's
    own; `digest` is the identity of what would be stored."""

    qs: QualifiedSubject
    subject: SubjectRow
    head: SubjectHead
    request: SchemaRequest
    call: RegistrationCall
    config: dict[str, Any]
    mode: Mode
    latest: StoredSchema | None
    candidate: Candidate
    metadata: dict[str, Any] | None
    rule_set: dict[str, Any] | None
    sent_metadata: dict[str, Any] | None
    digest: str
    policy_documents: Mapping[tuple[str, str], dict[str, Any]]  # read with the settings (policy_keys)
    version: int = 0
    schema_id: int = 0
    schema_pk: int = 0
    fresh: StoredSchema | None = None
    purged: tuple[int, ...] = ()  # soft-deleted versions of the same id the store step removed
    forced_past: tuple[str, ...] = ()  # policy errors `force` skipped, for the audit row
    forced_incompatibilities: tuple[str, ...] = ()  # and the compatibility messages

    @property
    def importing(self) -> bool:
        return self.mode is Mode.IMPORT

    @property
    def explicit_id(self) -> bool:
        return self.request.id is not None and self.request.id >= 0

    @property
    def explicit_version(self) -> bool:
        return self.request.version is not None and self.request.version > 0


class Registered(NamedTuple):
    """What a registration's transaction produced: the subject-version to answer, and the
    content it stored (None when the schema already existed), to seed the caches after commit."""

    qs: QualifiedSubject
    version: VersionRow
    fresh: tuple[StoredSchema, ParsedSchema] | None


class Derived(NamedTuple):
    """What storing new content derives from its parse: its fingerprints and field index rows.
    Linear in the schema (a 2,000-field record takes longer than comparing it), so the
    pre-check derives them for a registration its verdict lets through."""

    fingerprints: dict[str, str] | None
    index: list[IndexedName]


class Decided(NamedTuple):
    """A registration the pre-check prepared (its candidate is parsed once), the policy and
    compatibility verdict on it, for the write path to confirm under the lock, and what
    storing it would derive, if the verdict lets it through."""

    prepared: Registration
    verdict: Verdict | None  # None when the mode refuses the write: nothing was compared
    derived: Derived | None = None


class PreRead(NamedTuple):
    """What the lock-free pre-check found: the subject it resolved to (after its alias), the
    settings rows for it (the subject's own among them, if it exists), whether the subject
    as named has a row, the version holding the schema when the subject has one, for a
    subject that does not exist yet, the identity the request would get in it, and what it
    decided when nothing matched."""

    qs: QualifiedSubject
    settings: SettingsRead
    named_exists: bool
    found: Registered | None
    identity: str | None
    decided: Decided | None = None
