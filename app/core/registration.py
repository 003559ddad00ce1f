"""Registration, lookup and compatibility checks: the flows that take a schema from a request.

Registration follows the reference's order of steps (spec §5.2) inside one transaction that
holds the subject's row lock, so version numbers and ids are race-free across a fleet. A
request derived from the subject's own versions (the tags endpoint) is built inside that same
transaction by a `Prepare` callback, so it cannot be based on a version list that a concurrent
registration has since changed.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from app.core import compatibility
from app.core.config import effective_config, effective_mode, rows_needed
from app.core.errors import (
    IncompatibleSchema,
    InvalidSchema,
    OperationNotPermitted,
    SchemaNotFound,
    StoreError,
    SubjectNotFound,
    VersionNotFound,
)
from app.core.identity import guid_from_hash, identity_hash
from app.core.metadata import (
    has_version_property,
    merge_metadata,
    merge_rule_sets,
    normalize_metadata,
    normalize_rule_set,
    stamp_version,
)
from app.core.records import CompatibilityReport, StoredSchema, SubjectVersion
from app.core.resolver import Candidate, SchemaResolver, request_references
from app.core.subjects import (
    live_version,
    parse_version,
    resolve_alias,
    subject_version,
    validate_subject,
)
from app.core.types import (
    DEFAULT_CONTEXT,
    CompatibilityLevel,
    Mode,
    QualifiedSubject,
    SchemaReference,
    SchemaRequest,
)
from app.settings import Settings
from app.storage.repository import (
    Repository,
    Store,
    SubjectRow,
    VersionRow,
    WriteConflict,
)

_WRITE_ATTEMPTS = 5

Prepare = Callable[[Store, QualifiedSubject, list[VersionRow]], SchemaRequest]
"""Builds the request to register from the subject (after its alias) and all its versions,
read under the subject's lock. It may raise any `RegistryError`; nothing is written then."""


class _Documents(NamedTuple):
    """A request's metadata, rule set and references after shape validation."""

    metadata: dict[str, Any] | None
    rule_set: dict[str, Any] | None
    references: list[SchemaReference]


def _documents(request: SchemaRequest) -> _Documents:
    return _Documents(
        normalize_metadata(request.metadata),
        normalize_rule_set(request.rule_set),
        request_references(request.references),
    )


