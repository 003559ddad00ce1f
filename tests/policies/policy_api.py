"""The HTTP helpers of tests/api for the policy tests, imported by each module (a conftest.py
here would shadow the `conftest` module other test directories import by name)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from api_client import Api  # noqa: E402

__all__ = ["Api", "api"]


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)
