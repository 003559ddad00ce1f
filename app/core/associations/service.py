"""Every Associations API operation, with Confluent's rules (its registry's
`createOrUpdateAssociation`, `deleteAssociations`, `batchGetAssociations`,
`mutateAssociations`) for what may be created, changed and deleted.

Reads never refuse an authenticated caller: associations whose subject it may not read are
left out, so a producer whose `AssociatedNameStrategy` asks about a topic it cannot see gets
`[]` and falls back to topic naming. A change needs WRITE on each subject it touches; a
cascading delete of a STRONG association deletes its subject permanently and so needs ADMIN
on it. Each change is one transaction with an audit row per association written or removed:
a STRONG create registers its inline schema (with that registration's own row) in the same
transaction as the association. A batch request's runs of ops commit one by one, as
Confluent's do: a later run's failure leaves the earlier ones in place.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from app.core import audit as actions
from app.core.access import ANONYMOUS, OPEN, Action, Guard, Principal
from app.core.associations.errors import (
    AssociationForResourceExists,
    AssociationForSubjectExists,
    AssociationFrozen,
    AssociationNotFound,
    InvalidAssociation,
    NoActiveSubjectVersion,
    StrongAssociationForSubjectExists,
)
from app.core.associations.records import (
    CREATE,
    STRONG,
    TOPIC,
    WEAK,
    WILDCARD,
    Association,
    AssociationChange,
    AssociationFilter,
    AssociationInfo,
    AssociationRemoval,
    BatchResult,
    ResourceChange,
    ResourceQuery,
    ResourceReply,
)
from app.core.associations.rules import apply_defaults, check_query, check_request
from app.core.audit import NO_AUDIT, Audit
from app.core.compatibility.checks import CompatibilityChecks
from app.core.errors import (
    IncompatibleSchema,
    ReferenceExists,
    RegistryError,
    SchemaNotFound,
    StoreError,
    SubjectNotFound,
    WriteConflict,
)
from app.core.registration.lookup import Lookup
from app.core.records import SubjectVersion
from app.core.registration.registrar import Registered, Registrar
from app.core.reads.schema_reads import SCHEMAS_MAX_LIMIT
from app.core.store.audit import CONTEXT_CHARS, NO_ORIGIN, Origin
from app.core.store.protocol import Storage, Store
from app.core.subjects import check_writable, page, subject_mode, subject_version
from app.core.types import DEFAULT_CONTEXT, Mode, QualifiedSubject

_WRITE_ATTEMPTS = 3


def now_ms() -> int:
    return int(time.time() * 1000)


def qualify(subject: str, context: str) -> QualifiedSubject:
    """A subject named without a context is in the request's `?context=` (default: the default one)."""
    return QualifiedSubject.parse(subject) if subject.startswith(":") else QualifiedSubject(context, subject)


def reference_target(referrer: QualifiedSubject, subject: str) -> QualifiedSubject:
    """A reference's subject, in its referrer's context unless it names one."""
    return QualifiedSubject.parse(subject) if subject.startswith(":") else QualifiedSubject(referrer.context, subject)


def _latest_first(associations: Iterable[Association]) -> list[Association]:
    """Of associations found by name (which several resources may share), those of the most
    recently changed resource: a dry run before the topic has an id compares with that one."""
    found = list(associations)
    if not found:
        return found
    newest = max(found, key=lambda a: (a.updated_ts, a.created_ts, a.resource_id)).resource_id
    return [a for a in found if a.resource_id == newest]


def _equivalent(old: Association, change: AssociationChange) -> bool:
    return (old.subject_name == change.subject and old.association_type == change.association_type
            and (change.lifecycle is None or change.lifecycle == old.lifecycle)
            and (change.frozen is None or change.frozen == old.frozen))


def _java(value: bool) -> str:
    return "true" if value else "false"


