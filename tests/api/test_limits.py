"""Request limits: bad input gets the right Confluent-format 4xx, never a 500,
and nothing is stored.

The body size limit is exercised through real gunicorn on the shared live server (SQLite and
PostgreSQL), over a raw socket where the point is what the server does before reading the
body; the other limits through the test client, on both databases as well.
"""
from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest

from api_client import V1_JSON, Api, enc
from api_samples import RECORD_V1

from app.settings import Settings
from app.wiring import build_registry

LIMIT = 4_194_304  # REGISTRY_MAX_REQUEST_BYTES's default, which the shared live server runs with


# ------------------------------------------------------------------ HTTP helpers
def raw_exchange(base_url: str, head: bytes, body_parts: Iterator[bytes] = iter(())) -> tuple[int, dict, bytes]:
    """Send `head` and then as much of `body_parts` as the server takes; return the reply."""
    address = urlsplit(base_url)
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(head)
        try:
            for part in body_parts:
                sock.sendall(part)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the whole body was sent
        reader = sock.makefile("rb")
        response = http.client.HTTPResponse(sock)
        response.fp = reader  # type: ignore[assignment]
        response.begin()
        return response.status, dict(response.getheaders()), response.read()


def live_json(base_url: str, method: str, path: str) -> tuple[int, object]:
    connection = http.client.HTTPConnection(urlsplit(base_url).netloc, timeout=30)
    try:
        connection.request(method, path, headers={"Accept": V1_JSON})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def register_head(base_url: str, subject: str, framing: str) -> bytes:
    host = urlsplit(base_url).netloc
    return (
        f"POST /subjects/{enc(subject)}/versions HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: {V1_JSON}\r\n{framing}\r\n\r\n"
    ).encode()


def chunks(total: int, size: int = 65536) -> Iterator[bytes]:
    """A chunked body of `total` bytes of JSON-ish filler, then the terminating chunk."""
    sent = 0
    while sent < total:
        piece = b" " * min(size, total - sent)
        sent += len(piece)
        yield b"%x\r\n%s\r\n" % (len(piece), piece)
    yield b"0\r\n\r\n"


def assert_nothing_stored(base_url: str, subject: str) -> None:
    status, body = live_json(base_url, "GET", f"/subjects/{enc(subject)}/versions")
    assert (status, body) == (404, {"error_code": 40401, "message": f"Subject '{subject}' not found."})


# ------------------------------------------------------------------ 413 through gunicorn
def test_content_length_over_the_limit_is_413_before_the_body_is_read(
    live_server: str, unique_subject: Callable[[str], str]
) -> None:
    """A gigabyte is announced and never sent: the reply can only come from the header."""
    subject = unique_subject()
    status, headers, body = raw_exchange(live_server, register_head(live_server, subject, "Content-Length: 1000000000"))
    assert status == 413
    assert headers["Content-Type"] == V1_JSON
    assert json.loads(body) == {
        "error_code": 413,
        "message": f"Request body of 1000000000 bytes exceeds the limit of {LIMIT} bytes",
    }
    assert_nothing_stored(live_server, subject)


def test_content_length_one_past_the_limit_is_413_and_at_the_limit_is_read(
    live_server: str, unique_subject: Callable[[str], str]
) -> None:
    subject = unique_subject()
    document = json.dumps({"schema": RECORD_V1}).encode()
    at_limit = document + b" " * (LIMIT - len(document))
    for body, expected in ((at_limit + b" ", 413), (at_limit, 200)):
        head = register_head(live_server, subject, f"Content-Length: {len(body)}")
        status, _, reply = raw_exchange(live_server, head, iter([body]))
        assert status == expected, reply
    assert live_json(live_server, "GET", f"/subjects/{enc(subject)}/versions") == (200, [1])


def test_chunked_body_is_cut_off_one_byte_past_the_limit(
    live_server: str, unique_subject: Callable[[str], str]
) -> None:
    """Sixteen megabytes offered in chunks: refused once the server has read the limit plus one."""
    subject = unique_subject()
    head = register_head(live_server, subject, "Transfer-Encoding: chunked")
    status, headers, body = raw_exchange(live_server, head, chunks(4 * LIMIT))
    assert (status, headers["Content-Type"]) == (413, V1_JSON)
    assert json.loads(body) == {
        "error_code": 413,
        "message": f"Request body of {LIMIT + 1} bytes exceeds the limit of {LIMIT} bytes",
    }
    assert_nothing_stored(live_server, subject)


