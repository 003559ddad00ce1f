"""Registration's policy and compatibility steps, decided before the subject's lock and
confirmed under it.

Comparing schemas can take seconds (a large record, a transitive level over a long history).
Done under the lock, it made every other writer wait: the subject's other registrations on
PostgreSQL (its row lock), every registration on SQLite (one writer at a time). So the
lock-free pre-check reaches the verdict and keeps what it rested on (`Basis`): the
candidate's identity, the settings in force and the subject's newest versions. Under the
lock the write path builds the basis again from what it reads anyway (the subject's head;
every live version only where the verdict compared them all, as the steps themselves did) and
reuses the verdict when nothing moved. When something did (a version registered or deleted
meanwhile, a setting changed), the steps run again under the lock, as they always did.

A verdict holds the steps' outcomes, their refusals included: `apply` raises them at the
steps' place in the write path's order, after the match and mode steps that answer first.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypeVar

from app.core.compatibility import levels as compatibility
from app.core.compatibility.checks import CompatibilityChecks
from app.core.errors import IncompatibleSchema, InvalidSchema, RegistryError, WorkBudgetSpent
from app.core.resolver import ResolvedReference
from app.core.store.protocol import Store
from app.core.store.rows import SubjectHead, VersionRow
from app.core.types import CompatibilityLevel, Mode, QualifiedSubject
from app.formats.base import ParsedSchema
from app.policies.engine import refusal_message
from app.policies.rule import Violation
from app.settings import Settings

if TYPE_CHECKING:
    from app.core.registration.steps import Registration

T = TypeVar("T")


class PolicyGate(Protocol):
    """Registration's policy step (app/core/policies.py): the error-severity violations."""

    def errors(self, store: Store, qs: QualifiedSubject, subject_id: int, proposed: ParsedSchema,
               latest: ParsedSchema | None, latest_version: int | None, config: dict[str, Any],
               documents: Mapping[tuple[str, str], dict[str, Any]]) -> list[Violation]: ...

    def compares_every_version(self, qs: QualifiedSubject, documents: Mapping[tuple[str, str], dict[str, Any]]) -> bool:
        ...


class Basis(NamedTuple):
    """What the steps' verdict depends on. Stored content is immutable, so versions stand for
    their schemas; `live` (every live version, oldest first) is read only when the level or a
    policy rule compares them all, otherwise the head's newest live version is the one."""

    subject: QualifiedSubject
    digest: str  # the candidate's text and references, and the merged documents
    references: list[ResolvedReference]  # the versions its references resolved to
    config: dict[str, Any]
    mode: Mode
    policy_documents: Mapping[tuple[str, str], dict[str, Any]]
    head: SubjectHead
    live: list[VersionRow] | None


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """A step's result, or the refusal it raised (kept to be raised at the step's place)."""

    value: T | None
    refusal: RegistryError | None

    def get(self) -> T:
        if self.refusal is not None:
            raise self.refusal
        return self.value  # type: ignore[return-value]


class Compared(NamedTuple):
    """The compatibility step's messages ([] when compatible), or the format's refusal to
    compare at all (a schema too deeply nested to compare), which `force` passes."""

    messages: list[str]
    unrunnable: InvalidSchema | None


class Verdict(NamedTuple):
    """The policy step's violations, and the compatibility step's outcome (None when the
    policy step refuses first, so it is never run)."""

    basis: Basis
    violations: Attempt[list[Violation]]
    compared: Attempt[Compared] | None


def _attempt(step: Callable[[], T]) -> Attempt[T]:
    """Runs a step, keeping a refusal of the request (4xx) for later; a failure of the server
    or the database surfaces at once, as it did when the steps ran under the lock, and so
    does a spent work budget, which is no verdict on the schema: the request ends where it
    ran out, before any lock is taken."""
    try:
        return Attempt(step(), None)
    except WorkBudgetSpent:
        raise
    except RegistryError as exc:
        if exc.http_status >= 500:
            raise
        return Attempt(None, exc)


