"""The browser's side of the store port: the search index's names and hits, and the queries
and pages of the subject browser (a fixed number of statements per call, whatever the page)."""
from __future__ import annotations

from typing import Any, NamedTuple

from app.core.types import QualifiedSubject


class IndexedName(NamedTuple):
    """One field or named type of a stored schema, as the search index keeps it. `kind` is
    `app.formats.base.FIELD_NODE` or `TYPE_NODE`; `name` is matched case-insensitively;
    `type_label` and `doc` are what a hit shows (the doc cut to a snippet)."""

    kind: str
    path: str
    name: str
    type_label: str
    doc: str | None

    @property
    def match_key(self) -> str:
        """What a search compares its term with (`search_key`)."""
        return search_key(self.name)


def search_key(text: str) -> str:
    """A name or search term as the index compares them: lower-cased, at most 200 characters
    (lower-casing may lengthen a text; the index column holds 200)."""
    return text.lower()[:200]


class LevelFilter(NamedTuple):
    """Subjects whose effective compatibility level is `level`: those with an own config
    whose level (or, without one, the server default `default_level`) is it, and those without an
    own config in one of `inheriting_contexts` (contexts whose own settings resolve to it;
    the core resolves them, storage only applies the result)."""

    level: str
    default_level: str
    inheriting_contexts: tuple[str, ...]


class SubjectQuery(NamedTuple):
    """A page of the subject browser. `q` is a case-insensitive substring of the name;
    `context` None means every context; `own_config` keeps subjects with a config of their
    own (a level, or any other config key), `own_settings` those with a config or a mode of
    their own; `deleted` also lists subjects whose versions are all soft-deleted; `sort` is
    "name" (context, then name) or "updated" (newest registration first)."""

    q: str = ""
    context: str | None = None
    schema_type: str | None = None
    level: LevelFilter | None = None
    own_config: bool = False
    own_settings: bool = False
    deleted: bool = False
    sort: str = "name"
    offset: int = 0
    limit: int = 50


class SubjectListing(NamedTuple):
    """One subject of the browser's list. The latest version is the newest live one (the
    newest soft-deleted one for a subject listed with `deleted` that has no live version);
    `versions` counts the live versions (all of them for such a subject); `updated_at` is
    the newest registration's time in ms. `config`/`mode` are the subject's own settings."""

    subject_id: int
    context: str
    name: str
    schema_type: str
    latest_version: int
    latest_id: int
    versions: int
    deleted: bool
    config: dict[str, Any] | None
    mode: str | None
    updated_at: int


class SubjectPage(NamedTuple):
    total: int
    items: list[SubjectListing]


class IndexHit(NamedTuple):
    """A field (`kind` FIELD_NODE) or named type (TYPE_NODE) found by name in a
    subject-version's schema: `subject` is the name inside `context`, `path` the field's dotted
    path (a type's full name), `doc` a snippet. Storage finds it; the browser hands it on."""

    context: str
    subject: str
    version: int
    schema_id: int
    deleted: bool
    kind: str
    path: str
    name: str
    type_label: str
    doc: str | None

    @property
    def qualified_subject(self) -> str:
        """The subject as the REST API names it (`:.ctx:name` outside the default context)."""
        return QualifiedSubject(self.context, self.subject).qualified()


class IndexPage(NamedTuple):
    total: int
    items: list[IndexHit]


class IndexQuery(NamedTuple):
    """Index hits whose name equals or starts with `prefix` (already lower-cased), exact
    matches first; `kind` FIELD_NODE or TYPE_NODE; `all_versions` searches every live
    version instead of each subject's latest live one."""

    prefix: str
    kind: str
    context: str | None = None
    all_versions: bool = False
    offset: int = 0
    limit: int = 50
