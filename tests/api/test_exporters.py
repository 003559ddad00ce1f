"""`/exporters`: Confluent's Schema Linking resource, its shapes, codes and rules.
Nothing runs here (no runner is started by the test app): tests/transfer/test_exporters_live.py
watches exporters copy between live registries."""
from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api_client import Api

TARGET = "http://127.0.0.1:9/"


def _body(name: str = "dr", **extra: Any) -> dict[str, Any]:
    return {"name": name, "subjects": ["orders-*"], "contextType": "CUSTOM", "context": "dr",
            "subjectRenameFormat": "${subject}-copy",
            "config": {"schema.registry.url": TARGET, "basic.auth.credentials.source": "USER_INFO",
                       "basic.auth.user.info": "alice:s3cret"}, **extra}


def test_an_exporter_is_created_listed_and_described_with_its_secrets_masked(api: Api) -> None:
    assert api.get("/exporters").json == []
    assert api.post("/exporters", _body()).json == {"name": "dr"}
    assert api.get("/exporters").json == ["dr"]
    described = api.get("/exporters/dr").json
    assert described == {"name": "dr", "subjects": ["orders-*"], "contextType": "CUSTOM", "context": ".dr",
                         "subjectRenameFormat": "${subject}-copy",
                         "config": {"schema.registry.url": TARGET, "basic.auth.credentials.source": "USER_INFO",
                                    "basic.auth.user.info": "********"}}
    assert "s3cret" not in api.get("/exporters/dr/config").raw
    status = api.get("/exporters/dr/status").json
    assert (status["name"], status["state"], status["offset"], status["trace"]) == ("dr", "STARTING", 0, "")


def test_a_second_exporter_of_the_same_name_is_refused_with_40960(api: Api) -> None:
    api.post("/exporters", _body())
    reply = api.post("/exporters", _body())
    assert (reply.status, reply.error_code) == (409, 40960)


def test_an_unknown_exporter_is_40450_on_every_route(api: Api) -> None:
    for method, path in (("GET", "/exporters/nope"), ("GET", "/exporters/nope/status"),
                         ("GET", "/exporters/nope/config"), ("PUT", "/exporters/nope/pause"),
                         ("PUT", "/exporters/nope/resume"), ("DELETE", "/exporters/nope"),
                         ("GET", "/exporters/no%20such%20name"), ("PUT", "/exporters/nope/reset")):
        reply = api.call(method, path)
        assert (reply.status, reply.error_code) == (404, 40450), (method, path, reply)


def test_bad_definitions_are_refused_with_confluents_codes_and_store_nothing(api: Api) -> None:
    cases = [({**_body(), "name": "a b"}, 40950), ({**_body(), "name": None}, 40950),
             ({**_body(), "config": {}}, 40951), ({**_body(), "config": {"schema.registry.url": "ftp://x"}}, 40951),
             ({**_body(), "subjects": []}, 40952), ({**_body(), "subjects": "orders"}, 40952),
             ({**_body(), "contextType": "ELSEWHERE"}, 40951), ({**_body(), "contextType": "CUSTOM", "context": ""}, 40951),
             ([1, 2], 40951)]
    for body, code in cases:
        reply = api.post("/exporters", body)
        assert (reply.status, reply.error_code) == (409, code), (body, reply)
    assert api.get("/exporters").json == []


def test_delete_update_and_reset_need_a_paused_exporter(api: Api) -> None:
    api.post("/exporters", _body())
    for method, path, body in (("DELETE", "/exporters/dr", None), ("PUT", "/exporters/dr", {"subjects": ["*"]}),
                               ("PUT", "/exporters/dr/config", {"x": "1"}), ("PUT", "/exporters/dr/reset", None)):
        reply = api.call(method, path, body)
        assert (reply.status, reply.error_code) == (409, 40963), (method, path, reply)
    assert api.put("/exporters/dr/pause", {}).json == {"name": "dr"}
    assert api.get("/exporters/dr/status").json["state"] == "PAUSED"
    assert api.put("/exporters/dr", {"subjects": ["*"], "contextType": "NONE"}).json == {"name": "dr"}
    assert api.get("/exporters/dr").json["subjects"] == ["*"]
    assert api.put("/exporters/dr/reset", {}).json == {"name": "dr"}
    assert api.get("/exporters/dr/status").json["state"] == "PAUSED"
    assert api.delete("/exporters/dr").status == 204
    assert api.get("/exporters").json == []


