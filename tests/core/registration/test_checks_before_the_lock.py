"""A registration compares schemas before it takes the subject's lock (SQLite: before
`BEGIN IMMEDIATE`, which every writer of the file waits for), and under the lock only
confirms that what it compared is still the subject's newest.

The comparison is made to block, deterministically, by a format that wraps Avro and whose
`can_read` waits on an event the test sets; what must complete meanwhile runs in a thread
joined with a generous limit, so that a regression fails instead of hanging the suite.
"""
from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from sqlalchemy import event

from app.core.errors import IncompatibleSchema, InvalidSchema, WorkBudgetSpent
from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.formats import work_budget

T = TypeVar("T")
PATIENCE_S = 60  # only ever waited out when a registration is stuck behind the blocked one


class Latch:
    """Once armed, the next `hold` signals `entered` and waits for `release` (the arming is
    spent on that call, so later ones run freely)."""

    def __init__(self) -> None:
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def hold(self) -> None:
        self.calls += 1
        if self.armed:
            self.armed = False
            self.entered.set()
            self.release.wait(PATIENCE_S)


class Wrapped(Latch):
    """Delegates everything to `inner`; subclasses hold one of its methods by the latch."""

    def __init__(self, inner: Any) -> None:
        super().__init__()
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class BlockingCheck(Wrapped):
    """The wrapped format, its `can_read` held by the latch."""

    steps = 0  # work_budget checks each call makes, as a long comparison would
    order: list[str] | None = None  # with `statement_order`: "compare" per call, in order with the lock

    def can_read(self, reader: Any, writer: Any, **kwargs: Any) -> Any:
        self.hold()
        if self.order is not None:
            self.order.append("compare")
        for _ in range(self.steps):
            work_budget.check()
        return self.inner.can_read(reader, writer, **kwargs)


class BlockingDerivation(Wrapped):
    """The wrapped format, its `fingerprints` (derived for new content) held by the latch."""

    def fingerprints(self, parsed: Any) -> Any:
        self.hold()
        return self.inner.fingerprints(parsed)


class BlockingPolicies(Wrapped):
    """The service's policy gate, its evaluation held by the latch."""

    def errors(self, *args: Any) -> Any:
        self.hold()
        return self.inner.errors(*args)


@pytest.fixture
def gate(service: RegistryService) -> Iterator[BlockingCheck]:
    blocking = BlockingCheck(service.formats["AVRO"])
    service.formats["AVRO"] = blocking
    yield blocking
    blocking.release.set()


# The statements that take a subject's lock: SQLite's writer lock at BEGIN, PostgreSQL's row
# lock (or the advisory lock that stands for a subject row not made yet).
LOCK_STATEMENTS = ("BEGIN IMMEDIATE", "FOR UPDATE", "pg_advisory_xact_lock")


@pytest.fixture
def statement_order(service: RegistryService, gate: BlockingCheck) -> Iterator[list[str]]:
    """One list in the order things happened: "compare" for each comparison, "lock" for each
    statement that takes a subject's lock."""
    order: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if any(lock in statement for lock in LOCK_STATEMENTS):
            order.append("lock")

    gate.order = order
    engine = service.storage.engine
    event.listen(engine, "before_cursor_execute", record)
    yield order
    event.remove(engine, "before_cursor_execute", record)


class Outcome:
    """What a registration run in a thread returned or raised."""

    def __init__(self) -> None:
        self.value: Any = None
        self.error: BaseException | None = None


def in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, Outcome]:
    outcome = Outcome()

    def run() -> None:
        try:
            outcome.value = work()
        except BaseException as exc:  # handed to the test's thread
            outcome.error = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def finished(work: Callable[[], T]) -> T:
    """`work`'s result, run in a thread while the test's own thread keeps the check blocked."""
    thread, outcome = in_thread(work)
    thread.join(PATIENCE_S)
    assert not thread.is_alive(), "the registration waited for the blocked compatibility check"
    if outcome.error is not None:
        raise outcome.error
    assert outcome.value is not None
    return outcome.value


def record(**fields: Any) -> SchemaRequest:
    """An Avro record whose fields have these types, each with a default (so that adding one
    keeps BACKWARD compatibility); `"string"` defaults to "", anything else to 0."""
    return SchemaRequest(schema=json.dumps({"type": "record", "name": "Rec", "fields": [
        {"name": name, "type": kind, "default": "" if kind == "string" else 0} for name, kind in fields.items()
    ]}))


def blocked_registration(
    service: RegistryService, gate: Latch, subject: str, request: SchemaRequest
) -> tuple[threading.Thread, Outcome]:
    """A registration started in a thread and held inside its compatibility check (or
    policy evaluation)."""
    gate.armed = True
    thread, outcome = in_thread(lambda: service.register(subject, request))
    assert gate.entered.wait(PATIENCE_S), "the registration never compared"
    return thread, outcome


def settle(thread: threading.Thread, outcome: Outcome, gate: Latch) -> Outcome:
    gate.release.set()
    thread.join(PATIENCE_S)
    assert not thread.is_alive()
    return outcome


def test_an_unrelated_subject_registers_while_a_compatibility_check_runs(
    service: RegistryService, gate: BlockingCheck
) -> None:
    service.register("slow", record(a="string"))
    thread, outcome = blocked_registration(service, gate, "slow", record(a="string", b="int"))

    other = finished(lambda: service.register("other", record(x="string")))

    assert (other.subject, other.version) == ("other", 1)
    done = settle(thread, outcome, gate)
    assert done.error is None and done.value is not None and done.value.version == 2


