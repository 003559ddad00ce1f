"""What the aws-kms driver does with a KMS endpoint that answers wrongly: a reply longer than
the driver's bound fails the unwrap after reading only that bound, and a reply without key
material fails it by name, both as the rule's error (a stub KMS on loopback)."""
from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.client.rules import aws_kms
from app.client.rules.aws_kms import AwsKmsDriver
from app.client.rules.executors import RuleError

ARN = "arn:aws:kms:us-east-1:123456789012:key/00000000-0000-0000-0000-000000000000"
CREDENTIALS = {"access.key.id": "testing", "secret.access.key": "testing"}


class StubKms(ThreadingHTTPServer):
    reply: bytes = b"{}"
    sent = 0  # bytes of the body written before the client stopped reading


class Handler(BaseHTTPRequestHandler):
    server: StubKms

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = self.server.reply
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for start in range(0, len(body), 65536):
                self.wfile.write(body[start:start + 65536])
                self.server.sent = start + 65536
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[StubKms]:
    server = StubKms(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def unwrap(stub: StubKms) -> bytes:
    aead = AwsKmsDriver().aead(ARN, {**CREDENTIALS, "endpoint.url": f"http://127.0.0.1:{stub.server_port}"})
    return aead.decrypt(b"wrapped", b"")


def test_a_reply_within_the_bound_unwraps(stub: StubKms) -> None:
    stub.reply = json.dumps({"KeyId": ARN, "Plaintext": base64.b64encode(b"k" * 32).decode()}).encode()
    assert unwrap(stub) == b"k" * 32


def test_a_reply_longer_than_the_bound_fails_the_unwrap_without_being_read_whole(stub: StubKms) -> None:
    padding = "x" * (16 * 1024 * 1024)
    stub.reply = json.dumps({"KeyId": ARN, "Plaintext": base64.b64encode(b"k" * 32).decode(),
                             "Padding": padding}).encode()
    with pytest.raises(RuleError, match=f"answered more than {aws_kms.MAX_REPLY_BYTES} bytes"):
        unwrap(stub)
    assert stub.sent < len(stub.reply)


@pytest.mark.parametrize("reply", [{}, {"Plaintext": ""}, {"CiphertextBlob": "AAAA"}], ids=["empty", "blank", "other"])
def test_a_reply_without_key_material_fails_the_unwrap_naming_it(stub: StubKms, reply: dict[str, str]) -> None:
    stub.reply = json.dumps(reply).encode()
    with pytest.raises(RuleError, match="answered without Plaintext"):
        unwrap(stub)