def test_a_masked_secret_sent_back_keeps_the_stored_one(api: Api, service: Any) -> None:
    api.post("/exporters", _body())
    api.put("/exporters/dr/pause", {})
    shown = api.get("/exporters/dr/config").json
    assert api.put("/exporters/dr/config", {**shown, "extra.key": "v"}).json == {"name": "dr"}
    with service.storage.read() as store:
        assert store.exporter("dr").config["basic.auth.user.info"] == "alice:s3cret"
        assert store.exporter("dr").config["extra.key"] == "v"


def test_resume_starts_a_paused_exporter_again(api: Api) -> None:
    api.post("/exporters", _body())
    api.put("/exporters/dr/pause", {})
    assert api.put("/exporters/dr/resume", {}).json == {"name": "dr"}
    assert api.get("/exporters/dr/status").json["state"] == "STARTING"


def test_every_exporter_change_is_in_the_audit_trail(api: Api) -> None:
    api.post("/exporters", _body())
    api.put("/exporters/dr/pause", {})
    api.put("/exporters/dr/resume", {})
    api.put("/exporters/dr/pause", {})
    api.delete("/exporters/dr")
    rows = api.get("/audit").json
    actions = [r["action"] for r in rows if (r.get("detail") or {}).get("exporter") == "dr"]
    assert sorted(actions) == sorted(["CREATE_EXPORTER", "PAUSE_EXPORTER", "RESUME_EXPORTER", "PAUSE_EXPORTER",
                                      "DELETE_EXPORTER"])
    assert "s3cret" not in str(rows)


JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=12)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
EXPORTER_BODIES = st.fixed_dictionaries({}, optional={
    "name": st.sampled_from(["fz", "n-1", "", "a/b"]) | JSON_VALUES,
    "subjects": st.lists(st.sampled_from(["*", "a-*", ":.c:*", ""]), max_size=3) | JSON_VALUES,
    "contextType": st.sampled_from(["AUTO", "CUSTOM", "NONE", "auto"]) | JSON_VALUES,
    "context": st.sampled_from([".dr", "dr", ":x:", ""]) | JSON_VALUES,
    "subjectRenameFormat": st.sampled_from(["${subject}-x", ""]) | JSON_VALUES,
    "config": st.fixed_dictionaries({"schema.registry.url": st.sampled_from(["http://t:1", "x"]) | JSON_VALUES},
                                    optional={"basic.auth.credentials.source": JSON_VALUES,
                                              "basic.auth.user.info": JSON_VALUES}) | JSON_VALUES,
}) | JSON_VALUES


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=EXPORTER_BODIES)
def test_no_exporter_body_is_a_server_error(api: Api, body: Any) -> None:
    if api.get("/exporters/fz").status == 404:
        api.post("/exporters", _body("fz"))
        api.put("/exporters/fz/pause", {})
    for method, path in (("POST", "/exporters"), ("PUT", "/exporters/fz"), ("PUT", "/exporters/fz/config")):
        reply = api.call(method, path, body)
        assert reply.status < 500, (method, path, body, reply)
        assert reply.status < 400 or reply.error_code is not None, (method, path, body, reply)


def test_an_exporter_in_error_can_be_updated_reconfigured_reset_and_deleted(api: Api, service: Any) -> None:
    """As the README promises: ERROR is a stopped state (a target that answered 401, say)."""
    from app.core.exporters.records import ERROR, STARTING

    def fail() -> None:
        with service.storage.read() as store:
            generation = store.take_exporter_lease("dr", "runner", 0, 2**62)
            assert generation is not None
            assert store.report_exporter("dr", "runner", generation, (STARTING,), ERROR, 0, "the target answered 401", 1)
            store.release_exporter_lease("dr", "runner")

    api.post("/exporters", _body())
    fail()
    assert api.put("/exporters/dr", {"subjects": ["*"]}).status == 200
    assert api.put("/exporters/dr/config", {"basic.auth.user.info": "alice:new"}).status == 200
    assert api.put("/exporters/dr/reset", {}).status == 200
    assert api.get("/exporters/dr/status").json["state"] == "STARTING"
    fail()
    assert api.delete("/exporters/dr").status == 204
    assert api.get("/exporters").json == []


def test_a_server_that_runs_no_exporters_says_so_in_the_status(settings: Any) -> None:
    from app.server.factory import create_app

    app = create_app(settings.with_overrides(exporters=False))
    try:
        api = Api(app.test_client())
        api.post("/exporters", _body())
        assert "REGISTRY_EXPORTERS is off" in api.get("/exporters/dr/status").json["trace"]
        api.put("/exporters/dr/pause", {})
        assert api.get("/exporters/dr/status").json["trace"] == ""
    finally:
        app.extensions["registry"].storage.close()
