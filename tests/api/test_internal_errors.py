"""Unexpected failures: 500/500, a generic message, the details only in the log."""
from __future__ import annotations

import logging

import pytest

from api_client import Api


def test_unhandled_exception_is_500_without_details(api: Api, service, monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    def explode(*args, **kwargs):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(service, "list_subjects", explode)
    with caplog.at_level(logging.ERROR):
        reply = api.get("/subjects")
    assert (reply.status, reply.json) == (500, {"error_code": 500, "message": "Internal Server Error"})
    assert reply.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"
    assert "secret" not in reply.raw and "Traceback" not in reply.raw
    assert "secret internal detail" in caplog.text
