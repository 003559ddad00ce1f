"""`GET /audit` (extension): the audit trail, newest first, for global administrators.

Filters: `subject` (qualified, exact), `principal`, `action`, `outcome`, `since` and `until`
(ISO-8601 or epoch milliseconds, both inclusive), `offset`, `limit` (default 100, at most
1,000: a larger one is cut to it). A value that does not parse is a 400 naming the parameter,
not Jersey's 404 for the Confluent endpoints' integers: this endpoint is ours.
"""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import audit_entity, json_response
from app.api.requests import INT32_MAX, text
from app.api.service import registry
from app.core.audit import ACTIONS, MAX_LIMIT, OUTCOMES, parse_time
from app.core.errors import BadRequest
from app.core.store.audit import AuditQuery, DEFAULT_AUDIT_LIMIT
from app.security.caller import current_principal

bp = Blueprint("audit", __name__)


@bp.get("/audit")
def list_audit() -> Response:
    query = AuditQuery(
        subject=text("subject"),
        principal=text("principal"),
        action=_one_of("action", ACTIONS),
        outcome=_one_of("outcome", OUTCOMES),
        since=_time("since"),
        until=_time("until"),
        offset=_count("offset", 0),
        limit=min(_count("limit", DEFAULT_AUDIT_LIMIT), MAX_LIMIT),
    )
    rows = registry().audit_events(query, principal=current_principal())
    return json_response([audit_entity(row) for row in rows])


def _invalid(name: str, value: str, why: str = "") -> BadRequest:
    return BadRequest(f"Invalid value for {name}: {value}" + (f" ({why})" if why else ""))


def _one_of(name: str, allowed: frozenset[str]) -> str | None:
    value = text(name)
    if value is not None and value not in allowed:
        raise _invalid(name, value, "one of " + ", ".join(sorted(allowed)))
    return value


def _time(name: str) -> int | None:
    value = text(name)
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise _invalid(name, value, str(exc)) from None


def _count(name: str, default: int) -> int:
    value = text(name)
    if value is None:
        return default
    digits = value.strip()
    # ASCII digits only ('²' passes isdigit() but not int()), and within Java's int as Confluent's
    # parameters are: a larger offset overflows the database's integer and answered 500.
    if not (digits.isascii() and digits.isdigit()) or int(digits) > INT32_MAX:
        raise _invalid(name, value, f"a non-negative integer up to {INT32_MAX}")
    return int(digits)
