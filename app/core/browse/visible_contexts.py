"""Which contexts a caller is shown: the one answer `GET /contexts` and the web UI's pages
(the list, the contexts page, the settings page) both give, so neither lists a context the
other hides. A context name can say what a team works on (`.acquisition-2027`), so a caller
restricted to some subjects sees only the contexts holding one it may read.
"""
from __future__ import annotations

from app.core.access import Guard
from app.core.store.protocol import ListingStore
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject


def named_contexts(store: ListingStore, guard: Guard) -> list[str]:
    """The contexts other than the default one (which everybody sees), sorted: every one for
    an unrestricted caller; for others, those holding a subject with versions (live or
    soft-deleted) that the caller may read."""
    if guard.unrestricted:
        return sorted(set(store.contexts()) - {DEFAULT_CONTEXT})
    held = [QualifiedSubject(s.context, s.name).qualified()
            for s in store.subject_summaries(None, "") if s.all_versions > 0]
    return sorted({QualifiedSubject.parse(q).context for q in guard.filter(held)} - {DEFAULT_CONTEXT})
