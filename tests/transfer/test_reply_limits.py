"""Every reply a transfer reads from another registry (an exporter's target, the source and
target of `sqlregistry export/import/mirror/verify`) is read up to a byte limit and checked
for the JSON shape its call expects: a 100 MB or an endless reply costs no more memory than the
limit, and a reply of the wrong type stops the transfer with one sentence naming the request."""
from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from app.cli import transfer as commands
from app.transfer.errors import TransferError
from app.transfer.rest import Endpoint, RestRegistry
from support.stub_server import Scripted, running_stubs

LIMIT = 1024 * 1024


@pytest.fixture
def stub() -> Iterator[Any]:
    with running_stubs() as start:
        yield start


def _target(stub: StubServer) -> RestRegistry:
    return RestRegistry(Endpoint(stub.url), timeout=10.0, side="target", max_reply_bytes=LIMIT)


def _peak_while(call: Any) -> tuple[int, BaseException]:
    tracemalloc.start()
    try:
        with pytest.raises(TransferError) as raised:
            call()
        return tracemalloc.get_traced_memory()[1], raised.value
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("size", [100 * 1024 * 1024, None], ids=["100 MB", "endless"])
def test_a_reply_past_the_limit_is_read_no_further_than_the_limit(stub: Any, size: int | None) -> None:
    target = stub(default=Scripted(stream=b"[" + b"1," * 32 * 1024, stream_bytes=size))
    peak, error = _peak_while(lambda: _target(target).subjects())
    assert str(error) == (f"the target's reply to GET /subjects went past the limit of {LIMIT} bytes "
                          "(REGISTRY_EXPORTER_MAX_REPLY_BYTES)")
    assert peak < 3 * LIMIT
    assert len(target.hits) == 1  # not retried: the same request would get the same reply


def test_a_declared_length_over_the_limit_is_refused_before_its_body_is_read(stub: Any) -> None:
    target = stub(default=Scripted(stream=b"x" * 65536, stream_bytes=100 * 1024 * 1024, declared=100 * 1024 * 1024))
    peak, error = _peak_while(lambda: _target(target).schema_types())
    assert "the target's reply to GET /schemas/types declared 104857600 bytes" in str(error)
    assert peak < LIMIT


@pytest.mark.parametrize(("reply", "call", "sentence"), [
    ({"subjects": []}, lambda t: t.subjects(), "the target's reply to GET /subjects was not a JSON list"),
    (["1", "2"], lambda t: t.versions("s", True),
     "the target's reply to GET /subjects/s/versions was not a JSON list of integers"),
    ({"id": "7", "schema": "{}"}, lambda t: t.version("s", 1),
     "the target's reply to GET /subjects/s/versions/1 has no `id` (an integer)"),
    ({"id": 7, "schema": "{}", "references": [{"name": "r"}]}, lambda t: t.version("s", 1),
     "the target's reply to GET /subjects/s/versions/1 (a reference) has no `subject` (a string)"),
    (["READWRITE"], lambda t: t.mode(None), "the target's reply to GET /mode was not a JSON object"),
    ({"mode": 1}, lambda t: t.mode(None), "the target's reply to GET /mode has no `mode` (a string)"),
    ("<html>", lambda t: t.schema_types(), "the target's reply to GET /schemas/types was not a JSON list"),
    ({"id": True}, lambda t: t.register("s", {}), "the target's reply to POST /subjects/s/versions has no `id` "
                                                   "(an integer)"),
], ids=["subjects", "versions", "version id", "reference", "mode type", "mode field", "html", "register"])
def test_a_reply_of_the_wrong_shape_is_one_sentence_naming_the_request(stub: Any, reply: Any, call: Any,
                                                                      sentence: str) -> None:
    target = stub(default=Scripted(200, reply))
    with pytest.raises(TransferError) as raised:
        call(_target(target))
    assert str(raised.value) == sentence


def test_verify_and_mirror_read_through_the_same_bound(stub: Any, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("REGISTRY_EXPORTER_MAX_REPLY_BYTES", str(LIMIT))
    source = stub(default=Scripted(stream=b"[" + b"1," * 32 * 1024, stream_bytes=None))
    target = stub(default=Scripted(200, []))
    for command in ("verify", "mirror"):
        code = commands.main([command, "--from", source.url, "--to", target.url, "--no-progress"])
        assert code == commands.EXIT_ERROR
        error = capsys.readouterr().err
        assert error.startswith("error: the source's reply to GET /") and f"past the limit of {LIMIT} bytes" in error
