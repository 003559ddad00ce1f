"""The authorization table (who may call each route on what) as data, shared by the in-process tests and the
run over real HTTP through gunicorn: request templates, who is allowed and who is the caller
just below, and the exact refusals.

The callers are `support.guarded.CALLERS`: `reader`, `writer` (through its group) and `owner`
hold read, write and admin on the `payments.` subjects of `.` and `.staging`; `nobody` holds
nothing, `everywhere` administers every subject of every context but not the server, and
`ops` administers the server."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

SUBJECT = "payments.orders-value"


def record(*fields: str) -> str:
    return json.dumps({"type": "record", "name": "Order", "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields]})


V1, V2, V3 = record("a"), record("a", "b"), record("a", "b", "c")
TAGS = {"tagsToAdd": [{"schemaEntity": {"entityPath": "Order.a", "entityType": "sr_field"}, "tags": ["PII"]}]}

# (method, path, body) -> (status, parsed body); made as `ops`.
Call = Callable[[str, str, Any], tuple[int, Any]]


def populate(call: Call, subject: str) -> None:
    """Two versions (the first soft-deleted, the second with metadata), the subject's own
    config and mode: enough for every row's allowed request to succeed."""
    steps = [
        ("POST", f"/subjects/{subject}/versions", {"schema": V1}),
        ("POST", f"/subjects/{subject}/versions", {"schema": V2, "metadata": {"properties": {"team": "payments"}}}),
        ("DELETE", f"/subjects/{subject}/versions/1", None),
        ("PUT", f"/config/{subject}", {"compatibility": "BACKWARD"}),
        ("PUT", f"/mode/{subject}", {"mode": "READWRITE"}),
    ]
    for method, path, body in steps:
        status, reply = call(method, path, body)
        assert status == 200, (method, path, status, reply)


def populate_context(call: Call, context: str) -> None:
    """A context's own config and mode, so that deleting them succeeds."""
    for method, path, body in (("PUT", f"/config/:{context}:", {"compatibility": "FULL"}),
                               ("PUT", f"/mode/:{context}:", {"mode": "READWRITE"})):
        status, reply = call(method, path, body)
        assert status == 200, (method, path, status, reply)


class Row(NamedTuple):
    method: str
    path: str           # `{s}` is the subject segment
    query: str
    body: Any
    need: str           # read | write | admin
    allowed: int        # the status the allowed caller gets


SUBJECT_ROWS = {
    "list_versions": Row("GET", "/subjects/{s}/versions", "", None, "read", 200),
    "get_version": Row("GET", "/subjects/{s}/versions/2", "", None, "read", 200),
    "get_latest_schema": Row("GET", "/subjects/{s}/versions/latest/schema", "", None, "read", 200),
    "referencedby": Row("GET", "/subjects/{s}/versions/1/referencedby", "", None, "read", 200),
    "metadata": Row("GET", "/subjects/{s}/metadata", "key=team&value=payments", None, "read", 200),
    "lookup": Row("POST", "/subjects/{s}", "", {"schema": V2}, "read", 200),
    "check_all": Row("POST", "/compatibility/subjects/{s}/versions", "", {"schema": V3}, "read", 200),
    "check_one": Row("POST", "/compatibility/subjects/{s}/versions/latest", "", {"schema": V3}, "read", 200),
    "get_config": Row("GET", "/config/{s}", "", None, "read", 200),
    "get_mode": Row("GET", "/mode/{s}", "", None, "read", 200),
    "register": Row("POST", "/subjects/{s}/versions", "", {"schema": V3}, "write", 200),
    "register_force": Row("POST", "/subjects/{s}/versions", "force=true", {"schema": V3}, "admin", 200),
    "register_force_false": Row("POST", "/subjects/{s}/versions", "force=false", {"schema": V3}, "write", 200),
    "modify_tags": Row("POST", "/subjects/{s}/versions/2/tags", "", TAGS, "write", 200),
    "delete_subject": Row("DELETE", "/subjects/{s}", "", None, "write", 200),
    # Authorized, then refused by the registry's own rule (40405: delete softly first).
    "delete_subject_permanent": Row("DELETE", "/subjects/{s}", "permanent=true", None, "admin", 404),
    "delete_version": Row("DELETE", "/subjects/{s}/versions/2", "", None, "write", 200),
    "delete_version_permanent": Row("DELETE", "/subjects/{s}/versions/1", "permanent=true", None, "admin", 200),
    "put_config": Row("PUT", "/config/{s}", "", {"compatibility": "FULL"}, "admin", 200),
    "delete_config": Row("DELETE", "/config/{s}", "", None, "admin", 200),
    "put_mode": Row("PUT", "/mode/{s}", "", {"mode": "READONLY"}, "admin", 200),
    "delete_mode": Row("DELETE", "/mode/{s}", "", None, "admin", 200),
}
# (allowed caller, denied caller, the operation word of the refusal)
RUNGS = {
    "read": ("reader", "nobody", "Read"),
    "write": ("writer", "reader", "Write"),
    "admin": ("owner", "writer", "Admin"),
}


