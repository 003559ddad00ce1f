"""Fixtures for the policy tests: the HTTP helpers of tests/api, and documents they share."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from api_client import Api  # noqa: E402


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)
