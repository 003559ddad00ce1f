"""Compatibility checks against a subject's history: the one the registration runs, and the
`/compatibility/subjects/{s}/versions[/{v}]` endpoints, which must give the same answer.

The new schema (the request's) is the reader of the old versions under BACKWARD and their
writer under FORWARD; `app.core.compatibility.levels` applies the level, this module finds the
versions and the settings to apply it with.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from app.core.compatibility import levels as compatibility
from app.core.access import OPEN, Action, Guard
from app.core.config import effective_config, rows_needed
from app.core.documents import merged_documents, metadata_property, request_documents
from app.core.errors import InvalidSchema, VersionNotFound, WorkBudgetSpent
from app.core.records import CompatibilityReport, StoredSchema
from app.core.resolver import Candidate, SchemaResolver
from app.core.store.protocol import Storage, Store
from app.core.store.rows import SubjectRow, VersionRow
from app.core.subjects import live_version, parse_version, resolve_alias
from app.core.types import CompatibilityLevel, QualifiedSubject, SchemaRequest
from app.settings import Settings


class CompatibilityChecks:
    def __init__(self, storage: Storage, resolver: SchemaResolver, settings: Settings):
        self.storage = storage
        self.resolver = resolver
        self.settings = settings

    def history(
        self,
        store: Store,
        subject_id: int | None,
        latest: VersionRow | None,
        level: CompatibilityLevel,
        config: dict[str, Any],
        metadata: dict[str, Any] | None,
        *,
        live: list[VersionRow] | None = None,
    ) -> list[compatibility.Previous]:
        """The previous versions `compatibility.versions_to_compare` picks for this level and
        the new schema's compatibility group (`metadata` is the new schema's), newest first.
        The whole live history is read only when that choice needs it (`live`, oldest first,
        when the caller has read it already); `latest` is the subject's newest live version."""
        group = config.get("compatibilityGroup")
        if subject_id is not None and compatibility.needs_all_live_versions(level, group):
            live = list(reversed(live if live is not None else store.live_versions(subject_id)))
        else:
            live = [latest] if latest is not None else []
        in_group: Callable[[VersionRow], bool] | None = None
        if group:
            value = metadata_property(metadata, group)
            by_key = {c.key: c for c in self.resolver.contents(store, [v.schema_pk for v in live])}
            in_group = lambda v: metadata_property(by_key[v.schema_pk].metadata, group) == value  # noqa: E731
        return self.previous(store, compatibility.versions_to_compare(level, live, in_group))

    def previous(self, store: Store, versions: list[VersionRow]) -> list[compatibility.Previous]:
        """Versions as the checker takes them, parsed from the cache (one query for misses)."""
        return [
            compatibility.Previous(v.version, stored.schema_type, stored.schema, self.resolver.parsed(store, stored))
            for v, stored in zip(versions, self.resolver.contents(store, [v.schema_pk for v in versions]))
        ]

    def reserved_violations(
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

    def config(self, store: Store, qs: QualifiedSubject) -> dict[str, Any]:
        rows = store.settings_rows(rows_needed(qs.context, qs.name))
        return effective_config(qs.context, qs.name, rows, self.settings.compatibility_level)

    def subject_config(
        self, store: Store, subject: str, guard: Guard
    ) -> tuple[QualifiedSubject, SubjectRow | None, dict[str, Any]]:
        """The subject after its alias (the caller must be allowed to read it), its row, and
        the config in force for it."""
        qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
        guard.check(Action.READ, qs.qualified())
        return qs, row, self.config(store, qs)

    def check(
        self, subject: str, version: str | None, request: SchemaRequest, normalize: bool, verbose: bool,
        guard: Guard = OPEN,
    ) -> CompatibilityReport:
        """`version=None` runs registration's check against the live history (POST .../versions);
        otherwise the check is against that one live version. The schema is parsed (and an
        invalid one reported) even when there is nothing to compare with."""
        try:
            evaluation = self.evaluate(subject, version, request, normalize, guard)
        except InvalidSchema as exc:
            if verbose and not isinstance(exc, WorkBudgetSpent):  # a spent budget is no verdict
                return CompatibilityReport(False, [exc.message])
            raise
        return CompatibilityReport(not evaluation.messages, evaluation.messages)

    def evaluate(
        self, subject: str, version: str | None, request: SchemaRequest, normalize: bool, guard: Guard = OPEN,
    ) -> Evaluation:
        """`check`'s work, with everything it looked at (the browser's check page shows it):
        the subject after its alias, its versions, the config, the parsed candidate, the
        previous versions chosen and Confluent's message list. `InvalidSchema` for a
        candidate that does not parse."""
        number = parse_version(version) if version is not None else None
        metadata, rule_set, refs = request_documents(request)
        with self.storage.read() as store:
            qs, row, config = self.subject_config(store, subject, guard)
            versions = store.versions(row.id) if row else []
            live = [v for v in versions if not v.deleted]
            target = live_version(versions, number) if version is not None else None
            if number is not None and target is None:
                raise VersionNotFound.for_version(number)
            candidate = self.resolver.candidate(
                store, qs.context, request.schema_type, request.required_text(), refs,
                normalize=normalize or bool(config.get("normalize")), strict=True, live_refs=True, guard=guard,
            )
            latest = self.resolver.content(store, live[-1].schema_pk) if live else None
            md, _ = merged_documents(metadata, rule_set, latest, config, None, None)
            level = CompatibilityLevel.parse(config["compatibility"])
            if version is None:
                history = self.history(store, row.id if row else None, live[-1] if live else None, level, config, md)
                previous = latest
            elif target is not None:
                history = self.previous(store, [target])
                previous = self.resolver.content(store, target.schema_pk)
            else:  # `latest` of a subject without live versions: nothing to compare with
                history, previous = [], None
            messages = compatibility.check(
                self.resolver.formats, level, candidate.parsed, history,
                validate_fields=bool(config.get("validateFields")), policy=compatibility.policy_of(config),
                reserved_violations=self.reserved_violations(config, candidate, md, previous),
            )
        return Evaluation(qs, versions, config, level, candidate, history, messages)


class Evaluation(NamedTuple):
    """What a compatibility check looked at and answered. `history` holds the versions
    compared (newest first; empty under NONE), `messages` Confluent's list ([] when
    compatible)."""

    qs: QualifiedSubject
    versions: list[VersionRow]
    config: dict[str, Any]
    level: CompatibilityLevel
    candidate: Candidate
    history: list[compatibility.Previous]
    messages: list[str]
