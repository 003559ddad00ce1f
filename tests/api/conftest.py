"""Fixtures for the HTTP tests."""
from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from api_client import Api


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)
