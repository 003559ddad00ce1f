"""What a transfer accepts from another registry: a reply read up to a byte limit, and of the
JSON shape the call expects.

Another registry is not trusted to be well-behaved: a reply of 100 MB, or one that never ends,
must cost this process no more memory than the limit (REGISTRY_EXPORTER_MAX_REPLY_BYTES), and
a reply of the wrong type must stop the transfer with a sentence that says so ("the target's
reply to GET /subjects was not a JSON list"), not with a Python exception deep in the code
that used it. The exporters, `sqlregistry export`, `import`, `mirror` and `verify` all read
through `RestRegistry`, so all of them are bounded and checked here.
"""
from __future__ import annotations

import time
from typing import Any

from urllib3.response import BaseHTTPResponse

from app.transfer.errors import TransferError

DEFAULT_MAX_REPLY_BYTES = 16 * 1024 * 1024
_CHUNK = 64 * 1024
_PLURAL = {str: "strings", int: "integers"}


class ReplyTooLarge(TransferError):
    """A reply over the byte limit: not retried, the same request would get the same reply."""


def read_bounded(response: BaseHTTPResponse, limit: int, deadline: float, what: str) -> bytes:
    """The body of `response` (read with `preload_content=False`), at most `limit` bytes;
    `ReplyTooLarge` past it (the connection is closed, the rest never read), TimeoutError
    once `deadline` (time.monotonic()) passes between two chunks of a reply that trickles."""
    declared = response.headers.get("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        response.close()
        raise ReplyTooLarge(f"{what} declared {int(declared)} bytes, over the limit of {limit} bytes "
                            "(REGISTRY_EXPORTER_MAX_REPLY_BYTES)")
    data = bytearray()
    while True:
        chunk = response.read(_CHUNK)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            response.close()
            raise ReplyTooLarge(f"{what} went past the limit of {limit} bytes (REGISTRY_EXPORTER_MAX_REPLY_BYTES)")
        if time.monotonic() > deadline:
            response.close()
            raise TimeoutError(f"{what} was not complete in time")
    return bytes(data)


def a_list(body: Any, what: str, item: type | tuple[type, ...] = str) -> list[Any]:
    """`body` when it is a JSON list of `item`s (an int is never a bool here)."""
    if not isinstance(body, list):
        raise TransferError(f"{what} was not a JSON list")
    if not all(isinstance(x, item) and not (isinstance(x, bool) and item is not bool) for x in body):
        raise TransferError(f"{what} was not a JSON list of {_PLURAL.get(item, 'values of one type')}")
    return body


def an_object(body: Any, what: str, required: dict[str, type | tuple[type, ...]] | None = None,
              optional: dict[str, type | tuple[type, ...]] | None = None) -> dict[str, Any]:
    """`body` when it is a JSON object whose `required` fields are there and, like the
    `optional` ones that are there (null counts as absent), of the type given."""
    if not isinstance(body, dict):
        raise TransferError(f"{what} was not a JSON object")
    for name, kind in (required or {}).items():
        if not _is(body.get(name), kind):
            raise TransferError(f"{what} has no `{name}` ({_kind(kind)})")
    for name, kind in (optional or {}).items():
        if body.get(name) is not None and not _is(body[name], kind):
            raise TransferError(f"{what} has a `{name}` that is not {_kind(kind)}")
    return body


def schema_reply(body: Any, what: str, with_id: bool) -> dict[str, Any]:
    """A version's or an id's reply: the schema's text, its type, its references (each a
    name, a subject and a version), and (with `with_id`) its id."""
    found = an_object(body, what, {"schema": str, **({"id": int} if with_id else {})},
                      {"schemaType": str, "references": list, "deleted": bool, "version": int, "subject": str,
                       "metadata": dict, "ruleSet": dict, "maxId": int})
    for ref in found.get("references") or ():
        an_object(ref, f"{what} (a reference)", {"name": str, "subject": str, "version": int})
    return found


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    return isinstance(value, kind) and not (isinstance(value, bool) and kind in (int, (int,)))


def _kind(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", bool: "a boolean", list: "a list", dict: "an object"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)