class Registrar:
    def __init__(self, repository: Repository, resolver: SchemaResolver, settings: Settings):
        self.repo = repository
        self.resolver = resolver
        self.settings = settings

    # ------------------------------------------------------------------ register
    def register(
        self,
        subject: str,
        request: SchemaRequest | None,
        normalize: bool,
        force: bool,
        fmt: str | None,
        *,
        prepare: Prepare | None = None,
    ) -> SubjectVersion:
        """Register `request`, or with `prepare` (and `request=None`) the request it builds
        under the subject's lock. With `prepare`, the name rules that only registration has
        (no global context, no bare context) are checked after it, so the caller's own
        errors about the subject (40401 for a missing base version) come first."""
        qs = QualifiedSubject.parse(subject)
        validate_subject(qs, subject, registering=prepare is None)
        for attempt in range(_WRITE_ATTEMPTS):
            try:
                with self.repo.write() as store:
                    target, row, versions = self._locked(store, qs)
                    if prepare is not None:
                        request = prepare(store, target, versions)
                        validate_subject(qs, subject, registering=True)
                    if request is None:
                        raise TypeError("register() needs a request or a prepare callback")
                    result, fresh = self._register(store, target, row, versions, request, normalize, force)
                if fresh is not None:
                    self.resolver.remember(*fresh)
                with self.repo.read() as store:
                    return subject_version(self.resolver, store, result[0], result[1], fmt)
            except WriteConflict:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise StoreError("Could not register the schema: too much concurrent contention") from None
        raise AssertionError("unreachable")

    @staticmethod
    def _locked(store: Store, qs: QualifiedSubject) -> tuple[QualifiedSubject, SubjectRow, list[VersionRow]]:
        """The subject after its alias, its row locked until the transaction ends (created if
        needed), and its versions as they stand under that lock."""
        target, _ = resolve_alias(store, qs)
        row = store.lock_subject(target.context, target.name)
        return target, row, store.versions(row.id)

    def _register(
        self,
        store: Store,
        qs: QualifiedSubject,
        subject_row: SubjectRow,
        versions: list[VersionRow],
        request: SchemaRequest,
        normalize: bool,
        force: bool,
    ) -> tuple[tuple[QualifiedSubject, VersionRow], tuple[StoredSchema, Any] | None]:
        metadata, rule_set, refs = _documents(request)
        rows = store.settings_rows(rows_needed(qs.context, qs.name))
        config = effective_config(qs.context, qs.name, rows, self.settings.compatibility_level)
        mode = effective_mode(qs.context, qs.name, rows)
        importing = mode is Mode.IMPORT
        live = [v for v in versions if not v.deleted]
        latest = self.resolver.content(store, live[-1].schema_pk) if live else None
        next_version = versions[-1].version + 1 if versions else 1

        text, schema_type = request.schema, request.schema_type
        if not text:
            if importing or latest is None:
                raise InvalidSchema("Empty schema")
            text, schema_type, refs = latest.schema, latest.schema_type, list(latest.references)
        candidate = self.resolver.candidate(
            store, qs.context, schema_type, text, refs,
            normalize=(normalize or bool(config.get("normalize"))) and not importing,
            strict=not importing and config.get("validateNewSchemas") is not False,
            live_refs=True,
        )
        if importing:
            md, rs = metadata, rule_set
        else:
            md, rs = merged_documents(metadata, rule_set, latest, config, request.version, next_version)
        digest = identity_hash(candidate.text, candidate.plain_references, md, rs)

        # Step 2: the subject already holds this schema -> answer it, no mode check.
        no_version = request.version is None or request.version <= 0
        found = self.resolver.find_match(store, live, digest, candidate, [md, metadata], rs)
        if found is not None:
            if no_version and request.id in (None, found.schema_id):
                return (qs, found), None
            if request.version == found.version and request.id == found.schema_id:
                return (qs, found), None

        # Step 3: the mode decides whether anything may be written.
        explicit_id = request.id is not None and request.id >= 0
        if mode.read_only:
            raise OperationNotPermitted.read_only(qs.qualified(), qs.context_qualifier)
        if explicit_id and not importing:
            raise OperationNotPermitted.not_import(qs.qualified(), qs.context_qualifier)
        if not explicit_id and mode is not Mode.READWRITE:
            raise OperationNotPermitted.not_read_write(qs.qualified(), qs.context_qualifier)

        store.lock_hash(digest)
        same = store.schemas_by_hash(digest, qs.context)
        reuse = next((s for s in same if not explicit_id or s[2] == request.id), None)

        if not importing and not force:
            level = CompatibilityLevel.parse(config["compatibility"])
            history = self.history(store, live, level, config, md)
            messages = compatibility.check(
                self.resolver.formats, level, candidate.parsed, history,
                validate_fields=bool(config.get("validateFields")),
                reserved_violations=self._reserved_violations(config, candidate, md, latest),
            )
            if messages:
                raise IncompatibleSchema(
                    "Schema being registered is incompatible with an earlier schema for subject "
                    f'"{qs.qualified()}", details: [{", ".join(messages)}]',
                    error_code=self.settings.incompatible_error_code,
                )

        version = next_version
        if not no_version:
            if importing:
                version = int(request.version)  # type: ignore[arg-type]
            elif request.version != next_version:
                raise InvalidSchema(
                    f"Version {request.version} is not one more than previous version {next_version - 1}"
                )
        if any(v.version == version for v in versions):
            raise OperationNotPermitted(f"Version {version} of subject {qs.qualified()} already exists")

        if explicit_id:
            holder = store.schema_pk_for_id(qs.context, int(request.id))  # type: ignore[arg-type]
            if holder is not None and (reuse is None or holder != reuse[0]):
                raise OperationNotPermitted(
                    f"Overwrite new schema with id {request.id} in context {qs.context_qualifier} is not permitted."
                )
        fresh = None
        if reuse is not None:
            pk, schema_id = reuse[0], reuse[2]
            # Step 12: older soft-deleted versions holding the same id go, unless referenced.
            stale = [
                v.version for v in versions
                if v.deleted and v.schema_pk == pk and not store.referrers(qs.context, qs.name, [v.version])
            ]
            if stale:
                store.hard_delete(subject_row.id, stale, [])
        else:
            schema_id = int(request.id) if explicit_id else store.allocate_id(qs.context)  # type: ignore[arg-type]
            pk = store.insert_schema(
                qs.context, schema_id, digest, candidate.schema_type, candidate.text, candidate.references, md, rs
            )
            if explicit_id:
                store.move_id_allocation_past(qs.context, schema_id)
            stored = StoredSchema(
                key=pk, context=qs.context, id=schema_id, guid=guid_from_hash(digest), schema_type=candidate.schema_type,
                schema=candidate.text, references=tuple(candidate.plain_references), metadata=md, rule_set=rs,
            )
            fresh = (stored, candidate.parsed)
        ts = store.insert_version(subject_row.id, version, pk)
        store.ensure_context(qs.context)
        return (qs, VersionRow(version, pk, schema_id, digest, False, ts)), fresh

    def history(
        self,
        store: Store,
        live: list[VersionRow],
        level: CompatibilityLevel,
        config: dict[str, Any],
        metadata: dict[str, Any] | None,
        *,
        single: VersionRow | None = None,
    ) -> list[compatibility.Previous]:
        """Previous versions to compare with, newest first: all live ones for a transitive
        level, the newest otherwise, restricted to the new schema's compatibility group (or
        just `single`). Which side reads which is the level's business (`compatibility.check`)."""
        if single is not None:
            chosen = [single]
        else:
            chosen = list(reversed(live))
            group = config.get("compatibilityGroup")
            if group:
                value = ((metadata or {}).get("properties") or {}).get(group)
                contents = self.resolver.contents(store, [v.schema_pk for v in chosen])
                chosen = [v for v, c in zip(chosen, contents) if _property(c.metadata, group) == value]
            if not level.transitive:
                chosen = chosen[:1]
        return [
            compatibility.Previous(v.version, stored.schema_type, stored.schema, self.resolver.parsed(store, stored))
            for v, stored in zip(chosen, self.resolver.contents(store, [v.schema_pk for v in chosen]))
        ]

    def _reserved_violations(
        self, config: dict[str, Any], candidate: Candidate, metadata: dict[str, Any] | None,
        previous: StoredSchema | None,
    ) -> list[str]:
        """`validateFields=true` only: the reserved-field rules against `previous`, the newest
        live version (or the one version a check targets)."""
        if not config.get("validateFields"):
            return []
        return compatibility.reserved_field_violations(
            self.resolver.format(candidate.schema_type), candidate.parsed, metadata,
            previous.metadata if previous is not None else None,
        )

    def _subject_config(
        self, store: Store, subject: str
    ) -> tuple[QualifiedSubject, SubjectRow | None, dict[str, Any]]:
        """The subject after its alias, its row, and the config in force for it."""
        qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
        return qs, row, self._config(store, qs)

    def _config(self, store: Store, qs: QualifiedSubject) -> dict[str, Any]:
        rows = store.settings_rows(rows_needed(qs.context, qs.name))
        return effective_config(qs.context, qs.name, rows, self.settings.compatibility_level)

    # ------------------------------------------------------------------ lookup
    def lookup(
        self, subject: str, request: SchemaRequest, normalize: bool, deleted: bool, fmt: str | None
    ) -> SubjectVersion:
        """§5.12 matching under the subject; for a subject of the default context that has no
        match, the same name in the other contexts (§5.11), in context order. An invalid
        schema is reported first (42201); 40401 and 40403 are about the subject as named.
        A missing or blank schema matches nothing, as in Confluent (40401 or 40403, no 42201)."""
        if not (request.schema or "").strip():
            with self.repo.read() as store:
                qs, row, _ = self._subject_config(store, subject)
                versions = store.versions(row.id) if row else []
            if any(deleted or not v.deleted for v in versions):
                raise SchemaNotFound.generic()
            raise SubjectNotFound.for_subject(qs.qualified())
        metadata, rule_set, refs = _documents(request)
        with self.repo.read() as store:
            qs, row, config = self._subject_config(store, subject)
            normalize = normalize or bool(config.get("normalize"))
            candidate = self.resolver.candidate(
                store, qs.context, request.schema_type, request.schema, refs,
                normalize=normalize, strict=False, live_refs=False,
            )
            found, in_scope = self._match(store, row, config, candidate, metadata, rule_set, deleted)
            if found is not None:
                return subject_version(self.resolver, store, qs, found, fmt)
            if qs.context == DEFAULT_CONTEXT:
                for other in store.subjects_named(qs.name):
                    other_qs = QualifiedSubject(other.context, other.name)
                    try:
                        other_candidate = candidate if not refs else self.resolver.candidate(
                            store, other.context, request.schema_type, request.schema, refs,
                            normalize=normalize, strict=False, live_refs=False,
                        )
                    except InvalidSchema:
                        continue  # its references do not resolve in that context
                    other_config = self._config(store, other_qs)
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
        scope. A miss is retried with metadata and rule set merged as registration would."""
        versions = store.versions(row.id) if row else []
        in_scope = [v for v in versions if deleted or not v.deleted]
        if not in_scope:
            return None, False
        digest = identity_hash(candidate.text, candidate.plain_references, metadata, rule_set)
        found = self.resolver.find_match(store, in_scope, digest, candidate, [metadata], rule_set)
        live = [v for v in versions if not v.deleted]
        if found is None and live:
            latest = self.resolver.content(store, live[-1].schema_pk)
            md, rs = merged_documents(metadata, rule_set, latest, config, None, None)
            digest = identity_hash(candidate.text, candidate.plain_references, md, rs)
            found = self.resolver.find_match(store, in_scope, digest, candidate, [md], rs)
        return found, True

    # ------------------------------------------------------------------ compatibility
    def check(
        self, subject: str, version: str | None, request: SchemaRequest, normalize: bool, verbose: bool
    ) -> CompatibilityReport:
        """`version=None` runs registration's check against the live history (POST .../versions);
        otherwise the check is against that one live version. The request's schema is the new
        one: reader of the old versions for BACKWARD, writer for FORWARD (`compatibility.check`).
        The schema is parsed (and an invalid one reported) even when there is nothing to compare with."""
        number = parse_version(version) if version is not None else None
        metadata, rule_set, refs = _documents(request)
        with self.repo.read() as store:
            qs, row, config = self._subject_config(store, subject)
            versions = store.versions(row.id) if row else []
            live = [v for v in versions if not v.deleted]
            target = live_version(versions, number) if version is not None else None
            if number is not None and target is None:
                raise VersionNotFound.for_version(number)
            try:
                candidate = self.resolver.candidate(
                    store, qs.context, request.schema_type, request.schema, refs,
                    normalize=normalize or bool(config.get("normalize")), strict=True, live_refs=True,
                )
            except InvalidSchema as exc:
                if verbose:
                    return CompatibilityReport(False, [exc.message])
                raise
            latest = self.resolver.content(store, live[-1].schema_pk) if live else None
            md, _ = merged_documents(metadata, rule_set, latest, config, None, None)
            level = CompatibilityLevel.parse(config["compatibility"])
            if version is None:
                history, previous = self.history(store, live, level, config, md), latest
            elif target is not None:
                history = self.history(store, live, level, config, md, single=target)
                previous = self.resolver.content(store, target.schema_pk)
            else:  # `latest` of a subject without live versions: nothing to compare with
                history, previous = [], None
            messages = compatibility.check(
                self.resolver.formats, level, candidate.parsed, history,
                validate_fields=bool(config.get("validateFields")), single_target=target is not None,
                reserved_violations=self._reserved_violations(config, candidate, md, previous),
            )
        return CompatibilityReport(not messages, messages)


def merged_documents(
    metadata: dict[str, Any] | None,
    rule_set: dict[str, Any] | None,
    latest: StoredSchema | None,
    config: dict[str, Any],
    requested_version: int | None,
    new_version: int | None,
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """§5.9: default ⊕ (request's, else the latest live version's) ⊕ override, later terms
    winning; then `confluent:version` is stamped when asked for or already present."""
    specific_md = metadata if metadata is not None else (latest.metadata if latest else None)
    specific_rs = rule_set if rule_set is not None else (latest.rule_set if latest else None)
    md = merge_metadata(merge_metadata(normalize_metadata(config.get("defaultMetadata")), specific_md),
                        normalize_metadata(config.get("overrideMetadata")))
    rs = merge_rule_sets(merge_rule_sets(normalize_rule_set(config.get("defaultRuleSet")), specific_rs),
                         normalize_rule_set(config.get("overrideRuleSet")))
    if new_version is not None and (
        (requested_version is not None and requested_version != 0) or has_version_property(md)
    ):
        md = stamp_version(md, new_version)
    return md, rs


def _property(metadata: dict[str, Any] | None, key: str) -> str | None:
    return ((metadata or {}).get("properties") or {}).get(key)
