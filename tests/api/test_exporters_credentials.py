"""An exporter's credentials: masked wherever the definition is shown or audited (every URL of
a comma-separated `schema.registry.url`, JAAS configs, every password-bearing option), kept
when the mask is sent back to the same target, and never carried to a host they were not
given for."""
from __future__ import annotations

from typing import Any

import pytest

from api_client import Api

SECRETS = ("first-pw", "second-pw", "jaas-pw", "tok3n", "keypass", "cl1ent-secret", "inf0pw")
CONFIG = {
    "schema.registry.url": "http://alice:first-pw@t1:8081,https://bob:second-pw@t2:8082/",
    "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                        'username="svc" password="jaas-pw";',
    "bearer.auth.token": "tok3n",
    "schema.registry.ssl.key.password": "keypass",
    "bearer.auth.client.secret": "cl1ent-secret",
    "basic.auth.credentials.source": "USER_INFO",
    "basic.auth.user.info": "svc:inf0pw",
}


def _create(api: Api, config: dict[str, str] | None = None) -> None:
    body = {"name": "dr", "subjects": ["orders-*"], "contextType": "NONE", "config": config or CONFIG}
    assert api.post("/exporters", body).status == 200
    assert api.put("/exporters/dr/pause", {}).status == 200


def _stored(service: Any) -> dict[str, str]:
    with service.storage.read() as store:
        return store.exporter("dr").config


def test_no_secret_shows_in_the_definition_the_config_the_status_or_the_audit(api: Api) -> None:
    _create(api)
    shown = [api.get("/exporters/dr").raw, api.get("/exporters/dr/config").raw, api.get("/exporters/dr/status").raw,
             api.get("/audit").raw]
    for text in shown:
        for secret in SECRETS:
            assert secret not in text, (secret, text)
    config = api.get("/exporters/dr/config").json
    assert config["schema.registry.url"] == "http://********@t1:8081,https://********@t2:8082/"
    assert config["basic.auth.credentials.source"] == "USER_INFO"  # not a secret


def test_the_whole_masked_config_sent_back_to_the_same_hosts_keeps_every_secret(api: Api, service: Any) -> None:
    _create(api)
    shown = api.get("/exporters/dr/config").json
    assert api.put("/exporters/dr/config", shown).status == 200
    assert _stored(service) == CONFIG
    assert api.put("/exporters/dr", {"config": shown, "subjects": ["*"]}).status == 200
    assert _stored(service) == CONFIG


@pytest.mark.parametrize("how", ["placeholder", "left out"])
def test_moving_the_url_to_another_host_without_sending_the_secrets_again_is_refused(api: Api, service: Any,
                                                                                    how: str) -> None:
    _create(api)
    moved = {"schema.registry.url": "http://elsewhere:8081"}
    if how == "placeholder":
        moved = {**api.get("/exporters/dr/config").json, **moved}
    for method, path, body in (("PUT", "/exporters/dr/config", moved), ("PUT", "/exporters/dr", {"config": moved})):
        reply = api.call(method, path, body)
        assert (reply.status, reply.error_code) == (409, 40951), reply
        assert "send the secrets" in reply.json["message"] and "basic.auth.user.info" in reply.json["message"]
    assert _stored(service) == CONFIG


def test_moving_the_url_with_the_secrets_sent_again_or_dropped_is_taken(api: Api, service: Any) -> None:
    _create(api, {"schema.registry.url": "http://t1:8081", "basic.auth.credentials.source": "USER_INFO",
                  "basic.auth.user.info": "svc:old"})
    again = {"schema.registry.url": "http://elsewhere:8081", "basic.auth.user.info": "svc:new"}
    assert api.put("/exporters/dr/config", again).status == 200
    assert _stored(service)["basic.auth.user.info"] == "svc:new"
    dropped = {"schema.registry.url": "http://third:8081", "basic.auth.user.info": None,
               "basic.auth.credentials.source": None}
    assert api.put("/exporters/dr/config", dropped).status == 200
    assert _stored(service) == {"schema.registry.url": "http://third:8081"}


def test_a_placeholder_inside_a_new_url_is_refused_rather_than_stored(api: Api, service: Any) -> None:
    _create(api)
    reply = api.put("/exporters/dr/config", {"schema.registry.url": "http://********@elsewhere:8081"})
    assert (reply.status, reply.error_code) == (409, 40951)
    assert "send the secret" in reply.json["message"]
    assert _stored(service) == CONFIG