def test_the_same_subject_registers_while_a_compatibility_check_runs(
    service: RegistryService, gate: BlockingCheck
) -> None:
    service.register("s", record(a="string"))
    thread, outcome = blocked_registration(service, gate, "s", record(a="string", b="int"))

    meanwhile = finished(lambda: service.register("s", record(a="string", c="string")))

    assert meanwhile.version == 2
    done = settle(thread, outcome, gate)
    assert done.error is None and done.value is not None and done.value.version == 3


def test_a_check_overtaken_by_a_new_version_is_made_again_against_it(
    service: RegistryService, gate: BlockingCheck
) -> None:
    """Compatible with version 1, which it was compared with, but not with version 2, which
    landed meanwhile: refused, naming version 2."""
    service.register("s", record(a="string"))
    thread, outcome = blocked_registration(service, gate, "s", record(a="string", b="int"))

    finished(lambda: service.register("s", record(a="string", b="string")))

    done = settle(thread, outcome, gate)
    assert isinstance(done.error, IncompatibleSchema)
    assert "{oldSchemaVersion: 2}" in done.error.message
    assert service.list_versions("s") == [1, 2]


def test_a_check_overtaken_by_a_compatible_version_registers_after_it(
    service: RegistryService, gate: BlockingCheck
) -> None:
    service.register("s", record(a="string"))
    thread, outcome = blocked_registration(service, gate, "s", record(a="string", b="int"))
    finished(lambda: service.register("s", record(a="string", c="string")))
    calls_before_release = gate.calls

    done = settle(thread, outcome, gate)

    assert done.value is not None and done.value.version == 3
    assert gate.calls == calls_before_release + 1  # compared again, with version 2, under the lock


def test_a_verdict_whose_versions_are_unchanged_is_not_reached_twice(
    service: RegistryService, gate: BlockingCheck
) -> None:
    service.register("s", record(a="string"))
    before = gate.calls
    service.register("s", record(a="string", b="int"))
    assert gate.calls == before + 1


def test_a_refusal_reached_before_the_lock_changes_nothing(service: RegistryService, gate: BlockingCheck) -> None:
    service.register("s", record(a="string"))
    with pytest.raises(IncompatibleSchema):
        service.register("s", record(a="int"))
    with pytest.raises(InvalidSchema):
        service.register("s", SchemaRequest(schema='{"type": "record", "name": "Rec", "fields": 1}'))
    assert service.list_versions("s") == [1]


def test_a_budget_spent_comparing_ends_the_registration_before_its_lock(
    service: RegistryService, gate: BlockingCheck, statement_order: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget's clock advances a second per reading, so 10 steps outrun 5 s. A forced
    registration too: the budget bounds the work, whatever the check's outcome would be. The
    statements sent show it: each comparison, and no lock taken after it."""
    service.register("s", record(a="string"))
    ticks = itertools.count()
    with monkeypatch.context() as patched:
        patched.setattr(work_budget, "cpu_clock", lambda: float(next(ticks)))
        gate.steps = 10
        statement_order.clear()
        for force in (False, True):
            with work_budget.limited(5), pytest.raises(WorkBudgetSpent, match="longer than the registry allows"):
                service.register("s", record(a="string", b="int"), force=force)
        assert statement_order == ["compare", "compare"]  # once each, and no lock taken
    assert service.list_versions("s") == [1]
    gate.steps = 0
    statement_order.clear()
    assert service.register("s", record(a="string", b="int")).version == 2
    assert statement_order[:2] == ["compare", "lock"]  # a registration that goes on compares, then locks


def test_a_transitive_check_overtaken_by_a_delete_is_made_again_without_the_deleted_version(
    service: RegistryService, gate: BlockingCheck
) -> None:
    """Under BACKWARD_TRANSITIVE the candidate fails against version 1 only; version 1 is
    deleted while the candidate is being compared, which leaves the newest version as it was:
    the live versions are what the verdict is confirmed against, and it is reached again."""
    service.update_config("s", {"compatibility": "NONE"})
    service.register("s", record(a="int"))
    service.register("s", record(a="string"))
    service.update_config("s", {"compatibility": "BACKWARD_TRANSITIVE"})
    thread, outcome = blocked_registration(service, gate, "s", record(a="string", b="string"))

    finished(lambda: service.delete_version("s", "1"))

    done = settle(thread, outcome, gate)
    assert done.error is None and done.value is not None and done.value.version == 3
    assert service.list_versions("s") == [2, 3]


@pytest.fixture
def policy_gate(service: RegistryService) -> Iterator[BlockingPolicies]:
    blocking = BlockingPolicies(service.registrar.verdicts.policies)
    service.registrar.verdicts.policies = blocking
    yield blocking
    blocking.release.set()


def test_registrations_proceed_while_a_new_subjects_policies_are_evaluated(
    service: RegistryService, policy_gate: BlockingPolicies
) -> None:
    thread, outcome = blocked_registration(service, policy_gate, "slow", record(a="string"))

    assert finished(lambda: service.register("other", record(x="string"))).version == 1
    assert finished(lambda: service.register("slow", record(a="string", b="int"))).version == 1

    done = settle(thread, outcome, policy_gate)
    assert done.error is None and done.value is not None and done.value.version == 2
    assert policy_gate.calls == 4  # the slow one's again, under the lock: "slow" has a version now


def test_registrations_proceed_while_new_content_is_fingerprinted(service: RegistryService) -> None:
    """Fingerprints and the field index are derived from the parse before the lock, once."""
    gate = BlockingDerivation(service.formats["AVRO"])
    service.formats["AVRO"] = gate
    try:
        thread, outcome = blocked_registration(service, gate, "slow", record(a="string"))
        assert finished(lambda: service.register("other", record(x="string"))).version == 1
        done = settle(thread, outcome, gate)
    finally:
        gate.release.set()
    assert done.error is None and done.value is not None and done.value.version == 1
    assert gate.calls == 2
