"""What a caller may do: the auth file's `[[grants]]` as the core's `Authorizer`.

The core asks about qualified subject names (`:.ctx:name` outside the default context) and
one of its `Action`s; the grants speak of roles. The mapping, and why:

| Action                      | Role  | what asks for it                                    |
|-----------------------------|-------|-----------------------------------------------------|
| READ, READ_CONFIG           | read  | schemas, versions, lookups, checks, listings, a subject's config and mode |
| WRITE, DELETE               | write | registrations, tag edits, soft deletes              |
| ADMIN, WRITE_CONFIG         | admin | forced registrations, permanent deletes, a subject's config and mode changes |

A name with no subject part (`""` for the server, `:.ctx:` for a context) is the server
itself: only a `scope = "global"` grant covers it, with the admin role for anything but a
read (a context's settings and its deletion are the server's), and the refusal is the
server's message.
KEKs are asked about apart (`check_kek`, `filter_keks`): a grant's `keks` patterns, in its
contexts, give its role on those KEKs (read: see and test one, read its DEKs' key material;
write: make DEKs under it; admin: create, change, delete it). No subject grant reaches a
KEK, and of the global grants only an admin one holds every KEK: a file that names no KEK
leaves the keys to the server's administrators.
Reading the server's or a context's settings is the exception: any caller who got past
authentication may (as `GET /config` and `GET /mode` may), since what they hold is the
registry's defaults, not any team's subjects.

Authentication re-reads the file when it changes, so the authorizer is handed a callable
returning the file now in force (None: authentication is off and everything is allowed).
Each file is compiled once, on first use: grants indexed by principal, patterns sorted by
kind (exact names in a set, prefixes, the regexes the loader already compiled); what
applies to one caller is remembered per file, so a request costs a few dictionary lookups
and the pattern tests of the caller's own grants.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from app.core.access import Action, Principal
from app.core.errors import Forbidden
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject
from app.security.records import AuthFile, Grant, PatternKind, Role, SubjectPattern

NEEDED_ROLE: dict[Action, Role] = {
    Action.READ: Role.READ,
    Action.READ_CONFIG: Role.READ,
    Action.WRITE: Role.WRITE,
    Action.DELETE: Role.WRITE,
    Action.ADMIN: Role.ADMIN,
    Action.WRITE_CONFIG: Role.ADMIN,
}
# On the server itself (no subject named) a read is a read; any change is an administrator's.
_SERVER_ROLE: dict[Action, Role] = {Action.READ: Role.READ}

ANY_AUTHENTICATED = "*"
ANONYMOUS_PRINCIPAL = "anonymous"
_ALL_CONTEXTS = "*"
# Callers remembered per loaded file; past this many (a token issuer minting endless names)
# the memory starts over rather than growing.
_MAX_CALLERS = 10_000


@dataclass(frozen=True)
class _Names:
    """A grant's `subjects` or `keks`, split by kind for a quick test."""

    any_name: bool
    exact: frozenset[str]
    prefixes: tuple[str, ...]
    regexes: tuple[re.Pattern[str], ...]

    @classmethod
    def of(cls, patterns: Iterable[SubjectPattern]) -> _Names:
        kinds = {kind: [p for p in patterns if p.kind is kind] for kind in PatternKind}
        return cls(
            any_name=bool(kinds[PatternKind.ANY]),
            exact=frozenset(p.text for p in kinds[PatternKind.EXACT]),
            prefixes=tuple(p.text for p in kinds[PatternKind.PREFIX]),
            regexes=tuple(p.regex or re.compile(p.text) for p in kinds[PatternKind.REGEX]),
        )

    def match(self, name: str) -> bool:
        return (
            self.any_name
            or name in self.exact
            or name.startswith(self.prefixes)
            or any(regex.fullmatch(name) for regex in self.regexes)
        )


@dataclass(frozen=True)
class _Rule:
    """One grant, ready to test: contexts as a set, patterns split by kind."""

    role: Role
    global_scope: bool
    all_contexts: bool
    contexts: frozenset[str]
    subjects: _Names
    keks: _Names

    @classmethod
    def of(cls, grant: Grant) -> _Rule:
        contexts = frozenset(_context_name(c) for c in grant.contexts)
        return cls(
            role=grant.role,
            global_scope=grant.global_scope,
            all_contexts=_ALL_CONTEXTS in contexts,
            contexts=contexts,
            subjects=_Names.of(grant.subjects),
            keks=_Names.of(grant.keks),
        )

    def in_context(self, context: str) -> bool:
        return self.all_contexts or context in self.contexts

    def covers(self, context: str, name: str) -> bool:
        """Whether this grant reaches subject `name` of `context` (a non-empty name)."""
        if self.global_scope:
            return True
        return self.in_context(context) and self.subjects.match(name)

    def covers_kek(self, context: str, name: str) -> bool:
        """Whether this grant names KEK `name` of `context`. A global grant is left to the
        caller's `global_role`: only a global admin holds every KEK."""
        return not self.global_scope and self.in_context(context) and self.keks.match(name)


