"""An in-memory `Storage` for the core's tests: the core's storage protocol
(`app.core.store.protocol`) implemented with dicts, so the registry's rules can be exercised with no
database at all, and so the protocol is shown to be all the core needs.

Writes run under one lock on a copy of the state that replaces the state on commit (an
exception leaves the state as it was). It is a test double of the SQL store's behaviour,
not a second production backend: ordering and "nothing for unstorable names" follow
`app/storage`.
"""
from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from app.core.associations.records import Association
from app.core.records import DEFAULT_CONTEXT, StoredSchema
from app.core.store.audit import AuditEntry, AuditQuery, AuditRow
from app.core.store.protocol import add_version_stepwise
from app.core.store.rows import (
    AddedVersion,
    HintedHolders,
    HolderRow,
    LockedSubject,
    NewSchema,
    NewVersion,
    ReferrerRow,
    SchemaKeyRow,
    ScopedVersion,
    SettingsRead,
    SubjectHead,
    SubjectName,
    SubjectRow,
    SubjectSummary,
    SubjectVersionRow,
    VersionRow,
)


@dataclass
class _State:
    subjects: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> context, name, config, mode
    versions: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)  # (subject, version) -> row
    schemas: dict[int, StoredSchema] = field(default_factory=dict)  # pk -> content
    references: list[tuple[int, str, str, int]] = field(default_factory=list)  # schema pk, ctx, subject, version
    contexts: set[str] = field(default_factory=set)
    counters: dict[str, int] = field(default_factory=dict)
    next_key: int = 1
    audit: list[AuditRow] = field(default_factory=list)
    policies: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (context, name) -> document
    associations: dict[str, Association] = field(default_factory=dict)  # guid -> association


def _storable(*texts: str | None) -> bool:
    return not any(t and "\x00" in t for t in texts)


