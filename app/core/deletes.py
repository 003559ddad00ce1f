"""Soft and hard deletes of versions, subjects and contexts, each one
transaction that also writes its audit row. The checks run in the reference's order, so a
request that breaks several rules gets the error Confluent's registry would give first."""
from __future__ import annotations

from dataclasses import dataclass

from app.core.access import Action, Guard
from app.core.associations.guards import check_subject_deletable, check_version_deletable
from app.core.audit import DELETE_CONTEXT, DELETE_SUBJECT, DELETE_VERSION, Audit
from app.core.errors import (
    ContextNotEmpty,
    ReferenceExists,
    SchemaVersionNotSoftDeleted,
    SchemaVersionSoftDeleted,
    SubjectNotFound,
    SubjectNotSoftDeleted,
    SubjectSoftDeleted,
    VersionNotFound,
)
from app.core.store.protocol import Storage
from app.core.subjects import check_writable, parse_version, resolve_alias
from app.core.types import QualifiedSubject


@dataclass(frozen=True)
class Deleted:
    """What a delete removed: the subject after its alias, and the version numbers."""

    qs: QualifiedSubject
    versions: tuple[int, ...]


def delete_action(permanent: bool) -> Action:
    """A permanent delete cannot be undone: an administrator's call."""
    return Action.ADMIN if permanent else Action.DELETE


class Deleter:
    def __init__(self, storage: Storage):
        self.storage = storage

    def delete_subject(self, subject: str, permanent: bool, guard: Guard, audit: Audit) -> Deleted:
        """Checks in the reference's order: 40401, 40404, 42205, 42206, 40405."""
        with self.storage.write() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
            guard.check(delete_action(permanent), qs.qualified())
            versions = store.versions(row.id) if row else []
            if row is None or not versions:
                raise SubjectNotFound.for_subject(qs.qualified())
            store.lock_subject(qs.context, qs.name)
            live = [v.version for v in versions if not v.deleted]
            if not live and not permanent:
                raise SubjectSoftDeleted.for_subject(qs.qualified())
            check_writable(store, qs)
            check_subject_deletable(store, qs)
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
                deleted = live
            else:
                deleted = [v.version for v in versions]
                store.hard_delete(row.id, deleted, [v.schema_pk for v in versions])
                store.clear_subject(row.id)
            audit.record(store, DELETE_SUBJECT, qs, detail={"permanent": permanent, "versions": deleted})
        return Deleted(qs, tuple(deleted))

    def delete_version(self, subject: str, version: str, permanent: bool, guard: Guard, audit: Audit) -> Deleted:
        """Checks in the reference's order: 42202, 40406, 40401/40402, 42205, 42206, 40407."""
        number = parse_version(version)
        with self.storage.write() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
            guard.check(delete_action(permanent), qs.qualified())
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
            check_version_deletable(store, qs, versions, target, permanent)
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
            audit.record(
                store, DELETE_VERSION, qs, version=target.version, schema_id=target.schema_id,
                detail={"permanent": permanent},
            )
        return Deleted(qs, (target.version,))

    def delete_context(self, context: str, guard: Guard, audit: Audit) -> str:
        """The context's settings scope (`:.ctx:`), once it is gone; refused (42211) while
        any subject still lives in it."""
        name = QualifiedSubject.parse(context if context.startswith(":") else f":{context}:").context
        scope = QualifiedSubject(name, "").qualified()
        guard.check(Action.DELETE, scope)
        with self.storage.write() as store:
            if store.context_in_use(name):
                raise ContextNotEmpty.for_context(name)
            store.delete_context(name)
            audit.record(store, DELETE_CONTEXT, QualifiedSubject(name, ""))
        return scope
