"""The browser's listings: subjects with filters and paging, search by subject, field and
type name, and the registry's summary.

Each answer costs a fixed number of statements whatever the page size: the contexts, their
settings rows, then storage's indexed queries (`Store.browse_*`, `Store.search_index`).
Settings in force are resolved here, by `app.core.config` as registration resolves them;
storage only applies the outcome (`LevelFilter`). No stored schema is parsed: fields and
types come from the index filled at registration.

A caller that may not read every subject (a restricting authorizer) gets the same answers
with the unreadable subjects left out of items and totals alike: names are fetched without
paging, filtered, and only the page's rows are read in full.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.access import Action, Guard
from app.core.config import GLOBAL_KEY, SUPER_GLOBAL_KEY, resolve_config, resolve_mode
from app.core.browse.inspection import EffectiveSetting
from app.core.storable_text import repaired
from app.core.store.browse import IndexHit, IndexQuery, LevelFilter, SubjectListing, SubjectQuery, search_key
from app.core.store.protocol import BrowseStore, Storage, Store
from app.core.store.rows import SubjectRow, VersionRow
from app.core.errors import SubjectNotFound
from app.core.subjects import resolve_alias
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject
from app.core.browse.visible_contexts import named_contexts
from app.formats.base import FIELD_NODE, TYPE_NODE
from app.settings import Settings

DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 500
MAX_QUERY_LENGTH = 200
SORTS = ("name", "updated")


@dataclass(frozen=True)
class ListedSubject:
    """A row of the subject list; `subject` is the qualified name (plain in the default
    context). `compatibility`/`mode` are in force, with their sources ("subject" when the
    subject sets them itself)."""

    subject: str
    context: str
    name: str
    schema_type: str
    latest_version: int
    latest_id: int
    versions: int
    deleted: bool
    updated_at: int
    compatibility: EffectiveSetting
    mode: EffectiveSetting


@dataclass(frozen=True)
class SubjectList:
    """One page; `unknown_context` when the context filter names no context (empty list)."""

    items: tuple[ListedSubject, ...]
    total: int
    page: int
    per_page: int
    unknown_context: bool = False


@dataclass(frozen=True)
class HitList:
    items: tuple[IndexHit, ...]
    total: int
    page: int
    per_page: int


@dataclass(frozen=True)
class SearchResults:
    """Subjects whose name contains `q`, fields and types whose name equals or starts with
    it (case-insensitive), each group paged alike."""

    q: str
    all_versions: bool
    subjects: SubjectList
    fields: HitList
    types: HitList


@dataclass(frozen=True)
class ContextSummary:
    """A context with its number of subjects (those with live versions) and its own level
    and mode (None where it sets none)."""

    context: str
    subjects: int
    compatibility: str | None
    mode: str | None


@dataclass(frozen=True)
class RegistrySummary:
    compatibility: EffectiveSetting
    mode: EffectiveSetting
    subjects: int
    contexts: tuple[ContextSummary, ...]


def clamp_paging(page: int, per_page: int) -> tuple[int, int]:
    """Page from 1; per_page from 1 to MAX_PER_PAGE (larger values are clamped)."""
    return max(1, page), min(max(1, per_page), MAX_PER_PAGE)


class Browser:
    def __init__(self, storage: Storage, settings: Settings):
        self.storage = storage
        self.default_level = settings.compatibility_level

    # ------------------------------------------------------------------ subjects
    def history(self, subject: str, guard: Guard, deleted: bool = True) -> list[VersionRow]:
        """A subject's versions with their ids and times, oldest first, in one query however
        long the history is (soft-deleted ones unless `deleted` is false). 40401 when the
        caller would see none, as `GET .../versions` answers."""
        with self.storage.read() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
            guard.check(Action.READ, qs.qualified())
            versions = [v for v in store.versions(row.id) if deleted or not v.deleted] if row else []
        if not versions:
            raise SubjectNotFound.for_subject(qs.qualified())
        return versions

    def list_subjects(
        self, guard: Guard, *, q: str = "", context: str | None = None, schema_type: str | None = None,
        level: str | None = None, own: bool = False, overriding: bool = False, deleted: bool = False,
        sort: str = "name", page: int = 1, per_page: int = DEFAULT_PER_PAGE,
    ) -> SubjectList:
        """`own`: only subjects with a config of their own (a mode alone does not count);
        `overriding`: those with a config or a mode of their own."""
        page, per_page = clamp_paging(page, per_page)
        with self.storage.read() as store:
            contexts, rows = self._settings(store, guard)
            if context is not None and context not in contexts:
                return SubjectList((), 0, page, per_page, unknown_context=True)
            query = SubjectQuery(
                q=repaired(q).lower(), context=context, schema_type=schema_type or None,
                level=self._level_filter(level, contexts, rows) if level else None,
                own_config=own, own_settings=overriding, deleted=deleted, sort=sort if sort in SORTS else "name",
                offset=(page - 1) * per_page, limit=per_page,
            )
            total, listings = self._page(store, query, guard)
        items = tuple(self._listed(item, rows) for item in listings)
        return SubjectList(items, total, page, per_page)

    def _page(self, store: BrowseStore, query: SubjectQuery, guard: Guard) -> tuple[int, list[SubjectListing]]:
        if guard.unrestricted:
            found = store.browse_subjects(query)
            return found.total, found.items
        names = store.browse_subject_names(query)
        readable = set(guard.filter(QualifiedSubject(c, n).qualified() for c, n in names))
        allowed = [(c, n) for c, n in names if QualifiedSubject(c, n).qualified() in readable]
        wanted = allowed[query.offset:query.offset + query.limit]
        return len(allowed), store.browse_subjects_named(wanted, query)

    def _settings(self, store: Store, guard: Guard) -> tuple[list[str], dict[tuple[str, str], SubjectRow]]:
        """The contexts the caller is shown (as `GET /contexts` shows them) and each one's
        settings row (and the global ones): two statements for an unrestricted caller,
        however many subjects a page shows."""
        contexts = [DEFAULT_CONTEXT, *named_contexts(store, guard)]
        rows = store.settings_rows([*((c, "") for c in contexts), GLOBAL_KEY, SUPER_GLOBAL_KEY])
        return contexts, rows

    def _level_filter(
        self, level: str, contexts: Sequence[str], rows: dict[tuple[str, str], SubjectRow]
    ) -> LevelFilter:
        """A subject without its own config has its context's level (resolved as for the
        context's empty name, which walks the same rows after the subject's)."""
        wanted = level.upper()
        inheriting = tuple(
            c for c in contexts if resolve_config(c, "", rows, self.default_level)[0]["compatibility"] == wanted
        )
        return LevelFilter(wanted, self.default_level, inheriting)

    def _listed(self, item: SubjectListing, rows: dict[tuple[str, str], SubjectRow]) -> ListedSubject:
        own = {**rows, (item.context, item.name): item}
        config, level_source = resolve_config(item.context, item.name, own, self.default_level)
        mode, mode_source = resolve_mode(item.context, item.name, own)
        return ListedSubject(
            QualifiedSubject(item.context, item.name).qualified(), item.context, item.name, item.schema_type,
            item.latest_version, item.latest_id, item.versions, item.deleted, item.updated_at,
            EffectiveSetting(config["compatibility"], level_source), EffectiveSetting(mode.value, mode_source),
        )

    # ------------------------------------------------------------------ search
    def search(
        self, guard: Guard, q: str, *, all_versions: bool = False, context: str | None = None,
        page: int = 1, per_page: int = DEFAULT_PER_PAGE,
    ) -> SearchResults:
        """`q` is trimmed; an empty one finds nothing (no statement runs for the index)."""
        q = repaired(q.strip())
        page, per_page = clamp_paging(page, per_page)
        subjects = self.list_subjects(guard, q=q, context=context, page=page, per_page=per_page)
        fields = self._hits(guard, q, FIELD_NODE, all_versions, context, page, per_page)
        types = self._hits(guard, q, TYPE_NODE, all_versions, context, page, per_page)
        return SearchResults(q, all_versions, subjects, fields, types)

    def _hits(
        self, guard: Guard, q: str, kind: str, all_versions: bool, context: str | None, page: int, per_page: int
    ) -> HitList:
        if not q:
            return HitList((), 0, page, per_page)
        query = IndexQuery(search_key(q), kind, context, all_versions, (page - 1) * per_page, per_page)
        with self.storage.read() as store:
            if guard.unrestricted:
                found = store.search_index(query)
                total, hits = found.total, found.items
            else:
                everything = store.search_index_all(query)
                named = [QualifiedSubject(h.context, h.subject).qualified() for h in everything]
                readable = set(guard.filter(sorted(set(named))))
                allowed = [h for h, name in zip(everything, named) if name in readable]
                total, hits = len(allowed), allowed[query.offset:query.offset + query.limit]
        return HitList(tuple(hits), total, page, per_page)

    # ------------------------------------------------------------------ summary
    def summary(self, guard: Guard) -> RegistrySummary:
        """The global level and mode with their sources, and every context with its number
        of (readable) subjects and its own settings."""
        with self.storage.read() as store:
            contexts, rows = self._settings(store, guard)
            if guard.unrestricted:
                counts = store.subject_counts()
            else:
                names = store.browse_subject_names(SubjectQuery())
                readable = set(guard.filter(QualifiedSubject(c, n).qualified() for c, n in names))
                counts = {}
                for c, n in names:
                    if QualifiedSubject(c, n).qualified() in readable:
                        counts[c] = counts.get(c, 0) + 1
        config, level_source = resolve_config(DEFAULT_CONTEXT, "", rows, self.default_level)
        mode, mode_source = resolve_mode(DEFAULT_CONTEXT, "", rows)
        summaries = []
        for context in contexts:
            row = rows.get((context, ""))
            own_level = ((row.config or {}).get("compatibility") if row is not None else None) or None
            summaries.append(ContextSummary(context, counts.get(context, 0), own_level, row.mode if row else None))
        return RegistrySummary(
            EffectiveSetting(config["compatibility"], level_source), EffectiveSetting(mode.value, mode_source),
            sum(counts.values()), tuple(summaries),
        )
