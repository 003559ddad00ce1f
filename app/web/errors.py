"""What goes wrong on a UI page, as exceptions the blueprint's one handler turns into HTML pages.

Each carries the status and what the page template needs to explain it; none carries markup,
so everything they hold is escaped like any other value when the page renders.
"""
from __future__ import annotations

from typing import Any


class PageError(Exception):
    """A page that answers with an explanation instead of its content."""

    status = 500
    template = "error.html"

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message)
        self.message = message
        self.context = context


class BadParameter(PageError):
    """A query or form value that cannot mean anything (`from=abc`, a 300-character `q`)."""

    status = 400

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"The parameter {name!s} {problem}.", parameter=name)
        self.parameter = name


class NoSuchSubject(PageError):
    status = 404
    template = "missing_subject.html"

    def __init__(self, subject: str, soft_deleted: bool) -> None:
        super().__init__(f"No subject named {subject}", subject=subject, soft_deleted=soft_deleted)


class NoSuchVersion(PageError):
    status = 404
    template = "missing_version.html"

    def __init__(self, subject: str, version: str, existing: list[int]) -> None:
        super().__init__(
            f"Subject {subject} has no version {version}", subject=subject, version=version, existing=existing
        )


class NoSuchSchema(PageError):
    status = 404
    template = "missing_schema.html"

    def __init__(self, schema_id: int, context: str | None) -> None:
        super().__init__(f"No schema with id {schema_id}", schema_id=schema_id, context=context)


class NotAllowed(PageError):
    """A write the principal may not make, or any write while the UI is read-only."""

    status = 403


class BadForm(PageError):
    """A POST without the CSRF token its form carried (or with a stale one)."""

    status = 400