class AssociationService:
    def __init__(
        self, storage: Storage, registrar: Registrar, lookups: Lookup, checks: CompatibilityChecks, *,
        guard: Callable[[Principal], Guard] = lambda principal: OPEN,
        audit: Callable[[Principal, Origin], Audit] = lambda principal, origin: NO_AUDIT,
    ):
        self.storage = storage
        self.registrar = registrar
        self.lookups = lookups
        self.checks = checks
        self._guard = guard
        self._audit = audit

    # ------------------------------------------------------------------ reads
    def of_subject(self, subject: str, filters: AssociationFilter, offset: int = 0, limit: int = -1, *,
                   principal: Principal = ANONYMOUS) -> list[Association]:
        qs = QualifiedSubject.parse(subject)
        with self.storage.read() as store:
            found = store.associations_of_subject(qs.context, qs.name)
        return page(self._visible(found, filters, self._guard(principal)), offset, limit, SCHEMAS_MAX_LIMIT)

    def of_resource(self, resource_id: str, filters: AssociationFilter, offset: int = 0, limit: int = -1, *,
                    principal: Principal = ANONYMOUS) -> list[Association]:
        with self.storage.read() as store:
            found = store.associations_of_resource(resource_id)
        return page(self._visible(found, filters, self._guard(principal)), offset, limit, SCHEMAS_MAX_LIMIT)

    def named(self, resource_name: str, resource_namespace: str, filters: AssociationFilter, offset: int = 0,
              limit: int = -1, *, principal: Principal = ANONYMOUS) -> list[Association]:
        """`-` as the name: every resource of the namespace; `-` as the namespace: any namespace."""
        with self.storage.read() as store:
            found = store.associations_named(None if resource_name == WILDCARD else resource_name,
                                             None if resource_namespace == WILDCARD else resource_namespace)
        return page(self._visible(found, filters, self._guard(principal)), offset, limit, SCHEMAS_MAX_LIMIT)

    @staticmethod
    def _visible(found: Iterable[Association], filters: AssociationFilter, guard: Guard) -> list[Association]:
        admitted = sorted((a for a in found if filters.admits(a)), key=lambda a: a.order)
        if guard.unrestricted:
            return admitted
        readable = set(guard.filter({a.subject_name for a in admitted}))
        return [a for a in admitted if a.subject_name in readable]

    def batch_get(self, queries: Sequence[ResourceQuery | RegistryError], include_schemas: bool, *,
                  principal: Principal = ANONYMOUS) -> list[BatchResult]:
        """One result per query, in order: its resource's associations (with each subject's
        latest schema, `include_schemas`), or the error that query ended with."""
        guard = self._guard(principal)
        results = []
        with self.storage.read() as store:
            for query in queries:
                try:
                    if isinstance(query, RegistryError):
                        raise query
                    results.append(BatchResult(reply=self._query(store, query, include_schemas, guard)))
                except RegistryError as exc:
                    results.append(BatchResult(error_code=exc.error_code, message=exc.message))
        return results

    def _query(self, store: Store, query: ResourceQuery, include_schemas: bool, guard: Guard) -> ResourceReply:
        check_query(query)
        filters = AssociationFilter(query.resource_type, query.association_types, query.lifecycle)
        if query.resource_id:
            found = store.associations_of_resource(query.resource_id)
        else:
            found = store.associations_named(query.resource_name,
                                             None if query.resource_namespace == WILDCARD else query.resource_namespace)
        matches = self._visible(found, filters, guard)
        if len({(a.resource_id, a.resource_name, a.resource_namespace) for a in matches}) > 1:
            raise InvalidAssociation.property(
                "resourceNamespace", "matches the associations of more than one resource; name one")
        first = matches[0] if matches else None
        infos = tuple(
            AssociationInfo(a.subject_name, a.association_type, a.lifecycle, a.frozen,
                            self._latest(store, a.subject) if include_schemas else None)
            for a in matches)
        return ResourceReply(
            query.resource_name or (first.resource_name if first else None),
            first.resource_namespace if first else query.resource_namespace,
            query.resource_id or (first.resource_id if first else None),
            query.resource_type, infos)

    def _latest(self, store: Store, qs: QualifiedSubject) -> SubjectVersion | None:
        row = store.subject_version(qs.context, qs.name, None)
        if row.version is None:
            return None
        return subject_version(self.registrar.resolver, store, qs, row.version, None)

    # ------------------------------------------------------------------ changes
    def create(self, request: ResourceChange, context: str = DEFAULT_CONTEXT, dry_run: bool = False, *,
               principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> ResourceReply:
        """`POST /associations`: new associations for a resource (a retry of the same create is
        answered without writing anything again)."""
        check_request(request, True, dry_run)
        return self._commit(request, True, context, dry_run, self._guard(principal), self._audit(principal, origin))

    def upsert(self, resource_id: str, request: ResourceChange, context: str = DEFAULT_CONTEXT,
               dry_run: bool = False, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> ResourceReply:
        """`PUT /associations/resources/{resourceId}`: create WEAK associations or change existing ones."""
        if request.resource_id is None:
            request.resource_id = resource_id
        elif request.resource_id != resource_id:
            raise InvalidAssociation.property(
                "resourceId", "Resource ID in the path parameter does not match the resource ID in the request body")
        check_request(request, False, dry_run)
        return self._commit(request, False, context, dry_run, self._guard(principal), self._audit(principal, origin))

    def delete(self, resource_id: str, resource_type: str | None, association_types: Sequence[str],
               cascade_lifecycle: bool = False, dry_run: bool = False, *, principal: Principal = ANONYMOUS,
               origin: Origin = NO_ORIGIN) -> None:
        """`DELETE /associations/resources/{resourceId}`: 40410 when nothing matches; a frozen
        association only with `cascade_lifecycle`, which also deletes a STRONG one's subject."""
        guard, audit = self._guard(principal), self._audit(principal, origin)
        filters = AssociationFilter(resource_type or TOPIC, tuple(association_types))
        removed = self._retrying(dry_run, lambda store: self._remove(
            store, resource_id, filters, cascade_lifecycle, dry_run, guard, audit))
        if not removed:
            raise AssociationNotFound.for_resource(resource_id)

    def batch_mutate(self, requests: Sequence[ResourceChange | RegistryError], context: str = DEFAULT_CONTEXT,
                     dry_run: bool = False, *, principal: Principal = ANONYMOUS,
                     origin: Origin = NO_ORIGIN) -> list[BatchResult]:
        """Each request's ops in order: adjacent CREATE (or UPSERT) ops as one change, each
        DELETE on its own; the result is the resource's associations after the last op."""
        guard, audit = self._guard(principal), self._audit(principal, origin)
        results = []
        for request in requests:
            try:
                if isinstance(request, RegistryError):
                    raise request
                results.append(BatchResult(reply=self._mutate(request, context, dry_run, guard, audit)))
            except RegistryError as exc:
                results.append(BatchResult(error_code=exc.error_code, message=exc.message))
        return results

    def _mutate(self, request: ResourceChange, context: str, dry_run: bool, guard: Guard,
                audit: Audit) -> ResourceReply:
        check_request(request, False, dry_run)
        schemas: dict[str, SubjectVersion] = {}
        ops, index = request.ops, 0
        while index < len(ops):
            op = ops[index]
            if isinstance(op, AssociationRemoval):
                filters = AssociationFilter(request.resource_type, (op.association_type,))
                self._retrying(dry_run, lambda store, f=filters, c=op.cascade_lifecycle: self._remove(
                    store, request.resource_id or "", f, c, dry_run, guard, audit))
                index += 1
                continue
            end = index + 1
            while end < len(ops) and isinstance(ops[end], AssociationChange) and ops[end].op == op.op:
                end += 1
            run = replace(request, ops=list(ops[index:end]))
            reply = self._commit(run, op.op == CREATE, context, dry_run, guard, audit)
            schemas.update({i.association_type: i.schema for i in reply.associations if i.schema is not None})
            index = end
        infos: tuple[AssociationInfo, ...] = ()
        if not dry_run and request.resource_id:
            with self.storage.read() as store:
                current = self._visible(store.associations_of_resource(request.resource_id),
                                        AssociationFilter(request.resource_type), guard)
            infos = tuple(AssociationInfo(a.subject_name, a.association_type, a.lifecycle, a.frozen,
                                          schemas.get(a.association_type)) for a in current)
        return ResourceReply(request.resource_name, request.resource_namespace, request.resource_id,
                             request.resource_type, infos)

    def _retrying(self, dry_run: bool, work: Callable[[Store], Any]) -> Any:
        """`work` in a write transaction (a read for a dry run), tried again on a conflict."""
        for attempt in range(_WRITE_ATTEMPTS):
            try:
                if dry_run:
                    with self.storage.read() as store:
                        return work(store)
                with self.storage.write() as store:
                    return work(store)
            except WriteConflict:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise StoreError("Could not change the associations: too much concurrent contention") from None
        raise AssertionError("unreachable")

    def _commit(self, request: ResourceChange, creating: bool, context: str, dry_run: bool, guard: Guard,
                audit: Audit) -> ResourceReply:
        for change in request.changes:
            if change.subject is not None:
                change.subject = qualify(change.subject, context).qualified()
        snapshot = [replace(c) for c in request.changes]

        def attempt(store: Store) -> tuple[ResourceReply, list[tuple[str, Registered]]]:
            # A retried transaction starts again from the request as validated.
            again = replace(request, ops=[replace(c) for c in snapshot])
            return self._apply(store, again, creating, dry_run, guard, audit)

        reply, registered = self._retrying(dry_run, attempt)
        if not registered:
            return reply
        schemas = {kind: self.registrar.registered_reply(done) for kind, done in registered}
        return replace(reply, associations=tuple(replace(i, schema=schemas.get(i.association_type))
                                                 for i in reply.associations))

    def _apply(self, store: Store, request: ResourceChange, creating: bool, dry_run: bool, guard: Guard,
               audit: Audit) -> tuple[ResourceReply, list[tuple[str, Registered]]]:
        """Confluent's order of checks, then (unless a dry run) the schemas registered and the
        associations written. Returns the reply and the registrations made."""
        changes = request.changes
        for change in changes:
            if change.subject is not None:
                check_writable(store, QualifiedSubject.parse(change.subject))
        kinds = {c.association_type for c in changes}
        resource_type = request.resource_type or TOPIC
        existing = [a for a in (store.associations_of_resource(request.resource_id) if request.resource_id else [])
                    if a.resource_type == resource_type and a.association_type in kinds]
        if not existing and creating and dry_run and not request.resource_id:
            existing = _latest_first(
                a for a in store.associations_named(request.resource_name, request.resource_namespace)
                if a.resource_type == resource_type and a.association_type in kinds)
        by_type = {a.association_type: a for a in existing}
        unchanged: set[str] = set()
        for change in changes:
            if self._settle(store, request, change, by_type.get(change.association_type or ""), creating, guard):
                unchanged.add(change.association_type or "")
        self._check_uniform(store, request)
        for change in changes:
            self._check_subject(store, request, change, by_type.get(change.association_type or ""), guard)
        if dry_run:
            for change in changes:
                if change.schema is not None and change.subject is not None:
                    report = self.checks.check(change.subject, None, change.schema, change.normalize, False, guard)
                    if not report.is_compatible:
                        raise IncompatibleSchema(str(report.messages))
            return ResourceReply(request.resource_name, request.resource_namespace, request.resource_id,
                                 resource_type), []
        registered = []
        for change in changes:
            qs = QualifiedSubject.parse(change.subject or "")
            if change.schema is not None and subject_mode(store, qs) is not Mode.IMPORT:
                done = self.registrar.register_within(store, qs.qualified(), change.schema, change.normalize,
                                                      guard, audit)
                registered.append((change.association_type or "", done))
        now = now_ms()
        infos = []
        for change in changes:
            kind = change.association_type or ""
            if kind in unchanged:
                continue
            old = by_type.get(kind)
            if old is None:
                written = Association(
                    str(uuid.uuid4()), QualifiedSubject.parse(change.subject or ""), request.resource_name or "",
                    request.resource_namespace or "", request.resource_id or "", resource_type, kind,
                    change.lifecycle or WEAK, bool(change.frozen), now, now)
                action = actions.CREATE_ASSOCIATION
            else:
                written = replace(old, lifecycle=change.lifecycle or old.lifecycle,
                                  frozen=old.frozen if change.frozen is None else change.frozen, updated_ts=now)
                action = actions.UPDATE_ASSOCIATION
            store.put_association(written)
            audit.record(store, action, written.subject, detail=_detail(written))
            infos.append(AssociationInfo(written.subject_name, kind, written.lifecycle, written.frozen))
        return ResourceReply(request.resource_name, request.resource_namespace, request.resource_id, resource_type,
                             tuple(infos)), registered

    def _settle(self, store: Store, request: ResourceChange, change: AssociationChange, old: Association | None,
                creating: bool, guard: Guard) -> bool:
        """One association's checks against the stored one; True when it is already as asked
        (an idempotent retry), so nothing is written for it."""
        kind = change.association_type or ""
        if old is None and not creating:
            apply_defaults(change, False)
        default = request.default_subject(kind)
        if change.subject is None:
            if old is not None:
                change.subject = old.subject_name
            elif change.lifecycle == STRONG:
                change.subject = default
            else:
                raise InvalidAssociation.property("subject", "must be provided for WEAK associations")
        qs = QualifiedSubject.parse(change.subject)
        if len(qs.context) > CONTEXT_CHARS:  # the STRONG subject's context is the namespace
            raise InvalidAssociation.property(
                "resourceNamespace", f"exceeds max length of {CONTEXT_CHARS - 1} for the subject's context")
        guard.check(Action.WRITE, qs.qualified())
        lifecycle = change.lifecycle or (old.lifecycle if old is not None else None)
        if lifecycle is None:
            raise InvalidAssociation.property("lifecycle", "lifecycle must be set")
        if lifecycle == WEAK:
            if change.schema is not None:
                raise InvalidAssociation.property("lifecycle", "cannot be WEAK when schema is provided")
            if change.subject == default:
                raise InvalidAssociation.property("subject", f"WEAK associations cannot use subject '{default}'")
        frozen = old.frozen if old is not None else bool(change.frozen)
        requested = frozen if change.frozen is None else change.frozen
        if requested != (lifecycle == STRONG):
            raise InvalidAssociation.property(
                "frozen", f"association with lifecycle of {lifecycle} cannot be frozen={_java(requested)}")
        if frozen and change.subject != default:
            raise InvalidAssociation.property("subject", f"frozen associations must use subject '{default}'")
        if old is None:
            importing = subject_mode(store, qs) is Mode.IMPORT
            if not creating and lifecycle == STRONG and not importing:
                raise InvalidAssociation.property(
                    "lifecycle", "cannot be STRONG when creating an association; "
                    "STRONG associations must be created with the topic")
            if change.frozen and not importing:
                if creating and change.schema is None:
                    raise InvalidAssociation.property(
                        "schema", "schema must be provided when creating a frozen association")
                row = store.subject(qs.context, qs.name)
                live = store.live_versions(row.id) if row is not None else []
                if live and (change.schema is None or live[-1].version != 1 or not self._holds(qs, change, guard)):
                    raise InvalidAssociation.property(
                        "frozen", "cannot create a frozen association when schemas already exist in the subject")
            return False
        if _equivalent(old, change):
            if creating and change.schema is not None and not self._holds(qs, change, guard):
                raise AssociationForResourceExists.of_type(kind, old.resource_name)
            return True
        if creating:
            raise AssociationForResourceExists.of_type(kind, old.resource_name)
        if change.lifecycle is None and change.schema is None:
            raise InvalidAssociation.property("lifecycle", "at least lifecycle or schema must be provided for update")
        if change.subject != old.subject_name:
            raise InvalidAssociation.property(
                "subject", f"subject of association cannot be changed from '{old.subject_name}' to '{change.subject}'")
        if old.lifecycle == STRONG and change.lifecycle == WEAK and old.subject_name == default:
            raise InvalidAssociation.property(
                "lifecycle", f"cannot change to WEAK when subject matches default format '{default}'")
        if change.frozen is not None and change.frozen != old.frozen:
            raise InvalidAssociation.property("frozen", "frozen attribute of association cannot be changed")
        if old.frozen:
            raise AssociationFrozen.of_type(kind, old.subject_name)
        return False

    def _holds(self, qs: QualifiedSubject, change: AssociationChange, guard: Guard) -> bool:
        """Whether the subject already holds the change's schema (a retried STRONG create)."""
        if change.schema is None:
            return False
        try:
            found = self.lookups.lookup(qs.qualified(), change.schema, change.normalize, False, None, guard)
        except (SubjectNotFound, SchemaNotFound):
            return False
        return found.subject == qs.qualified()

    @staticmethod
    def _check_uniform(store: Store, request: ResourceChange) -> None:
        """All associations of a resource share one lifecycle: the stored ones as the request
        leaves them."""
        resource_type = request.resource_type or TOPIC
        if request.resource_id:
            stored = store.associations_of_resource(request.resource_id)
        else:
            stored = _latest_first(store.associations_named(request.resource_name, request.resource_namespace))
        lifecycles = {a.association_type: a.lifecycle
                      for a in sorted(stored, key=lambda a: a.order) if a.resource_type == resource_type}
        for change in request.changes:
            if change.lifecycle is not None:
                lifecycles[change.association_type or ""] = change.lifecycle
        if len(set(lifecycles.values())) > 1:
            detail = ", ".join(f"{kind}={lifecycle}" for kind, lifecycle in lifecycles.items())
            raise InvalidAssociation.property(
                "lifecycle", f"all associations for a resource must have the same lifecycle, but got {detail}")

    @staticmethod
    def _check_subject(store: Store, request: ResourceChange, change: AssociationChange, old: Association | None,
                       guard: Guard) -> None:
        """What the subject's other associations and references allow."""
        subject = change.subject or ""
        qs = QualifiedSubject.parse(subject)
        importing = subject_mode(store, qs) is Mode.IMPORT
        if change.schema is not None and importing:
            raise InvalidAssociation.property(
                "schema", f"cannot be provided while subject '{subject}' is in IMPORT mode")
        row = store.subject(qs.context, qs.name)
        versions = store.versions(row.id) if row is not None else []
        if change.schema is None and not any(not v.deleted for v in versions):
            raise NoActiveSubjectVersion.for_subject(subject)
        others = [a for a in store.associations_of_subject(qs.context, qs.name)
                  if old is None or a.guid != old.guid]
        lifecycle = change.lifecycle or (old.lifecycle if old is not None else WEAK)
        if lifecycle == STRONG:
            if others:
                raise AssociationForSubjectExists.for_subject(subject)
            referenced = versions and store.referrers(qs.context, qs.name, [v.version for v in versions])
            if referenced or _referenced_in(request, qs):
                raise ReferenceExists(f"One or more references exist to the schema {subject}.")
        else:
            if change.frozen:
                raise InvalidAssociation.property("frozen", "association with lifecycle of WEAK cannot be frozen")
            if any(a.lifecycle == STRONG for a in others):
                raise StrongAssociationForSubjectExists.for_subject(subject)

    def _remove(self, store: Store, resource_id: str, filters: AssociationFilter, cascade: bool, dry_run: bool,
                guard: Guard, audit: Audit) -> list[Association]:
        found = sorted((a for a in store.associations_of_resource(resource_id) if filters.admits(a)),
                       key=lambda a: a.order)
        for association in found:
            owned = cascade and association.lifecycle == STRONG
            guard.check(Action.ADMIN if owned else Action.WRITE, association.subject_name)
            check_writable(store, association.subject)
            if not cascade and association.frozen:
                raise AssociationFrozen.of_type(association.association_type, association.subject_name)
        if dry_run:
            return found
        for association in found:
            store.remove_association(association.guid)
            audit.record(store, actions.DELETE_ASSOCIATION, association.subject,
                         detail={**_detail(association), "cascadeLifecycle": cascade})
            if (cascade and association.lifecycle == STRONG
                    and subject_mode(store, association.subject) is not Mode.IMPORT):
                _drop_subject(store, association.subject, audit)
        return found


def _referenced_in(request: ResourceChange, target: QualifiedSubject) -> bool:
    """Whether another inline schema of the same request references `target` (not registered
    yet, so storage cannot know)."""
    for change in request.changes:
        if change.schema is None or change.subject is None:
            continue
        referrer = QualifiedSubject.parse(change.subject)
        for ref in change.schema.references:
            name = ref.get("subject")
            if isinstance(name, str) and reference_target(referrer, name) == target:
                return True
    return False


def _drop_subject(store: Store, qs: QualifiedSubject, audit: Audit) -> None:
    """A STRONG association's subject, deleted soft and then hard with it (its own audit row)."""
    row = store.subject(qs.context, qs.name)
    versions = store.versions(row.id) if row is not None else []
    if row is None or not versions:
        return
    store.lock_subject(qs.context, qs.name)
    referrers = [r for r in store.referrers(qs.context, qs.name, [v.version for v in versions])
                 if r.subject_id != row.id]
    if referrers:
        raise ReferenceExists.for_version(qs.qualified(), min(r.ref_version for r in referrers))
    numbers = [v.version for v in versions]
    store.hard_delete(row.id, numbers, [v.schema_pk for v in versions])
    store.clear_subject(row.id)
    audit.record(store, actions.DELETE_SUBJECT, qs, detail={"permanent": True, "versions": numbers,
                                                             "cascadeLifecycle": True})


def _detail(association: Association) -> dict[str, Any]:
    return {
        "resourceName": association.resource_name, "resourceNamespace": association.resource_namespace,
        "resourceId": association.resource_id, "resourceType": association.resource_type,
        "associationType": association.association_type, "lifecycle": association.lifecycle,
        "frozen": association.frozen,
    }