class Spelling(NamedTuple):
    context: str        # where the subject lives
    qualified: str      # how refusals name it
    prefix: str         # put before the path
    segment: str        # what stands for `{s}`


SPELLINGS = ("default", "qualified", "path_form")


def spelled(spelling: str, subject: str) -> Spelling:
    """`subject` of the default context, or of `.staging` named qualified or by the path form."""
    if spelling == "default":
        return Spelling("", subject, "", subject)
    qualified = ":.staging:" + subject
    if spelling == "qualified":
        return Spelling(":.staging:", qualified, "", qualified)
    return Spelling(":.staging:", qualified, "/contexts/.staging", subject)


def path_of(row: Row, form: Spelling) -> str:
    return form.prefix + row.path.replace("{s}", form.segment)


def forbidden(word: str, subject: str) -> dict[str, Any]:
    return {"error_code": 40301, "message": f"User is denied operation {word} on Subject: {subject}"}


SERVER_DENIED = {"error_code": 40301, "message": "User is denied operation on this server."}


# What any caller past authentication may read (the lists among them filtered).
OPEN_ROWS = [
    "/", "/schemas/types", "/v1/metadata/id", "/v1/metadata/version", "/v1/metadata/deployment",
    "/config", "/mode", "/subjects", "/schemas", "/contexts", "/config/:.staging:", "/contexts/.staging/mode",
]

# What only the server's administrator may do: (method, path, body, status when allowed).
SERVER_ROWS = {
    "put_config": ("PUT", "/config", {"compatibility": "FULL"}, 200),
    "delete_config": ("DELETE", "/config", None, 200),
    "put_mode": ("PUT", "/mode", {"mode": "READWRITE"}, 200),
    "delete_mode": ("DELETE", "/mode", None, 200),
    "put_context_config": ("PUT", "/config/:.staging:", {"compatibility": "FULL"}, 200),
    "delete_context_config": ("DELETE", "/config/:.staging:", None, 200),
    "put_context_mode": ("PUT", "/mode/:.staging:", {"mode": "READWRITE"}, 200),
    "delete_context_mode": ("DELETE", "/mode/:.staging:", None, 200),
    "put_context_config_path_form": ("PUT", "/contexts/.staging/config", {"compatibility": "FULL"}, 200),
    "delete_context_mode_path_form": ("DELETE", "/contexts/.staging/mode", None, 200),
    "put_global_context_config": ("PUT", "/config/:.__GLOBAL:", {"compatibility": "FULL"}, 200),
    "put_global_context_mode": ("PUT", "/mode/:.__GLOBAL:", {"mode": "READWRITE"}, 200),
    "delete_empty_context": ("DELETE", "/contexts/.empty", None, 204),
    # Authorized, then refused by the registry's own rule (42211: the context holds subjects).
    "delete_used_context": ("DELETE", "/contexts/.staging", None, 422),
    # Exporters hold another registry's credentials: administrators only, reads included.
    "list_exporters": ("GET", "/exporters", None, 200),
    "get_missing_exporter": ("GET", "/exporters/none", None, 404),
}
