"""Lookup (`POST /subjects/{s}`): which version of a subject holds a schema, if any.

Matching reads only the versions holding the candidate's exact text (equal identity implies
equal text), so a lookup costs the same in a subject of 2 versions or 2,000; only when none
does, a format that spells one schema in several ways (`SchemaEquality`) has the subject's
newest versions compared, as Confluent's lookup compares parsed schemas. Registration's
pre-check answers the same question its own way, under its own rules (app/core/registration/registrar.py).
"""
from __future__ import annotations

from typing import Any, NamedTuple

from app.core.access import OPEN, Guard
from app.core.compatibility.checks import CompatibilityChecks
from app.core.documents import merged_documents, request_documents
from app.core.errors import InvalidSchema, SchemaNotFound, SubjectNotFound
from app.core.registration.identity import identity_hash
from app.core.records import SubjectVersion
from app.core.resolver import Candidate, SchemaResolver, format_refusals
from app.core.store.protocol import Storage, Store
from app.core.store.rows import SubjectRow, VersionRow
from app.core.subjects import subject_version
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject, SchemaRequest
from app.formats import work_budget
from app.formats.base import SchemaEquality, supports


# How many of a subject's newest versions a lookup compares when no version holds its text,
# and how many it reads at a time: a lookup's cost stays bounded in a subject of any length.
SPELLING_SCAN_LIMIT = 1000
SPELLING_SCAN_BATCH = 50


class Documents(NamedTuple):
    """Metadata and rule set a stored version must have to match a lookup."""

    metadata: dict[str, Any] | None
    rule_set: dict[str, Any] | None


class Lookup:
    def __init__(self, storage: Storage, resolver: SchemaResolver, checks: CompatibilityChecks):
        self.storage = storage
        self.resolver = resolver
        self.checks = checks

    def lookup(
        self, subject: str, request: SchemaRequest, normalize: bool, deleted: bool, fmt: str | None,
        guard: Guard = OPEN,
    ) -> SubjectVersion:
        """Confluent's matching under the subject; for a subject of the default context that has no
        match, the same name in the other contexts, in context order. An invalid
        schema is reported first (42201); 40401 and 40403 are about the subject as named.
        A missing or blank schema matches nothing, as in Confluent (40401 or 40403, no 42201)."""
        if not (request.schema or "").strip():
            with self.storage.read() as store:
                qs, row, _ = self.checks.subject_config(store, subject, guard)
                versions = store.versions(row.id) if row else []
            if any(deleted or not v.deleted for v in versions):
                raise SchemaNotFound.generic()
            raise SubjectNotFound.for_subject(qs.qualified())
        metadata, rule_set, refs = request_documents(request)
        with self.storage.read() as store:
            qs, row, config = self.checks.subject_config(store, subject, guard)
            normalize = normalize or bool(config.get("normalize"))
            candidate = self.resolver.candidate(
                store, qs.context, request.schema_type, request.required_text(), refs,
                normalize=normalize, strict=False, live_refs=False, guard=guard,
            )
            self.resolver.check_request(candidate)
            found, in_scope = self._match(store, row, config, candidate, metadata, rule_set, deleted)
            if found is not None:
                return subject_version(self.resolver, store, qs, found, fmt)
            if qs.context == DEFAULT_CONTEXT:
                for other in store.subjects_named(qs.name):
                    other_qs = QualifiedSubject(other.context, other.name)
                    if not guard.readable(other_qs.qualified()):
                        continue
                    try:
                        other_candidate = candidate if not refs else self.resolver.candidate(
                            store, other.context, request.schema_type, request.schema, refs,
                            normalize=normalize, strict=False, live_refs=False, guard=guard,
                        )
                    except InvalidSchema:
                        continue  # its references do not resolve in that context
                    other_config = self.checks.config(store, other_qs)
                    match, _ = self._match(store, other, other_config, other_candidate, metadata, rule_set, deleted)
                    if match is not None:
                        return subject_version(self.resolver, store, other_qs, match, fmt)
            if not in_scope:
                raise SubjectNotFound.for_subject(qs.qualified())
            raise SchemaNotFound.generic()

    def _match(
        self,
        store: Store,
        row: SubjectRow | None,
        config: dict[str, Any],
        candidate: Candidate,
        metadata: dict[str, Any] | None,
        rule_set: dict[str, Any] | None,
        deleted: bool,
    ) -> tuple[VersionRow | None, bool]:
        """The subject's version matching the request, and whether it had any version in
        scope. A miss is retried with metadata and rule set merged as registration would.
        Only the versions holding this text are read, however long the subject is."""
        head = store.subject_head(row.id) if row else None
        if head is None or not (head.latest_live or (deleted and head.last_version)):
            return None, False
        matching = [
            v for v in store.versions_with_text(row.id, candidate.text)  # type: ignore[union-attr]
            if deleted or not v.deleted
        ]
        digest = identity_hash(candidate.text, candidate.plain_references, metadata, rule_set)
        found = self.resolver.find_match(store, matching, digest, candidate, [metadata], rule_set)
        documents = [Documents(metadata, rule_set)]
        if found is None and head.latest_live is not None:
            latest = self.resolver.content(store, head.latest_live.schema_pk)
            md, rs = merged_documents(metadata, rule_set, latest, config, None, None)
            digest = identity_hash(candidate.text, candidate.plain_references, md, rs)
            found = self.resolver.find_match(store, matching, digest, candidate, [md], rs)
            documents.append(Documents(md, rs))
        if found is None:
            found = self._spelled_otherwise(store, row, candidate, documents, deleted)  # type: ignore[arg-type]
        return found, True

    def _spelled_otherwise(
        self, store: Store, row: SubjectRow, candidate: Candidate, documents: list[Documents], deleted: bool,
    ) -> VersionRow | None:
        """When no version holds the text, Confluent's lookup compares parsed schemas: a version
        holding the schema spelled otherwise (JSON Schema keys in another order) matches, with
        the same documents as above, newest first. Only for a format that can tell
        (`SchemaEquality`), and over the newest `SPELLING_SCAN_LIMIT` versions, read a batch at
        a time so that a match among the recent ones reads only those."""
        fmt = self.resolver.format(candidate.schema_type)
        if not supports(fmt, SchemaEquality):
            return None
        newest_first = [v for v in reversed(store.versions(row.id)) if deleted or not v.deleted]
        newest_first = newest_first[:SPELLING_SCAN_LIMIT]
        for start in range(0, len(newest_first), SPELLING_SCAN_BATCH):
            batch = newest_first[start:start + SPELLING_SCAN_BATCH]
            for version, stored in zip(batch, self.resolver.contents(store, [v.schema_pk for v in batch])):
                with format_refusals():
                    work_budget.check()
                    same = stored.schema_type == candidate.schema_type and fmt.same_schema(
                        candidate.parsed, stored.schema)
                if same and any(self.resolver.same_documents(stored, candidate, d.metadata, d.rule_set)
                                for d in documents):
                    return version
        return None
