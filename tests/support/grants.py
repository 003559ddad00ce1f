"""Auth files built in Python for the authorization tests: the records the loader produces,
written the way the TOML file spells them (`"prefix:payments."`, `contexts = [".staging"]`)."""
from __future__ import annotations

import re

from app.core.access import Principal
from app.security.records import AuthenticationSettings, AuthFile, Grant, PatternKind, Role, SubjectPattern


def pattern(text: str) -> SubjectPattern:
    if text == "*":
        return SubjectPattern(PatternKind.ANY)
    kind, _, body = text.partition(":")
    found = PatternKind(kind)
    return SubjectPattern(found, body, re.compile(body) if found is PatternKind.REGEX else None)


def grant(
    principal: str, role: str, *subjects: str, contexts: tuple[str, ...] = (".",), scope: str | None = None,
    keks: tuple[str, ...] = (),
) -> Grant:
    if scope == "global":
        return Grant(principal, Role[role.upper()], global_scope=True, contexts=())
    return Grant(principal, Role[role.upper()], subjects=tuple(pattern(s) for s in subjects), contexts=contexts,
                 keks=tuple(pattern(k) for k in keks))


def auth_file(*grants: Grant, allow_anonymous: bool = False) -> AuthFile:
    return AuthFile(AuthenticationSettings(allow_anonymous=allow_anonymous), grants=tuple(grants))


def user(name: str, *groups: str, method: str = "basic") -> Principal:
    return Principal(f"user:{name}", frozenset(f"group:{g}" for g in groups), method)


ANONYMOUS_CALLER = Principal("anonymous", method="anonymous")

# The example grants, and a few more that the route and filtering tests use.
EXAMPLE = auth_file(
    grant("user:ops", "admin", scope="global"),
    grant("group:payments", "write", "prefix:payments.", "regex:^billing-(key|value)$", contexts=(".", ".staging")),
    grant("*", "read", "prefix:shared."),
)
