"""A test authorizer for the core's authorization hook: it records every check and refuses any
scope whose name contains "secret", so a test can see which subject core really checked
(the alias's target, the context a selection names) and that a refusal changes nothing."""
from __future__ import annotations

from collections.abc import Iterable

from app.core.access import Action, Principal
from app.core.errors import Forbidden


class DenySecret:
    def __init__(self) -> None:
        self.checked: list[tuple[str, Action, str]] = []  # (principal name, action, scope)

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        self.checked.append((principal.name, action, subject))
        if "secret" in subject:
            raise Forbidden.for_subject(action.value.capitalize(), subject)

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return [s for s in subjects if "secret" not in s]

    def check_context_admin(self, principal: Principal, context: str) -> None:
        if "secret" in context:
            raise Forbidden.for_context_admin(context)

    def read_scope(self, principal: Principal) -> Principal:
        return principal
