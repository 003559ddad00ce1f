"""What the web UI asks of the registry beyond the REST API: diffs, candidate checks, the
settings in force, version tables, the subject browser, search and field outlines.

`RegistryService` holds them as `browse` (app/core/registry.py); each call is the caller's
guard around one of the `inspection`'s or the `browser`'s. Both are built, and their modules
imported, on first use: a server that nobody browses never needs them, and importing them was
a few milliseconds of every worker's start.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.core.access import ANONYMOUS, Guard, Principal
from app.core.records import StoredSchema
from app.core.resolver import SchemaResolver
from app.core.store.protocol import Storage
from app.core.store.rows import VersionRow
from app.core.types import SchemaRequest
from app.core.dek.encrypted_fields import EncryptionRule, encryption_rules
from app.formats.base import FieldTags, Node, Outlines, supports

if TYPE_CHECKING:
    from app.core.browse.listings import Browser, RegistrySummary, SearchResults, SubjectList
    from app.core.compatibility.checks import CompatibilityChecks
    from app.core.browse.inspection import CandidateCheck, EffectiveSettings, Inspection, VersionDiff
    from app.settings import Settings


class BrowsingViews:
    def __init__(
        self, storage: Storage, resolver: SchemaResolver, checks: CompatibilityChecks, settings: Settings,
        guard: Callable[[Principal], Guard],
    ) -> None:
        """`guard` is the service's: the guard of a caller, under the service's authorizer."""
        self.storage = storage
        self.resolver = resolver
        self.checks = checks
        self.settings = settings
        self.guard = guard

    @functools.cached_property
    def inspection(self) -> Inspection:
        from app.core.browse.inspection import Inspection  # the web UI's alone: imported on first use

        return Inspection(self.storage, self.resolver, self.checks, self.settings)

    @functools.cached_property
    def browser(self) -> Browser:
        from app.core.browse.listings import Browser  # the web UI's alone: imported on first use

        return Browser(self.storage, self.settings)

    def diff(
        self, subject: str, from_version: str | None = None, to_version: str | None = None, normalize: bool = False,
        *, principal: Principal = ANONYMOUS,
    ) -> VersionDiff:
        return self.inspection.diff(subject, from_version, to_version, normalize, self.guard(principal))

    def check_candidate(
        self, subject: str, request: SchemaRequest, version: str | None = None, normalize: bool = False,
        *, principal: Principal = ANONYMOUS,
    ) -> CandidateCheck:
        return self.inspection.check_candidate(subject, request, version, normalize, self.guard(principal))

    def effective_settings(self, subject: str, *, principal: Principal = ANONYMOUS) -> EffectiveSettings:
        return self.inspection.effective_settings(subject, self.guard(principal))

    def version_history(
        self, subject: str, deleted: bool = True, *, principal: Principal = ANONYMOUS
    ) -> list[VersionRow]:
        return self.browser.history(subject, self.guard(principal), deleted)

    def browse_subjects(self, *, principal: Principal = ANONYMOUS, **filters: Any) -> SubjectList:
        """Filters as `Browser.list_subjects` names them (q, context, schema_type, level, own,
        overriding, deleted, sort, page, per_page)."""
        return self.browser.list_subjects(self.guard(principal), **filters)

    def search(self, q: str, *, principal: Principal = ANONYMOUS, **options: Any) -> SearchResults:
        """Options as `Browser.search` names them (all_versions, context, page, per_page)."""
        return self.browser.search(self.guard(principal), q, **options)

    def registry_summary(self, *, principal: Principal = ANONYMOUS) -> RegistrySummary:
        return self.browser.summary(self.guard(principal))

    def encryption(self, schema: StoredSchema) -> list[EncryptionRule]:
        """The schema's ENCRYPT rules and the fields each encrypts (the subject page shows
        them); a format without `FieldTags` contributes only the metadata's tag paths."""
        rules = (schema.rule_set or {}).get("domainRules") or ()
        if not any(isinstance(r, dict) and str(r.get("type") or "").startswith("ENCRYPT") for r in rules):
            return []
        fmt = self.resolver.format(schema.schema_type)
        tags: dict[str, tuple[str, ...]] = {}
        if supports(fmt, FieldTags):
            with self.storage.read() as store:
                tags = fmt.field_tags(self.resolver.parsed(store, schema))
        return encryption_rules(schema.rule_set, schema.metadata, tags)

    def outline(self, schema: StoredSchema) -> Node | None:
        """The field tree of a schema read through this service; None when its format has none."""
        fmt = self.resolver.format(schema.schema_type)
        if not supports(fmt, Outlines):
            return None
        with self.storage.read() as store:
            return fmt.outline(self.resolver.parsed(store, schema))