def test_chunked_body_within_the_limit_registers(live_server: str, unique_subject: Callable[[str], str]) -> None:
    subject = unique_subject()
    document = json.dumps({"schema": RECORD_V1}).encode()
    parts = [b"%x\r\n%s\r\n" % (len(document[i:i + 7]), document[i:i + 7]) for i in range(0, len(document), 7)]
    head = register_head(live_server, subject, "Transfer-Encoding: chunked")
    status, _, body = raw_exchange(live_server, head, iter([*parts, b"0\r\n\r\n"]))
    assert status == 200, body
    assert json.loads(body)["version"] == 1


def test_every_route_refuses_an_oversized_body_in_json(settings: Settings) -> None:
    """The limit is in front of the whole app: the health probe gets the same 413."""
    from app.server.factory import create_app

    api = Api(create_app(settings.with_overrides(max_request_bytes=100)).test_client())
    for method, path in (("POST", "/subjects/s/versions"), ("PUT", "/config"), ("GET", "/health/live")):
        reply = api.call(method, path, raw=b"{" + b" " * 100 + b"}")
        assert (reply.status, reply.json) == (
            413, {"error_code": 413, "message": "Request body of 102 bytes exceeds the limit of 100 bytes"}
        ), (method, path)


# ------------------------------------------------------------------ 42209
@pytest.fixture
def small_schemas(settings: Settings) -> Api:
    from app.server.factory import create_app

    return Api(create_app(settings.with_overrides(max_schema_bytes=1000)).test_client())


def test_schema_text_over_the_byte_limit_is_42209_counted_in_utf8(small_schemas: Api) -> None:
    """990 characters, 1,980 bytes: the limit is on the UTF-8 bytes, not the characters."""
    api = small_schemas
    before = api.snapshot()
    wide = '{"type":"record","name":"W","doc":"%s","fields":[]}' % ("é" * (990 - 45))
    narrow = '{"type":"record","name":"N","doc":"%s","fields":[]}' % ("e" * (990 - 45))
    reply = api.register("s", wide)
    assert (reply.status, reply.json) == (
        422, {"error_code": 42209, "message": "Schema is larger than the maximum of 1000 bytes"}
    )
    assert api.snapshot() == before
    assert api.registered("s", narrow)["version"] == 1


# ------------------------------------------------------------------ nesting of the body
def body_nested(levels: int) -> str:
    """A register body whose (ignored) extra property makes the document `levels` deep."""
    inner = "[" * (levels - 1) + "]" * (levels - 1)
    return '{"schema":%s,"extra":%s}' % (json.dumps(RECORD_V1), inner)


@pytest.mark.parametrize("levels", [65, 100_000])
def test_body_nested_deeper_than_64_levels_is_400(api: Api, levels: int) -> None:
    before = api.snapshot()
    reply = api.call("POST", "/subjects/s/versions", raw=body_nested(levels))
    assert (reply.status, reply.json) == (
        400, {"error_code": 400, "message": "Request body is nested more than 64 levels deep"}
    )
    assert api.snapshot() == before


def test_body_64_levels_deep_is_read(api: Api) -> None:
    reply = api.call("POST", "/subjects/s/versions", raw=body_nested(64))
    assert reply.status == 200, reply


def test_brackets_inside_strings_do_not_count_as_body_nesting(api: Api) -> None:
    reply = api.call("POST", "/subjects/s/versions", raw=json.dumps({"schema": RECORD_V1, "note": "[" * 200}))
    assert reply.status == 200, reply


# ------------------------------------------------------------------ nesting of the schema
def avro_arrays(levels: int) -> str:
    text = '"int"'
    for _ in range(levels):
        text = '{"type":"array","items":%s}' % text
    return text


def json_schema_default(levels: int) -> str:
    """A JSON Schema one level deep whose `default` makes the document `levels` deep."""
    return '{"type":"array","default":%s}' % ("[" * (levels - 1) + "]" * (levels - 1))


