"""Failover, retries, backoff, timeouts and keep-alive, against stub HTTP peers that fail on
purpose (a healthy registry never answers 503 or hangs)."""
from __future__ import annotations

import base64

import pytest
from support.stub_server import Scripted

from app.client import (
    InvalidSchema, RegistryClient, RegistryServerError, RegistryUnavailable, SchemaNotFound, SubjectNotFound,
)

SCHEMA_REPLY = {"schema": '"string"', "schemaType": "AVRO"}


def quick_client(urls, **options) -> RegistryClient:
    options.setdefault("timeout", 2.0)
    return RegistryClient(urls, backoff=0.01, backoff_max=0.05, **options)


def test_a_dead_first_url_fails_over_to_the_next_and_stays_there(stub_server, dead_url):
    live = stub_server(default=Scripted(200, SCHEMA_REPLY))
    client = quick_client([dead_url, live.url], retries=0)
    assert client.get_schema(1).text == '"string"'
    assert client.get_schema(2).text == '"string"'
    assert len(live.hits) == 2
    assert client.transport.urls[client.transport._preferred] == live.url


def test_every_url_dead_is_registry_unavailable_after_all_rounds(dead_url):
    client = quick_client([dead_url, dead_url.replace("127.0.0.1", "localhost")], retries=2)
    with pytest.raises(RegistryUnavailable) as caught:
        client.get_subjects()
    assert caught.value.http_status is None and caught.value.error_code is None


def test_503_is_retried_until_an_answer_arrives(stub_server):
    stub = stub_server(Scripted(503, {"error_code": 50003, "message": "forwarding failed"}), Scripted(503, {}),
                       default=Scripted(200, SCHEMA_REPLY))
    client = quick_client(stub.url, retries=3)
    assert client.get_schema(7).text == '"string"'
    assert [path for _, path, _ in stub.hits] == ["/schemas/ids/7"] * 3


def test_a_lasting_5xx_raises_the_servers_error_after_retries_plus_one_attempts(stub_server):
    stub = stub_server(default=Scripted(500, {"error_code": 50001, "message": "store error"}))
    client = quick_client(stub.url, retries=2)
    with pytest.raises(RegistryServerError) as caught:
        client.get_schema(1)
    assert (caught.value.error_code, caught.value.http_status) == (50001, 500)
    assert len(stub.hits) == 3


@pytest.mark.parametrize("status, body, error", [
    (404, {"error_code": 40403, "message": "Schema 1 not found"}, SchemaNotFound),
    (404, {"error_code": 40401, "message": "Subject 'x' not found."}, SubjectNotFound),
])
def test_4xx_is_never_retried_and_raises_the_typed_error(stub_server, status, body, error):
    stub = stub_server(default=Scripted(status, body))
    client = quick_client(stub.url, retries=5)
    with pytest.raises(error) as caught:
        client.get_schema(1)
    assert (caught.value.error_code, caught.value.http_status) == (body["error_code"], status)
    assert len(stub.hits) == 1


def test_a_4xx_from_the_first_url_does_not_fail_over(stub_server):
    first = stub_server(default=Scripted(422, {"error_code": 42201, "message": "Invalid schema"}))
    second = stub_server(default=Scripted(200, {"id": 1}))
    client = quick_client([first.url, second.url], retries=3)
    with pytest.raises(InvalidSchema) as caught:
        client.register("s", '"int"')
    assert caught.value.error_code == 42201
    assert (len(first.hits), len(second.hits)) == (1, 0)


def test_timeouts_are_honoured_per_attempt_and_end_in_registry_unavailable(stub_server):
    stub = stub_server(default=Scripted(200, SCHEMA_REPLY, delay=3.0))
    client = quick_client(stub.url, timeout=0.2, retries=1)
    # Without a per-attempt timeout the stub's reply (a valid schema, after 3 s) would succeed:
    # a Timeout after exactly two attempts is the proof, with no clock read here.
    with pytest.raises(RegistryUnavailable, match="no reply within the timeout"):
        client.get_schema(1)
    assert len(stub.hits) == 2


def test_a_hanging_url_is_skipped_for_a_healthy_one(stub_server):
    hanging = stub_server(default=Scripted(200, SCHEMA_REPLY, delay=3.0))
    healthy = stub_server(default=Scripted(200, {"schema": '"int"'}))
    client = quick_client([hanging.url, healthy.url], timeout=0.2, retries=0)
    assert client.get_schema(1).text == '"int"'


def test_connections_are_kept_alive_across_requests(stub_server):
    stub = stub_server(default=Scripted(200, ["a"]))
    client = quick_client(stub.url)
    for _ in range(20):
        client.get_subjects()
    assert len(stub.hits) == 20
    assert len(stub.connections) == 1


def test_basic_credentials_and_confluent_headers_are_sent(stub_server):
    stub = stub_server(default=Scripted(200, {"id": 3, "version": 1}))
    quick_client(stub.url, auth="ci-bot:s3cret:with-colon").register("orders-value", '"int"')
    method, path, headers = stub.hits[0]
    assert (method, path) == ("POST", "/subjects/orders-value/versions?normalize=false")
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"ci-bot:s3cret:with-colon").decode()
    assert headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"
    assert headers["Accept"].startswith("application/vnd.schemaregistry.v1+json")


def test_subjects_with_slashes_and_contexts_are_percent_encoded(stub_server):
    stub = stub_server(default=Scripted(200, [1]))
    client = quick_client(stub.url)
    client.get_versions(":.staging:team/orders")
    assert stub.hits[0][1] == "/subjects/%3A.staging%3Ateam%2Forders/versions?deleted=false"


def test_7x_reply_shapes_are_read_and_a_bare_register_reply_fills_the_id_cache(stub_server):
    stub = stub_server(Scripted(200, {"id": 9}), Scripted(200, {"schema": '"long"'}))
    client = quick_client(stub.url)
    registered = client.register("s", '"int"')
    assert (registered.schema_id, registered.subject, registered.version) == (9, "s", None)
    assert client.get_schema(9).text == '"int"'  # the schema just sent: no request
    fetched = client.get_schema(10)
    assert (fetched.text, fetched.schema_type) == ('"long"', "AVRO")  # no schemaType means AVRO
    assert len(stub.hits) == 2


def test_a_reply_past_the_byte_limit_is_a_failed_url_and_the_next_one_answers(stub_server):
    from app.client.transport import Transport

    huge = stub_server(default=Scripted(200, ["x" * 100] * 10))
    live = stub_server(default=Scripted(200, ["orders-value"]))
    transport = Transport([huge.url, live.url], max_reply_bytes=512, policy=quick_client(live.url).transport.policy)
    assert transport.request("GET", "/subjects") == ["orders-value"]
    alone = Transport([huge.url], max_reply_bytes=512, policy=quick_client(live.url).transport.policy)
    with pytest.raises(RegistryUnavailable, match="a reply of more than 512 bytes"):
        alone.request("GET", "/subjects")
