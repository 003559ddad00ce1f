"""Root and server metadata: `/` and `/v1/metadata/*`."""
from __future__ import annotations

from api_client import Api


def test_root_is_an_empty_object(api: Api) -> None:
    reply = api.get("/")
    assert (reply.status, reply.json) == (200, {})
    assert reply.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def test_a_browser_at_the_root_is_sent_to_the_web_ui(api: Api) -> None:
    reply = api.call("GET", "/", headers={"Accept": BROWSER_ACCEPT})
    assert reply.status == 302
    assert reply.headers["Location"].endswith("/ui/")


def test_api_clients_at_the_root_keep_confluents_empty_object(api: Api) -> None:
    for accept in ("*/*", "application/json", "application/vnd.schemaregistry.v1+json, text/html;q=0.5",
                   "text/html;q=0.5, */*"):
        reply = api.call("GET", "/", headers={"Accept": accept})
        assert (reply.status, reply.json) == (200, {}), accept


def test_root_accepts_a_posted_map(api: Api) -> None:
    assert api.post("/", {"anything": "goes"}).json == {}
    assert api.call("POST", "/", raw="").json == {}
    assert api.call("POST", "/", raw="{oops").error_code == 400


def test_cluster_id_has_confluents_shape(api: Api) -> None:
    body = api.get("/v1/metadata/id").json
    assert body["scope"]["path"] == []
    assert set(body["scope"]["clusters"]) == {"kafka-cluster", "schema-registry-cluster"}
    assert all(isinstance(v, str) and v for v in body["scope"]["clusters"].values())


def test_server_version(api: Api) -> None:
    body = api.get("/v1/metadata/version").json
    assert isinstance(body["version"], str) and body["version"]
