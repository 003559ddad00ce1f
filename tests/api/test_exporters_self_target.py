"""An exporter whose target is this registry, with a rename its own patterns choose again,
would copy its copies without end: refused on create, update and config with 40952. "This
registry" is the address the request reached (the test client's `localhost`, port 80), or a
loopback name at the same port; the same definition toward another registry is taken."""
from __future__ import annotations

from typing import Any

import pytest

from api_client import Api


def _body(url: str, **fields: Any) -> dict[str, Any]:
    return {"name": "loop", "subjects": ["orders-*"], "contextType": "NONE",
            "subjectRenameFormat": "${subject}-copy", "config": {"schema.registry.url": url}, **fields}


@pytest.mark.parametrize("url", ["http://localhost", "http://127.0.0.1:80/", "http://elsewhere:1,http://[::1]:80"])
def test_a_self_feeding_exporter_into_this_registry_is_refused(api: Api, url: str) -> None:
    reply = api.post("/exporters", _body(url))
    assert (reply.status, reply.error_code) == (409, 40952), reply
    assert "without end" in reply.json["message"]
    assert api.get("/exporters").json == []


@pytest.mark.parametrize("fields", [
    {"subjectRenameFormat": "copy.${subject}"},  # the copies leave `orders-*`
    {"contextType": "CUSTOM", "context": "dr"},  # the copies land in a context `orders-*` does not choose
    {"subjectRenameFormat": None},  # a copy lands on itself
])
def test_an_exporter_into_this_registry_whose_copies_are_not_chosen_again_is_taken(api: Api,
                                                                                 fields: dict[str, Any]) -> None:
    assert api.post("/exporters", _body("http://localhost", **fields)).status == 200


def test_the_same_definition_toward_another_registry_is_taken(api: Api) -> None:
    assert api.post("/exporters", _body("http://localhost:8081")).status == 200


def test_an_update_or_a_config_that_would_feed_itself_is_refused_and_changes_nothing(api: Api) -> None:
    assert api.post("/exporters", _body("http://other:8081", subjectRenameFormat="copy.${subject}")).status == 200
    api.put("/exporters/loop/pause", {})
    assert api.put("/exporters/loop/config", {"schema.registry.url": "http://localhost"}).status == 200
    for body in ({"subjectRenameFormat": "${subject}-copy"}, {"subjects": ["*"], "subjectRenameFormat": "x${subject}"}):
        reply = api.put("/exporters/loop", body)
        assert (reply.status, reply.error_code) == (409, 40952), (body, reply)
    assert api.put("/exporters/loop/config", {"schema.registry.url": "http://other:8081"}).status == 200
    assert api.put("/exporters/loop", {"subjectRenameFormat": "${subject}-copy"}).status == 200
    back = api.put("/exporters/loop/config", {"schema.registry.url": "http://localhost:80"})
    assert (back.status, back.error_code) == (409, 40952)
    described = api.get("/exporters/loop").json
    assert (described["subjectRenameFormat"], described["config"]["schema.registry.url"]) == \
        ("${subject}-copy", "http://other:8081")
