"""Fixtures of the DEK registry's tests: the registry with a local KMS secret, on both
databases (helpers in dek_support.py)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from dek_support import SECRET, DekApi, make_app
from flask import Flask


@pytest.fixture
def dek_app(database_url: str) -> Iterator[Flask]:
    app = make_app(database_url, kms_local_secret=SECRET)
    yield app
    app.extensions["registry"].storage.close()


@pytest.fixture
def deks(dek_app: Flask) -> DekApi:
    return DekApi(dek_app)
