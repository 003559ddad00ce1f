"""Who may do what: the caller of an operation, the authorizer the service consults, and the
events it emits after each write.

The service calls the authorizer at the one place where it knows which subject an operation
really touches: after following an alias, after the other-context fallback, for each holder
of an id, for every subject whose schema a reference reads, and over every listing. So an
authorizer (the security layer's, later) never has to second-guess aliases or contexts: it
is asked about qualified subject names (`:.ctx:name` outside the default context; the empty
name for a context's or the global settings). The default allows everything.
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol


class Action(str, enum.Enum):
    READ = "read"                   # schemas, versions, lookups, compatibility checks, listings
    WRITE = "write"                 # registrations and tag edits
    DELETE = "delete"               # soft and hard deletes of subjects, versions and contexts
    READ_CONFIG = "read_config"     # config and mode reads
    WRITE_CONFIG = "write_config"   # config and mode changes
    # What only an administrator of the subject may do even though the plain operation is a
    # write: a forced registration (no compatibility check) and a permanent delete. Checked
    # instead of WRITE / DELETE, so an alias cannot lend admin rights it was not granted on.
    ADMIN = "admin"


@dataclass(frozen=True)
class Principal:
    """The caller as the authentication layer identified it.

    `name` is `user:NAME` for an authenticated caller and `anonymous` otherwise; `groups`
    holds `group:NAME` entries (from the auth file's `[[users]]` entry or a token's groups
    claim); `method` is how the caller proved it (`basic`, `bearer`, `mtls`, `anonymous`, or
    `none` when no authentication is configured), which the audit trail records."""

    name: str
    groups: frozenset[str] = field(default_factory=frozenset)
    method: str = "none"


ANONYMOUS = Principal("anonymous")


class Authorizer(Protocol):
    def check(self, principal: Principal, action: Action, subject: str) -> None:
        """Return if `principal` may do `action` on `subject`; raise `Forbidden` otherwise."""
        ...

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        """The subjects `principal` may read, in the given order."""
        ...

    def check_kek(self, principal: Principal, action: Action, context: str, name: str) -> None:
        """Return if `principal` may do `action` on KEK `name` of `context` (READ: see it and
        its DEKs' key material; WRITE and DELETE: make and delete DEKs under it; ADMIN: create,
        change, delete it); raise `Forbidden` otherwise. A DEK's route asks this as well as
        `check` on its subject: its key is only as private as the KEK that wraps it."""
        ...

    def filter_keks(self, principal: Principal, context: str, names: Iterable[str]) -> list[str]:
        """The KEKs of `context` among `names` that `principal` may read, in the given order."""
        ...

    def check_context_admin(self, principal: Principal, context: str) -> None:
        """Return if `principal` administers all of `context` (a global admin grant, or an
        admin grant on every subject of the context); raise `Forbidden` otherwise. What an
        explicit schema id needs: ids belong to the context, not to one subject, so an id
        taken (or pushed to the top of the range) by one subject's admin is taken from all."""
        ...

    def read_scope(self, principal: Principal) -> Hashable | None:
        """What `principal`'s reads depend on. None: it may read every subject of every
        context, so listings need no filtering and the replies cached for everyone may be
        served to it. Otherwise a key that stays equal exactly as long as what it may read
        does (the grants in force for it), under which its own replies are cached."""
        ...


class AllowAll:
    """The default: no authorization configured."""

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        return None

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return list(subjects)

    def check_kek(self, principal: Principal, action: Action, context: str, name: str) -> None:
        return None

    def filter_keks(self, principal: Principal, context: str, names: Iterable[str]) -> list[str]:
        return list(names)

    def check_context_admin(self, principal: Principal, context: str) -> None:
        return None

    def read_scope(self, principal: Principal) -> Hashable | None:
        return None


COMMITTED = "committed"
# A registration refused, or a compatibility check answered "no", because the schema is
# incompatible with the subject's history: nothing was written, but an audit trail and the
# metrics want to know (a producer stuck on an incompatible schema is an incident).
INCOMPATIBLE = "incompatible"


@dataclass(frozen=True)
class WriteEvent:
    """What a committed write changed (`outcome` COMMITTED), or a write refused as
    INCOMPATIBLE, for the audit trail and metrics. `versions` and `schema_id` are set where
    the write has them (registration, deletes)."""

    action: Action
    operation: str
    subject: str
    principal: Principal
    versions: tuple[int, ...] = ()
    schema_id: int | None = None
    outcome: str = COMMITTED


EventSink = Callable[[WriteEvent], None]


def no_events(event: WriteEvent) -> None:
    """The default sink."""


class _once:  # noqa: N801 - used as a decorator, like the functools one it replaces
    """`functools.cached_property` minus its lock (before Python 3.12 one lock, shared by
    every instance and thread) and its checks: the value lands in the instance's dict under
    the attribute's name, so later reads never reach this descriptor. Guards are made for
    each call of a hot read, so the first read is the one that counts."""

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self.compute = compute
        self.name = compute.__name__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


@dataclass(frozen=True)
class Guard:
    """An authorizer bound to one caller: what the service's flows carry around."""

    authorizer: Authorizer
    principal: Principal

    @_once
    def read_scope(self) -> Hashable | None:
        """The authorizer's answer, asked once per guard (a guard lives for one call)."""
        return self.authorizer.read_scope(self.principal)

    @property
    def unrestricted(self) -> bool:
        """The caller may read everything (no authorizer configured, or a global grant): the
        flows skip the per-holder filtering work and share the cached replies."""
        return self.read_scope is None

    def check(self, action: Action, subject: str) -> None:
        self.authorizer.check(self.principal, action, subject)

    def check_context_admin(self, context: str) -> None:
        self.authorizer.check_context_admin(self.principal, context)

    def check_kek(self, action: Action, context: str, name: str) -> None:
        self.authorizer.check_kek(self.principal, action, context, name)

    def filter_keks(self, context: str, names: Iterable[str]) -> list[str]:
        return self.authorizer.filter_keks(self.principal, context, names)

    def readable(self, subject: str) -> bool:
        return self.unrestricted or bool(self.authorizer.filter(self.principal, [subject]))

    def filter(self, subjects: Iterable[str]) -> list[str]:
        return self.authorizer.filter(self.principal, subjects)


OPEN = Guard(AllowAll(), ANONYMOUS)