class MemoryStore:
    def __init__(self, state: _State):
        self.s = state

    # ------------------------------------------------------------ subjects
    def _row(self, subject_id: int) -> SubjectRow:
        r = self.s.subjects[subject_id]
        return SubjectRow(subject_id, r["context"], r["name"], copy.deepcopy(r["config"]), r["mode"])

    def _find(self, context: str, name: str) -> int | None:
        return next((i for i, r in self.s.subjects.items() if (r["context"], r["name"]) == (context, name)), None)

    def subject(self, context: str, name: str) -> SubjectRow | None:
        found = self._find(context, name) if _storable(context, name) else None
        return self._row(found) if found is not None else None

    def settings_rows(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SubjectRow]:
        rows = {key: self.subject(*key) for key in set(keys)}
        return {key: row for key, row in rows.items() if row is not None}

    def lock_subject(
        self, context: str, name: str, *, expected: bool = False, identity: str | None = None
    ) -> LockedSubject:
        found = self._find(context, name)
        if found is not None:
            return LockedSubject(self._row(found), False)
        new_id = self.s.next_key
        self.s.next_key += 1
        self.s.subjects[new_id] = {"context": context, "name": name, "config": None, "mode": None}
        return LockedSubject(self._row(new_id), True)

    def set_subject_settings(self, context: str, name: str, **values: Any) -> None:
        row = self.lock_subject(context, name).row
        self.s.subjects[row.id].update(copy.deepcopy(values))

    def drop_subject_if_unused(self, subject_id: int) -> None:
        r = self.s.subjects.get(subject_id)
        if r and r["config"] is None and r["mode"] is None and not self.versions(subject_id):
            del self.s.subjects[subject_id]

    def clear_subject(self, subject_id: int) -> None:
        self.s.subjects.pop(subject_id, None)
        for key in [k for k in self.s.versions if k[0] == subject_id]:
            del self.s.versions[key]

    def subject_modes(self, context: str | None) -> list[SubjectRow]:
        return [self._row(i) for i, r in self.s.subjects.items()
                if r["mode"] is not None and r["name"] and (context is None or r["context"] == context)]

    def subjects_named(self, name: str) -> list[SubjectRow]:
        rows = [self._row(i) for i, r in self.s.subjects.items() if r["name"] == name and r["context"] != DEFAULT_CONTEXT]
        return sorted(rows, key=lambda r: r.context)

    def _in_scope(self, r: dict[str, Any], context: str | None, prefix: str) -> bool:
        return bool(r["name"]) and (context is None or r["context"] == context) and r["name"].startswith(prefix)

    def configured_subjects(self, context: str | None, prefix: str) -> list[SubjectRow]:
        return [self._row(i) for i, r in self.s.subjects.items()
                if self._in_scope(r, context, prefix) and r["config"] is not None]

    def subject_summaries(self, context: str | None, prefix: str) -> list[SubjectSummary]:
        out = []
        for i, r in self.s.subjects.items():
            versions = self.versions(i)
            if self._in_scope(r, context, prefix) and versions:
                out.append(SubjectSummary(r["context"], r["name"], sum(not v.deleted for v in versions), len(versions)))
        return out

    # ------------------------------------------------------------ versions
    def _version(self, subject_id: int, number: int) -> VersionRow:
        v = self.s.versions[(subject_id, number)]
        schema = self.s.schemas[v["schema_pk"]]
        return VersionRow(number, v["schema_pk"], schema.id, schema.hash, v["deleted"], v["created_at"])

    def versions(self, subject_id: int) -> list[VersionRow]:
        return [self._version(subject_id, n) for s, n in sorted(self.s.versions) if s == subject_id]

    def live_versions(self, subject_id: int) -> list[VersionRow]:
        return [v for v in self.versions(subject_id) if not v.deleted]

    def subject_head(self, subject_id: int) -> SubjectHead:
        versions = self.versions(subject_id)
        live = [v for v in versions if not v.deleted]
        return SubjectHead(versions[-1].version if versions else 0, live[-1] if live else None)

    def versions_with_text(self, subject_id: int, text: str) -> list[VersionRow]:
        return [v for v in self.versions(subject_id) if self.s.schemas[v.schema_pk].schema == text]

    def versions_of_schema(self, subject_id: int, schema_pk: int) -> list[VersionRow]:
        return [v for v in self.versions(subject_id) if v.schema_pk == schema_pk]

    def has_version(self, subject_id: int, version: int) -> bool:
        return (subject_id, version) in self.s.versions

    def subject_version(self, context: str, name: str, version: int | None) -> SubjectVersionRow:
        row = self.subject(context, name)
        if row is None:
            return SubjectVersionRow(None, None)
        if version is None:
            return SubjectVersionRow(row, self.subject_head(row.id).latest_live)
        found = (row.id, version) in self.s.versions
        return SubjectVersionRow(row, self._version(row.id, version) if found else None)

    def insert_version(self, subject_id: int, version: int, schema_pk: int) -> int:
        ts = int(time.time() * 1000)
        self.s.versions[(subject_id, version)] = {"schema_pk": schema_pk, "deleted": False, "created_at": ts}
        return ts

    def soft_delete(self, subject_id: int, versions: list[int]) -> None:
        for number in versions:
            self.s.versions[(subject_id, number)]["deleted"] = True

    def hard_delete(self, subject_id: int, versions: list[int], schema_pks: Iterable[int]) -> None:
        for number in versions:
            self.s.versions.pop((subject_id, number), None)
        held = {v["schema_pk"] for v in self.s.versions.values()}
        for pk in set(schema_pks) - held:
            self.s.schemas.pop(pk, None)
            self.s.references = [r for r in self.s.references if r[0] != pk]

    def versions_in_scope(self, context: str | None, name: str | None) -> list[ScopedVersion]:
        return [
            ScopedVersion(i, r["context"], r["name"], v)
            for i, r in self.s.subjects.items()
            if (context is None or r["context"] == context) and (name is None or r["name"] == name)
            for v in self.versions(i)
        ]

    # ------------------------------------------------------------ schemas
    def _holders(self, keep: Any) -> list[HolderRow]:
        rows = []
        for (subject_id, number), v in self.s.versions.items():
            r, schema = self.s.subjects[subject_id], self.s.schemas[v["schema_pk"]]
            if keep(r, schema, v):
                rows.append(HolderRow(r["context"], r["name"], number, v["deleted"], v["created_at"],
                                      v["schema_pk"], schema.id))
        return sorted(rows, key=lambda h: (h.context, h.subject, h.version))

    def holders_of_id(self, schema_id: int, context: str | None = None) -> list[HolderRow]:
        return self._holders(lambda r, s, v: s.id == schema_id and (context is None or s.context == context))

    def holders_with_hint(self, schema_id: int, context: str, name: str) -> HintedHolders:
        holders = self.holders_of_id(schema_id)
        hinted = self.subject(context, name)
        return HintedHolders(holders, hinted.config if holders and hinted else None)

    def all_holders(self, context: str | None, prefix: str, include_deleted: bool) -> list[HolderRow]:
        return self._holders(lambda r, s, v: self._in_scope(r, context, prefix) and (include_deleted or not v["deleted"]))

    def holders_of_subjects(self, subjects: Sequence[tuple[str, str]], include_deleted: bool) -> list[HolderRow]:
        wanted = set(subjects)
        return self._holders(lambda r, s, v: (r["context"], r["name"]) in wanted and (include_deleted or not v["deleted"]))

    def schemas_by_hash(self, digest: str, context: str | None = None) -> list[SchemaKeyRow]:
        rows = [SchemaKeyRow(pk, s.context, s.id) for pk, s in self.s.schemas.items()
                if s.hash == digest and (context is None or s.context == context)]
        return sorted(rows, key=lambda r: (r.context, r.id))

    def schema_pk_for_id(self, context: str, schema_id: int) -> int | None:
        return next((pk for pk, s in self.s.schemas.items() if (s.context, s.id) == (context, schema_id)), None)

    def max_id(self, context: str) -> int | None:
        """The highest id ever issued, as the SQL store reports it (hard deletes do not lower it)."""
        stored = max((s.id for s in self.s.schemas.values() if s.context == context), default=None)
        issued = self.s.counters.get(context, 0)
        return None if stored is None and not issued else max(stored or 0, issued)

    def load_schemas(self, pks: Iterable[int]) -> dict[int, StoredSchema]:
        return {pk: self.s.schemas[pk] for pk in pks if pk in self.s.schemas}

    def lock_hash(self, digest: str) -> None:
        """Writers are serialized already (one lock for the whole store)."""

    def move_id_allocation_past(self, context: str, schema_id: int) -> None:
        self.s.counters[context] = max(self.s.counters.get(context, 0), schema_id)

    def insert_schema(self, schema: NewSchema) -> SchemaKeyRow:
        schema_id = schema.id
        if schema_id is None:
            schema_id = self.s.counters[schema.context] = self.s.counters.get(schema.context, 0) + 1
        pk = self.s.next_key
        self.s.next_key += 1
        self.s.schemas[pk] = StoredSchema(
            key=pk, context=schema.context, id=schema_id, hash=schema.hash, schema_type=schema.schema_type,
            schema=schema.text, references=tuple(r.reference for r in schema.references),
            metadata=copy.deepcopy(schema.metadata), rule_set=copy.deepcopy(schema.rule_set),
        )
        self.s.references += [(pk, r.context, r.subject, r.reference.version) for r in schema.references]
        return SchemaKeyRow(pk, schema.context, schema_id)

    def add_version(self, new: NewVersion) -> AddedVersion:
        return add_version_stepwise(self, new)

    def referrers(self, context: str, subject: str, versions: Iterable[int]) -> list[ReferrerRow]:
        wanted = set(versions)
        rows = [
            ReferrerRow(self.s.schemas[pk].context, self.s.schemas[pk].id, sid, v["deleted"], ref_version)
            for pk, ref_context, ref_subject, ref_version in self.s.references
            if (ref_context, ref_subject) == (context, subject) and ref_version in wanted
            for (sid, _), v in self.s.versions.items() if v["schema_pk"] == pk
        ]
        return sorted(rows, key=lambda r: (r.schema_context, r.schema_id))

    def referring_subjects(self, context: str, subject: str) -> list[SubjectName]:
        found = {
            SubjectName(self.s.subjects[sid]["context"], self.s.subjects[sid]["name"])
            for pk, ref_context, ref_subject, _ in self.s.references if (ref_context, ref_subject) == (context, subject)
            for (sid, _), v in self.s.versions.items() if v["schema_pk"] == pk and not v["deleted"]
        }
        return sorted(found)

    # ------------------------------------------------------------ contexts
    def contexts(self) -> list[str]:
        return sorted(self.s.contexts)

    def ensure_context(self, context: str) -> None:
        self.s.contexts.add(context)

    def context_in_use(self, context: str) -> bool:
        return any(self.s.subjects[sid]["context"] == context for sid, _ in self.s.versions)

    def delete_context(self, context: str) -> None:
        self.s.contexts.discard(context)

    # ------------------------------------------------------------ policy documents
    def policy_documents(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        return {key: copy.deepcopy(self.s.policies[key]) for key in keys if key in self.s.policies}

    def settings_and_policies(
        self, keys: Iterable[tuple[str, str]], policy_keys: Iterable[tuple[str, str]]
    ) -> SettingsRead:
        return SettingsRead(self.settings_rows(keys), self.policy_documents(policy_keys))

    def set_policy_document(self, context: str, name: str, document: dict[str, Any] | None) -> None:
        if document is None:
            self.s.policies.pop((context, name), None)
        else:
            self.s.policies[(context, name)] = copy.deepcopy(document)

    def policy_selections(self) -> list[tuple[str, str, dict[str, Any]]]:
        return [(c, n, copy.deepcopy(d)) for (c, n), d in sorted(self.s.policies.items()) if c != ""]

    # ------------------------------------------------------------ associations
    def associations_of_resource(self, resource_id: str) -> list[Association]:
        return [a for a in self.s.associations.values() if a.resource_id == resource_id]

    def associations_named(self, resource_name: str | None, resource_namespace: str | None) -> list[Association]:
        return [a for a in self.s.associations.values()
                if resource_name in (None, a.resource_name) and resource_namespace in (None, a.resource_namespace)]

    def associations_of_subject(self, context: str, name: str) -> list[Association]:
        return [a for a in self.s.associations.values() if (a.subject.context, a.subject.name) == (context, name)]

    def put_association(self, association: Association) -> None:
        self.s.associations[association.guid] = association

    def remove_association(self, guid: str) -> None:
        self.s.associations.pop(guid, None)

    # ------------------------------------------------------------ audit trail
    def insert_audit(self, entry: AuditEntry) -> None:
        self.s.audit.append(AuditRow(len(self.s.audit) + 1, int(time.time() * 1000), entry))


class MemoryStorage:
    """`app.core.store.Storage` over `MemoryStore`; the change token counts commits."""

    def __init__(self) -> None:
        self._state = _State()
        self._lock = threading.RLock()
        self._commits = 0

    def change_token(self) -> int:
        return self._commits

    @contextmanager
    def read(self) -> Iterator[MemoryStore]:
        with self._lock:
            yield MemoryStore(self._state)

    @contextmanager
    def write(self) -> Iterator[MemoryStore]:
        with self._lock:
            draft = copy.deepcopy(self._state)
            yield MemoryStore(draft)
            self._state = draft
            self._commits += 1

    def close(self) -> None:
        """Nothing to release."""

    def append_audit(self, entry: AuditEntry) -> None:
        with self._lock:
            MemoryStore(self._state).insert_audit(entry)

    def audit_events(self, query: AuditQuery) -> list[AuditRow]:
        def keep(row: AuditRow) -> bool:
            e = row.entry
            return all(want is None or have == want for have, want in (
                (e.subject, query.subject), (e.principal, query.principal), (e.action, query.action),
                (e.outcome, query.outcome),
            )) and (query.since is None or row.ts >= query.since) and (
                query.until is None or row.ts <= query.until)

        with self._lock:
            rows = sorted((r for r in self._state.audit if keep(r)), key=lambda r: (r.ts, r.id), reverse=True)
        return rows[query.offset:query.offset + query.limit]

    def prune_audit(self, before_ms: int, most: int | None = None) -> int:
        with self._lock:
            old = sorted((r for r in self._state.audit if r.ts < before_ms), key=lambda r: (r.ts, r.id))
            gone = {id(r) for r in old[:most]}
            kept = [r for r in self._state.audit if id(r) not in gone]
            pruned, self._state.audit = len(self._state.audit) - len(kept), kept
        return pruned
