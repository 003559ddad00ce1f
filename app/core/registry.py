"""RegistryService: the registry's rules, independent of HTTP and of schema formats.

Every public method takes plain values (subject strings as they arrived in the path or
query, already percent-decoded; `None` for absent parameters) and the caller (`principal`,
anonymous unless the API layer authenticated someone; writes also the request's `origin`),
and returns records from `app.core.records` or plain lists/dicts. Errors are `RegistryError`s.

Each method is the caller's guard around one part: reads by subject (app/core/reads/subject_reads.py)
or by schema (reads/schema_reads.py), registration, lookup and tags (registration/), checks
(compatibility/), settings, deletes. Reads run on one connection with as few queries as the
answer needs (the subject-version read path is one query); schema content and parsed schemas
come from in-process caches.
Writes are one transaction each, which also writes the change's audit row (app/core/audit.py),
and each committed write is reported to the `events` sink. What only the web UI asks for
(diffs, the browser, search, outlines) is held as `browse` (app/core/browse/views.py), whose
parts are built on first use.
"""
from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from app.core.access import (
    ANONYMOUS,
    INCOMPATIBLE,
    Action,
    AllowAll,
    Authorizer,
    EventSink,
    Guard,
    Principal,
    WriteEvent,
    no_events,
)
from app.core.audit import Audit, AuditTrail
from app.core.cache import CacheStatsFactory, no_cache_stats
from app.core.compatibility.checks import CompatibilityChecks
from app.core.deletes import Deleter
from app.core.compatibility.impact import Impact, ImpactAnalysis
from app.core.errors import IncompatibleSchema
from app.core.reads.found_tags import found_tags
from app.core.limits import SchemaLimits
from app.core.browse.views import BrowsingViews
from app.core.reads.read_cache import ReadCache
from app.core.records import CompatibilityReport, SchemaById, StoredSchema, SubjectVersion
from app.core.registration.lookup import Lookup
from app.core.registration.registrar import Registrar
from app.core.resolver import SchemaResolver
from app.core.reads.schema_reads import ContextId, ListedSchema, SchemaReads, SubjectVersionRef
from app.core.reads.subject_reads import SubjectReads
from app.core.store.audit import AuditQuery, AuditRow, NO_ORIGIN, Origin
from app.core.store.protocol import Storage
from app.core.subject_settings import SubjectSettings
from app.core.subjects import page
from app.core.associations.records import SchemaAssociationFilter
from app.core.associations.service import AssociationService
from app.core.dek.kms import drivers_from
from app.core.dek.service import DekRegistryService
from app.core.exporters.service import ExporterService
from app.core.policies import PolicyService
from app.core.registration.tags import SchemaTagger, TagRequest
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject, SchemaRequest
from app.core.browse.visible_contexts import named_contexts
from app.formats import LazyFormats
from app.formats.base import EntityTags, SchemaFormat
from app.settings import Settings

if TYPE_CHECKING:
    from app.policies.catalogue import Catalogue

__all__ = ["ListedSchema", "RegistryService"]


