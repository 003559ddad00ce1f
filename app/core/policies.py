"""Schema policies in the registry (our extension): the documents' storage and resolution, the
check endpoint, and the gate registration runs between its mode and compatibility steps.

Documents live in the `policies` table: the global one (named sets and the default) at the
reserved key ("", ""), a selection at its subject's or context's settings key (a context is
addressed as `:.ctx:`, exactly like `/config`). Resolution follows config's order: the
subject's selection, its context's, then the global `default`.

The rule code (`app.policies`) knows nothing of the registry; this module feeds it the
parsed schemas from the resolver's cache and turns its refusals into our errors.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.core.access import ANONYMOUS, OPEN, Action, EventSink, Guard, Principal, WriteEvent, no_events
from app.core.audit import DELETE_POLICY, NO_AUDIT, SET_POLICY, Audit
from app.core.config import effective_config, rows_needed
from app.core.documents import request_references
from app.core.errors import InvalidPolicy, PolicyNotFound
from app.core.resolver import SchemaResolver, within_budget
from app.core.store.audit import NO_ORIGIN, Origin
from app.core.store.protocol import PolicyStore, Storage, Store
from app.core.subjects import validate_subject
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject, SchemaRequest
from app.formats.base import ParsedSchema
from app.policies.document import (
    EMPTY_GLOBAL,
    PolicyDocumentError,
    uses_of,
    validate_global,
    validate_selection,
)
from app.policies.engine import Outcome, RuleUse, evaluate
from app.policies.rule import RuleContext, Violation
from app.settings import Settings

if TYPE_CHECKING:
    from app.policies.catalogue import Catalogue

GLOBAL_DOCUMENT = ("", "")  # no context is named "" (the default context is ".")


def policy_keys(context: str, name: str) -> list[tuple[str, str]]:
    """Where the documents that decide a subject's policy are: its own selection, its
    context's, the global document (a context's own key has no subject part)."""
    return [(context, name), (context, ""), GLOBAL_DOCUMENT] if name else [(context, ""), GLOBAL_DOCUMENT]


def selection_key(subject: str) -> tuple[str, str]:
    """A subject's key, or a context's (`:.ctx:` -> (".ctx", "")). 42208 for a bad name."""
    qs = QualifiedSubject.parse(subject)
    validate_subject(qs, subject, registering=False)
    return qs.context, qs.name


def _scope(key: tuple[str, str]) -> str:
    """The name the authorizer is asked about, as for config: a subject qualified, a
    context as `:.ctx:`, the global document as ""."""
    if key == GLOBAL_DOCUMENT:
        return ""
    context, name = key
    return QualifiedSubject(context, name).qualified() if name or context == DEFAULT_CONTEXT else f":{context}:"


class _LiveVersions(Sequence[tuple[int, ParsedSchema]]):
    """A subject's live versions, parsed, loaded only if a rule asks (`against: all`): the
    usual policy reads the latest version alone, which registration has already."""

    def __init__(self, load: Any) -> None:
        self._load = load
        self._items: list[tuple[int, ParsedSchema]] | None = None

    def _all(self) -> list[tuple[int, ParsedSchema]]:
        if self._items is None:
            self._items = self._load()
        return self._items

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[tuple[int, ParsedSchema]]:
        return iter(self._all())


class PolicyService:
    """Every policy operation, each taking the caller (`principal`) and, for writes, the
    request's `origin`, as `RegistryService`'s methods do: it asks the service's authorizer
    through `guard`, writes the audit row through `audit` and reports each committed write
    to `events` (config's action, as policies are written like config)."""

    def __init__(
        self, storage: Storage, resolver: SchemaResolver, settings: Settings, catalogue: Catalogue | None = None, *,
        guard: Callable[[Principal], Guard] = lambda principal: OPEN,
        audit: Callable[[Principal, Origin], Audit] = lambda principal, origin: NO_AUDIT,
        events: EventSink = no_events,
    ):
        self.storage = storage
        self.resolver = resolver
        self._given_catalogue = catalogue
        self.default_level = settings.compatibility_level
        self._guard = guard
        self._audit = audit
        self._events = events

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """The catalogue given, else the built-in rules and the installed plugins, loaded on
        first use: finding plugins reads every installed distribution's entry points, a few
        milliseconds a worker need not spend before its first answer. A gunicorn
        worker loads it in the background once serving (`app.server.serving.warm_up`)."""
        if self._given_catalogue is not None:
            return self._given_catalogue
        from app.policies.catalogue import load_catalogue  # the built-in rules' modules load with it

        return load_catalogue()

    # ------------------------------------------------------------------ documents
    def rules(self) -> list[dict[str, Any]]:
        """`GET /policy-rules`: every installed rule (any authenticated caller may list them)."""
        return self.catalogue.listing()

    def get_global(self, *, principal: Principal = ANONYMOUS) -> dict[str, Any]:
        self._guard(principal).check(Action.READ_CONFIG, "")
        with self.storage.read() as store:
            return _global(store)

    def put_global(self, document: Any, *, principal: Principal = ANONYMOUS,
                   origin: Origin = NO_ORIGIN) -> dict[str, Any]:
        self._guard(principal).check(Action.WRITE_CONFIG, "")
        stored = _validated(validate_global, document, self.catalogue)
        with self.storage.write() as store:
            old = store.policy_documents([GLOBAL_DOCUMENT]).get(GLOBAL_DOCUMENT)
            _refuse_removing_used_sets(store, stored["sets"])
            store.set_policy_document(*GLOBAL_DOCUMENT, stored)
            self._audit(principal, origin).record(store, SET_POLICY, None, detail={"old": old, "new": stored})
        self._written("update_policy", GLOBAL_DOCUMENT, principal)
        return stored

    def delete_global(self, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> dict[str, Any]:
        self._guard(principal).check(Action.WRITE_CONFIG, "")
        with self.storage.write() as store:
            old = store.policy_documents([GLOBAL_DOCUMENT]).get(GLOBAL_DOCUMENT)
            _refuse_removing_used_sets(store, {})
            store.set_policy_document(*GLOBAL_DOCUMENT, None)
            self._audit(principal, origin).record(store, DELETE_POLICY, None, detail={"old": old})
        self._written("delete_policy", GLOBAL_DOCUMENT, principal)
        return old or dict(EMPTY_GLOBAL)

    def get_selection(self, subject: str, default_to_global: bool = False, *,
                      principal: Principal = ANONYMOUS) -> dict[str, Any]:
        key = selection_key(subject)
        self._guard(principal).check(Action.READ_CONFIG, _scope(key))
        with self.storage.read() as store:
            if default_to_global:
                return self._effective_json(store, key)
            own = store.policy_documents([key]).get(key)
        if own is None:
            raise PolicyNotFound.for_subject(subject)
        return own

    def put_selection(self, subject: str, document: Any, *, principal: Principal = ANONYMOUS,
                      origin: Origin = NO_ORIGIN) -> dict[str, Any]:
        key = selection_key(subject)
        self._guard(principal).check(Action.WRITE_CONFIG, _scope(key))
        with self.storage.write() as store:
            stored = _validated(validate_selection, document, _global(store), self.catalogue)
            old = store.policy_documents([key]).get(key)
            store.set_policy_document(*key, stored)
            self._audit(principal, origin).record(
                store, SET_POLICY, QualifiedSubject(*key), detail={"old": old, "new": stored})
        self._written("update_policy", key, principal)
        return stored

    def delete_selection(self, subject: str, *, principal: Principal = ANONYMOUS,
                         origin: Origin = NO_ORIGIN) -> dict[str, Any]:
        key = selection_key(subject)
        self._guard(principal).check(Action.WRITE_CONFIG, _scope(key))
        with self.storage.write() as store:
            old = store.policy_documents([key]).get(key)
            if old is None:
                raise PolicyNotFound.for_subject(subject)
            store.set_policy_document(*key, None)
            self._audit(principal, origin).record(store, DELETE_POLICY, QualifiedSubject(*key), detail={"old": old})
        self._written("delete_policy", key, principal)
        return old

    def _written(self, operation: str, key: tuple[str, str], principal: Principal) -> None:
        self._events(WriteEvent(Action.WRITE_CONFIG, operation, _scope(key), principal))

    # ------------------------------------------------------------------ resolution
    def effective(
        self, store: Store, key: tuple[str, str], found: Mapping[tuple[str, str], dict[str, Any]] | None = None
    ) -> tuple[list[RuleUse], list[str], str]:
        """The rules in force for `key`, the sets it uses, and where the selection came from;
        `found`: the documents at `policy_keys(*key)`, when the caller has read them already."""
        if found is None:
            found = store.policy_documents(policy_keys(*key))
        return _in_force(key, found)

    def compares_every_version(self, qs: QualifiedSubject, documents: Mapping[tuple[str, str], dict[str, Any]]) -> bool:
        """Whether a rule in force for the subject reads every live version (`against: all`),
        not only the newest: what registration must find unchanged under its lock to keep a
        verdict reached before it. `documents` are those at `policy_keys`."""
        return _reads_every_version(_in_force((qs.context, qs.name), documents)[0])

    def _effective_json(self, store: Store, key: tuple[str, str]) -> dict[str, Any]:
        uses, sets, source = self.effective(store, key)
        rules = [{"rule": u.rule, "severity": u.severity, "params": dict(u.params), "set": u.set} for u in uses]
        return {"use": sets, "rules": rules, "source": source}

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, store: Store, qs: QualifiedSubject, subject_id: int | None, proposed: ParsedSchema,
                 latest: ParsedSchema | None, latest_version: int | None, config: Mapping[str, Any],
                 documents: Mapping[tuple[str, str], dict[str, Any]] | None = None) -> Outcome:
        uses, _, _ = self.effective(store, (qs.context, qs.name), documents)
        if not uses:
            return Outcome()

        def load() -> list[tuple[int, ParsedSchema]]:
            if subject_id is None:
                return []
            rows = store.live_versions(subject_id)
            contents = self.resolver.contents(store, [v.schema_pk for v in rows])
            return [(v.version, self.resolver.parsed(store, c)) for v, c in zip(rows, contents)]

        versions: Sequence[tuple[int, ParsedSchema]] = (
            [(latest_version, latest)] if latest is not None and latest_version is not None else []
        )
        if _reads_every_version(uses):
            versions = _LiveVersions(load)
        ctx = RuleContext(qs.qualified(), versions, config)
        outcome = evaluate(uses, self.catalogue, latest, proposed, ctx)
        # The engine stops at a spent budget, leaving the outcome partial: it is the request's
        # refusal, not the schema's.
        within_budget()
        return outcome

    def errors(self, store: Store, qs: QualifiedSubject, subject_id: int, proposed: ParsedSchema,
               latest: ParsedSchema | None, latest_version: int | None, config: Mapping[str, Any],
               documents: Mapping[tuple[str, str], dict[str, Any]]) -> list[Violation]:
        """Registration's policy step: the error-severity violations (it refuses with them).
        `documents` are those at `policy_keys`, read with the subject's settings."""
        return self.evaluate(store, qs, subject_id, proposed, latest, latest_version, config, documents).errors

    def check(self, subject: str, request: SchemaRequest, *, principal: Principal = ANONYMOUS) -> Outcome:
        """`POST /policies/{s}/check`: what registration's policy step would say; writes nothing."""
        qs = QualifiedSubject.parse(subject)
        validate_subject(qs, subject, registering=False)
        guard = self._guard(principal)
        guard.check(Action.READ, qs.qualified())
        with self.storage.read() as store:
            rows = store.settings_rows(rows_needed(qs.context, qs.name))
            config = effective_config(qs.context, qs.name, rows, self.default_level)
            candidate = self.resolver.candidate(
                store, qs.context, request.schema_type, request.required_text(), request_references(request.references),
                normalize=bool(config.get("normalize")), strict=config.get("validateNewSchemas") is not False,
                live_refs=True, guard=guard,
            )
            row = store.subject(qs.context, qs.name)
            latest, latest_version, subject_id = None, None, None
            if row is not None:
                subject_id = row.id
                head = store.subject_head(row.id)
                if head.latest_live is not None:
                    latest = self.resolver.parsed(store, self.resolver.content(store, head.latest_live.schema_pk))
                    latest_version = head.latest_live.version
            return self.evaluate(store, qs, subject_id, candidate.parsed, latest, latest_version, config)


def _in_force(
    key: tuple[str, str], found: Mapping[tuple[str, str], dict[str, Any]]
) -> tuple[list[RuleUse], list[str], str]:
    """`PolicyService.effective` once the documents at `policy_keys(*key)` are read."""
    context, name = key
    global_document = found.get(GLOBAL_DOCUMENT) or EMPTY_GLOBAL
    own = (((context, name), "subject"),) if name else ()
    for candidate, source in (*own, ((context, ""), "context")):
        selection = found.get(candidate)
        if selection is not None:
            return uses_of(global_document, selection), list(selection.get("use", [])), source
    selection = {"use": global_document.get("default", [])}
    return uses_of(global_document, selection), list(selection["use"]), "global"


def _reads_every_version(uses: Sequence[RuleUse]) -> bool:
    return any(u.params.get("against") == "all" for u in uses)


def _global(store: PolicyStore) -> dict[str, Any]:
    return store.policy_documents([GLOBAL_DOCUMENT]).get(GLOBAL_DOCUMENT) or dict(EMPTY_GLOBAL)


def _validated(validate: Any, *args: Any) -> dict[str, Any]:
    try:
        return validate(*args)
    except PolicyDocumentError as exc:
        raise InvalidPolicy(exc.message) from None


def _refuse_removing_used_sets(store: PolicyStore, sets: Mapping[str, Any]) -> None:
    """A set a selection still uses cannot go: the message lists who uses it."""
    users: dict[str, list[str]] = {}
    for context, name, selection in store.policy_selections():
        for set_name in selection.get("use", []):
            if set_name not in sets:
                shown = QualifiedSubject(context, name).qualified() if name else f":{context}:"
                users.setdefault(set_name, []).append(shown if context != DEFAULT_CONTEXT or name else ":.:")
    if users:
        set_name, subjects = next(iter(users.items()))
        raise InvalidPolicy(f'set "{set_name}" is still used by {", ".join(subjects)}')
