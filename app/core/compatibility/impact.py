"""What a change to a subject touches (a sqlregistry extension, outside Confluent's API): the
topics associated with it and the subjects that reference it, directly or through others,
and, for a candidate schema, which of them it would break.

A CI job asks this before registering; the web UI's subject page and check form show it.

* Topics are the subject's associations (`app.core.associations`), and each referrer's own.
* Referrers are found breadth-first through the stored references: a subject with a live
  version whose schema references any version of one already found. The walk stops after
  `MAX_REFERRERS` subjects and says so (`truncated`), so a request's cost is bounded whatever
  the reference graph; only subjects the caller may read are listed or walked through.
* For a candidate, the subject itself is affected when the candidate fails the subject's own
  compatibility check (what registration would answer); its topics with it. A referrer is
  affected when its latest version, with every dependency on the subject's stored texts
  replaced by the candidate, no longer parses, or fails the referrer's own compatibility
  level against its own history: what registering the referrer again on the candidate
  would answer. A referrer whose latest version no longer depends on the subject (an older
  version did) is not affected.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from app.core.access import Guard
from app.core.associations.records import Association
from app.core.compatibility import levels as compatibility
from app.core.compatibility.checks import CompatibilityChecks, Evaluation
from app.core.errors import InvalidSchema, SubjectNotFound, WorkBudgetSpent
from app.core.resolver import SchemaResolver, format_refusals
from app.core.store.protocol import Storage, Store
from app.core.types import CompatibilityLevel, QualifiedSubject, SchemaRequest

MAX_REFERRERS = 100


@dataclass(frozen=True)
class Verdict:
    """A candidate's effect on one subject: `messages` are Confluent's (empty: not affected)."""

    level: str
    messages: tuple[str, ...]

    @property
    def affected(self) -> bool:
        return bool(self.messages)


@dataclass(frozen=True)
class Referrer:
    subject: str  # qualified
    depth: int  # 1: it references the subject itself
    via: str  # the subject it references on the way (qualified)
    topics: tuple[Association, ...]
    verdict: Verdict | None  # None without a candidate


@dataclass(frozen=True)
class Impact:
    subject: str
    topics: tuple[Association, ...]
    referrers: tuple[Referrer, ...]
    truncated: bool
    max_referrers: int
    verdict: Verdict | None


class ImpactAnalysis:
    def __init__(self, storage: Storage, resolver: SchemaResolver, checks: CompatibilityChecks):
        self.storage = storage
        self.resolver = resolver
        self.checks = checks

    def impact(self, subject: str, request: SchemaRequest | None, normalize: bool, guard: Guard) -> Impact:
        """READ on the subject (403 first); 40401 for a subject without live versions. With a
        `request`, its schema must parse (42201) as for a compatibility check."""
        with self.storage.read() as store:
            qs, row, _ = self.checks.subject_config(store, subject, guard)
            if row is None or not store.live_versions(row.id):
                raise SubjectNotFound.for_subject(qs.qualified())
        evaluation = self.checks.evaluate(subject, None, request, normalize, guard) if request else None
        with self.storage.read() as store:
            found, truncated = _referrers(store, qs, guard)
            verdicts = self._verdicts(store, qs, found, evaluation) if evaluation else {}
            referrers = tuple(
                Referrer(r.qualified(), depth, via.qualified(), _topics(store, r), verdicts.get(r))
                for r, (depth, via) in found.items())
            own = Verdict(evaluation.level.value, tuple(evaluation.messages)) if evaluation else None
            return Impact(qs.qualified(), _topics(store, qs), referrers, truncated, MAX_REFERRERS, own)

    def _verdicts(self, store: Store, qs: QualifiedSubject, found: dict[QualifiedSubject, tuple[int, QualifiedSubject]],
                  evaluation: Evaluation) -> dict[QualifiedSubject, Verdict]:
        row = store.subject(qs.context, qs.name)
        assert row is not None  # checked by the caller, in the same transaction
        replaced = {self.resolver.content(store, v.schema_pk).schema for v in store.versions(row.id)}
        candidate = evaluation.candidate
        _, candidate_deps = self.resolver.resolve_references(
            store, qs.context, candidate.plain_references, live_only=False)
        return {referrer: self._verdict(store, referrer, replaced, candidate.parsed.canonical, candidate_deps)
                for referrer in found}

    def _verdict(self, store: Store, referrer: QualifiedSubject, replaced: set[str], text: str,
                 candidate_deps: dict[str, str]) -> Verdict:
        config = self.checks.config(store, referrer)
        level = CompatibilityLevel.parse(config["compatibility"])
        row = store.subject(referrer.context, referrer.name)
        live = store.live_versions(row.id) if row is not None else []
        if not live:
            return Verdict(level.value, ())
        latest = live[-1]
        stored = self.resolver.content(store, latest.schema_pk)
        _, deps = self.resolver.resolve_references(store, stored.context, stored.references, live_only=False)
        if not replaced.intersection(deps.values()):
            return Verdict(level.value, ())
        rewired = {**candidate_deps, **{name: text if dep in replaced else dep for name, dep in deps.items()}}
        fmt = self.resolver.format(stored.schema_type)
        try:
            with format_refusals():
                parsed = fmt.parse(stored.schema, rewired, strict=False)
        except WorkBudgetSpent:
            raise
        except InvalidSchema as exc:
            return Verdict(level.value, (exc.message,))
        history = self.checks.history(store, row.id if row else None, latest, level, config, stored.metadata,
                                      live=live)
        messages = compatibility.check(self.resolver.formats, level, parsed, history,
                                       validate_fields=bool(config.get("validateFields")),
                                       policy=compatibility.policy_of(config))
        return Verdict(level.value, tuple(messages))


def _referrers(store: Store, subject: QualifiedSubject, guard: Guard
               ) -> tuple[dict[QualifiedSubject, tuple[int, QualifiedSubject]], bool]:
    """Each referrer the caller may read -> (its depth, the subject it references on the
    way), breadth-first; whether the walk stopped at `MAX_REFERRERS`."""
    found: dict[QualifiedSubject, tuple[int, QualifiedSubject]] = {}
    pending: deque[tuple[QualifiedSubject, int]] = deque([(subject, 0)])
    while pending:
        current, depth = pending.popleft()
        for context, name in store.referring_subjects(current.context, current.name):
            referrer = QualifiedSubject(context, name)
            if referrer == subject or referrer in found or not guard.readable(referrer.qualified()):
                continue
            if len(found) == MAX_REFERRERS:
                return found, True
            found[referrer] = (depth + 1, current)
            pending.append((referrer, depth + 1))
    return found, False


def _topics(store: Store, subject: QualifiedSubject) -> tuple[Association, ...]:
    return tuple(sorted(store.associations_of_subject(subject.context, subject.name), key=lambda a: a.order))