class _CallerRules:
    """The rules that apply to one caller, strongest role first."""

    def __init__(self, rules: list[_Rule]):
        self.rules = tuple(sorted(rules, key=lambda r: -r.role))
        self.global_role = max((r.role for r in rules if r.global_scope), default=None)

    def global_allows(self, role: Role) -> bool:
        return self.global_role is not None and self.global_role >= role

    def administers_context(self, context: str) -> bool:
        """An admin grant on the whole context: every subject of it (`"*"`), or global."""
        return self.global_allows(Role.ADMIN) or any(
            rule.role >= Role.ADMIN and rule.subjects.any_name and rule.in_context(context) for rule in self.rules
        )

    def allows(self, role: Role, context: str, name: str) -> bool:
        if self.global_allows(role):
            return True
        for rule in self.rules:
            if rule.role < role:
                return False  # sorted: every rule after this one is weaker still
            if rule.covers(context, name):
                return True
        return False

    def allows_kek(self, role: Role, context: str, name: str) -> bool:
        """A global admin holds every KEK; anyone else needs a `keks` pattern naming it."""
        if self.global_allows(Role.ADMIN):
            return True
        for rule in self.rules:
            if rule.role < role:
                return False
            if rule.covers_kek(context, name):
                return True
        return False


class _CompiledGrants:
    """One auth file's grants, indexed by the principal they name."""

    def __init__(self, grants: Iterable[Grant]):
        self._by_principal: dict[str, list[_Rule]] = {}
        for grant in grants:
            self._by_principal.setdefault(grant.principal, []).append(_Rule.of(grant))
        self._callers: dict[Principal, _CallerRules] = {}

    def for_caller(self, principal: Principal) -> _CallerRules:
        found = self._callers.get(principal)
        if found is None:
            names = [principal.name, *sorted(principal.groups)]
            if is_authenticated(principal):
                names.append(ANY_AUTHENTICATED)
            found = _CallerRules([rule for name in names for rule in self._by_principal.get(name, ())])
            if len(self._callers) >= _MAX_CALLERS:
                self._callers.clear()
            self._callers[principal] = found
        return found


def is_authenticated(principal: Principal) -> bool:
    """A caller who proved a name (Basic, bearer, certificate): what the `*` principal means."""
    return principal.name.startswith("user:")


class GrantAuthorizer:
    """The core's `Authorizer` over the grants of the auth file now in force."""

    def __init__(self, current: Callable[[], AuthFile | None]):
        self._current = current
        self._compiled: tuple[AuthFile, _CompiledGrants] | None = None

    def _caller_rules(self, principal: Principal) -> _CallerRules | None:
        """None when authentication is off (no file): everyone may do everything."""
        file = self._current()
        if file is None:
            return None
        compiled = self._compiled
        if compiled is None or compiled[0] is not file:
            compiled = (file, _CompiledGrants(file.grants))
            self._compiled = compiled  # one assignment: a racing thread at worst compiles twice
        return compiled[1].for_caller(principal)

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        rules = self._caller_rules(principal)
        if rules is None:
            return
        qs = QualifiedSubject.parse(subject)
        if not qs.name:
            if action is Action.READ_CONFIG or rules.global_allows(_SERVER_ROLE.get(action, Role.ADMIN)):
                return
            raise Forbidden.for_server()
        role = NEEDED_ROLE[action]
        if not rules.allows(role, qs.context, qs.name):
            raise Forbidden.for_subject(role.name.capitalize(), qs.qualified())

    def check_kek(self, principal: Principal, action: Action, context: str, name: str) -> None:
        rules = self._caller_rules(principal)
        if rules is None:
            return
        role = NEEDED_ROLE[action]
        if not rules.allows_kek(role, context, name):
            raise Forbidden.for_kek(role.name.capitalize(), name)

    def filter_keks(self, principal: Principal, context: str, names: Iterable[str]) -> list[str]:
        rules = self._caller_rules(principal)
        if rules is None:
            return list(names)
        return [name for name in names if rules.allows_kek(Role.READ, context, name)]

    def check_context_admin(self, principal: Principal, context: str) -> None:
        rules = self._caller_rules(principal)
        if rules is None or rules.administers_context(context):
            return
        raise Forbidden.for_context_admin(context)

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        rules = self._caller_rules(principal)
        if rules is None:
            return list(subjects)
        kept = []
        for subject in subjects:
            qs = QualifiedSubject.parse(subject)
            if qs.name and rules.allows(Role.READ, qs.context, qs.name):
                kept.append(subject)
        return kept

    def read_scope(self, principal: Principal) -> Hashable | None:
        """None for a caller with a global grant (it reads everything); otherwise the rules
        compiled for this caller from the file in force: the same object until the file
        changes, so replies cached under it are served to it alone and only meanwhile."""
        rules = self._caller_rules(principal)
        if rules is None or rules.global_role is not None:
            return None
        return rules


def _context_name(context: str) -> str:
    """A grant's context as the core names it (`.`, `.staging`), `*` kept as is."""
    if context in (_ALL_CONTEXTS, DEFAULT_CONTEXT) or context.startswith("."):
        return context
    return "." + context