def protobuf_messages(levels: int) -> str:
    text = "message M { int32 a = 1; }"
    for level in range(levels - 1):
        text = f"message M{level} {{ {text} }}"
    return 'syntax = "proto3";\n' + text


SCHEMA_SHAPES = {
    "AVRO": avro_arrays,
    "JSON": json_schema_default,
    "PROTOBUF": protobuf_messages,
}


def too_deep(schema_type: str, limit: int) -> dict[str, object]:
    return {
        "error_code": 42201,
        "message": f"Invalid schema of type {schema_type}, details: Schema is nested more than {limit} levels deep "
                   "(the limit set by REGISTRY_MAX_SCHEMA_DEPTH)",
    }


@pytest.mark.parametrize("schema_type", SCHEMA_SHAPES)
@pytest.mark.parametrize("levels", [129, 5_000])
def test_schema_deeper_than_the_limit_is_42201_naming_it_for_every_format(
    api: Api, schema_type: str, levels: int
) -> None:
    api.registered("s", RECORD_V1)
    before = api.snapshot()
    schema = SCHEMA_SHAPES[schema_type](levels)
    body = {"schema": schema, "schemaType": schema_type}
    for reply in (
        api.post("/subjects/s/versions", body),
        api.post("/subjects/new/versions", body),
        api.post("/subjects/s", body),
        api.post("/compatibility/subjects/s/versions/latest", body),
    ):
        assert (reply.status, reply.json) == (422, too_deep(schema_type, 128))
    assert api.snapshot() == before


@pytest.mark.parametrize("schema_type", ["AVRO", "JSON"])
def test_schema_at_the_limit_registers(api: Api, schema_type: str) -> None:
    """(Protobuf's compiler has a nesting bound of its own far below 128 messages.)"""
    reply = api.register("s", SCHEMA_SHAPES[schema_type](128), schemaType=schema_type)
    assert reply.status == 200, reply


@pytest.mark.parametrize("schema_type", SCHEMA_SHAPES)
def test_the_depth_limit_follows_the_setting(settings: Settings, schema_type: str) -> None:
    from app.server.factory import create_app

    api = Api(create_app(settings.with_overrides(max_schema_depth=10)).test_client())
    reply = api.register("s", SCHEMA_SHAPES[schema_type](11), schemaType=schema_type)
    assert (reply.status, reply.json) == (422, too_deep(schema_type, 10))
    if schema_type != "PROTOBUF":
        assert api.register("s", SCHEMA_SHAPES[schema_type](10), schemaType=schema_type).status == 200


def test_the_depth_limit_cannot_pass_the_formats_own_bound() -> None:
    with pytest.raises(ValueError, match="REGISTRY_MAX_SCHEMA_DEPTH"):
        build_registry(Settings.from_env({"REGISTRY_MAX_SCHEMA_DEPTH": "201"}))
    assert Settings.from_env({"REGISTRY_MAX_SCHEMA_DEPTH": "200"}).max_schema_depth == 200


# ------------------------------------------------------------------ references
def test_more_than_1000_references_is_42201_before_any_is_looked_up(api: Api) -> None:
    """None of the referenced subjects exists: the count is judged first."""
    before = api.snapshot()
    references = [{"name": f"r{i}.avsc", "subject": f"missing-{i}", "version": 1} for i in range(1001)]
    for path in ("/subjects/s/versions", "/subjects/s", "/compatibility/subjects/s/versions"):
        reply = api.post(path, {"schema": '"int"', "references": references})
        assert (reply.status, reply.json) == (422, {
            "error_code": 42201,
            "message": "Invalid schema of type AVRO, details: Schema has 1001 references, more than the limit of 1000",
        }), path
    assert api.snapshot() == before


def test_1000_references_are_resolved(api: Api) -> None:
    """(JSON Schema: one referenced schema may be named any number of times.)"""
    api.registered("leaf", '{"type":"string"}', schemaType="JSON")
    references = [{"name": f"r{i}.json", "subject": "leaf", "version": 1} for i in range(1000)]
    reply = api.register("top", '{"type":"object","properties":{"f":{"$ref":"r999.json"}}}',
                         schemaType="JSON", references=references)
    assert reply.status == 200, reply
    assert len(api.version("top", 1).json["references"]) == 1000
