"""Turning texts and stored rows into parsed schemas, with the in-process caches.

Stored schemas are immutable, so their content, their parsed form and their `format=`
renderings are cached by storage key: the read path parses nothing, and a compatibility
check against 100 versions parses only the candidate.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from app.core.access import OPEN, Action, Guard
from app.core.cache import CacheStatsFactory, LruCache, no_cache_stats
from app.core.errors import InvalidSchema, SchemaTooLarge, StoreError, WorkBudgetSpent
from app.core.limits import SchemaLimits, nesting_exceeds
from app.core.metadata import without_version_property
from app.core.records import StoredSchema
from app.core.store.protocol import Store
from app.core.store.rows import ResolvedReference, VersionRow
from app.core.types import QualifiedSubject, SchemaReference
from app.formats import work_budget
from app.formats.base import Fingerprints, ParsedSchema, RequestChecks, SchemaFormat, SchemaParseError, supports
from app.formats.work_budget import WorkBudgetExceeded


@dataclass(frozen=True)
class Candidate:
    """A schema from a request, parsed and canonicalized, references resolved."""

    schema_type: str
    parsed: ParsedSchema
    references: list[ResolvedReference]

    @property
    def text(self) -> str:
        return self.parsed.canonical

    @property
    def plain_references(self) -> list[SchemaReference]:
        return [r.reference for r in self.references]


@dataclass(frozen=True)
class _Link:
    """One step of a reference chain: the version a reference resolved to, and the name the
    reference gave it (not part of its identity: two names for one version are one step)."""

    context: str
    subject: str
    version: int
    name: str = field(default="", compare=False)

    def named(self, name: str) -> _Link:
        return _Link(self.context, self.subject, self.version, name)


def request_references(raw: Sequence[Any]) -> list[SchemaReference]:
    """References as sent; all three fields are required (42201 "Invalid reference")."""
    out = []
    for item in raw:
        if not isinstance(item, dict):
            raise InvalidSchema("Invalid reference")
        name, subject, version = item.get("name"), item.get("subject"), item.get("version")
        if (
            not isinstance(name, str) or not name
            or not isinstance(subject, str) or not subject
            or not isinstance(version, int) or isinstance(version, bool)
        ):
            raise InvalidSchema("Invalid reference")
        out.append(SchemaReference(name, subject, version))
    return out


@contextmanager
def format_refusals() -> Iterator[None]:
    """Around every call into a format: its `SchemaParseError` is our 42201, message unchanged."""
    try:
        yield
    except WorkBudgetExceeded as exc:
        raise WorkBudgetSpent(exc.message) from None
    except SchemaParseError as exc:
        raise InvalidSchema(exc.message) from None


def within_budget() -> None:
    """For the core's own long loops: the request's time budget, spent -> 42201 (a format's
    loops check it themselves, inside `format_refusals`)."""
    try:
        work_budget.check()
    except WorkBudgetExceeded as exc:
        raise WorkBudgetSpent(exc.message) from None


class SchemaResolver:
    def __init__(
        self, formats: Mapping[str, SchemaFormat], cache_bytes: int, max_schema_bytes: int,
        cache_stats: CacheStatsFactory = no_cache_stats, *, limits: SchemaLimits,
    ):
        self.formats = formats
        self.max_schema_bytes = max_schema_bytes
        self.limits = limits
        # Parsed models weigh most: three eighths of the budget for stored schemas' models and one
        # for requests' (re-registrations send the same texts again), a quarter each for content
        # and renderings.
        self._content: LruCache[int, StoredSchema] = LruCache(cache_bytes // 4, _content_bytes, cache_stats("content"))
        self._parsed: LruCache[int, ParsedSchema] = LruCache(cache_bytes * 3 // 8, _parsed_bytes, cache_stats("parsed"))
        self._requested: LruCache[tuple[str, str], ParsedSchema] = LruCache(
            cache_bytes // 8, _parsed_bytes, cache_stats("requested")
        )
        self._formatted: LruCache[tuple[int, str], str] = LruCache(cache_bytes // 4, len, cache_stats("formatted"))

    def format(self, schema_type: str) -> SchemaFormat:
        """The service's format for an exact (case-sensitive) `schemaType`, as Confluent's
        plain map lookup does: `avro` is 42201 "Invalid schema type avro", to which we add the
        types this server has (Confluent's list is fixed, ours grows)."""
        try:
            return self.formats[schema_type]
        except KeyError:
            supported = ", ".join(self.formats)
            raise InvalidSchema(f"Invalid schema type {schema_type}; this server supports {supported}") from None

    def fingerprint_digits(self) -> dict[str, int]:
        """Every fingerprint algorithm some format computes, with its digest's hex length."""
        digits: dict[str, int] = {}
        for fmt in self.formats.values():
            if supports(fmt, Fingerprints):
                digits.update(fmt.fingerprint_digits)
        return digits

    # ------------------------------------------------------------------ stored schemas
    def cached_content(self, pk: int) -> StoredSchema | None:
        return self._content.get(pk)

    def content(self, store: Store | None, pk: int) -> StoredSchema:
        cached = self._content.get(pk)
        if cached is None:
            if store is None:
                raise StoreError(f"Stored schema row {pk} is not cached")
            loaded = store.load_schemas([pk]).get(pk)
            if loaded is None:
                raise StoreError(f"Stored schema row {pk} disappeared")
            cached = self._content.put(pk, loaded)
        return cached

    def contents(self, store: Store, pks: Sequence[int]) -> list[StoredSchema]:
        """Content for many rows, loading every cache miss in one query."""
        found = {pk: cached for pk in pks if (cached := self._content.get(pk)) is not None}
        for pk, stored in store.load_schemas([pk for pk in pks if pk not in found]).items():
            found[pk] = self._content.put(pk, stored)
        return [found[pk] if pk in found else self.content(store, pk) for pk in pks]

    def remember(self, stored: StoredSchema, parsed: ParsedSchema) -> None:
        """Seed the caches with a schema just committed (its text is `parsed.canonical`)."""
        self._content.put(stored.key, stored)
        self._parsed.put(stored.key, parsed)

    def parsed(self, store: Store, stored: StoredSchema) -> ParsedSchema:
        cached = self._parsed.get(stored.key)
        if cached is None:
            _, deps = self.resolve_references(store, stored.context, stored.references, live_only=False)
            fmt = self.format(stored.schema_type)
            with format_refusals():
                cached = self._parsed.put(stored.key, fmt.parse(stored.schema, deps, strict=False))
        return cached

    def text(self, store: Store, stored: StoredSchema, fmt: str | None) -> str:
        """The schema text for a `format=` value; unknown values give the canonical text."""
        if not fmt:
            return stored.schema
        key = (stored.key, fmt)
        cached = self._formatted.get(key)
        if cached is None:
            parsed = self.parsed(store, stored)
            with format_refusals():
                rendered = self.format(stored.schema_type).formatted(parsed, fmt)
            cached = self._formatted.put(key, stored.schema if rendered is None else rendered)
        return cached

    # ------------------------------------------------------------------ references
    def resolve_references(
        self, store: Store, context: str, refs: Sequence[SchemaReference], *, live_only: bool,
        guard: Guard = OPEN,
    ) -> tuple[list[ResolvedReference], dict[str, str]]:
        """Resolve each reference to a stored version and collect every transitive
        dependency's text, dependencies before their dependents (what `parse` needs).

        An unqualified reference subject lives in the referrer's context; version -1 means
        the latest live version and is stored as the real number. A request's references are
        reads of the subjects they name, so the caller must be allowed to read those (stored
        schemas' own references were checked when they were registered). References that
        lead back to a version already on the way are refused, naming the cycle (42201).
        """
        return self._resolve(store, context, refs, live_only, guard, (), {})

    def _resolve(
        self, store: Store, context: str, refs: Sequence[SchemaReference], live_only: bool, guard: Guard,
        chain: tuple[_Link, ...], done: dict[_Link, dict[str, str]],
    ) -> tuple[list[ResolvedReference], dict[str, str]]:
        """`chain`: the references followed to get here; `done`: the dependencies of each
        version already resolved in this call, so a version many others share (a diamond) is
        read once, not once per path to it."""
        resolved: list[ResolvedReference] = []
        deps: dict[str, str] = {}
        for ref in refs:
            within_budget()  # a request may name 1,000 references, each with its own
            target = QualifiedSubject.parse(ref.subject)
            ctx = target.context if ref.subject.startswith(":") else context
            guard.check(Action.READ, QualifiedSubject(ctx, target.name).qualified())
            row = store.subject_version(ctx, target.name, None if ref.version == -1 else ref.version).version
            if row is None or (live_only and row.deleted):
                raise InvalidSchema(
                    f'No schema reference found for subject "{ref.subject}" and version {ref.version}'
                )
            link = _Link(ctx, target.name, row.version)
            if link in chain:
                names = [step.name for step in chain[chain.index(link):]] + [ref.name]
                raise InvalidSchema("circular reference: " + " -> ".join(names))
            inner = done.get(link)
            if inner is None:
                stored = self.content(store, row.schema_pk)
                _, inner = self._resolve(
                    store, stored.context, stored.references, False, OPEN, (*chain, link.named(ref.name)), done
                )
                done[link] = inner
            for name, text in inner.items():
                deps.setdefault(name, text)
            deps.setdefault(ref.name, self.content(store, row.schema_pk).schema)
            resolved.append(ResolvedReference(SchemaReference(ref.name, ref.subject, row.version), ctx, target.name))
        return resolved, deps

    # ------------------------------------------------------------------ requests
    def candidate(
        self,
        store: Store,
        context: str,
        schema_type: str,
        text: Any,
        refs: Sequence[SchemaReference],
        *,
        normalize: bool,
        strict: bool,
        live_refs: bool,
        guard: Guard = OPEN,
        early: ParsedSchema | None = None,
        prior: Candidate | None = None,
    ) -> Candidate:
        """`early` is `text` already parsed by `parse_early` (strictly, not normalized).
        `prior` is this text's candidate built earlier with the same flags (registration's
        lock-free pre-check): its parse is kept when the references resolve to the same
        versions again (stored content is immutable), so the lock is not held for a parse."""
        fmt = self.format(schema_type)
        if not isinstance(text, str) or not text.strip():
            raise InvalidSchema("Empty schema")
        if len(text) > self.max_schema_bytes or len(text.encode("utf-8")) > self.max_schema_bytes:
            raise SchemaTooLarge(f"Schema is larger than the maximum of {self.max_schema_bytes} bytes")
        self.limits.check(schema_type, text, len(refs))
        if normalize:
            refs = sorted(set(refs), key=lambda r: (r.name, r.subject, r.version))
        try:
            resolved, deps = self.resolve_references(store, context, refs, live_only=live_refs, guard=guard)
        except WorkBudgetSpent:
            raise
        except InvalidSchema as exc:
            # Confluent resolves references inside the provider's parse, so a missing one is
            # reported under the same "Invalid schema of type T, details: ..." template.
            raise InvalidSchema(f"Invalid schema of type {schema_type}, details: {exc.message}") from None
        if prior is not None and prior.schema_type == schema_type and prior.references == resolved:
            return prior
        with format_refusals():
            # A strict parse that succeeded gives what a lenient one would.
            parsed = early if early is not None and not refs else fmt.parse(text, deps, strict=strict)
            if normalize:
                parsed = fmt.normalize(parsed)
        return Candidate(schema_type, parsed, resolved)

    def check_request(self, candidate: Candidate) -> None:
        """For a candidate parsed leniently: what its format refuses in any schema a request
        brings (`RequestChecks`)."""
        fmt = self.format(candidate.schema_type)
        if supports(fmt, RequestChecks):
            with format_refusals():
                fmt.check_request(candidate.parsed)

    def parse_early(self, schema_type: str, text: Any, refs: Sequence[Any]) -> ParsedSchema | None:
        """A registration's schema parsed before it takes the subject's lock, so that other
        registrations into the subject do not wait for the parse. Only a schema without
        references can be (they are read under the lock); any failure is left for the
        parse under the lock to report, in the reference's order of checks. Such a parse
        depends on the text alone, so it is kept: serializers register the same texts again
        at every start, and a re-registration then costs no parse."""
        fmt = self.formats.get(schema_type)
        if fmt is None or refs or not isinstance(text, str) or not text.strip() or len(text) > self.max_schema_bytes:
            return None
        if nesting_exceeds(text, self.limits.max_depth):
            return None
        key = (schema_type, text)
        parsed = self._requested.get(key)
        if parsed is not None:
            return parsed
        try:
            with format_refusals():
                parsed = fmt.parse(text, {}, strict=True)
        except InvalidSchema:
            return None
        self._requested.put(key, parsed)
        return parsed

    def same_documents(
        self,
        stored: StoredSchema,
        candidate: Candidate,
        metadata: dict[str, Any] | None,
        rule_set: dict[str, Any] | None,
    ) -> bool:
        """Lookup equality but for the text, which the caller compares (or its format,
        `SchemaEquality`): neither side is reader or writer; same references (or none sent),
        metadata equal once `confluent:version` is ignored, same rule set."""
        if stored.schema_type != candidate.schema_type:
            return False
        if candidate.references and tuple(candidate.plain_references) != stored.references:
            return False
        if without_version_property(stored.metadata) != without_version_property(metadata):
            return False
        return (stored.rule_set or None) == (rule_set or None)

    def find_match(
        self,
        store: Store,
        versions: Sequence[VersionRow],
        digest: str,
        candidate: Candidate,
        metadata_options: Sequence[dict[str, Any] | None],
        rule_set: dict[str, Any] | None,
    ) -> VersionRow | None:
        """The version among `versions` holding this schema: by identity hash first, then by
        the equivalence scan from newest to oldest."""
        by_hash = [v for v in versions if v.hash == digest]
        if by_hash:
            return by_hash[-1]
        newest_first = list(reversed(versions))
        for version, stored in zip(newest_first, self.contents(store, [v.schema_pk for v in newest_first])):
            if stored.schema == candidate.text and any(
                self.same_documents(stored, candidate, md, rule_set) for md in metadata_options
            ):
                return version
        return None


# A parsed schema's model (dicts, records, names) weighs 11 to 12 bytes per character of its
# text, measured on Avro records of 5 to 200 fields with tracemalloc (bench/cache_memory.py).
PARSED_BYTES_PER_CHAR = 12


def _content_bytes(stored: StoredSchema) -> int:
    documents = len(str(stored.metadata)) if stored.metadata else 0
    documents += len(str(stored.rule_set)) if stored.rule_set else 0
    return len(stored.schema) + documents + 200 * len(stored.references)


def _parsed_bytes(parsed: ParsedSchema) -> int:
    return PARSED_BYTES_PER_CHAR * len(parsed.canonical)