class RegistrationVerdicts:
    def __init__(self, checks: CompatibilityChecks, settings: Settings):
        self.checks = checks
        self.resolver = checks.resolver
        self.settings = settings
        self.policies: PolicyGate | None = None  # set by the service (app/core/policies.py)

    def decide(self, store: Store, reg: Registration) -> Verdict:
        """The verdict on `reg` (prepared with or without the lock) and what it rested on."""
        return self._evaluate(store, reg, self._basis(store, reg))

    def confirm(self, store: Store, reg: Registration, earlier: Verdict | None) -> Verdict:
        """Under the lock: the verdict reached before it, if its basis still holds, else a
        new one."""
        basis = self._basis(store, reg)
        if earlier is not None and earlier.basis == basis:
            return earlier
        return self._evaluate(store, reg, basis)

    def apply(self, reg: Registration, verdict: Verdict) -> None:
        """Steps 3b and 4 in their order: a policy refusal, then an incompatibility (or the
        format's refusal to compare). A forced registration passes both, with what it
        skipped kept for its audit row; the trail never holds schema text, so the old
        schema's entry stays out."""
        errors = verdict.violations.get()
        if reg.call.force:
            reg.forced_past = tuple(v.brief() for v in errors)
        elif errors:
            raise InvalidSchema(refusal_message(reg.qs.qualified(), errors))
        if verdict.compared is None:
            return
        compared = verdict.compared.get()
        if compared.unrunnable is not None and not reg.call.force:
            raise compared.unrunnable
        if compared.messages and reg.call.force:
            reg.forced_incompatibilities = tuple(m for m in compared.messages if not m.startswith("{oldSchema: "))
        elif compared.messages:
            raise IncompatibleSchema(
                "Schema being registered is incompatible with an earlier schema for subject "
                f'"{reg.qs.qualified()}", details: [{", ".join(compared.messages)}]',
                error_code=self.settings.incompatible_error_code,
            )

    def admits(self, reg: Registration, verdict: Verdict) -> bool:
        """Whether `apply` lets `reg` through (the pre-check then derives what storing it needs)."""
        try:
            self.apply(reg, verdict)
        except RegistryError:
            return False
        return True

    def _policy_applies(self, reg: Registration) -> bool:
        """Policies gate READWRITE registrations only, never imports."""
        return self.policies is not None and not reg.importing and reg.mode is Mode.READWRITE

    def _basis(self, store: Store, reg: Registration) -> Basis:
        level = CompatibilityLevel.parse(reg.config["compatibility"])
        every = (not reg.importing and compatibility.needs_all_live_versions(
            level, reg.config.get("compatibilityGroup"))) or (
            self._policy_applies(reg) and self.policies.compares_every_version(  # type: ignore[union-attr]
                reg.qs, reg.policy_documents))
        live = None
        if every:  # a subject without versions has none to read
            live = store.live_versions(reg.subject.id) if reg.head.last_version else []
        return Basis(reg.qs, reg.digest, reg.candidate.references, reg.config, reg.mode, reg.policy_documents,
                     reg.head, live)

    def _evaluate(self, store: Store, reg: Registration, basis: Basis) -> Verdict:
        violations = _attempt(lambda: self._violations(store, reg))
        compared = None
        if violations.refusal is None and (reg.call.force or not violations.value):
            compared = _attempt(lambda: self._compare(store, reg, basis.live))
        return Verdict(basis, violations, compared)

    def _violations(self, store: Store, reg: Registration) -> list[Violation]:
        """Step 3b: the subject's schema policies' error-severity violations."""
        if not self._policy_applies(reg):
            return []
        latest = self.resolver.parsed(store, reg.latest) if reg.latest is not None else None
        version = reg.head.latest_live.version if reg.head.latest_live is not None else None
        return self.policies.errors(  # type: ignore[union-attr]
            store, reg.qs, reg.subject.id, reg.candidate.parsed, latest, version, reg.config, reg.policy_documents)

    def _compare(self, store: Store, reg: Registration, live: list[VersionRow] | None) -> Compared:
        """Step 4: against the versions the level names (none when importing)."""
        if reg.importing:
            return Compared([], None)
        level = CompatibilityLevel.parse(reg.config["compatibility"])
        history = self.checks.history(
            store, reg.subject.id if reg.head.last_version else None, reg.head.latest_live, level, reg.config,
            reg.metadata, live=live,
        )
        try:
            messages = compatibility.check(
                self.resolver.formats, level, reg.candidate.parsed, history,
                validate_fields=bool(reg.config.get("validateFields")), policy=compatibility.policy_of(reg.config),
                reserved_violations=self.checks.reserved_violations(
                    reg.config, reg.candidate, reg.metadata, reg.latest),
            )
        except WorkBudgetSpent:
            raise  # not a schema the format cannot take: `force` does not pass it
        except InvalidSchema as exc:
            return Compared([], exc)
        return Compared(messages, None)