class RegistryService:
    def __init__(
        self,
        storage: Storage,
        formats: Mapping[str, SchemaFormat],
        settings: Settings,
        *,
        authorizer: Authorizer | None = None,
        events: EventSink = no_events,
        cache_stats: CacheStatsFactory = no_cache_stats,
        catalogue: Catalogue | None = None,
    ):
        """`cache_stats` names each in-process cache ("reply", "content", "parsed",
        "formatted") and gets what counts its hits and misses."""
        self.storage = storage
        # The service's own mapping (not the module-level registry), shared with the resolver,
        # so one service's formats can be swapped or instrumented without touching another's;
        # a lazy map stays lazy (`copy`), so no format is imported before it is used.
        self.formats: MutableMapping[str, SchemaFormat] = (
            formats.copy() if isinstance(formats, LazyFormats) else dict(formats)
        )
        self.settings = settings
        self.authorizer: Authorizer = authorizer or AllowAll()
        self.events = events
        self._anonymous = Guard(self.authorizer, ANONYMOUS)
        self._open = isinstance(self.authorizer, AllowAll)
        self.resolver = SchemaResolver(
            self.formats, settings.schema_cache_mb * 1024 * 1024, settings.max_schema_bytes, cache_stats,
            limits=SchemaLimits(max_depth=settings.max_schema_depth),
        )
        self.checks = CompatibilityChecks(storage, self.resolver, settings)
        self.deleter = Deleter(storage)
        self.registrar = Registrar(storage, self.resolver, self.checks, settings)
        self.lookups = Lookup(storage, self.resolver, self.checks)
        self.tagger = SchemaTagger(self.resolver, self.registrar)
        self.subject_settings = SubjectSettings(storage, settings)
        self.schema_reads = SchemaReads(storage, self.resolver)
        self.subject_reads = SubjectReads(storage, self.resolver)
        self.impacts = ImpactAnalysis(storage, self.resolver, self.checks)
        self.trail = AuditTrail(storage, settings.audit, settings.audit_retention_days)
        self.audit = self.trail.audit
        self.policies = PolicyService(storage, self.resolver, settings, catalogue, guard=self.guard, audit=self.audit,
                                      events=events)
        self.registrar.verdicts.policies = self.policies  # the gate between mode and compatibility
        self.exporters = ExporterService(storage, guard=self.guard, audit_for=self.audit,
                                         cluster_id=settings.cluster_id, running=settings.exporters)
        self.read_cache = ReadCache(
            storage, settings.schema_cache_mb * 1024 * 1024 // 4, settings.hot_read_cache, cache_stats("reply")
        )
        self.deks = DekRegistryService(storage, drivers_from(settings), guard=self.guard, audit=self.audit)
        self.associations = AssociationService(storage, self.registrar, self.lookups, self.checks,
                                               guard=self.guard, audit=self.audit)
        self.browse = BrowsingViews(storage, self.resolver, self.checks, settings, self.guard)

    def guard(self, principal: Principal) -> Guard:
        """The anonymous caller's guard is made once when nothing is authorized (every hot
        read asks for it); a real authorizer's answers change with its grants, and a guard
        remembers them, so then each call gets a guard of its own."""
        if principal is ANONYMOUS and self._open:
            return self._anonymous
        return Guard(self.authorizer, principal)

    def _emit(self, action: Action, operation: str, subject: str, principal: Principal, **details: Any) -> None:
        self.events(WriteEvent(action, operation, subject, principal, **details))

    # ---------------------------------------------------------------- schemas by id
    def schema_by_id(
        self, schema_id: int, subject: str | None = None, fmt: str | None = None, fetch_max_id: bool = False,
        *, principal: Principal = ANONYMOUS,
    ) -> SchemaById:
        guard = self.guard(principal)
        load = lambda: self.schema_reads.schema_by_id(schema_id, subject, fmt, fetch_max_id, guard)  # noqa: E731
        key = ("id", schema_id, subject, fmt, fetch_max_id, guard.read_scope)
        return self.read_cache.get(key, load, _reply_bytes)

    def schema_tags(self, schema: StoredSchema, wanted: frozenset[str]) -> list[EntityTags]:
        """`findTags` on a schema already read (and so authorized): see `found_tags`."""
        if not wanted:
            return []
        with self.storage.read() as store:
            parsed = self.resolver.parsed(store, schema)
        return found_tags(self.resolver.format(schema.schema_type), parsed, wanted)

    def schema_by_guid(self, guid: str, fmt: str | None = None, *, principal: Principal = ANONYMOUS) -> SchemaById:
        return self.schema_reads.schema_by_guid(guid, fmt, self.guard(principal))

    def ids_for_guid(self, guid: str, *, principal: Principal = ANONYMOUS) -> list[ContextId]:
        return self.schema_reads.ids_for_guid(guid, self.guard(principal))

    def schema_by_fingerprint(
        self, digest: str, algorithm: str = "crc64", *, principal: Principal = ANONYMOUS
    ) -> StoredSchema:
        return self.schema_reads.schema_by_fingerprint(digest, algorithm, self.guard(principal))

    def schema_types(self) -> list[str]:
        return list(self.formats)

    def subjects_for_id(
        self, schema_id: int, subject: str | None = None, deleted: bool = False, offset: int = 0, limit: int = -1,
        *, principal: Principal = ANONYMOUS,
    ) -> list[str]:
        pairs = self.versions_for_id(schema_id, subject, deleted, 0, -1, principal=principal)
        return page(sorted({p.subject for p in pairs}), offset, limit)

    def versions_for_id(
        self, schema_id: int, subject: str | None = None, deleted: bool = False, offset: int = 0, limit: int = -1,
        *, principal: Principal = ANONYMOUS,
    ) -> list[SubjectVersionRef]:
        return self.schema_reads.versions_for_id(schema_id, subject, deleted, offset, limit, self.guard(principal))

    def list_schemas(
        self, subject_prefix: str = "", deleted: bool = False, latest_only: bool = False, offset: int = 0,
        limit: int = -1, rule_type: str | None = None, aliases: bool = False,
        associated: SchemaAssociationFilter | None = None, *, principal: Principal = ANONYMOUS,
    ) -> list[ListedSchema]:
        """`associated`: Confluent 8.x's association filters, each match with its associations."""
        return self.schema_reads.list_schemas(
            subject_prefix, deleted, latest_only, offset, limit, rule_type, aliases, self.guard(principal), associated,
        )

    # ---------------------------------------------------------------- subjects
    def list_subjects(
        self, subject_prefix: str | None = None, deleted: bool = False, deleted_only: bool = False,
        offset: int = 0, limit: int = -1, *, principal: Principal = ANONYMOUS,
    ) -> list[str]:
        return self.subject_reads.list_subjects(
            subject_prefix, deleted, deleted_only, offset, limit, self.guard(principal)
        )

    def list_versions(
        self, subject: str, deleted: bool = False, deleted_only: bool = False, deleted_as_negative: bool = False,
        offset: int = 0, limit: int = -1, *, principal: Principal = ANONYMOUS,
    ) -> list[int]:
        return self.subject_reads.list_versions(
            subject, deleted, deleted_only, deleted_as_negative, offset, limit, self.guard(principal)
        )

    def get_version(
        self, subject: str, version: str, deleted: bool = False, fmt: str | None = None,
        *, principal: Principal = ANONYMOUS,
    ) -> SubjectVersion:
        """`version` is the raw path segment ("latest", "-1", "3"); 42202 when malformed.
        `latest` is the newest live version whatever `deleted` says."""
        guard = self.guard(principal)
        load = lambda: self.subject_reads.get_version(subject, version, deleted, fmt, guard)  # noqa: E731
        key = ("version", subject, version, deleted, fmt, guard.read_scope)
        return self.read_cache.get(key, load, _reply_bytes)

    def register(
        self, subject: str, request: SchemaRequest, normalize: bool = False, force: bool = False,
        fmt: str | None = None, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN,
    ) -> SubjectVersion:
        guard = self.guard(principal)
        try:
            done = self._register(subject, request, normalize, force, fmt, guard, self.audit(principal, origin))
        except IncompatibleSchema:
            self._emit(Action.WRITE, "register", subject, principal, outcome=INCOMPATIBLE)
            raise
        self._emit(Action.WRITE, "register", done.subject, principal, versions=(done.version,), schema_id=done.id)
        return done

    def _register(
        self, subject: str, request: SchemaRequest, normalize: bool, force: bool, fmt: str | None, guard: Guard,
        audit: Audit,
    ) -> SubjectVersion:
        """Serializers re-register their schema on every start, and many producers start at
        once: the answer for a schema the subject already holds is kept like a read's reply,
        under the storage's change token, so it costs no query until something commits.
        A registration that does write commits, which changes the token: its own entry is
        never served. Requests with references or documents are not kept (their identity
        is not the text alone, and they are rare), and neither is anything once an
        authorizer is configured: a reader with a global grant reads everything, but the
        write check must still run for each call."""
        register = lambda: self.registrar.register(  # noqa: E731
            subject, request, normalize, force, fmt, guard=guard, audit=audit
        )
        key = self._registration_key(subject, request, normalize, force, fmt)
        return register() if key is None else self.read_cache.get(key, register, _reply_bytes)

    def registered_already(
        self, subject: str, request: SchemaRequest, *, principal: Principal = ANONYMOUS,
    ) -> SubjectVersion | None:
        """What `register` (without flags) would answer, when the read cache holds that answer
        already: a re-registration served before anything is parsed (app/api/hot_reads.py).
        None: `register` must run."""
        key = self._registration_key(subject, request, False, False, None)
        done = None if key is None else self.read_cache.peek(key)
        if done is not None:
            self._emit(Action.WRITE, "register", done.subject, principal, versions=(done.version,), schema_id=done.id)
        return done

    def _registration_key(
        self, subject: str, request: SchemaRequest, normalize: bool, force: bool, fmt: str | None,
    ) -> tuple[Any, ...] | None:
        if force or not self._open or request.references or request.metadata or request.rule_set:
            return None
        return ("register", subject, request.schema_type, request.schema, request.id, request.version, normalize, fmt)

    def modify_tags(
        self, subject: str, version: str, request: TagRequest, *, principal: Principal = ANONYMOUS,
        origin: Origin = NO_ORIGIN,
    ) -> SubjectVersion:
        """POST /subjects/{s}/versions/{v}/tags: a new version derived from `version` (app.core.registration.tags)."""
        done = self.tagger.modify_tags(subject, version, request, self.guard(principal), self.audit(principal, origin))
        self._emit(Action.WRITE, "modify_tags", done.subject, principal, versions=(done.version,), schema_id=done.id)
        return done

    def lookup(
        self, subject: str, request: SchemaRequest, normalize: bool = False, deleted: bool = False,
        fmt: str | None = None, *, principal: Principal = ANONYMOUS,
    ) -> SubjectVersion:
        return self.lookups.lookup(subject, request, normalize, deleted, fmt, guard=self.guard(principal))

    def latest_with_metadata(
        self, subject: str, pairs: dict[str, str], deleted: bool = False, fmt: str | None = None,
        *, principal: Principal = ANONYMOUS,
    ) -> SubjectVersion:
        return self.subject_reads.latest_with_metadata(subject, pairs, deleted, fmt, self.guard(principal))

    def delete_subject(
        self, subject: str, permanent: bool = False, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN
    ) -> list[int]:
        done = self.deleter.delete_subject(subject, permanent, self.guard(principal), self.audit(principal, origin))
        self._emit(Action.DELETE, "delete_subject", done.qs.qualified(), principal, versions=done.versions)
        return list(done.versions)

    def delete_version(
        self, subject: str, version: str, permanent: bool = False, *, principal: Principal = ANONYMOUS,
        origin: Origin = NO_ORIGIN,
    ) -> int:
        done = self.deleter.delete_version(
            subject, version, permanent, self.guard(principal), self.audit(principal, origin)
        )
        self._emit(Action.DELETE, "delete_version", done.qs.qualified(), principal, versions=done.versions)
        return done.versions[0]

    def referenced_by(
        self, subject: str, version: str, deleted: bool = False, offset: int = 0, limit: int = -1,
        *, principal: Principal = ANONYMOUS,
    ) -> list[int]:
        return self.subject_reads.referenced_by(subject, version, deleted, offset, limit, self.guard(principal))

    # ---------------------------------------------------------------- impact (an extension)
    def impact(
        self, subject: str, request: SchemaRequest | None = None, normalize: bool = False,
        *, principal: Principal = ANONYMOUS,
    ) -> Impact:
        """The topics and referrers a change to `subject` touches; with a candidate, which of
        them it would break (see `app.core.compatibility.impact`)."""
        return self.impacts.impact(subject, request, normalize, self.guard(principal))

    # ---------------------------------------------------------------- compatibility
    def check_compatibility(
        self, subject: str, version: str | None, request: SchemaRequest, normalize: bool = False,
        verbose: bool = False, *, principal: Principal = ANONYMOUS,
    ) -> CompatibilityReport:
        """`version=None` runs registration's check against the live history (POST .../versions).
        An incompatible answer is reported to `events` (a refused write in the making)."""
        report = self.checks.check(subject, version, request, normalize, verbose, self.guard(principal))
        if not report.is_compatible:
            self._emit(Action.READ, "check_compatibility", subject, principal, outcome=INCOMPATIBLE)
        return report

    # Config documents use the PUT keys (`compatibility`, `normalize`, `alias`, ...).
    # `subject=None` addresses the global (default-context) config. Settings are not
    # alias-followed, so the authorizer is asked about the subject as named.
    def get_config(
        self, subject: str | None, default_to_global: bool = False, *, principal: Principal = ANONYMOUS
    ) -> dict[str, Any]:
        self.guard(principal).check(Action.READ_CONFIG, _settings_scope(subject))
        return self.subject_settings.get_config(subject, default_to_global)

    def update_config(
        self, subject: str | None, changes: dict[str, Any], *, principal: Principal = ANONYMOUS,
        origin: Origin = NO_ORIGIN,
    ) -> dict[str, Any]:
        """Merge: absent keys keep stored values, explicit None clears. Returns the stored result."""
        self.guard(principal).check(Action.WRITE_CONFIG, _settings_scope(subject))
        stored = self.subject_settings.update_config(subject, changes, self.audit(principal, origin))
        self._emit(Action.WRITE_CONFIG, "update_config", _settings_scope(subject), principal)
        return stored

    def delete_config(
        self, subject: str | None, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN
    ) -> dict[str, Any]:
        self.guard(principal).check(Action.WRITE_CONFIG, _settings_scope(subject))
        removed = self.subject_settings.delete_config(subject, self.audit(principal, origin))
        self._emit(Action.WRITE_CONFIG, "delete_config", _settings_scope(subject), principal)
        return removed

    def get_mode(
        self, subject: str | None, default_to_global: bool = False, *, principal: Principal = ANONYMOUS
    ) -> str:
        self.guard(principal).check(Action.READ_CONFIG, _settings_scope(subject))
        return self.subject_settings.get_mode(subject, default_to_global)

    def update_mode(
        self, subject: str | None, mode: str | None, force: bool = False, *, principal: Principal = ANONYMOUS,
        origin: Origin = NO_ORIGIN,
    ) -> str | None:
        """`mode=None` removes the stored mode. Returns the mode as stored (None if removed)."""
        self.guard(principal).check(Action.WRITE_CONFIG, _settings_scope(subject))
        stored = self.subject_settings.update_mode(subject, mode, force, self.audit(principal, origin))
        self._emit(Action.WRITE_CONFIG, "update_mode", _settings_scope(subject), principal)
        return stored

    def delete_mode(
        self, subject: str | None, recursive: bool = False, *, principal: Principal = ANONYMOUS,
        origin: Origin = NO_ORIGIN,
    ) -> str:
        self.guard(principal).check(Action.WRITE_CONFIG, _settings_scope(subject))
        removed = self.subject_settings.delete_mode(subject, recursive, self.audit(principal, origin))
        self._emit(Action.WRITE_CONFIG, "delete_mode", _settings_scope(subject), principal)
        return removed

    # ---------------------------------------------------------------- contexts
    def list_contexts(
        self, context_prefix: str = "", offset: int = 0, limit: int = -1, *, principal: Principal = ANONYMOUS
    ) -> list[str]:
        """The default context, and every other one (to a restricted caller: those holding a
        subject, live or soft-deleted, that it may read)."""
        guard = self.guard(principal)
        with self.storage.read() as store:
            names = named_contexts(store, guard)
        wanted = (context_prefix or "").strip()
        everything = [DEFAULT_CONTEXT, *names]
        if wanted:
            dotted = wanted if wanted.startswith(".") else "." + wanted
            everything = [c for c in everything if c.startswith(dotted)]
        return page(everything, offset, limit)

    def delete_context(self, context: str, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> None:
        scope = self.deleter.delete_context(context, self.guard(principal), self.audit(principal, origin))
        self._emit(Action.DELETE, "delete_context", scope, principal)

    # ---------------------------------------------------------------- audit trail
    def audit_events(self, query: AuditQuery, *, principal: Principal = ANONYMOUS) -> list[AuditRow]:
        """The trail, newest first: a global administrator's read (what `PUT /config` needs)."""
        self.guard(principal).check(Action.WRITE_CONFIG, "")
        return self.storage.audit_events(query)

    def check_ready(self) -> None:
        """What a load balancer's readiness probe asks: one indexed read (the global settings
        row) through storage. Raises storage's 50001/50002 when the database cannot answer;
        never served from a cache."""
        with self.storage.read() as store:
            store.subject(DEFAULT_CONTEXT, "")

    def cluster_id(self) -> str:
        return self.settings.cluster_id


def _reply_bytes(reply: SchemaById | SubjectVersion) -> int:
    """What a cached reply holds beyond the content cache's share: its text, when rendered
    (`format=`), and the record objects."""
    return len(reply.text) + 300


def _settings_scope(subject: str | None) -> str:
    """The name the authorizer is asked about for a config or mode: the subject as given, or
    "" for the global settings (a context's settings are `:.ctx:`)."""
    if not subject:
        return ""
    qs = QualifiedSubject.parse(subject)
    return qs.qualified() if qs.name or qs.context == DEFAULT_CONTEXT else f":{qs.context}:"

