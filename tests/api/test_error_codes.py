"""Every Confluent error code that applies to this registry, provoked once.

Each case arranges state, takes a snapshot of everything visible through the API, makes
the failing request, and checks status, `error_code`, the `{error_code, message}` shape and
that the snapshot did not change (a failed request writes nothing).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pytest

from api_client import Api, Reply
from api_samples import BASE, BASE_NAME, INVALID, OUTER, RECORD_INT, RECORD_V1


@dataclass
class Case:
    name: str
    status: int
    code: int
    act: Callable[[Api], Reply]
    arrange: Callable[[Api], None] = field(default=lambda api: None)


def _one_version(api: Api) -> None:
    api.registered("s", RECORD_V1)


def _soft_deleted_subject(api: Api) -> None:
    _one_version(api)
    assert api.delete_subject("s").status == 200


def _soft_deleted_version(api: Api) -> None:
    _one_version(api)
    assert api.delete_version("s", 1).status == 200


def _read_only_subject(api: Api) -> None:
    _one_version(api)
    api.set_mode("READONLY", "s")


def _referenced_base(api: Api) -> None:
    api.registered("base", BASE)
    api.registered("outer", OUTER, references=[{"name": BASE_NAME, "subject": "base", "version": 1}])


def _subject_in_context(api: Api) -> None:
    api.registered(":.ctx:s", RECORD_V1)


CASES = [
    Case("40401 subject not found", 404, 40401, lambda api: api.versions("missing")),
    Case("40402 version not found", 404, 40402, lambda api: api.version("s", 7), _one_version),
    Case("40403 schema id not found", 404, 40403, lambda api: api.get("/schemas/ids/999")),
    Case("40404 subject already soft deleted", 404, 40404, lambda api: api.delete_subject("s"),
         _soft_deleted_subject),
    Case("40405 permanent delete of a live subject", 404, 40405,
         lambda api: api.delete_subject("s", permanent="true"), _one_version),
    Case("40406 version already soft deleted", 404, 40406, lambda api: api.delete_version("s", 1),
         _soft_deleted_version),
    Case("40407 permanent delete of a live version", 404, 40407,
         lambda api: api.delete_version("s", 1, permanent="true"), _one_version),
    Case("40408 no subject-level config", 404, 40408, lambda api: api.get("/config/s")),
    Case("40409 no subject-level mode", 404, 40409, lambda api: api.get("/mode/s")),
    Case("40901 incompatible schema", 409, 40901, lambda api: api.register("s", RECORD_INT), _one_version),
    Case("42201 invalid schema", 422, 42201, lambda api: api.register("s", INVALID)),
    Case("42201 unknown schema type", 422, 42201, lambda api: api.register("s", RECORD_V1, schemaType="avro")),
    Case("42202 invalid version", 422, 42202, lambda api: api.version("s", 0), _one_version),
    Case("42203 invalid compatibility level", 422, 42203,
         lambda api: api.put("/config", {"compatibility": "SIDEWAYS"})),
    Case("42204 invalid mode", 422, 42204, lambda api: api.put("/mode", {"mode": "READMOSTLY"})),
    Case("42205 register in READONLY", 422, 42205,
         lambda api: api.register("s", RECORD_V1.replace("f1", "g1")), _read_only_subject),
    Case("42206 delete of a referenced version", 422, 42206, lambda api: api.delete_version("base", 1),
         _referenced_base),
    Case("42208 invalid subject", 422, 42208, lambda api: api.register("__GLOBAL", RECORD_V1)),
    Case("42211 context not empty", 422, 42211, lambda api: api.delete("/contexts/.ctx"), _subject_in_context),
    Case("400 invalid JSON", 400, 400,
         lambda api: api.call("POST", "/subjects/s/versions", raw='{"schema": ')),
    Case("400 JSON type mismatch", 400, 400, lambda api: api.post("/subjects/s/versions", {"schema": 5})),
    Case("404 unknown path", 404, 404, lambda api: api.get("/no/such/path")),
    Case("405 wrong method", 405, 405, lambda api: api.put("/subjects/s/versions", {"schema": RECORD_V1})),
    Case("406 unacceptable Accept", 406, 406,
         lambda api: api.call("POST", "/subjects/s/versions", {"schema": RECORD_V1},
                              headers={"Accept": "text/html"})),
    Case("415 unsupported content type", 415, 415,
         lambda api: api.call("POST", "/subjects/s/versions", {"schema": RECORD_V1},
                              headers={"Content-Type": "text/plain"})),
    Case("422 missing body", 422, 422, lambda api: api.call("POST", "/subjects/s/versions", raw="")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_error_is_reported_in_confluent_shape_and_writes_nothing(api: Api, case: Case) -> None:
    case.arrange(api)
    before = api.snapshot()
    reply = case.act(api)
    assert (reply.status, reply.error_code) == (case.status, case.code), reply
    assert set(reply.json) == {"error_code", "message"} and reply.json["message"]
    assert reply.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"
    assert api.snapshot() == before


@pytest.fixture
def small_app(settings, app):
    """A second app on the same database with a 4 KiB schema limit (the body limit is apart: test_limits.py)."""
    from app.server.factory import create_app

    return create_app(settings.with_overrides(max_schema_bytes=4096))


@pytest.mark.parametrize(
    "description, body_size",
    [("schema text just above max_schema_bytes", 5000),
     ("schema text far above max_schema_bytes", 80_000)],
)
def test_schema_too_large_is_42209(small_app, description: str, body_size: int) -> None:
    api = Api(small_app.test_client())
    before = api.snapshot()
    doc = '{"type":"record","name":"Big","doc":"' + "x" * body_size + '","fields":[]}'
    reply = api.register("s", doc)
    assert (reply.status, reply.error_code) == (422, 42209), reply
    assert api.snapshot() == before


def test_incompatible_error_code_follows_settings(settings, app) -> None:
    from app.server.factory import create_app

    api = Api(create_app(settings.with_overrides(incompatible_error_code=409)).test_client())
    api.registered("s", RECORD_V1)
    reply = api.register("s", RECORD_INT)
    assert (reply.status, reply.error_code) == (409, 409)
