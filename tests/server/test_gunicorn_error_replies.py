"""Requests gunicorn refuses before the application runs still get Confluent JSON, over real
HTTP, from `sqlregistry serve` and from `gunicorn -c deploy/gunicorn.conf.py wsgi:app`."""
from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from support.live import LiveServer, launch, start_server
from support.postgres import free_port

MEDIA_TYPE = "application/vnd.schemaregistry.v1+json"

MALFORMED = [
    pytest.param(b"GET /subjects/" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, id="request-line-too-long"),
    pytest.param("GET /subjects/é HTTP/1.1\r\nHost: x\r\n\r\n".encode(), 400, id="non-ascii-utf8-in-target"),
    pytest.param(b"GET /subjects/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n", 400, id="non-utf8-bytes-in-target"),
    pytest.param(b"NOT HTTP AT ALL\r\n\r\n", 400, id="not-a-request-line"),
    pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400, id="space-in-header-name"),
    pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n",
                 431, id="too-many-headers"),
    pytest.param(b"POST /subjects/s/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n", 400, id="length-and-chunked"),
]


def exchange(base_url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read until the server closes, split the reply into status, headers, body."""
    where = urlsplit(base_url)
    with socket.create_connection((where.hostname, where.port), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (h.partition(":") for h in header_lines)}
    return int(status_line.split()[1]), headers, body


def assert_confluent_error(reply: tuple[int, dict[str, str], bytes], status: int) -> None:
    got_status, headers, body = reply
    assert got_status == status, body
    assert headers["content-type"] == MEDIA_TYPE
    assert int(headers["content-length"]) == len(body)
    document = json.loads(body)
    assert set(document) == {"error_code", "message"}
    assert document["error_code"] == status
    assert isinstance(document["message"], str) and document["message"]


@pytest.fixture(scope="module")
def serve_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("serve-errors")
    server = start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", workers=1)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def deploy_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The deploy/ way of starting a server, configured only by REGISTRY_* variables."""
    workdir = tmp_path_factory.mktemp("deploy-errors")
    port = free_port()
    env = {
        "REGISTRY_DATABASE_URL": f"sqlite:///{workdir / 'registry.db'}",
        "REGISTRY_HOST": "127.0.0.1",
        "REGISTRY_PORT": str(port),
        "REGISTRY_WORKERS": "1",
        "REGISTRY_LOG_LEVEL": "warning",
    }
    server: LiveServer = launch([sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "wsgi:app"],
                                port, workdir / "server.log", env)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.mark.parametrize(("request_bytes", "status"), MALFORMED)
def test_sqlregistry_serve_answers_malformed_requests_in_confluent_json(serve_url: str, request_bytes: bytes,
                                                                       status: int):
    assert_confluent_error(exchange(serve_url, request_bytes), status)


@pytest.mark.parametrize(("request_bytes", "status"), MALFORMED[:2])
def test_the_deploy_gunicorn_config_answers_malformed_requests_in_confluent_json(deploy_url: str,
                                                                                request_bytes: bytes, status: int):
    assert_confluent_error(exchange(deploy_url, request_bytes), status)


def test_a_long_request_line_reply_says_what_was_too_long(serve_url: str):
    _, _, body = exchange(serve_url, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert "Request Line is too large" in json.loads(body)["message"]


def test_a_well_formed_request_after_the_errors_is_still_served(serve_url: str):
    exchange(serve_url, b"NOT HTTP AT ALL\r\n\r\n")
    status, headers, body = exchange(serve_url, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (status, headers["content-type"], json.loads(body)) == (200, MEDIA_TYPE, {})


def test_a_malformed_chunk_inside_a_body_is_a_400_not_a_500(serve_url: str):
    request = (b"POST /subjects/chunky/versions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
               b"Content-Type: application/vnd.schemaregistry.v1+json\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"zz\r\n{}\r\n0\r\n\r\n")
    assert_confluent_error(exchange(serve_url, request), 400)
    status, _, body = exchange(serve_url, b"GET /subjects HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (status, json.loads(body)) == (200, [])
