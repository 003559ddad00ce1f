"""The `compatibilityPolicy` config value: spelled as Confluent's
`CompatibilityPolicy.forName` reads it, stored as its enum name."""
from __future__ import annotations

import pytest

from api_client import Api


@pytest.mark.parametrize("sent, stored", [("LENIENT", "LENIENT"), ("lenient", "LENIENT"), ("Strict", "STRICT"),
                                          ("logical", "LOGICAL")])
def test_a_known_policy_is_stored_by_its_name(api: Api, sent: str, stored: str) -> None:
    reply = api.set_config("s", compatibilityPolicy=sent)
    assert reply.json["compatibilityPolicy"] == stored
    assert api.get("/config/s").json["compatibilityPolicy"] == stored
    api.set_config(compatibilityPolicy=sent)
    assert api.get("/config").json["compatibilityPolicy"] == stored


def test_an_unknown_policy_clears_the_stored_one(api: Api) -> None:
    api.set_config("s", compatibility="FULL", compatibilityPolicy="LENIENT")
    reply = api.set_config("s", compatibilityPolicy="RELAXED")
    assert "compatibilityPolicy" not in reply.json
    assert api.get("/config/s").json == {"compatibilityLevel": "FULL"}


def test_a_policy_that_is_not_a_string_is_400(api: Api) -> None:
    reply = api.put("/config/s", {"compatibilityPolicy": 1})
    assert (reply.status, reply.error_code) == (400, 400)
