"""Deeply nested schemas over HTTP: 42201 with a clear message, never a 500, and
nothing written; a schema at the bound works everywhere.

The bounds are the Avro format's (app/formats/avro/nesting.py): 200 levels of JSON arrays
and objects in a schema text. Walks beyond one text are covered in tests/formats. The
operator's `REGISTRY_MAX_SCHEMA_DEPTH` (default 128, tests/api/test_limits.py) may be raised
to that bound but not past it, so these tests run with it there.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from api_client import V1_JSON, Api, enc
from api_samples import RECORD_V1
from support.live import start_server

from app.formats.jackson import MAX_DOCUMENT_DEPTH

TOO_DEEP = (
    "Invalid schema of type AVRO, details: Schema is nested more than 200 levels deep "
    "(the limit set by REGISTRY_MAX_SCHEMA_DEPTH)"
)


@pytest.fixture
def settings(settings):
    """The operator's limit raised to the formats' own bound, the deepest any schema may be."""
    return settings.with_overrides(max_schema_depth=MAX_DOCUMENT_DEPTH)


@pytest.fixture(scope="module")
def deepest_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn with the limit at the formats' bound (the shared live server keeps the default)."""
    workdir = tmp_path_factory.mktemp("deepest")
    server = start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log",
                          env={"REGISTRY_MAX_SCHEMA_DEPTH": str(MAX_DOCUMENT_DEPTH)})
    try:
        yield server.url
    finally:
        server.stop()


def nested(levels: int, wrap: Callable[[str, int], str], leaf: str = '"int"') -> str:
    """`leaf` wrapped `levels` times, innermost first; `wrap` gets the level's number too."""
    text = leaf
    for level in range(levels):
        text = wrap(text, level)
    return text


def array_of(items: str, _: int) -> str:
    return '{"type":"array","items":%s}' % items


def optional_array_of(items: str, level: int) -> str:
    return '["null",%s]' % array_of(items, level)


def record_of(inner: str, level: int) -> str:
    return '{"type":"record","name":"R%d","fields":[{"name":"f","type":%s}]}' % (level, inner)


def with_default(levels: int) -> str:
    """A field whose type and default are both `levels` arrays deep."""
    default = nested(levels, lambda inner, _: f"[{inner}]", "1")
    return '{"type":"record","name":"D","fields":[{"name":"f","type":%s,"default":%s}]}' % (
        nested(levels, array_of), default)


TOO_DEEP_SCHEMAS = {
    "arrays_1000": nested(1000, array_of),
    "maps_1000": nested(1000, lambda inner, _: '{"type":"map","values":%s}' % inner),
    "unions_500": nested(500, lambda inner, _: f"[{inner}]"),
    "optional_arrays_500": nested(500, optional_array_of),
    "records_67": nested(67, record_of),
    "records_400": nested(400, record_of),
    "json_default_1000": '{"type":"record","name":"D","fields":[{"name":"f","type":{"type":"array","items":"int"},'
                         '"default":%s}]}' % nested(1000, lambda inner, _: f"[{inner}]", "1"),
    "json_property_1000": '{"type":"int","x":%s}' % nested(1000, lambda inner, _: '{"a":%s}' % inner, "1"),
}

AT_THE_BOUND = {
    "arrays_200": nested(200, array_of),
    "optional_arrays_100": nested(100, optional_array_of),
    "records_66": nested(66, record_of),
    "array_and_default_197": with_default(197),
}


@pytest.mark.parametrize("schema", TOO_DEEP_SCHEMAS.values(), ids=TOO_DEEP_SCHEMAS.keys())
def test_too_deep_schema_is_42201_for_registration_lookup_and_compatibility(api: Api, schema: str) -> None:
    api.registered("s", RECORD_V1)
    before = api.snapshot()
    refused = {"error_code": 42201, "message": TOO_DEEP}
    for reply in (
        api.register("s", schema),
        api.register("new", schema),
        api.register("s", schema, params={"normalize": "true"}),
        api.post("/subjects/s", {"schema": schema}),
        api.post("/compatibility/subjects/s/versions/latest", {"schema": schema}),
        api.post("/compatibility/subjects/s/versions", {"schema": schema}),
    ):
        assert (reply.status, reply.json) == (422, refused)
    verbose = api.post("/compatibility/subjects/s/versions/latest", {"schema": schema}, verbose="true")
    assert verbose.json == {"is_compatible": False, "messages": [TOO_DEEP]}
    assert api.snapshot() == before


@pytest.mark.parametrize("schema", AT_THE_BOUND.values(), ids=AT_THE_BOUND.keys())
def test_schema_at_the_bound_registers_round_trips_and_checks(api: Api, schema: str) -> None:
    api.set_config("s", compatibility="FULL_TRANSITIVE")
    registered = api.registered("s", schema)
    stored = api.get(f"/schemas/ids/{registered['id']}").json["schema"]
    assert json.loads(stored) == json.loads(schema)
    assert api.registered("s", stored)["id"] == registered["id"]
    assert api.post("/subjects/s", {"schema": schema}).json["id"] == registered["id"]
    assert api.registered("s", schema, params={"normalize": "true"})["id"] == registered["id"]
    assert api.post("/compatibility/subjects/s/versions", {"schema": schema}).json == {"is_compatible": True}
    assert json.loads(api.get(f"/schemas/ids/{registered['id']}", format="resolved").json["schema"]) == json.loads(schema)


def test_resolved_text_deeper_than_the_walk_bound_is_42201(api: Api) -> None:
    """Three schemas 190 levels deep, each naming the next by reference: each registers, and
    `format=resolved`, which writes the referenced types inline, refuses to go 570 deep."""
    leaf = record_of(nested(190, array_of), 0)
    middle = record_of(nested(190, array_of, '"R0"'), 1)
    api.registered("leaf", leaf)
    api.registered("middle", middle, references=[{"name": "leaf", "subject": "leaf", "version": 1}])
    top = api.registered("top", nested(190, array_of, '"R1"'),
                         references=[{"name": "middle", "subject": "middle", "version": 1}])
    reply = api.get(f"/schemas/ids/{top['id']}", format="resolved")
    assert (reply.status, reply.error_code) == (422, 42201)
    assert reply.json["message"] == (
        "Invalid schema of type AVRO, details: Schema is nested more than 400 levels deep, "
        "following its named types and references"
    )
    assert json.loads(api.get(f"/schemas/ids/{top['id']}").json["schema"]) == json.loads(nested(190, array_of, '"R1"'))


def post_live(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": V1_JSON}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_under_gunicorn_the_bound_holds_with_the_servers_own_stack(
    deepest_server: str, unique_subject: Callable[[str], str]
) -> None:
    """The worker's stack below the format differs from the test client's: the worst shapes at
    the bound still register and compare, and deeper ones are still 42201."""
    for name in ("optional_arrays_100", "array_and_default_197"):
        subject, schema = enc(unique_subject(name)), AT_THE_BOUND[name]
        status, registered = post_live(f"{deepest_server}/subjects/{subject}/versions", {"schema": schema})
        assert status == 200, registered
        check = post_live(f"{deepest_server}/compatibility/subjects/{subject}/versions", {"schema": schema})
        assert check == (200, {"is_compatible": True})
    for path, shape in (("subjects/{}/versions", "unions_500"), ("compatibility/subjects/{}/versions", "arrays_1000")):
        refused = post_live(f"{deepest_server}/{path.format(subject)}", {"schema": TOO_DEEP_SCHEMAS[shape]})
        assert refused == (422, {"error_code": 42201, "message": TOO_DEEP})
