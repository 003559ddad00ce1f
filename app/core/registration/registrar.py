"""Registration: the flow that stores a schema from a request (lookup is app/core/registration/lookup.py).

Registration follows the reference's order of steps (Confluent's registration of a schema)
inside one transaction that holds the subject's row lock, so version numbers and ids are
race-free across a fleet. The steps are named methods over one `Registration` record: prepare
(settings, candidate, merged documents, identity), match (the subject already holds it),
check the mode, check policies and compatibility, allocate (version number and id, or an
existing id), store. None of them reads the subject's whole history unless a transitive level
or a compatibility group needs it, so a registration costs the same into a subject of 2
versions or 2,000.

What takes time (parsing, the policy rules, the compatibility comparison) is done by the
lock-free pre-check before the transaction; under the lock the write path confirms that what
was compared is still the subject's newest (app/core/registration/verdict.py) and compares
again only if it is not, so no writer waits behind another's comparison.

Two entry points share the one write path: `register` (a request) and `register_derived` (the
tags endpoint), whose request is built inside that same transaction by a `Prepare` callback,
so it cannot be based on a version list that a concurrent registration has since changed.
The call's own values (guard, audit, normalize, force, format) travel on the registration as
one `RegistrationCall`; the step records are in app/core/registration/steps.py.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.core.access import OPEN, Guard
from app.core.associations.guards import check_reference_targets
from app.core.audit import NO_AUDIT, REGISTER, Audit
from app.core.compatibility.checks import CompatibilityChecks
from app.core.config import effective_config, effective_mode, rows_needed
from app.core.documents import merged_documents, request_documents
from app.core.errors import (
    IdsExhausted,
    InvalidSchema,
    OperationNotPermitted,
    StoreError,
    WriteConflict,
)
from app.core.registration.identity import identity_hash
from app.core.registration.imported_ids import check_explicit_id
from app.core.outline_index import index_rows
from app.core.policies import policy_keys
from app.core.registration.steps import (
    Decided,
    Derived,
    Prepare,
    PreRead,
    Registered,
    Registration,
    RegistrationCall,
)
from app.core.registration.verdict import RegistrationVerdicts
from app.core.records import StoredSchema, SubjectVersion
from app.core.resolver import Candidate, SchemaResolver, format_refusals
from app.core.store.audit import AuditEntry
from app.core.store.protocol import Storage, Store
from app.core.store.rows import (
    LockedSubject,
    NewSchema,
    NewVersion,
    SchemaKeyRow,
    SettingsRead,
    SubjectHead,
    SubjectRow,
    VersionRow,
)
from app.core.subjects import MAX_ID, alias_of, subject_version, validate_subject
from app.core.types import DEFAULT_CONTEXT, Mode, QualifiedSubject, SchemaRequest, empty_schema
from app.formats.base import Fingerprints, ParsedSchema, supports
from app.settings import Settings

_WRITE_ATTEMPTS = 5


class Registrar:
    def __init__(self, storage: Storage, resolver: SchemaResolver, checks: CompatibilityChecks, settings: Settings):
        self.storage = storage
        self.resolver = resolver
        self.settings = settings
        self.verdicts = RegistrationVerdicts(checks, settings)

    # ------------------------------------------------------------------ register
    def register(
        self,
        subject: str,
        request: SchemaRequest,
        normalize: bool = False,
        force: bool = False,
        fmt: str | None = None,
        *,
        guard: Guard = OPEN,
        audit: Audit = NO_AUDIT,
    ) -> SubjectVersion:
        """Register `request`: a version stored is recorded through `audit` in the same
        transaction; a match is not."""
        call = RegistrationCall(normalize, force, fmt, guard, audit)
        qs = QualifiedSubject.parse(subject)
        validate_subject(qs, subject, registering=True)
        early = self.resolver.parse_early(request.schema_type, request.schema, request.references)
        # An explicit id is an import (or refused): the lock-free pre-check would only find
        # the version the write path's own step 2 finds, so imports skip a read transaction.
        pre = None
        if request.id is None:
            pre = self._registered_already(qs, request, call, early)
            if pre.found is not None:
                return self._reply(pre.found, fmt)
        return self._write(qs, call, pre, early, lambda store, target, locked: request)

    def register_derived(
        self, subject: str, prepare: Prepare, *, guard: Guard = OPEN, audit: Audit = NO_AUDIT
    ) -> SubjectVersion:
        """Register the request `prepare` builds under the subject's lock from the subject's
        own versions (the tags endpoint). The name rules that only registration has (no
        global context, no bare context) are checked after it, so the caller's own errors
        about the subject (40401 for a missing base version) come first."""
        call = RegistrationCall(guard=guard, audit=audit)
        qs = QualifiedSubject.parse(subject)
        validate_subject(qs, subject, registering=False)

        def derived(store: Store, target: QualifiedSubject, locked: LockedSubject) -> SchemaRequest:
            request = prepare(store, target, store.versions(locked.row.id))
            validate_subject(qs, subject, registering=True)
            return request

        return self._write(qs, call, None, None, derived)

    def _write(
        self, qs: QualifiedSubject, call: RegistrationCall, pre: PreRead | None, early: ParsedSchema | None,
        request_for: Callable[[Store, QualifiedSubject, LockedSubject], SchemaRequest],
    ) -> SubjectVersion:
        """The one write path: the subject locked (after its alias), the request it registers
        (`request_for`, read under that lock), the steps, the commit; again from the start
        when a concurrent writer won a race."""
        for attempt in range(_WRITE_ATTEMPTS):
            try:
                with self.storage.write() as store:
                    target, locked = self._locked(store, qs, call, pre)
                    request = request_for(store, target, locked)
                    read = pre if pre is not None and pre.qs == target else None
                    done = self._register(store, target, locked, request, call, early, read)
                if done.fresh is not None:
                    self.resolver.remember(*done.fresh)
                return self._reply(done, call.fmt)
            except WriteConflict:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise StoreError("Could not register the schema: too much concurrent contention") from None
        raise AssertionError("unreachable")

    def register_within(
        self, store: Store, subject: str, request: SchemaRequest, normalize: bool, guard: Guard, audit: Audit,
    ) -> Registered:
        """A registration inside the caller's write transaction (a STRONG association's inline
        schema commits with the association or not at all). The caller hands the result to
        `registered_reply` after its commit."""
        call = RegistrationCall(normalize=normalize, guard=guard, audit=audit)
        qs = QualifiedSubject.parse(subject)
        validate_subject(qs, subject, registering=True)
        early = self.resolver.parse_early(request.schema_type, request.schema, request.references)
        target, locked = self._locked(store, qs, call, None)
        return self._register(store, target, locked, request, call, early, None)

    def registered_reply(self, done: Registered) -> SubjectVersion:
        """The reply for a `register_within` whose transaction committed."""
        if done.fresh is not None:
            self.resolver.remember(*done.fresh)
        return self._reply(done, None)

    def _registered_already(
        self, qs: QualifiedSubject, request: SchemaRequest, call: RegistrationCall, early: ParsedSchema | None,
    ) -> PreRead:
        """A schema the subject already holds, found without a write transaction: the
        answer registration's step 2 gives "whatever the mode", read the same way (alias,
        authorization, settings, candidate, match) but without locking the subject, taking
        SQLite's write lock or telling every cache on the host that something was committed.
        Serializers re-register their schema on every start, so this is a hot path.

        No match (a new subject or a new schema) sends the caller down the write path, with
        the settings rows read here (the subject's row comes with them, one statement) and
        the verdict of the policy and compatibility steps, reached here so that the lock is
        not held while schemas are compared. Errors are the write path's own, in its order:
        the same checks run on the same rows before anything is written (a database failure
        surfaces here, once, not twice); the verdict's refusals wait for their step."""
        with self.storage.read() as store:
            read = store.settings_and_policies(rows_needed(qs.context, qs.name), policy_keys(qs.context, qs.name))
            row = named = read.rows.get((qs.context, qs.name))
            target = alias_of(qs, row) if row is not None else None
            if target is not None:
                qs = target
                read = store.settings_and_policies(rows_needed(qs.context, qs.name), policy_keys(qs.context, qs.name))
                row = read.rows.get((qs.context, qs.name))
            if row is None and named is not None:  # an alias to a subject yet to be created
                return PreRead(qs, read, True, None, None)
            call.guard.check(call.action, qs.qualified())  # the write path's order: refused before invalid
            # A subject created for this request has no versions and no config of its own.
            locked = LockedSubject(row or SubjectRow(0, qs.context, qs.name, None, None), row is None)
            reg = self._prepare(store, qs, locked, request, call, early, read)
            if row is None:
                # The identity the write path locks with the subject's new row, in one
                # statement; not for references, which are resolved again under the lock.
                identity = None if request.references else reg.digest
                return PreRead(qs, read, False, None, identity, self._decide(store, reg))
            found = self._existing(store, reg)
            if found is not None:
                return PreRead(qs, read, True, Registered(qs, found, None), None)
            return PreRead(qs, read, True, None, None, self._decide(store, reg))

    def _decide(self, store: Store, reg: Registration) -> Decided:
        """The policy and compatibility verdict on a registration not yet locked, unless the
        mode refuses it first (the write path then refuses it, or decides under the lock if
        the mode changed meanwhile)."""
        try:
            self._check_mode(reg)
        except OperationNotPermitted:
            return Decided(reg, None)
        verdict = self.verdicts.decide(store, reg)
        return Decided(reg, verdict, self._derive(reg.candidate) if self.verdicts.admits(reg, verdict) else None)

    def _derive(self, candidate: Candidate) -> Derived:
        fmt = self.resolver.format(candidate.schema_type)
        with format_refusals():  # under the lock, a budget spent here rolls the transaction back
            return Derived(
                fmt.fingerprints(candidate.parsed) if supports(fmt, Fingerprints) else None,
                index_rows(fmt, candidate.parsed),
            )

    def _reply(self, done: Registered, fmt: str | None) -> SubjectVersion:
        """The registered subject-version; the content is in the cache by now (just stored,
        or matched), so no connection is needed unless a `format=` rendering is."""
        if not fmt and self.resolver.cached_content(done.version.schema_pk) is not None:
            return subject_version(self.resolver, None, done.qs, done.version, fmt)
        with self.storage.read() as store:
            return subject_version(self.resolver, store, done.qs, done.version, fmt)

    @staticmethod
    def _locked(
        store: Store, qs: QualifiedSubject, call: RegistrationCall, pre: PreRead | None
    ) -> tuple[QualifiedSubject, LockedSubject]:
        """The subject after its alias, with its row locked (and created if new). The named
        subject's row is locked first, which is also how its alias is read: one statement
        for the usual subject without one (the pre-check tells storage whether to expect
        the row, which saves the other of its two ways to a lock, and for a new subject the
        identity to lock with it, which saves step 5's lock statement)."""
        locked = store.lock_subject(qs.context, qs.name, expected=pre is not None and pre.named_exists,
                                    identity=pre.identity if pre is not None else None)
        target = alias_of(qs, locked.row)
        if target is not None:
            qs, locked = target, store.lock_subject(target.context, target.name)
        call.guard.check(call.action, qs.qualified())
        return qs, locked

    def _register(
        self, store: Store, qs: QualifiedSubject, row: LockedSubject, request: SchemaRequest,
        call: RegistrationCall, early: ParsedSchema | None, read: PreRead | None,
    ) -> Registered:
        """The steps under the lock; `read` is what the pre-check read and decided for this
        subject (None: read and decide everything here)."""
        decided = read.decided if read is not None else None
        prior = decided.prepared if decided is not None else None
        reg = self._prepare(store, qs, row, request, call, early, read.settings if read else None, prior)
        found = self._existing(store, reg)
        if found is not None:
            return Registered(qs, found, None)
        check_reference_targets(store, qs, reg.candidate.plain_references)
        self._check_mode(reg)
        if reg.explicit_id:
            check_explicit_id(call.guard, qs, int(reg.request.id), self.settings.max_imported_id)  # type: ignore[arg-type]
        self.verdicts.apply(reg, self.verdicts.confirm(store, reg, decided.verdict if decided is not None else None))
        self._allocate(store, reg)
        derived = decided.derived if decided is not None and decided.prepared.candidate is reg.candidate else None
        return self._store(store, reg, derived)

    def _prepare(
        self, store: Store, qs: QualifiedSubject, locked: LockedSubject, request: SchemaRequest,
        call: RegistrationCall, early: ParsedSchema | None, settings: SettingsRead | None,
        prior: Registration | None = None,
    ) -> Registration:
        """Step 1: the settings in force, the candidate parsed (references resolved), the
        documents merged, the identity computed. An empty schema re-registers the latest.
        `prior` is this request prepared by the pre-check: its parse is kept if the same
        settings apply and the references resolve as they did.

        `settings` are the rows and policy documents the pre-check read: the global and context
        rows and the documents are used as read (under READ COMMITTED nothing locks them, so a
        read a moment earlier in the transaction would be no fresher), the subject's own row is
        the one just locked."""
        metadata, rule_set, refs = request_documents(request)
        if settings is None:
            settings = store.settings_and_policies(rows_needed(qs.context, qs.name), policy_keys(qs.context, qs.name))
            rows = settings.rows
        else:
            rows = {**settings.rows, (qs.context, qs.name): locked.row}
        config = effective_config(qs.context, qs.name, rows, self.settings.compatibility_level)
        mode = effective_mode(qs.context, qs.name, rows)
        importing = mode is Mode.IMPORT
        row = locked.row
        head = SubjectHead(0, None) if locked.created else store.subject_head(row.id)
        latest = self.resolver.content(store, head.latest_live.schema_pk) if head.latest_live else None

        text, schema_type = request.schema, request.schema_type
        if not text:
            if importing or latest is None:
                raise empty_schema(request.sent_keys)
            text, schema_type, refs = latest.schema, latest.schema_type, list(latest.references)
        elif not text.strip():
            raise empty_schema(request.sent_keys)
        candidate = self.resolver.candidate(
            store, qs.context, schema_type, text, refs,
            normalize=(call.normalize or bool(config.get("normalize"))) and not importing,
            strict=not importing and config.get("validateNewSchemas") is not False,
            live_refs=True, guard=call.guard, early=early if text is request.schema else None,
            prior=prior.candidate if prior is not None and text is request.schema
            and (prior.config, prior.mode) == (config, mode) else None,
        )
        if importing:
            md, rs = metadata, rule_set
        else:
            md, rs = merged_documents(metadata, rule_set, latest, config, request.version, head.last_version + 1)
        digest = identity_hash(candidate.text, candidate.plain_references, md, rs)
        return Registration(
            qs=qs, subject=row, head=head, request=request, call=call, config=config, mode=mode,
            latest=latest, candidate=candidate, metadata=md, rule_set=rs, sent_metadata=metadata, digest=digest,
            policy_documents=settings.policies,
        )

    def _existing(self, store: Store, reg: Registration) -> VersionRow | None:
        """Step 2: the subject already holds this schema (as a live version) -> answer it,
        whatever the mode; only the versions holding this text are read (the identity hash
        covers the text, and equivalence needs the same text), and none for a new subject."""
        if reg.head.last_version == 0:
            return None
        candidates = [v for v in store.versions_with_text(reg.subject.id, reg.candidate.text) if not v.deleted]
        found = self.resolver.find_match(
            store, candidates, reg.digest, reg.candidate, [reg.metadata, reg.sent_metadata], reg.rule_set
        )
        if found is None:
            return None
        request = reg.request
        if not reg.explicit_version and request.id in (None, found.schema_id):
            return found
        if request.version == found.version and request.id == found.schema_id:
            return found
        return None

    @staticmethod
    def _check_mode(reg: Registration) -> None:
        """Step 3: the mode decides whether anything may be written."""
        qs = reg.qs
        if reg.mode.read_only:
            raise OperationNotPermitted.read_only(qs.qualified(), qs.context_qualifier)
        if reg.explicit_id and not reg.importing:
            raise OperationNotPermitted.not_import(qs.qualified(), qs.context_qualifier)
        if not reg.explicit_id and reg.mode is not Mode.READWRITE:
            raise OperationNotPermitted.not_read_write(qs.qualified(), qs.context_qualifier)

    def _allocate(self, store: Store, reg: Registration) -> None:
        """Step 5: the version number, under the lock of the identity (so two first
        registrations of one schema cannot mint two ids); for an imported id, the content it
        names. Otherwise the id is settled as step 6 stores: the context's existing id for
        this content, or a fresh one from the context's sequence."""
        qs, request = reg.qs, reg.request
        next_version = reg.head.last_version + 1
        reg.version = next_version
        if reg.explicit_version:
            if reg.importing:
                reg.version = int(request.version)  # type: ignore[arg-type]
            elif request.version != next_version:
                raise InvalidSchema(
                    f"Version {request.version} is not one more than previous version {next_version - 1}"
                )
            if store.has_version(reg.subject.id, reg.version):
                raise OperationNotPermitted(f"Version {reg.version} of subject {qs.qualified()} already exists")

        store.lock_hash(reg.digest)
        if not reg.explicit_id:
            return
        imported = int(request.id)  # type: ignore[arg-type]
        reuse = next((s for s in store.schemas_by_hash(reg.digest, qs.context) if s.id == imported), None)
        holder = store.schema_pk_for_id(qs.context, imported)
        if holder is not None and (reuse is None or holder != reuse.pk):
            raise OperationNotPermitted(
                f"Overwrite new schema with id {request.id} in context {qs.context_qualifier} is not permitted."
            )
        reg.schema_id = imported
        if reuse is not None:
            reg.schema_pk = reuse.pk

    def _store(self, store: Store, reg: Registration, derived: Derived | None) -> Registered:
        """Step 6: the version, of content the context holds or of new content, with the
        change's audit row: one call to storage (one statement on PostgreSQL) unless the
        content turns out to be held already, which reuses its id. `derived`: from the
        candidate's parse, by the pre-check (derived here otherwise)."""
        qs, candidate, fresh = reg.qs, reg.candidate, None
        added = None
        if not reg.schema_pk:
            fingerprints, indexed = derived or self._derive(candidate)
            added = store.add_version(NewVersion(
                reg.subject.id, reg.version, None,
                NewSchema(
                    qs.context, reg.schema_id if reg.explicit_id else None, reg.digest, candidate.schema_type,
                    candidate.text, candidate.references, reg.metadata, reg.rule_set, fingerprints, indexed,
                ),
                _audit_entry(reg), unless_held=not reg.explicit_id,
            ))
            reg.schema_pk, reg.schema_id = added.key.pk, added.key.id
        if added is not None and added.written:
            if reg.schema_id > MAX_ID:
                raise IdsExhausted.for_context(qs.context)  # rolls the insert back
            if reg.explicit_id:
                store.move_id_allocation_past(qs.context, reg.schema_id)
            stored = StoredSchema(
                key=reg.schema_pk, context=qs.context, id=reg.schema_id, hash=reg.digest,
                schema_type=candidate.schema_type, schema=candidate.text,
                references=tuple(candidate.plain_references), metadata=reg.metadata, rule_set=reg.rule_set,
            )
            fresh = (stored, candidate.parsed)
        else:
            # Older soft-deleted versions holding the same id go, unless referenced, as in Confluent.
            stale = [
                v.version for v in store.versions_of_schema(reg.subject.id, reg.schema_pk)
                if v.deleted and not store.referrers(qs.context, qs.name, [v.version])
            ]
            if stale:
                store.hard_delete(reg.subject.id, stale, [])
                reg.purged = tuple(stale)
            held = SchemaKeyRow(reg.schema_pk, qs.context, reg.schema_id)
            added = store.add_version(NewVersion(reg.subject.id, reg.version, held, None, _audit_entry(reg)))
        if qs.context != DEFAULT_CONTEXT:  # the default context is always listed
            store.ensure_context(qs.context)
        version = VersionRow(reg.version, reg.schema_pk, reg.schema_id, reg.digest, False, added.created_at)
        return Registered(qs, version, fresh)


def _audit_entry(reg: Registration) -> AuditEntry | None:
    """The registration's row in the trail; a new id (0 until stored) is the stored content's."""
    return reg.call.audit.pending(
        REGISTER, reg.qs, version=reg.version, schema_id=reg.schema_id or None, detail=_register_detail(reg)
    )


def _register_detail(reg: Registration) -> dict[str, Any]:
    """The flags that made this registration unusual: forced past compatibility, an id or
    version given explicitly (IMPORT), soft-deleted versions it replaced for good."""
    detail: dict[str, Any] = {}
    if reg.call.force:
        detail["force"] = True
    if reg.explicit_id:
        detail["importedId"] = reg.request.id
    if reg.explicit_version:
        detail["importedVersion"] = reg.request.version
    if reg.purged:
        detail["purgedVersions"] = list(reg.purged)
    if reg.forced_past:
        detail["skippedPolicyViolations"] = list(reg.forced_past)
    if reg.forced_incompatibilities:
        detail["skippedIncompatibilities"] = list(reg.forced_incompatibilities)
    return detail
